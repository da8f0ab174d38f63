//! `GET /projects/:id/releases/:tag_name/assets/links/:link_id`: the Link entity; 404 `404 Not
//! found` for an unknown link.

use super::{find, release_of};
use crate::api::releases::link_entity;
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::response::Response;

pub fn get(call: &Call, id: &str, tag_name: &str, link_id: &str) -> ApiResult<Response> {
    let (project, release) = release_of(call, id, tag_name, ProjectAbility::ReadRelease)?;
    let link = find(call, &release, link_id)?;
    Ok(Response::json(200, &link_entity(call, &project, &release, &link)))
}
