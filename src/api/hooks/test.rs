//! `POST /projects/:id/hooks/:hook_id/test/:trigger`: sends sample data now, even to a
//! disabled hook (`force: true`), and waits for the answer: 201 `{"message":"201 Created"}`, or
//! 422 with the receiver's body or the failure. Push and tag push samples are the last three
//! commits of the default branch (`DataBuilder::Push.build_sample`); an empty repository is 422
//! `Ensure the project has at least one commit.`. Merge requests, notes and releases send the
//! project's newest one (422 `Ensure the project has merge requests.`, `... notes.`,
//! `... releases.`, V `TestHooks::ProjectService`). Five tests a minute per project and user.

use super::{administered, find};
use crate::api::Call;
use crate::config::RateLimit;
use crate::error::{ApiError, ApiResult};
use crate::events::{MergeRequestAction, MergeRequestChanged, NoteCreated};
use crate::git::write::RefUpdate;
use crate::hooks::payload::merge_request::Sources;
use crate::hooks::payload::push::{self, Push};
use crate::hooks::payload::{self};
use crate::hooks::{deliver, uuid};
use crate::response::ordered::Node;
use crate::response::Response;
use crate::store::{self, hooks};
use serde_json::json;

/// `ProjectHook.triggers`.
pub const TRIGGERS: [&str; 15] = [
    "push_events",
    "tag_push_events",
    "issues_events",
    "confidential_issues_events",
    "note_events",
    "confidential_note_events",
    "merge_requests_events",
    "job_events",
    "pipeline_events",
    "wiki_page_events",
    "deployment_events",
    "feature_flag_events",
    "releases_events",
    "emoji_events",
    "resource_access_token_events",
];

pub fn test(call: &Call, project: &str, hook_id: &str, trigger: &str) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let hook = find(call, &project, hook_id)?;
    if !TRIGGERS.contains(&trigger) {
        return Err(ApiError::InvalidValue("trigger".into()));
    }
    let user = call.caller.user().map(|u| u.id).unwrap_or(0);
    call.ctx.throttle(
        RateLimit { limit: 5, period_seconds: 60 },
        &format!("web_hook_test:{}:{user}", project.id),
        "This endpoint has been requested too many times. Try again later.",
    )?;
    let hook_name = match trigger {
        "push_events" => "push_hooks",
        "tag_push_events" => "tag_push_hooks",
        "merge_requests_events" => "merge_request_hooks",
        "note_events" => "note_hooks",
        "confidential_note_events" => "confidential_note_hooks",
        "releases_events" => "release_hooks",
        other => {
            return Err(ApiError::Unprocessable(format!("Testing {other} is not supported by forgecore yet")));
        }
    };
    let payload = match trigger {
        "push_events" | "tag_push_events" => push_sample(call, &project)?,
        _ => record_sample(call, &project, trigger)?,
    };
    let outcome = deliver::execute(
        call.ctx.hooks.rules(),
        call.ctx.hooks.instance(),
        &hook,
        hook_name,
        &payload,
        &uuid(),
        &uuid(),
    );
    call.ctx.store.write(|db| -> ApiResult<()> {
        hooks::insert_log(db, &outcome.log)?;
        hooks::record_outcome(db, hook.id, outcome.success, store::now_seconds())?;
        Ok(())
    })?;
    if outcome.success {
        Ok(Response::json(201, &json!({"message": "201 Created"})))
    } else {
        Err(ApiError::Unprocessable(outcome.message))
    }
}

/// Push and tag push: the last three commits of the default branch (`build_sample`).
fn push_sample(call: &Call, project: &store::projects::Project) -> ApiResult<String> {
    let git_dir = call.git_dir(project)?;
    let repo = crate::git::open(&git_dir).map_err(ApiError::internal)?;
    let default_branch = crate::git::default_branch(&git_dir);
    let no_commit = || ApiError::Unprocessable("Ensure the project has at least one commit.".into());
    let branch = default_branch.clone().ok_or_else(no_commit)?;
    let tip = crate::git::refs::branch(&repo, &branch).map_err(ApiError::internal)?.ok_or_else(no_commit)?;
    // The sample's range: the third newest commit of the default branch to its tip.
    let mut walk = repo.rev_walk([tip]).all().map_err(ApiError::internal)?;
    let oldest = walk.by_ref().take(3).filter_map(Result::ok).last().map(|c| c.id).filter(|id| *id != tip);
    let update = RefUpdate { name: format!("refs/heads/{branch}"), old: oldest, new: Some(tip) };
    let base = call.base_url.clone();
    let payload = call.ctx.store.read(|db| -> ApiResult<_> {
        let user = match call.caller.user() {
            Some(u) => store::users::find_by_id(db, u.id)?,
            None => None,
        };
        let push = Push {
            project,
            user: user.as_ref(),
            base: &base,
            default_branch: default_branch.as_deref(),
            ref_protected: false,
        };
        push::build(db, &repo, &push, &update).map_err(|e| ApiError::internal(std::io::Error::other(e)))
    })?;
    let Some((_, payload)) = payload else { return Err(no_commit()) };
    Ok(payload.text())
}

/// Merge requests, notes and releases: the project's newest one, as GitLab's
/// `TestHooks::ProjectService` takes it (`merge_request.to_hook_data`, `Note.build(note, user,
/// :create)`, `release.to_hook_data('create')`), or 422 `Ensure the project has ...`.
fn record_sample(call: &Call, project: &store::projects::Project, trigger: &str) -> ApiResult<String> {
    let git_dir = call.git_dir(project).ok();
    let repo = git_dir.as_deref().and_then(|d| crate::git::open(d).ok());
    let default_branch = git_dir.as_deref().and_then(crate::git::default_branch);
    let base = call.base_url.clone();
    let user_id = call.caller.user().map(|u| u.id);
    let src = Sources { base: &base, repo: repo.as_ref(), default_branch: default_branch.as_deref() };
    let built = call.ctx.store.read(|db| -> ApiResult<_> {
        Ok(match trigger {
            "merge_requests_events" => {
                let Some(mr) = store::merge_requests::newest(db, project.id)? else {
                    return Err(ApiError::Unprocessable("Ensure the project has merge requests.".into()));
                };
                let event = MergeRequestChanged {
                    action: MergeRequestAction::Opened,
                    merge_request: mr,
                    previous: None,
                    user_id,
                };
                let mut payload = payload::merge_request::build(db, &src, &event)?;
                // `to_hook_data` alone: no `action`.
                if let Some((_, Node::Obj(o))) = payload.as_mut() {
                    if let Some(Node::Obj(attrs)) =
                        o.0.iter_mut().find(|(k, _)| *k == "object_attributes").map(|(_, n)| n)
                    {
                        attrs.remove("action");
                    }
                }
                payload
            }
            "note_events" | "confidential_note_events" => {
                let Some(note) = store::notes::newest(db, project.id)? else {
                    return Err(ApiError::Unprocessable("Ensure the project has notes.".into()));
                };
                let event = NoteCreated {
                    project_id: project.id,
                    note_id: note.id,
                    noteable_type: note.noteable_type.clone(),
                    noteable_id: note.noteable_id,
                    commit_id: note.commit_id.clone(),
                    user_id,
                    confidential: trigger == "confidential_note_events",
                };
                payload::note::build(db, &src, &event)?
            }
            _ => {
                let Some(release) = store::releases::newest(db, project.id)? else {
                    return Err(ApiError::Unprocessable("Ensure the project has releases.".into()));
                };
                payload::release::build_for(db, &base, repo.as_ref(), default_branch.as_deref(), &release, "create")?
            }
        })
    })?;
    let Some((_, payload)) = built else { return Err(ApiError::Unprocessable("Ensure the project has data.".into())) };
    Ok(payload.text())
}
