//! Tags (`gitlab-repository-families.md` §4): list, get, create, delete; one file per
//! operation. This module builds GitLab's Tag entity once: `name`, `message` (the annotation,
//! `""` for a lightweight tag), `target` (the tag object of an annotated tag, else the commit),
//! `commit` (peeled), `release` (GitLab's `TagRelease`, `{tag_name, description}` of the tag's
//! release, null without one: [`releases_of`]), `protected` (false: protected
//! tags are not kept) and `created_at` (the tagger's date; null for a lightweight tag).

pub mod create;
pub mod delete;
pub mod get;
pub mod list;

use super::commits;
use crate::error::{ApiResult, GitResultExt};
use crate::git::{self, refs::Tag};
use forgecore_date::rfc3339;
use serde_json::{json, Value};

/// The Tag entity of `tag` in the project whose web URL is `project_url`.
pub fn entity(repo: &gix::Repository, project_url: &str, tag: &Tag) -> ApiResult<Value> {
    let commit = match tag.commit {
        // Unreadable (a corrupt pack): the 404 of a missing commit, as every repository read.
        Some(id) => commits::entity_of(
            project_url,
            &git::commit::read(repo, id).or_not_found(crate::error::ApiError::NotFound("Commit"))?,
        ),
        None => Value::Null,
    };
    let (message, created_at) = match &tag.annotation {
        Some(annotation) => (
            annotation.message.trim_end_matches('\n').to_string(),
            annotation.tagger.as_ref().map(|t| rfc3339(t.seconds, t.offset)),
        ),
        None => (String::new(), None),
    };
    Ok(json!({
        "name": tag.name,
        "message": message,
        "target": tag.target.to_string(),
        "commit": commit,
        "release": null,
        "protected": false,
        "created_at": created_at,
    }))
}

/// The `release` of each tag of the project that has one (GitLab's `TagRelease`:
/// `tag_name`, `description`), by tag name, to set into the entities shown.
pub fn releases_of(call: &crate::api::Call, project_id: i64) -> ApiResult<std::collections::HashMap<String, Value>> {
    let all = call
        .ctx
        .store
        .read(|db| crate::store::releases::list(db, &[project_id], crate::store::releases::Order::ReleasedAt, false))?;
    Ok(all
        .into_iter()
        .map(|r| (r.tag_name.clone(), json!({"tag_name": r.tag_name, "description": r.description})))
        .collect())
}

/// The tag named by the path, or 404 `Tag Not Found`.
pub fn find(repo: &gix::Repository, name: &str) -> ApiResult<Tag> {
    git::refs::tag(repo, name).or_broken()?.ok_or(crate::error::ApiError::NotFound("Tag"))
}
