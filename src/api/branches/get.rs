//! `GET` (and `HEAD`) `/projects/:id/repository/branches/:branch`: the Branch entity, or 404
//! `Branch Not Found`.

use super::{find, Scope};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::response::Response;

pub fn get(call: &Call, project: &str, branch: &str) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadCode)?;
    let scope = Scope::new(call, project)?;
    let branch = find(&scope, branch)?;
    Ok(Response::json(200, &scope.entity(&branch)?))
}
