//! `GET` `/projects/:id/repository/branches/:branch`: the Branch entity, or 404 `Branch Not
//! Found`. `HEAD` only says whether the branch exists, as GitLab's does: 204, or 404, without
//! making the entity.

use super::{find, Scope};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::response::Response;

pub fn get(call: &Call, project: &str, branch: &str, head: bool) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadCode)?;
    let scope = Scope::new(call, project)?;
    let branch = find(&scope, branch)?;
    if head {
        return Ok(Response::no_content());
    }
    Ok(Response::json(200, &scope.entity(&branch)?))
}
