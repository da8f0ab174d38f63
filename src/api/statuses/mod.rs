//! Commit statuses and the minimal pipelines tools read (issue #42,
//! `gitlab-hooks-releases-statuses.md` §3, D12): `POST /projects/:id/statuses/:sha`
//! ([`create`]), `GET .../repository/commits/:sha/statuses` ([`list`]) and
//! `GET /projects/:id/pipelines[/latest|/:id[/jobs]]` ([`pipelines`]). As GitLab does for
//! external statuses (`Ci::CreateCommitStatusService`), a status lives in a pipeline of
//! `source: external`, one per sha and ref, whose status is the composite of its latest
//! statuses (`Gitlab::Ci::Status::Composite`). This module builds the CommitStatus and
//! Pipeline entities in GitLab's key order, and answers the merge-request side:
//! [`head_pipeline`] and [`merge_gate`] (D10: no pipeline merges at once; external statuses
//! merge when they all succeed).

pub mod create;
pub mod list;
pub mod pipeline_basic;
pub mod pipelines;

use crate::api::ordered::{self, object, v, Node, Obj};
use crate::api::Call;
use crate::store::projects::Project;
use crate::store::statuses::{self, CommitStatus, Pipeline};
use crate::store::{self, Db, StoreResult};
use forgecore_date::rfc3339;
use serde_json::Value;

/// The states a status may be posted with.
pub const STATES: [&str; 6] = ["pending", "running", "success", "failed", "canceled", "skipped"];

/// GitLab's composite status of a pipeline's latest statuses (`Gitlab::Ci::Status::Composite#status`,
/// newest `lib/gitlab/ci/status/composite.rb` read, without `allow_failure`/`ignored`, which
/// external statuses never have, and without the states they never take): no status at all
/// is `created` for a pipeline that was just made.
pub fn composite(states: &[&str]) -> &'static str {
    let only = |allowed: &[&str]| states.iter().all(|s| allowed.contains(s));
    let any = |wanted: &[&str]| states.iter().any(|s| wanted.contains(s));
    if states.is_empty() {
        "created"
    } else if only(&["skipped"]) {
        "skipped"
    } else if only(&["success", "skipped"]) {
        "success"
    } else if only(&["created"]) {
        "created"
    } else if only(&["canceled", "success", "skipped"]) {
        "canceled"
    } else if only(&["pending", "created", "skipped"]) {
        "pending"
    } else if any(&["running", "pending", "created"]) {
        "running"
    } else {
        "failed"
    }
}

/// Whether a status is finished.
pub fn finished(state: &str) -> bool {
    matches!(state, "success" | "failed" | "canceled" | "skipped")
}

/// A pipeline's status and times recomputed from its latest statuses, written back; the
/// pipeline as it is now.
pub fn refresh(db: &mut Db, pipeline: &Pipeline, now: i64) -> StoreResult<Pipeline> {
    let jobs = statuses::latest_of_pipeline(db, pipeline.id)?;
    let states: Vec<&str> = jobs.iter().map(|j| j.status.as_str()).collect();
    let mut next = pipeline.clone();
    next.status = composite(&states).to_string();
    next.updated_at = now;
    next.started_at = jobs.iter().filter_map(|j| j.started_at).min();
    next.finished_at = if finished(&next.status) { jobs.iter().filter_map(|j| j.finished_at).max() } else { None };
    statuses::update_pipeline(db, &next)?;
    Ok(next)
}

/// The pipeline a merge request whose head is `sha` shows as `head_pipeline`: the newest
/// pipeline of the project for that commit, whatever its ref; `None` when none was made.
pub fn head_pipeline(db: &mut Db, project_id: i64, sha: &str) -> StoreResult<Option<Pipeline>> {
    statuses::latest_for_sha(db, project_id, sha, None)
}

/// What "merge when pipeline succeeds" makes of a head commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// No pipeline (no status was ever posted): merge at once (D10, as GitLab).
    NoPipeline,
    /// The pipeline is still running: wait.
    Waiting,
    /// Every status succeeded (or was skipped): merge.
    Succeeded,
    /// A status failed or was canceled: do not merge.
    Failed,
}

impl Gate {
    /// Whether a merge waiting on the pipeline may go ahead now.
    pub fn may_merge(self) -> bool {
        matches!(self, Gate::NoPipeline | Gate::Succeeded)
    }
}

/// The gate of `sha`'s head pipeline.
pub fn merge_gate(db: &mut Db, project_id: i64, sha: &str) -> StoreResult<Gate> {
    Ok(match head_pipeline(db, project_id, sha)? {
        None => Gate::NoPipeline,
        Some(p) => match p.status.as_str() {
            "success" | "skipped" => Gate::Succeeded,
            "failed" | "canceled" => Gate::Failed,
            _ => Gate::Waiting,
        },
    })
}

fn time(seconds: Option<i64>) -> Node {
    match seconds {
        Some(s) => v(rfc3339(s, 0)),
        None => Node::V(Value::Null),
    }
}

fn author(call: &Call, user_id: Option<i64>) -> StoreResult<Node> {
    Ok(match user_id {
        Some(id) => match call.ctx.store.read(|db| store::users::find_by_id(db, id))? {
            Some(user) => ordered::user(call, &user).into(),
            None => Node::V(Value::Null),
        },
        None => Node::V(Value::Null),
    })
}

/// GitLab's `CommitStatus` entity: `id`, `sha`, `ref`, `status`, `name`, `target_url`,
/// `description`, `created_at`, `started_at`, `finished_at`, `allow_failure`, `coverage`,
/// `pipeline_id`, `author`.
pub fn status_entity(call: &Call, status: &CommitStatus) -> StoreResult<Node> {
    let coverage = status.coverage.as_deref().and_then(|c| c.parse::<f64>().ok());
    Ok(object(vec![
        ("id", v(status.id)),
        ("sha", v(&status.sha)),
        ("ref", v(&status.ref_name)),
        ("status", v(&status.status)),
        ("name", v(&status.name)),
        ("target_url", v(&status.target_url)),
        ("description", v(&status.description)),
        ("created_at", v(rfc3339(status.created_at, 0))),
        ("started_at", time(status.started_at)),
        ("finished_at", time(status.finished_at)),
        ("allow_failure", v(false)),
        ("coverage", v(coverage)),
        ("pipeline_id", v(status.pipeline_id)),
        ("author", author(call, status.user_id)?),
    ]))
}

/// GitLab's `PipelineBasic`, in its order ([`pipeline_basic::fields`]).
pub fn pipeline_basic(call: &Call, project: &Project, pipeline: &Pipeline) -> Vec<(&'static str, Node)> {
    Obj::from(pipeline_basic::fields(call, project, pipeline)).0
}

/// GitLab's `Pipeline` entity: `PipelineBasic` and `before_sha`, `tag`, `yaml_errors`, `user`,
/// `started_at`, `finished_at`, `committed_at`, `duration`, `queued_duration`, `coverage`,
/// `detailed_status`.
pub fn pipeline_entity(call: &Call, project: &Project, pipeline: &Pipeline, tag: bool) -> StoreResult<Node> {
    let mut out = pipeline_basic(call, project, pipeline);
    let duration = match (pipeline.started_at, pipeline.finished_at) {
        (Some(start), Some(end)) => v(end - start),
        _ => Node::V(Value::Null),
    };
    let queued = pipeline.started_at.map(|s| s - pipeline.created_at);
    let jobs = call.ctx.store.read(|db| statuses::latest_of_pipeline(db, pipeline.id))?;
    let coverages: Vec<f64> = jobs.iter().filter_map(|j| j.coverage.as_deref()?.parse().ok()).collect();
    let coverage = if coverages.is_empty() {
        Node::V(Value::Null)
    } else {
        v(format!("{:.2}", coverages.iter().sum::<f64>() / coverages.len() as f64))
    };
    let web = format!("/{}/-/pipelines/{}", project.full_path, pipeline.id);
    out.extend([
        ("before_sha", v("0000000000000000000000000000000000000000")),
        ("tag", v(tag)),
        ("yaml_errors", Node::V(Value::Null)),
        ("user", author(call, pipeline.user_id)?),
        ("started_at", time(pipeline.started_at)),
        ("finished_at", time(pipeline.finished_at)),
        ("committed_at", Node::V(Value::Null)),
        ("duration", duration),
        ("queued_duration", v(queued)),
        ("coverage", coverage),
        (
            "detailed_status",
            object(vec![
                ("icon", v(format!("status_{}", pipeline.status))),
                ("text", v(&pipeline.status)),
                ("label", v(&pipeline.status)),
                ("group", v(&pipeline.status)),
                ("tooltip", v(&pipeline.status)),
                ("has_details", v(true)),
                ("details_path", v(web)),
                ("illustration", Node::V(Value::Null)),
                ("favicon", v(format!("/assets/ci_favicons/favicon_status_{}.png", pipeline.status))),
            ]),
        ),
    ]);
    Ok(object(out))
}

#[cfg(test)]
mod tests {
    use super::composite;

    #[test]
    fn composite_status_as_gitlab() {
        assert_eq!(composite(&[]), "created");
        assert_eq!(composite(&["success", "success"]), "success");
        assert_eq!(composite(&["success", "skipped"]), "success");
        assert_eq!(composite(&["skipped"]), "skipped");
        assert_eq!(composite(&["success", "pending"]), "running");
        assert_eq!(composite(&["pending"]), "pending");
        assert_eq!(composite(&["success", "running"]), "running");
        assert_eq!(composite(&["success", "failed"]), "failed");
        assert_eq!(composite(&["running", "failed"]), "running");
        assert_eq!(composite(&["canceled", "success"]), "canceled");
        assert_eq!(composite(&["created", "skipped"]), "pending");
    }
}
