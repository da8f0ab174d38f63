//! GitLab's commit entity (`Entities::Commit`), shared by merge base, compare and changelog.

use super::Call;
use crate::git::commit::CommitInfo;
use crate::store::projects::Project;
use forgecore_date::rfc3339;
use serde_json::{json, Value};

/// GitLab's short ids are 8 hex digits.
pub const SHORT_ID_LEN: usize = 8;

pub fn entity(call: &Call, project: &Project, commit: &CommitInfo) -> Value {
    entity_of(&call.web_url(&project.full_path), commit)
}

/// The entity of a commit of the project whose web URL is `project_url`.
pub fn entity_of(project_url: &str, commit: &CommitInfo) -> Value {
    let id = commit.id.to_string();
    let committed = rfc3339(commit.committer.seconds, commit.committer.offset);
    json!({
        "id": id,
        "short_id": &id[..SHORT_ID_LEN],
        "created_at": committed,
        "parent_ids": commit.parent_ids.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
        "title": commit.title(),
        "message": commit.message,
        "author_name": commit.author.name,
        "author_email": commit.author.email,
        "authored_date": rfc3339(commit.author.seconds, commit.author.offset),
        "committer_name": commit.committer.name,
        "committer_email": commit.committer.email,
        "committed_date": committed,
        // GitLab loads a commit's trailers only where it asks Gitaly for them (the commits list
        // with `trailers=true`); merge base and compare answer both as `{}`. GitLab's Go client
        // decodes `extended_trailers` as string -> string and fails on GitLab's documented
        // arrays, so an empty object is also the only value every client reads.
        "trailers": {},
        "extended_trailers": {},
        "web_url": format!("{project_url}/-/commit/{id}"),
    })
}
