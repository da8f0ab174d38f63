//! `GET /projects/:id`: `ProjectWithAccess` for signed-in callers, `ProjectDetails` for
//! anonymous ones (and job tokens), 404 for a project the caller may not see.

use super::{entity_for, View};
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::ApiResult;
use crate::response::Response;

pub fn get(call: &Call, id: &str) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::Read)?;
    let read_code = call
        .ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ReadCode))
        .is_ok();
    let view = View { simple: false, with_access: call.caller.user().is_some(), read_code };
    Ok(Response::json(200, &entity_for(call.ctx, &call.caller, &call.base_url, &project, view)?))
}
