//! `GET /projects/:id/releases/:tag_name` (`include_html_description`): the Release entity;
//! 404 `404 Not Found` when the tag has no release. GitLab asks `read_release` and
//! `read_code` (`authorize_read_code!`: 403 for a guest of a private project).

use super::{entity, find, repository, Rights};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;

pub fn get(call: &Call, id: &str, tag_name: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::ReadRelease)?;
    call.ctx
        .store
        .read(|db| crate::auth::permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ReadCode))?;
    let html = params.bool("include_html_description")?.unwrap_or(false);
    let release = find(call, &project, tag_name)?;
    let rights = Rights::of(call, &project)?;
    let repo = repository(call, &project);
    Ok(Response::json(200, &entity(call, &project, repo.as_ref(), &release, rights, html)?))
}
