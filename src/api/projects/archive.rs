//! `POST /projects/:id/archive` and `/unarchive` (reference §8, §9): Owners, or a custom role's
//! `archive_project`; 201 with the project. An archived project is read-only on every write
//! path (the permission function refuses `PushCode`); archiving an archived project again
//! changes nothing and answers the same.

use super::{entity_for, View};
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::ApiResult;
use crate::response::Response;
use crate::store;

pub fn archive(call: &Call, id: &str) -> ApiResult<Response> {
    set(call, id, true)
}

pub fn unarchive(call: &Call, id: &str) -> ApiResult<Response> {
    set(call, id, false)
}

fn set(call: &Call, id: &str, archived: bool) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::Read)?;
    call.caller.require_user()?;
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ArchiveProject))?;
    call.ctx.store.write(|db| store::projects::set_archived(db, project.id, archived))?;
    let project = store::projects::Project { archived, ..project };
    let view = View { simple: false, with_access: true, read_code: true };
    Ok(Response::json(201, &entity_for(call.ctx, &call.caller, &call.base_url, &project, view)?))
}
