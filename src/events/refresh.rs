//! The merge-request refresh (GitLab's `MergeRequests::RefreshService`, decisions D10): a
//! durable listener of refs moved, by any path (the API's write path, a push), that records in
//! the same step what the move did to the open merge requests it touches, and announces each
//! of those changes as a [`MergeRequestChanged`] through the seam:
//! - a deleted source branch closes the merge request (`Closed`);
//! - a target branch that moved to contain the merge request's head marks it merged
//!   (`Merged`, "manually merged"), with the commit that brought the head in, when the first
//!   parents of the new tip show one;
//! - a source branch that moved records a new diff version (`Updated`): head, merge base and
//!   target head, the number of files and commits, and `refs/merge-requests/:iid/head`.
//!
//! [`reload`] is the one way a diff version is made, also for the API's create and retarget.
//! Merge requests from forks (a source project other than the target) are refreshed by moves
//! in the target project only until the fork's objects are in the target's repository.

use super::{Event, Listener, MergeRequestAction, MergeRequestChanged, Through};
use crate::error::ApiError;
use crate::git;
use crate::git::write::Identity;
use crate::store::merge_requests::{self, MergeRequest, Version};
use crate::store::Db;
use gix::ObjectId;
use std::time::{Duration, Instant};

/// How long a diff version may take to count its files and commits.
const VERSION_BUDGET: Duration = Duration::from_secs(30);
/// How many commits a version counts at most.
const MAX_COMMITS: usize = 1_000_000;
/// How far down the first parents of a target tip the merge of a head is looked for.
const MERGE_SEARCH_DEPTH: usize = 1_000;

/// The merge request head ref of `iid`, in the target project's repository.
pub fn head_ref(iid: i64) -> String {
    format!("refs/merge-requests/{iid}/head")
}

fn forge_identity() -> Identity {
    Identity {
        name: "forgecore".into(),
        email: "forgecore@localhost".into(),
        seconds: crate::store::now_seconds(),
        offset: 0,
    }
}

fn broken(e: impl std::error::Error + Send + Sync + 'static) -> ApiError {
    ApiError::internal(e)
}

/// The tip of `branch` in `repo`, if the branch exists.
pub fn branch_tip(repo: &gix::Repository, branch: &str) -> Result<Option<ObjectId>, ApiError> {
    git::refs::branch(repo, branch).map_err(broken)
}

/// A new diff version of `mr` from its branches as `repo` (the target project's repository)
/// has them now, recorded and made the latest, and its head ref moved there; `None` (and
/// nothing changed) when the source branch is gone or the version would be the latest again.
pub fn reload(db: &mut Db, repo: &gix::Repository, mr: &mut MergeRequest) -> Result<Option<Version>, ApiError> {
    let Some(head) = branch_tip(repo, &mr.source_branch)? else { return Ok(None) };
    let start = branch_tip(repo, &mr.target_branch)?;
    let (head_hex, start_hex) = (head.to_string(), start.map(|s| s.to_string()));
    if mr.head_sha.as_deref() == Some(head_hex.as_str()) && mr.start_sha == start_hex {
        return Ok(None);
    }
    let base = match start {
        Some(start) => git::merge_base::best(repo, head, &[start]).map_err(broken)?,
        None => None,
    };
    let deadline = Instant::now() + VERSION_BUDGET;
    let commits = match base {
        Some(base) => git::range::ids(repo, base, head, MAX_COMMITS, deadline).map_err(broken)?.map_or(0, |c| c.len()),
        None => git::range::log(repo, head).map_err(broken)?.commits.len(),
    };
    let old_tree = base.map(|b| git::tree::commit_tree(repo, b)).transpose().map_err(broken)?;
    let new_tree = git::tree::commit_tree(repo, head).map_err(broken)?;
    let files = git::diff::changes(repo, old_tree, Some(new_tree), deadline).map_err(broken)?.map_or(0, |c| c.len());
    let now = merge_requests::now_millis();
    let version = merge_requests::add_version(
        db,
        &Version {
            id: 0,
            merge_request_id: mr.id,
            head_sha: head_hex.clone(),
            base_sha: base.map(|b| b.to_string()),
            start_sha: start_hex.clone(),
            state: if commits == 0 { "empty".into() } else { "collected".into() },
            files_count: files as i64,
            commits_count: commits as i64,
            created_at: now,
        },
    )?;
    mr.head_sha = Some(head_hex);
    mr.base_sha = version.base_sha.clone();
    mr.start_sha = start_hex;
    mr.changes_count = Some(files as i64);
    mr.merge_error = None;
    mr.updated_at = now;
    merge_requests::update(db, mr)?;
    git::write::refs::point(repo, &head_ref(mr.iid), head, &forge_identity()).map_err(broken)?;
    Ok(Some(version))
}

/// The commit on the first parents of `tip` (down to `old`, the target's previous tip) that
/// merged `head` in: one whose other parents hold it, or `head` itself when the target was
/// fast-forwarded onto it.
fn merge_commit(repo: &gix::Repository, tip: ObjectId, old: Option<ObjectId>, head: ObjectId) -> Option<ObjectId> {
    let mut current = tip;
    for _ in 0..MERGE_SEARCH_DEPTH {
        if Some(current) == old {
            return None;
        }
        if current == head {
            return Some(head);
        }
        let commit = repo.find_commit(current).ok()?;
        let parents: Vec<ObjectId> = commit.parent_ids().map(|id| id.detach()).collect();
        if parents.iter().skip(1).any(|&p| p == head) {
            return Some(current);
        }
        current = *parents.first()?;
    }
    None
}

/// Refreshes the merge requests a move of refs touches.
pub struct Refresh;

impl Listener for Refresh {
    fn durable(&self, event: &Event) -> bool {
        let Event::RefsMoved(moved) = event else { return false };
        moved.updates.iter().any(|u| u.name.starts_with("refs/heads/"))
    }

    fn record_changes(&self, db: &mut Db, event: &Event) -> Result<Vec<Event>, ApiError> {
        let Event::RefsMoved(moved) = event else { return Ok(Vec::new()) };
        let branches: Vec<String> =
            moved.updates.iter().filter_map(|u| u.name.strip_prefix("refs/heads/")).map(str::to_string).collect();
        let touched = merge_requests::touched(db, moved.project_id, &branches)?;
        if touched.is_empty() {
            return Ok(Vec::new());
        }
        // A push wrote refs and packs outside gix: read them afresh.
        if moved.through == Through::Push {
            git::forget(&moved.git_dir);
        }
        let repo = git::open(&moved.git_dir).map_err(broken)?;
        let update_of = |branch: &str| moved.updates.iter().rev().find(|u| u.name == format!("refs/heads/{branch}"));
        let mut events = Vec::new();
        for mut mr in touched {
            let previous = mr.clone();
            let source_here = mr.source_project_id == Some(moved.project_id);
            let target_here = mr.target_project_id == moved.project_id;
            let source = update_of(&mr.source_branch).filter(|_| source_here);
            let target = update_of(&mr.target_branch).filter(|_| target_here);
            let now = merge_requests::now_millis();
            let mut said = |action, mr: &MergeRequest, previous: Option<MergeRequest>| {
                events.push(Event::MergeRequest(Box::new(MergeRequestChanged {
                    action,
                    merge_request: mr.clone(),
                    previous,
                    user_id: moved.user_id,
                })))
            };
            if source.is_some_and(|u| u.new.is_none()) {
                mr.state = "closed".into();
                mr.closed_at = Some(now);
                mr.closed_by_id = moved.user_id;
                mr.updated_at = now;
                merge_requests::update(db, &mr)?;
                said(MergeRequestAction::Closed, &mr, None);
                continue;
            }
            if !target_here {
                // A fork's merge request: its target repository is not this one.
                continue;
            }
            if let Some(tip) = target.and_then(|u| u.new) {
                if let Some(head) = branch_tip(&repo, &mr.source_branch)? {
                    // Only a move that brought the head in: an empty merge request is not merged
                    // by every push to its target.
                    let old = target.and_then(|u| u.old);
                    let before = match old {
                        Some(old) => git::refs::is_ancestor(&repo, head, old).map_err(broken)?,
                        None => false,
                    };
                    if !before && git::refs::is_ancestor(&repo, head, tip).map_err(broken)? {
                        mr.state = "merged".into();
                        mr.merged_at = Some(now);
                        mr.merged_by_id = moved.user_id;
                        mr.merge_commit_sha =
                            merge_commit(&repo, tip, target.and_then(|u| u.old), head).map(|c| c.to_string());
                        mr.updated_at = now;
                        merge_requests::update(db, &mr)?;
                        said(MergeRequestAction::Merged, &mr, None);
                        continue;
                    }
                }
            }
            if source.is_some() && reload(db, &repo, &mut mr)?.is_some() {
                said(MergeRequestAction::Updated, &mr, Some(previous));
            }
        }
        Ok(events)
    }

    fn heard(&self, _event: &Event) {}
}
