//! `PUT /projects/:id/releases/:tag_name` (`name`, `description`, `released_at`,
//! `milestones` / `milestone_ids`): 200 and the Release entity. `Releases::UpdateService`'s
//! answers (V): a missing tag is 404 `Tag does not exist`, a missing release 404 `Release does
//! not exist`, nothing to change 400 `params is empty`; `update_release` is Developer (403
//! otherwise). Milestones are not kept: `[]` clears nothing, a title names none (400).
//! Announced as `Event::Release` (`Updated`).

use super::{entity, event, released_at, repository, Rights};
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::events::ReleaseAction;
use crate::git;
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, releases};

pub fn update(call: &Call, id: &str, tag_name: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::ReadRelease)?;
    call.caller.require_user()?;
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ManageRelease))?;
    let name = params.string("name")?;
    let description = params.string("description")?;
    let released = released_at(params)?;
    let milestones = params.string_list("milestones")?.unwrap_or_default();
    let repo = call.repository(&project, "Release")?;
    if git::refs::tag(&repo, tag_name).map_err(ApiError::internal)?.is_none() {
        return Err(ApiError::Missing("Tag does not exist".into()));
    }
    let Some(mut release) = call.ctx.store.read(|db| releases::find(db, project.id, tag_name))? else {
        return Err(ApiError::Missing("Release does not exist".into()));
    };
    if name.is_none() && description.is_none() && released.is_none() && !params.contains("milestones") {
        return Err(ApiError::validation("params is empty"));
    }
    if !milestones.is_empty() {
        return Err(ApiError::validation(format!("Milestone(s) not found: {}", milestones.join(", "))));
    }
    if let Some(name) = name {
        release.name = name;
    }
    if let Some(description) = description {
        release.description = description;
    }
    if let Some(at) = released {
        release.released_at = at;
    }
    release.updated_at = store::now_seconds();
    let event = event(call, &release, ReleaseAction::Updated);
    call.ctx.store.write(|db| -> ApiResult<_> {
        releases::update(db, &release)?;
        call.ctx.events.record(db, &event)
    })?;
    call.ctx.events.heard(&event);
    let rights = Rights::of(call, &project)?;
    let repo = repository(call, &project);
    Ok(Response::json(200, &entity(call, &project, repo.as_ref(), &release, rights, false)?))
}
