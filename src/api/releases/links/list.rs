//! `GET /projects/:id/releases/:tag_name/assets/links`: the release's links, newest first,
//! paginated; `read_release`.

use super::release_of;
use crate::api::ordered::Node;
use crate::api::releases::link_entity;
use crate::api::{pagination, Call};
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::releases;

pub fn list(call: &Call, id: &str, tag_name: &str, params: &Params) -> ApiResult<Response> {
    let (project, release) = release_of(call, id, tag_name, ProjectAbility::ReadRelease)?;
    let page = pagination::page(call, params)?;
    let links = call.ctx.store.read(|db| releases::links(db, release.id))?;
    let shown: Vec<Node> = links
        .iter()
        .skip(page.offset())
        .take(page.per_page)
        .map(|link| link_entity(call, &project, &release, link))
        .collect();
    let mut response = Response::json(200, &Node::Arr(shown));
    response.headers.extend(pagination::offset_headers(call, page, links.len(), &[]));
    Ok(response)
}
