//! `DELETE /projects/:id/releases/:tag_name`: 200 with the deleted Release (the tag stays),
//! as `Releases::DestroyService` answers (V): a missing tag is 404 `Tag does not exist`, a
//! missing release 404 `Release does not exist`; `destroy_release` is Developer in the newest
//! `project_policy.rb` (older GitLab: Maintainer). Announced as `Event::Release` (`Deleted`).

use super::{entity, event, repository, Rights};
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::events::ReleaseAction;
use crate::git;
use crate::response::Response;
use crate::store::releases;

pub fn delete(call: &Call, id: &str, tag_name: &str) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::ReadRelease)?;
    call.caller.require_user()?;
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ManageRelease))?;
    let repo = call.repository(&project, "Release")?;
    if git::refs::tag(&repo, tag_name).map_err(ApiError::internal)?.is_none() {
        return Err(ApiError::Missing("Tag does not exist".into()));
    }
    let Some(release) = call.ctx.store.read(|db| releases::find(db, project.id, tag_name))? else {
        return Err(ApiError::Missing("Release does not exist".into()));
    };
    // The answer shows the release as it was, its links included.
    let rights = Rights::of(call, &project)?;
    let body = entity(call, &project, repository(call, &project).as_ref(), &release, rights, false)?;
    let event = event(call, &release, ReleaseAction::Deleted);
    // Recorded before the row goes: the Release Hook's payload is the release as it was (GitLab
    // builds it from the destroyed record in memory), in the same transaction.
    call.ctx.store.write(|db| -> ApiResult<_> {
        let followed = call.ctx.events.record(db, &event)?;
        releases::delete(db, release.id)?;
        Ok(followed)
    })?;
    call.ctx.events.heard(&event);
    Ok(Response::json(200, &body))
}
