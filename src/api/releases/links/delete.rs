//! `DELETE /projects/:id/releases/:tag_name/assets/links/:link_id`: 200 and the deleted Link.

use super::{find, release_of};
use crate::api::releases::{event, link_entity};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::events::ReleaseAction;
use crate::response::Response;
use crate::store::releases;

pub fn delete(call: &Call, id: &str, tag_name: &str, link_id: &str) -> ApiResult<Response> {
    call.caller.require_user()?;
    let (project, release) = release_of(call, id, tag_name, ProjectAbility::ManageRelease)?;
    let link = find(call, &release, link_id)?;
    let event = event(call, &release, ReleaseAction::Updated);
    call.ctx.store.write(|db| -> ApiResult<_> {
        releases::delete_link(db, link.id)?;
        call.ctx.events.record(db, &event)
    })?;
    call.ctx.events.heard(&event);
    Ok(Response::json(200, &link_entity(call, &project, &release, &link)))
}
