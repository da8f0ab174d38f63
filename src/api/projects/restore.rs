//! `POST /projects/:id/restore` (decisions D9): a project marked for deletion is kept after
//! all, and unarchived (GitLab's `Projects::RestoreService`); `remove_project` as for deleting
//! it; 201 with the project.

use super::{entity_for, View};
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store;

pub fn restore(call: &Call, id: &str) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::Read)?;
    call.caller.require_user()?;
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::RemoveProject))?;
    if project.marked_for_deletion_at.is_none() {
        return Err(ApiError::validation("Project has not been marked for deletion"));
    }
    call.ctx.store.write(|db| store::projects::set_marked_for_deletion(db, project.id, None))?;
    let project = store::projects::Project {
        marked_for_deletion_at: None,
        marked_for_deletion_by: None,
        archived: false,
        ..project
    };
    let view = View { simple: false, with_access: true, read_code: true };
    Ok(Response::json(201, &entity_for(call.ctx, &call.caller, &call.base_url, &project, view)?))
}
