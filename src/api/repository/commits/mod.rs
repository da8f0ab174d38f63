//! The commits family (`GET/POST /projects/:id/repository/commits...`, one file per
//! operation) and GitLab's commit entities (`Entities::Commit`, `CommitWithStats`,
//! `CommitDetail`), which merge base, compare and changelog use too.

pub mod comment;
pub mod comments;
pub mod create;
pub mod diff;
pub mod get;
pub mod list;
pub mod refs;
pub mod sequence;

use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::git::commit::CommitInfo;
use crate::store::projects::Project;
use forgecore_date::rfc3339;
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};

/// GitLab's short ids are 8 hex digits.
pub const SHORT_ID_LEN: usize = 8;

pub fn entity(call: &Call, project: &Project, commit: &CommitInfo) -> Value {
    entity_of(&call.web_url(&project.full_path), commit)
}

/// The entity of a commit of the project whose web URL is `project_url`.
pub fn entity_of(project_url: &str, commit: &CommitInfo) -> Value {
    serde_json::to_value(CommitEntity::of(project_url, commit)).unwrap_or(Value::Null)
}

/// GitLab's `Entities::Commit`, borrowed from the commit it shows and written in GitLab's field
/// order: a compare writes tens of thousands of them as they are read, without building a
/// `Value` for each.
#[derive(serde::Serialize)]
pub struct CommitEntity<'a> {
    id: Hex,
    short_id: Short,
    created_at: String,
    parent_ids: Vec<Hex>,
    title: &'a str,
    message: &'a str,
    author_name: &'a str,
    author_email: &'a str,
    authored_date: String,
    committer_name: &'a str,
    committer_email: &'a str,
    committed_date: String,
    // GitLab loads a commit's trailers only where it asks Gitaly for them (the commits list
    // with `trailers=true`); merge base and compare answer both as `{}`. GitLab's Go client
    // decodes `extended_trailers` as string -> string and fails on GitLab's documented
    // arrays, so an empty object is also the only value every client reads.
    trailers: Map<String, Value>,
    extended_trailers: Map<String, Value>,
    web_url: WebUrl<'a>,
}

impl<'a> CommitEntity<'a> {
    pub fn of(project_url: &'a str, commit: &'a CommitInfo) -> CommitEntity<'a> {
        let committed = rfc3339(commit.committer.seconds, commit.committer.offset);
        CommitEntity {
            id: Hex(commit.id),
            short_id: Short(commit.id),
            created_at: committed.clone(),
            parent_ids: commit.parent_ids.iter().copied().map(Hex).collect(),
            title: commit.title(),
            message: &commit.message,
            author_name: &commit.author.name,
            author_email: &commit.author.email,
            authored_date: rfc3339(commit.author.seconds, commit.author.offset),
            committer_name: &commit.committer.name,
            committer_email: &commit.committer.email,
            committed_date: committed,
            trailers: Map::new(),
            extended_trailers: Map::new(),
            web_url: WebUrl(project_url, commit.id),
        }
    }
}

/// An object id written as its 40 hex digits, without a `String` of its own.
struct Hex(gix::ObjectId);

impl serde::Serialize for Hex {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0.to_hex())
    }
}

/// An object id's first [`SHORT_ID_LEN`] hex digits.
struct Short(gix::ObjectId);

impl serde::Serialize for Short {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0.to_hex_with_len(SHORT_ID_LEN))
    }
}

/// `<project_url>/-/commit/<id>`.
struct WebUrl<'a>(&'a str, gix::ObjectId);

impl serde::Serialize for WebUrl<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("{}/-/commit/{}", self.0, self.1.to_hex()))
    }
}

/// The entity with the commit's trailers filled in (`trailers`: each key's last value;
/// `extended_trailers`: every value of each key), as the commits list answers with
/// `trailers=true`.
pub fn entity_with_trailers(project_url: &str, commit: &CommitInfo) -> Value {
    let mut value = entity_of(project_url, commit);
    let (mut last, mut all) = (Map::new(), Map::new());
    for (key, text) in &commit.trailers {
        last.insert(key.clone(), json!(text));
        if let Value::Array(values) = all.entry(key.clone()).or_insert_with(|| json!([])) {
            values.push(json!(text));
        }
    }
    value["trailers"] = Value::Object(last);
    value["extended_trailers"] = Value::Object(all);
    value
}

/// `Entities::CommitDetail`: the entity, `stats` when asked for, the newest pipeline's
/// `status` and `last_pipeline` (null without one) and the project's id.
pub fn detail(
    call: &Call,
    project: &Project,
    repo: &gix::Repository,
    commit: &CommitInfo,
    with_stats: bool,
) -> ApiResult<Value> {
    let mut value = entity(call, project, commit);
    if with_stats {
        value["stats"] = commit_stats(repo, commit, deadline(call))?;
    }
    // The newest pipeline of the commit (the external ones commit statuses make, issue #42):
    // `status` is its status, `last_pipeline` its PipelineBasic, both null without one.
    let sha = commit.id.to_string();
    let pipeline = call.ctx.store.read(|db| crate::store::statuses::latest_for_sha(db, project.id, &sha, None))?;
    value["status"] = pipeline.as_ref().map_or(Value::Null, |p| json!(p.status));
    value["project_id"] = json!(project.id);
    value["last_pipeline"] =
        pipeline.as_ref().map_or(Value::Null, |p| crate::api::statuses::pipeline_basic::value(call, project, p));
    Ok(value)
}

/// `Entities::CommitStats`.
pub fn stats(additions: u64, deletions: u64) -> Value {
    json!({"additions": additions, "deletions": deletions, "total": additions + deletions})
}

/// The lines a commit adds and deletes against its first parent (everything, for a root
/// commit), as GitLab's commit stats count them; within `deadline`, else a 503.
pub fn commit_stats(repo: &gix::Repository, commit: &CommitInfo, deadline: Instant) -> ApiResult<Value> {
    use crate::error::GitResultExt;
    let tree = |id| crate::git::tree::commit_tree(repo, id).or_broken();
    let old = commit.parent_ids.first().map(|&p| tree(p)).transpose()?;
    let new = tree(commit.id)?;
    let counted = crate::git::diff::numstat(repo, old, Some(new), deadline).or_broken()?;
    let (additions, deletions) =
        counted.ok_or(ApiError::Unavailable("the commit stats took longer than their time budget"))?;
    Ok(stats(additions, deletions))
}

/// The time budget of one commits call: the compare's (`limits.compare_timeout_millis`).
pub fn deadline(call: &Call) -> Instant {
    Instant::now() + Duration::from_millis(call.ctx.config.limits.compare_timeout_millis)
}

/// The commit a `:sha` path segment names (SHA, branch, tag, revision syntax), else GitLab's
/// `404 Commit Not Found`.
pub fn find(repo: &gix::Repository, sha: &str) -> ApiResult<CommitInfo> {
    use crate::error::GitResultExt;
    let id = crate::git::resolve_commit(repo, sha).map_err(|e| match e {
        crate::git::ResolveError::Unknown => ApiError::NotFound("Commit"),
        other => ApiError::internal(other),
    })?;
    crate::git::commit::read(repo, id).or_broken()
}
