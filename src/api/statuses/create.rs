//! `POST /projects/:id/statuses/:sha` (`state` required, `ref`, `name` | `context` (default
//! `default`), `target_url`, `description`, `coverage`, `pipeline_id`): 201 and the
//! CommitStatus entity, as `Ci::CreateCommitStatusService` does it (V, newest):
//! - the commit must exist (404 `404 Commit Not Found`); `ref` is the parameter, else the
//!   named or newest pipeline's ref, else the first branch containing the commit (404 `404
//!   References for commit Not Found`); a `pipeline_id` that names no pipeline of that sha
//!   (and ref) is 404 `404 Pipeline for pipeline_id, sha and ref Not Found`;
//! - the pipeline is the newest for the sha and ref, else a new one (`source: external`);
//! - the job is the pipeline's pending or running status of that name, ref and user, reused;
//!   else a new one, which retries any earlier one of the name (a finished status never
//!   changes);
//! - the state moves by GitLab's state machine (`enqueue!`, `enqueue` then `run!`, `success!`,
//!   `drop!`, `cancel!`, `skip!`); a move it refuses is 400 with its words, e.g. `Cannot
//!   transition status via :run from :running (Reason(s): Status cannot transition via
//!   "run")`, which Renovate and Atlantis match on.
//!
//! Developer and above (`create_commit_status`, `update_pipeline`); announced as
//! `Event::CommitStatus` with the pipeline's status before and after.

use super::{finished, refresh, status_entity, STATES};
use crate::api::repository::commits;
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::events::{Event, StatusChanged};
use crate::git::log;
use crate::params::Params;
use crate::response::Response;
use crate::store::statuses::{self, CommitStatus};
use crate::store::{self, Db};
use gix::bstr::ByteSlice;
use serde_json::json;

/// Grape's `limit: 255` on a string parameter.
fn limited(params: &Params, name: &str) -> ApiResult<Option<String>> {
    let value = params.string(name)?;
    if value.as_ref().is_some_and(|v| v.chars().count() > 255) {
        return Err(ApiError::ParamError(format!("{name} is too long (maximum is 255 characters)")));
    }
    Ok(value)
}

/// Whether `url` is what Rails' URL validation takes for `target_url`: `http` or `https` with
/// a host.
fn valid_url(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let Some(rest) = lower.strip_prefix("https://").or_else(|| lower.strip_prefix("http://")) else { return false };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    !host.is_empty() && !url.chars().any(char::is_whitespace)
}

/// The move of `from` to the posted `to`, as GitLab's state machine makes it: the new state,
/// or the refusal's words.
pub fn transition(from: &str, to: &str) -> Result<&'static str, String> {
    let refuse = |event: &str| {
        Err(format!(
            "Cannot transition status via :{event} from :{from} (Reason(s): Status cannot transition via \"{event}\")"
        ))
    };
    // Which states each event leaves from (`CommitStatus`'s state machine).
    let from_any = |states: &[&str]| states.contains(&from);
    match to {
        "pending" => {
            if from_any(&["created"]) {
                Ok("pending")
            } else {
                refuse("enqueue")
            }
        }
        "running" => {
            // `enqueue` (without a bang: a refusal is no error), then `run!` from pending.
            let state = if from == "created" { "pending" } else { from };
            if state == "pending" {
                Ok("running")
            } else {
                Err(format!(
                    "Cannot transition status via :run from :{state} (Reason(s): Status cannot transition via \"run\")"
                ))
            }
        }
        "success" if from_any(&["created", "pending", "running"]) => Ok("success"),
        "success" => refuse("success"),
        "failed" if from_any(&["created", "pending", "running"]) => Ok("failed"),
        "failed" => refuse("drop"),
        "canceled" if from_any(&["created", "pending", "running"]) => Ok("canceled"),
        "canceled" => refuse("cancel"),
        "skipped" if from_any(&["created", "pending"]) => Ok("skipped"),
        "skipped" => refuse("skip"),
        _ => Err(format!("Cannot transition status to {to}")),
    }
}

/// The first branch (by name) containing `commit`, as GitLab's `branches_for` picks.
fn first_branch(repo: &gix::Repository, commit: gix::ObjectId) -> ApiResult<Option<String>> {
    let platform = repo.references().map_err(ApiError::internal)?;
    let mut named = Vec::new();
    for reference in platform.prefixed("refs/heads/").map_err(ApiError::internal)? {
        let Ok(mut reference) = reference else { continue };
        let name = reference.name().as_bstr().to_str_lossy().trim_start_matches("refs/heads/").to_string();
        if let Ok(id) = reference.peel_to_id() {
            named.push((name, id.detach()));
        }
    }
    named.sort();
    let tips: Vec<gix::ObjectId> = named.iter().map(|(_, id)| *id).collect();
    let answers = log::contains(repo, commit, &tips).or_broken()?;
    Ok(named.into_iter().zip(answers).find(|(_, yes)| *yes).map(|((name, _), _)| name))
}

pub fn create(call: &Call, id: &str, sha: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::Read)?;
    let user = call.caller.require_user()?.clone();
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::CreateCommitStatus))?;
    let state = params.required_string("state")?;
    if !STATES.contains(&state.as_str()) {
        return Err(ApiError::InvalidValue("state".into()));
    }
    let ref_param = limited(params, "ref")?.filter(|r| !r.is_empty());
    let target_url = limited(params, "target_url")?;
    let description = limited(params, "description")?;
    let name = match params.string("name")?.filter(|n| !n.is_empty()) {
        Some(name) => name,
        None => params.string("context")?.filter(|n| !n.is_empty()).unwrap_or_else(|| "default".into()),
    };
    let coverage = match params.raw("coverage") {
        None | Some(serde_json::Value::Null) => None,
        Some(value) => {
            let text = match value {
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::String(s) => s.trim().to_string(),
                _ => return Err(ApiError::InvalidParam("coverage".into())),
            };
            match text.parse::<f64>() {
                Ok(n) if n.is_finite() => Some(text),
                _ => return Err(ApiError::InvalidParam("coverage".into())),
            }
        }
    };
    let pipeline_id = params.int("pipeline_id")?;
    if target_url.as_deref().is_some_and(|url| !valid_url(url)) {
        return Err(ApiError::Validation(json!({"target_url": ["must be a valid URL"]})));
    }
    let repo = call.repository(&project, "Commit")?;
    let commit = commits::find(&repo, sha)?.id;
    let sha = commit.to_string();
    let ref_name = match ref_param {
        Some(r) => r,
        None => {
            let known = call.ctx.store.read(|db| -> ApiResult<_> {
                Ok(match pipeline_id {
                    Some(pid) => statuses::pipeline(db, project.id, pid)?.filter(|p| p.sha == sha).map(|p| p.ref_name),
                    None => statuses::latest_for_sha(db, project.id, &sha, None)?.map(|p| p.ref_name),
                })
            })?;
            match known {
                Some(r) => r,
                None => first_branch(&repo, commit)?.ok_or(ApiError::NotFound("References for commit"))?,
            }
        }
    };
    let now = store::now_seconds();
    let user_id = Some(user.id);
    let changed = call.ctx.store.write(|db: &mut Db| -> ApiResult<_> {
        statuses::lock(db, project.id)?;
        let pipeline = match pipeline_id {
            Some(pid) => statuses::pipeline(db, project.id, pid)?
                .filter(|p| p.sha == sha && p.ref_name == ref_name)
                .ok_or(ApiError::NotFound("Pipeline for pipeline_id, sha and ref"))?,
            None => match statuses::latest_for_sha(db, project.id, &sha, Some(&ref_name))? {
                Some(p) => p,
                None => statuses::insert_pipeline(db, project.id, &sha, &ref_name, user_id, now)?,
            },
        };
        let existing = statuses::open_status(db, pipeline.id, &name, &ref_name, user_id)?;
        let mut job = existing.clone().unwrap_or(CommitStatus {
            id: 0,
            project_id: project.id,
            pipeline_id: pipeline.id,
            sha: sha.clone(),
            ref_name: ref_name.clone(),
            name: name.clone(),
            status: "created".into(),
            target_url: None,
            description: None,
            coverage: None,
            user_id,
            retried: false,
            created_at: now,
            started_at: None,
            finished_at: None,
        });
        let next = transition(&job.status, &state).map_err(ApiError::validation)?;
        job.status = next.to_string();
        if next == "running" && job.started_at.is_none() {
            job.started_at = Some(now);
        }
        if finished(next) {
            job.finished_at = Some(now);
        }
        if params.contains("target_url") {
            job.target_url = target_url.clone();
        }
        if params.contains("description") {
            job.description = description.clone();
        }
        if params.contains("coverage") {
            job.coverage = coverage.clone();
        }
        let job = match existing {
            Some(_) => {
                statuses::update_status(db, &job)?;
                job
            }
            None => statuses::insert_status(db, &job)?,
        };
        let after = refresh(db, &pipeline, now)?;
        let event = Event::CommitStatus(StatusChanged {
            project_id: project.id,
            pipeline_id: pipeline.id,
            status_id: job.id,
            sha: sha.clone(),
            ref_name: ref_name.clone(),
            name: name.clone(),
            status: job.status.clone(),
            pipeline_before: pipeline.status.clone(),
            pipeline_status: after.status.clone(),
            user_id,
        });
        let followed = call.ctx.events.record(db, &event)?;
        Ok((job, event, followed))
    })?;
    let (job, event, followed) = changed;
    // What the status led to (an auto-merge carried out) is heard after it.
    call.ctx.events.heard_all(&event, &followed);
    Ok(Response::json(201, &status_entity(call, &job)?))
}

#[cfg(test)]
mod tests {
    use super::transition;

    #[test]
    fn the_state_machine_refuses_as_gitlab() {
        assert_eq!(transition("created", "running"), Ok("running"));
        assert_eq!(transition("pending", "running"), Ok("running"));
        assert_eq!(transition("pending", "skipped"), Ok("skipped"));
        assert_eq!(
            transition("pending", "pending").unwrap_err(),
            "Cannot transition status via :enqueue from :pending (Reason(s): Status cannot transition via \"enqueue\")"
        );
        assert!(transition("running", "running")
            .unwrap_err()
            .starts_with("Cannot transition status via :run from :running"));
        assert!(transition("running", "skipped")
            .unwrap_err()
            .starts_with("Cannot transition status via :skip from :running"));
        assert_eq!(transition("running", "success"), Ok("success"));
    }
}
