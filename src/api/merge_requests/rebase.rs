//! `PUT /projects/:id/merge_requests/:merge_request_iid/rebase` (reference §1.5): GitLab's
//! `RebaseService#validate` refusals (403 `Source branch does not exist`, `Cannot push to source
//! branch`, `Source branch is protected from force push`; 409 for a merge request that is not
//! open), then the rebase of the source branch onto the target's tip (`git::merge::rebase`:
//! each commit replayed, committer the caller, the branch force-moved by compare-and-swap).
//! GitLab answers 202 `{"rebase_in_progress":true}` and rebases in a worker; here the rebase is
//! done before the answer, so the next `GET ...?include_rebase_in_progress=true` shows it
//! finished (`false`) with the new head. A failed rebase keeps GitLab's `merge_error`.
//! `skip_ci` is accepted (no pipelines run here).

use super::find;
use crate::api::users::identity;
use crate::api::Call;
use crate::auth::protection::{self, RefChange, Refusal};
use crate::error::{ApiError, ApiResult};
use crate::git::merge::{self as git_merge, MergeError};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, merge_requests};
use serde_json::json;

/// GitLab's `merge_error` after a rebase that did not go through.
pub const REBASE_FAILED: &str = "Rebase failed: Rebase locally, resolve all conflicts, then push the branch.";

pub fn rebase(call: &Call, id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let (project, mr) = find(call, id, iid)?;
    params.bool("skip_ci")?;
    let source_project = match mr.source_project_id {
        Some(id) if id == project.id => project.clone(),
        Some(id) => call
            .ctx
            .store
            .read(|db| store::projects::find_by_id(db, id))?
            .ok_or_else(|| ApiError::Forbidden(Some("Source branch does not exist".into())))?,
        None => return Err(ApiError::Forbidden(Some("Source branch does not exist".into()))),
    };
    let repo = call.repository(&source_project, "Project")?;
    let Some(source) = crate::git::refs::branch(&repo, &mr.source_branch).map_err(ApiError::internal)? else {
        return Err(ApiError::Forbidden(Some("Source branch does not exist".into())));
    };
    let default_branch = crate::git::default_branch(call.git_dir(&source_project)?);
    let rule = call.ctx.store.read(|db| {
        protection::check(
            db,
            &call.caller,
            &source_project,
            default_branch.as_deref(),
            &mr.source_branch,
            RefChange::ForceUpdate,
        )
    })?;
    match rule {
        Ok(()) => {}
        Err(Refusal::ForcePush) => {
            return Err(ApiError::Forbidden(Some("Source branch is protected from force push".into())))
        }
        Err(_) => return Err(ApiError::Forbidden(Some("Cannot push to source branch".into()))),
    }
    if !mr.is_open() {
        return Err(ApiError::Conflict("409 Conflict: Resource lock".into()));
    }
    let target_repo = call.repository(&project, "Project")?;
    let target = crate::git::refs::branch(&target_repo, &mr.target_branch).map_err(ApiError::internal)?;
    // A fork's source repository must hold the target's tip to rebase onto it.
    let onto = target.filter(|t| repo.find_object(*t).is_ok());
    let who = identity(call, &user);
    let outcome = match onto {
        Some(onto) => {
            call.git("merge_rebase", || git_merge::rebase(&repo, &mr.source_branch, source, onto, &who, |_| true))
        }
        None => Err(MergeError::NoBranch(mr.target_branch.clone())),
    };
    match outcome {
        Ok(rebased) => {
            call.ctx.store.write(|db| -> ApiResult<()> {
                if let Some(mut current) = merge_requests::find_by_id(db, mr.id)? {
                    if current.merge_error.is_some() {
                        current.merge_error = None;
                        merge_requests::update(db, &current)?;
                    }
                }
                Ok(())
            })?;
            if let Some(update) = rebased.update {
                call.refs_moved(&source_project, vec![update])?;
            }
        }
        Err(e @ MergeError::Git(_)) => return Err(ApiError::internal(e)),
        Err(_) => {
            call.ctx.store.write(|db| -> ApiResult<()> {
                if let Some(mut current) = merge_requests::find_by_id(db, mr.id)? {
                    current.merge_error = Some(REBASE_FAILED.into());
                    merge_requests::update(db, &current)?;
                }
                Ok(())
            })?;
        }
    }
    Ok(Response::json(202, &json!({"rebase_in_progress": true})))
}
