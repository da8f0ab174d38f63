//! `POST /projects/:id/releases/:tag_name/assets/links` (`name`, `url` required;
//! `direct_asset_path` | `filepath`, `link_type`): 201 and the Link entity; the model's rules
//! (`super::problems`) answer 400 `Validation failed: ...`. Changing links is updating the
//! release (Developer); announced as the release's `Updated`.

use super::{invalid, problems, release_of, LinkInput};
use crate::api::releases::{event, link_entity};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::events::ReleaseAction;
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, releases};

pub fn create(call: &Call, id: &str, tag_name: &str, params: &Params) -> ApiResult<Response> {
    call.caller.require_user()?;
    let (project, release) = release_of(call, id, tag_name, ProjectAbility::ManageRelease)?;
    params.required_string("name")?;
    params.required_string("url")?;
    let input = LinkInput::from_object(|key| params.raw(key).cloned());
    let now = store::now_seconds();
    let mut links = call.ctx.store.read(|db| releases::links(db, release.id))?;
    links.reverse();
    links.push(releases::Link {
        id: 0,
        release_id: release.id,
        name: input.name.unwrap_or_default(),
        url: input.url.unwrap_or_default(),
        filepath: input.filepath,
        link_type: input.link_type.unwrap_or_else(|| "other".into()),
        created_at: now,
    });
    let found = problems(&links);
    if !found.is_empty() {
        return Err(invalid(&found));
    }
    let new = links.pop().unwrap_or_else(|| unreachable!("just pushed"));
    let event = event(call, &release, ReleaseAction::Updated);
    let link = call.ctx.store.write(|db| -> ApiResult<_> {
        let link =
            releases::insert_link(db, release.id, &new.name, &new.url, new.filepath.as_deref(), &new.link_type, now)?;
        call.ctx.events.record(db, &event)?;
        Ok(link)
    })?;
    call.ctx.events.heard(&event);
    Ok(Response::json(201, &link_entity(call, &project, &release, &link)))
}
