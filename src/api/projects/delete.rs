//! `DELETE /projects/:id` (decisions D9, reference §8): Owners, or a custom role's
//! `remove_project`. The project is marked for deletion (and archived, as GitLab's
//! `Projects::MarkForDeletionService` does) and answers 202; it is purged after
//! `limits.deletion_delay_days` (0: at once). `permanently_remove=true` with the project's
//! `full_path` purges a marked project at once, with GitLab's 400 texts otherwise. Empty
//! values (client-go sends `full_path=&permanently_remove=`) count as absent.

use super::purge;
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_bool_word, Params};
use crate::response::Response;
use crate::store::{self, now_seconds};
use serde_json::json;

/// GitLab's `accepted!`.
pub fn accepted() -> Response {
    Response::json(202, &json!({"message": "202 Accepted"}))
}

/// A boolean parameter where an empty value is none.
pub fn flag(params: &Params, name: &str) -> ApiResult<bool> {
    match params.raw(name) {
        Some(serde_json::Value::String(s)) if s.is_empty() => Ok(false),
        Some(serde_json::Value::String(s)) => {
            parse_bool_word(s).ok_or_else(|| ApiError::InvalidParam(name.to_string()))
        }
        _ => Ok(params.bool(name)?.unwrap_or(false)),
    }
}

pub fn delete(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::Read)?;
    let user = call.caller.require_user()?;
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::RemoveProject))?;
    if flag(params, "permanently_remove")? {
        if project.marked_for_deletion_at.is_none() {
            return Err(ApiError::validation("Project must be marked for deletion first."));
        }
        let full_path = params.string("full_path")?.unwrap_or_default();
        if full_path != project.full_path {
            return Err(ApiError::validation(
                "`full_path` is incorrect. You must enter the complete path for the project.",
            ));
        }
        purge::purge_project(call.ctx, project.id)?;
        return Ok(accepted());
    }
    // Marking a marked project again is a success (`MarkForDeletionService` returns early).
    if project.marked_for_deletion_at.is_some() {
        return Ok(accepted());
    }
    let mark = Some((now_seconds(), Some(user.id)));
    call.ctx.store.write(|db| store::projects::set_marked_for_deletion(db, project.id, mark))?;
    if call.ctx.config.limits.deletion_delay_days == 0 {
        purge::purge_project(call.ctx, project.id)?;
    }
    Ok(accepted())
}
