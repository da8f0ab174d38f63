//! Push Hook and Tag Push Hook payloads (`Gitlab::DataBuilder::Push`, `Git::BranchHooksService`,
//! `Git::TagHooksService`), field by field in GitLab's order.
//!
//! Commits: an update sends `before..after`; a new default branch the last 100 of its history;
//! another new branch the commits not on the default branch; a deletion none. At most 100 are
//! processed, the newest 20 sent, oldest first; `total_commits_count` is the real count. A tag
//! sends the commit it peels to (none on deletion). Each commit's `added`/`modified`/`removed`
//! come from its tree diff against its first parent, renames paired: a renamed file is `added`
//! under its new path.

use super::{object, project_attrs, visibility_level, Node, Trigger};
use crate::git::write::RefUpdate;
use crate::store::projects::Project;
use crate::store::users::User;
use crate::store::Db;
use gix::ObjectId;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Commits GitLab processes for one push (`PROCESS_COMMIT_LIMIT`).
const PROCESS_LIMIT: usize = 100;
/// Commits a payload carries.
const SENT_LIMIT: usize = 20;

pub struct Push<'a> {
    pub project: &'a Project,
    pub user: Option<&'a User>,
    pub base: &'a str,
    pub default_branch: Option<&'a str>,
    pub ref_protected: bool,
}

fn oid(id: Option<ObjectId>) -> String {
    id.map_or_else(|| "0".repeat(40), |id| id.to_string())
}

/// GitLab's commit title: the first line; one of 100 characters or more is cut at the last
/// space within 78 characters and ends `...` (`truncate(81, separator: ' ')`).
pub fn title(message: &str) -> String {
    let first = message.split(['\r', '\n']).next().unwrap_or("");
    if first.chars().count() < 100 {
        return first.to_string();
    }
    let head: String = first.chars().take(79).collect();
    let room: String = head.chars().take(78).collect();
    let stop = head.rfind(' ').filter(|&at| at <= room.len()).unwrap_or(room.len());
    format!("{}...", &head[..stop])
}

/// Git's time in `xmlschema`: `2011-12-12T14:27:31+02:00`.
fn xmlschema(seconds: i64, offset: i32) -> String {
    forgecore_date::rfc3339(seconds, offset).replacen(".000", "", 1)
}

/// The payload for one moved ref, or `None` for a ref that is neither a branch nor a tag.
pub fn build(
    db: &mut Db,
    repo: &gix::Repository,
    push: &Push,
    update: &RefUpdate,
) -> Result<Option<(Trigger, Node)>, String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let (trigger, short) = if let Some(branch) = update.name.strip_prefix("refs/heads/") {
        (Trigger::Push, branch)
    } else if let Some(tag) = update.name.strip_prefix("refs/tags/") {
        (Trigger::TagPush, tag)
    } else {
        return Ok(None);
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let (ids, total, checkout, message): (Vec<ObjectId>, usize, Option<ObjectId>, Option<String>) = match trigger {
        Trigger::Push => match update.new {
            None => (Vec::new(), 0, None, None),
            Some(new) => {
                let hidden: Vec<ObjectId> = match update.old {
                    Some(old) => vec![old],
                    None if push.default_branch == Some(short) => Vec::new(),
                    None => push
                        .default_branch
                        .and_then(|d| repo.find_reference(&format!("refs/heads/{d}")).ok())
                        .and_then(|mut r| r.peel_to_id().ok().map(|id| id.detach()))
                        .into_iter()
                        .collect(),
                };
                let is_new_default =
                    update.old.is_none() && push.default_branch.is_none_or(|d| d == short) && hidden.is_empty();
                let (ids, total) = walk(repo, new, &hidden, is_new_default, deadline).map_err(|x| e(&x))?;
                (ids, total, Some(new), None)
            }
        },
        Trigger::TagPush => match update.new {
            None => (Vec::new(), 0, None, None),
            Some(new) => {
                let message = repo.find_tag(new).ok().and_then(|t| t.decode().ok().map(|d| d.message.to_string()));
                let commit = repo.find_object(new).map_err(|x| e(&x))?.peel_to_commit().ok().map(|c| c.id);
                (commit.into_iter().collect(), usize::from(commit.is_some()), commit, message)
            }
        },
        _ => return Ok(None),
    };
    let commits: Vec<Node> = ids.iter().map(|id| commit_attrs(repo, push, *id, deadline)).collect::<Result<_, _>>()?;
    let project = project_attrs(db, push.project, push.base, push.default_branch).map_err(|x| e(&x))?;
    let web_url = format!("{}/{}", push.base, push.project.full_path);
    let user = push.user;
    let kind = match trigger {
        Trigger::Push => "push",
        _ => "tag_push",
    };
    let v = |value: Value| Node::V(value);
    let payload = object(vec![
        ("object_kind", v(json!(kind))),
        ("event_name", v(json!(kind))),
        ("before", v(json!(oid(update.old)))),
        ("after", v(json!(oid(update.new)))),
        ("ref", v(json!(update.name))),
        ("ref_protected", v(json!(push.ref_protected))),
        ("checkout_sha", v(json!(checkout.map(|c| c.to_string())))),
        ("message", v(json!(message))),
        ("user_id", v(json!(user.map(|u| u.id)))),
        ("user_name", v(json!(user.map(|u| u.name.clone())))),
        ("user_username", v(json!(user.map(|u| u.username.clone())))),
        ("user_email", v(json!(user.and_then(|u| u.profile.public_email.clone())))),
        ("user_avatar", v(Value::Null)),
        ("project_id", v(json!(push.project.id))),
        ("project", project),
        ("commits", Node::Arr(commits)),
        ("total_commits_count", v(json!(total))),
        ("push_options", v(json!({}))),
        (
            "repository",
            object(vec![
                ("name", v(json!(push.project.name))),
                ("url", v(Value::Null)),
                ("description", v(json!(push.project.description))),
                ("homepage", v(json!(web_url))),
                ("git_http_url", v(json!(format!("{web_url}.git")))),
                ("git_ssh_url", v(Value::Null)),
                ("visibility_level", v(json!(visibility_level(push.project.visibility)))),
            ]),
        ),
    ]);
    Ok(Some((trigger, payload)))
}

/// The commits to send (newest [`SENT_LIMIT`] of the first [`PROCESS_LIMIT`], oldest first)
/// and how many there are in all.
fn walk(
    repo: &gix::Repository,
    tip: ObjectId,
    hidden: &[ObjectId],
    new_default: bool,
    deadline: Instant,
) -> Result<(Vec<ObjectId>, usize), String> {
    let walk = repo
        .rev_walk([tip])
        .with_hidden(hidden.iter().copied())
        .sorting(gix::revision::walk::Sorting::ByCommitTime(Default::default()))
        .all()
        .map_err(|e| e.to_string())?;
    let mut newest = Vec::new();
    let mut total = 0usize;
    for info in walk {
        let info = info.map_err(|e| e.to_string())?;
        if newest.len() < SENT_LIMIT {
            newest.push(info.id);
        }
        total += 1;
        // A new default branch sends its last 100 commits and counts them only.
        if (new_default && total >= PROCESS_LIMIT) || Instant::now() > deadline {
            break;
        }
    }
    newest.reverse();
    Ok((newest, total))
}

fn commit_attrs(repo: &gix::Repository, push: &Push, id: ObjectId, deadline: Instant) -> Result<Node, String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let info = crate::git::commit::read(repo, id).map_err(|x| e(&x))?;
    let tree = |commit: ObjectId| -> Result<ObjectId, String> {
        Ok(repo.find_commit(commit).map_err(|x| e(&x))?.tree_id().map_err(|x| e(&x))?.detach())
    };
    let new_tree = tree(id)?;
    let old_tree = info.parent_ids.first().map(|p| tree(*p)).transpose()?;
    let changes =
        crate::git::diff::changes(repo, old_tree, Some(new_tree), deadline).map_err(|x| e(&x))?.unwrap_or_default();
    let (mut added, mut modified, mut removed) = (Vec::new(), Vec::new(), Vec::new());
    for change in changes {
        if change.is_deleted() {
            removed.push(change.old_path.to_string());
        } else if change.is_new() || change.is_renamed() {
            added.push(change.new_path.to_string());
        } else {
            modified.push(change.new_path.to_string());
        }
    }
    let Node::Obj(mut attrs) = commit_hook_attrs(repo, push.base, &push.project.full_path, id)? else {
        return Err("a commit's attributes are an object".into());
    };
    attrs.put("added", json!(added)).put("modified", json!(modified)).put("removed", json!(removed));
    Ok(Node::Obj(attrs))
}

/// `Commit#hook_attrs` without the changed files (what a merge request's `last_commit` and a
/// release's `commit` are): `id`, `message`, `title`, `timestamp`, `url`, `author`.
pub fn commit_hook_attrs(repo: &gix::Repository, base: &str, full_path: &str, id: ObjectId) -> Result<Node, String> {
    let info = crate::git::commit::read(repo, id).map_err(|x| x.to_string())?;
    let v = |value: Value| Node::V(value);
    Ok(object(vec![
        ("id", v(json!(id.to_string()))),
        ("message", v(json!(info.message))),
        ("title", v(json!(title(&info.message)))),
        ("timestamp", v(json!(xmlschema(info.committer.seconds, info.committer.offset)))),
        ("url", v(json!(format!("{base}/{full_path}/-/commit/{id}")))),
        ("author", object(vec![("name", v(json!(info.author.name))), ("email", v(json!(info.author.email)))])),
    ]))
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_titles_are_cut_at_a_word() {
        assert_eq!(super::title("short\nbody"), "short");
        let long = "word ".repeat(30);
        let cut = super::title(&long);
        assert!(cut.ends_with("...") && cut.len() <= 81, "{cut}");
        assert!(cut.trim_end_matches("...").ends_with("word"));
    }
}
