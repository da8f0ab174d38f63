//! `GET /projects/:id/repository/tags/:tag_name`: the Tag entity, or 404 `Tag Not Found`.

use super::{entity, find};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::response::Response;

pub fn get(call: &Call, project: &str, name: &str) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadCode)?;
    let repo = call.repository(&project, "Tag")?;
    let tag = find(&repo, name)?;
    let mut value = entity(&repo, &call.web_url(&project.full_path), &tag)?;
    if let Some(release) = super::releases_of(call, project.id)?.remove(&tag.name) {
        value["release"] = release;
    }
    Ok(Response::json(200, &value))
}
