//! `PUT /projects/:id/releases/:tag_name/assets/links/:link_id` (`name`, `url`,
//! `direct_asset_path` | `filepath`, `link_type`; at least one, else 400 `name, url,
//! direct_asset_path, link_type are missing, at least one parameter must be provided`): 200 and
//! the Link entity.

use super::{find, invalid, problems, release_of, LinkInput};
use crate::api::releases::{event, link_entity};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult};
use crate::events::ReleaseAction;
use crate::params::Params;
use crate::response::Response;
use crate::store::releases;

pub fn update(call: &Call, id: &str, tag_name: &str, link_id: &str, params: &Params) -> ApiResult<Response> {
    call.caller.require_user()?;
    let (project, release) = release_of(call, id, tag_name, ProjectAbility::ManageRelease)?;
    let mut link = find(call, &release, link_id)?;
    let input = LinkInput::from_object(|key| params.raw(key).cloned());
    if input.name.is_none() && input.url.is_none() && input.filepath.is_none() && input.link_type.is_none() {
        return Err(ApiError::ParamError(
            "name, url, filepath, direct_asset_path, link_type are missing, at least one parameter must be provided"
                .into(),
        ));
    }
    link.name = input.name.unwrap_or(link.name);
    link.url = input.url.unwrap_or(link.url);
    if input.filepath.is_some() {
        link.filepath = input.filepath;
    }
    link.link_type = input.link_type.unwrap_or(link.link_type);
    let mut all: Vec<releases::Link> =
        call.ctx.store.read(|db| releases::links(db, release.id))?.into_iter().filter(|l| l.id != link.id).collect();
    all.push(link.clone());
    let found = problems(&all);
    if !found.is_empty() {
        return Err(invalid(&found));
    }
    let event = event(call, &release, ReleaseAction::Updated);
    call.ctx.store.write(|db| -> ApiResult<_> {
        releases::update_link(db, &link)?;
        call.ctx.events.record(db, &event)
    })?;
    call.ctx.events.heard(&event);
    Ok(Response::json(200, &link_entity(call, &project, &release, &link)))
}
