//! Release Hook (`Release#to_hook_data` = `Gitlab::HookData::ReleaseBuilder#build(action)`, V):
//! the release's columns `id`, `created_at`, `description`, `name`, `released_at`, `tag` in
//! that order, then `object_kind` `release`, the project, `url`, `action` (`create`, `update`,
//! `delete`), `assets` `{count, links, sources}` and the tag's `commit` (`Commit#hook_attrs`).
//! Links are `Releases::Link#hook_attrs` (`id`, `link_type`, `name`, `url`, V); sources the
//! four archive formats in `Gitlab::Workhorse::ARCHIVE_FORMATS` order, `{format, url}`, with
//! the Release entity's URLs (the archive route this forge serves; GitLab's web route
//! `/-/archive/<tag>/<path>-<tag>.<fmt>` is not served here).

use super::push::commit_hook_attrs;
use super::{project_attrs, Node, Trigger};
use crate::events::{ReleaseAction, ReleaseChanged};
use crate::response::ordered::iso_millis;
use crate::response::ordered::Obj;
use crate::store::releases::Release;
use crate::store::{self, Db, StoreResult};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::Value;

/// What a URL segment keeps as it is (the Release entity's encoding of a tag).
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

pub fn action(action: ReleaseAction) -> &'static str {
    match action {
        ReleaseAction::Created => "create",
        ReleaseAction::Updated => "update",
        ReleaseAction::Deleted => "delete",
    }
}

/// The payload for `release` of `event`'s project; `None` when the project is gone. `repo`:
/// the project's repository, when this host has it (for the commit).
pub fn build_for(
    db: &mut Db,
    base: &str,
    repo: Option<&gix::Repository>,
    default_branch: Option<&str>,
    release: &Release,
    action: &str,
) -> StoreResult<Option<(Trigger, Node)>> {
    let Some(project) = store::projects::find_by_id(db, release.project_id)? else { return Ok(None) };
    let web_url = format!("{base}/{}", project.full_path);
    let links = store::releases::links(db, release.id)?;
    let mut link_nodes = Vec::new();
    for link in &links {
        let mut o = Obj::new();
        o.put("id", link.id)
            .put("link_type", link.link_type.as_str())
            .put("name", link.name.as_str())
            .put("url", link.url.as_str());
        link_nodes.push(Node::Obj(o));
    }
    let sources: Vec<Node> = ["zip", "tar.gz", "tar.bz2", "tar"]
        .iter()
        .map(|format| {
            let mut o = Obj::new();
            let tag = utf8_percent_encode(&release.tag_name, UNRESERVED);
            let url = format!("{base}/api/v4/projects/{}/repository/archive.{format}?sha={tag}", project.id);
            o.put("format", *format).put("url", url);
            Node::Obj(o)
        })
        .collect();
    let mut assets = Obj::new();
    assets
        .put("count", (links.len() + sources.len()) as i64)
        .node("links", Node::Arr(link_nodes))
        .node("sources", Node::Arr(sources));
    let commit = match (repo, release.sha.as_deref()) {
        (Some(repo), Some(sha)) => gix::ObjectId::from_hex(sha.as_bytes())
            .ok()
            .and_then(|id| commit_hook_attrs(repo, base, &project.full_path, id).ok()),
        _ => None,
    };
    let mut payload = Obj::new();
    payload
        .put("id", release.id)
        .put("created_at", iso_millis(release.created_at * 1000))
        .put("description", release.description.as_str())
        .put("name", release.name.as_str())
        .put("released_at", iso_millis(release.released_at * 1000))
        .put("tag", release.tag_name.as_str())
        .put("object_kind", "release")
        .node("project", project_attrs(db, &project, base, default_branch)?)
        .put("url", format!("{web_url}/-/releases/{}", release.tag_name))
        .put("action", action)
        .obj("assets", assets)
        .node("commit", commit.unwrap_or(Node::V(Value::Null)));
    Ok(Some((Trigger::Release, Node::Obj(payload))))
}

/// The payload of one release event; `None` when the release or its project is gone.
pub fn build(
    db: &mut Db,
    base: &str,
    repo: Option<&gix::Repository>,
    default_branch: Option<&str>,
    event: &ReleaseChanged,
) -> StoreResult<Option<(Trigger, Node)>> {
    let Some(release) = store::releases::find(db, event.project_id, &event.tag_name)? else { return Ok(None) };
    build_for(db, base, repo, default_branch, &release, action(event.action))
}
