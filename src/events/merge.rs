//! The merge of one merge request (GitLab's `MergeRequests::MergeService`, reference §3.4,
//! decisions D10), the one way a merge request is merged by the core: `PUT .../merge` calls it
//! once its checks passed, and the auto-merge listener ([`super::auto_merge`]) when the head
//! pipeline succeeded. In the transaction `db` of the caller, by the project's merge method
//! (`merge`: a merge commit; `rebase_merge`: a merge commit; `ff`: the target fast-forwarded),
//! squashing first when asked or required (`squash_option`), each through `git::merge`
//! (objects written, the target moved by compare-and-swap); the merge request is recorded
//! merged, and the source branch removed when asked (the merge's
//! `should_remove_source_branch`, else create's `remove_source_branch`) and allowed (not
//! protected, not the default branch, the merger may delete it, still at the merged head).
//!
//! It records nothing of its own through the seam: it answers the events of what it did (the
//! merge request `Merged`, then the refs it moved), which the caller records in the same
//! transaction and hears once it is committed. A merge that did not happen answers why, in
//! GitLab's `merge_error` words, and has moved nothing.

use super::{Event, MergeRequestAction, MergeRequestChanged, RefsMoved, Through};
use crate::auth::protection::{self, RefChange};
use crate::auth::Caller;
use crate::error::ApiError;
use crate::git::merge::{self as git_merge, MergeError};
use crate::git::write::{Identity, RefUpdate};
use crate::store::merge_requests::{self, MergeRequest};
use crate::store::projects::Project;
use crate::store::users::User;
use crate::store::Db;
use gix::ObjectId;
use std::path::PathBuf;
use std::time::Duration;

/// GitLab's `merge_error` when the squash the project requires was not asked for.
pub const SQUASH_REQUIRED: &str = "This project requires squashing commits when merge requests are accepted.";
/// GitLab's `merge_error` when fast-forward is required and not possible.
pub const FF_ONLY: &str = "Only fast-forward merge is allowed for your project. Please update your source branch";

/// What a merge is asked to do, and by whom.
pub struct Order<'a> {
    pub project: &'a Project,
    /// The project's repository, and where it is on this host.
    pub repo: &'a gix::Repository,
    pub git_dir: PathBuf,
    pub default_branch: Option<String>,
    /// The merge request as it is now (its head is what merges).
    pub mr: &'a MergeRequest,
    /// The merging user, as the caller the protection rules ask about, and as a commit
    /// identity (committer of every commit the merge makes).
    pub merger: &'a User,
    pub caller: &'a Caller,
    pub who: Identity,
    /// The squash commit's author (GitLab: the merge request's author).
    pub author: Identity,
    /// `squash` asked by the merge call (only `true` counts, as GitLab's `update(squash:) if
    /// params[:squash]`).
    pub squash: Option<bool>,
    pub merge_commit_message: Option<String>,
    pub squash_commit_message: Option<String>,
    pub remove_source: Option<bool>,
    /// Told how long each git step took (`op` names it): the API's metrics.
    pub timed: &'a dyn Fn(&'static str, Duration),
    /// The project's push rule on the target branch moving from the first commit to the
    /// second (decisions D12): refused with the rule's text, or `None` when it could not be
    /// checked.
    pub push_rule: &'a dyn Fn(ObjectId, ObjectId) -> Result<(), Option<String>>,
}

/// GitLab's `merge_error` when the pre-receive (a push rule) refuses the merge
/// (`MergeService#try_merge` on a `PreReceiveError`).
pub fn pre_receive_refused(text: &str) -> String {
    format!("Something went wrong during merge pre-receive hook. {text}")
}

/// GitLab's draft rule (`lib/gitlab/regex/merge_requests.rb`):
/// `/\A(?i)(\[draft\]|\(draft\)|draft:)/`.
pub fn is_draft(title: &str) -> bool {
    let lower = title.to_lowercase();
    ["[draft]", "(draft)", "draft:"].iter().any(|prefix| lower.starts_with(prefix))
}

/// Why a merge did not happen.
#[derive(Debug)]
pub enum Failure {
    /// The merge was tried and failed: GitLab's `merge_error` for it.
    Failed(String),
    /// The branches conflict (GitLab's `mergeable?` false): nothing was tried.
    Conflicts,
    /// The merger may not merge into the target branch (any more).
    NotAllowed,
    /// The repository could not be read or written.
    Broken(ApiError),
}

/// A merge made: the merge request as recorded, and the events to record and hear.
pub struct Merged {
    pub mr: MergeRequest,
    pub events: Vec<Event>,
}

fn timed<T>(order: &Order, op: &'static str, work: impl FnOnce() -> T) -> T {
    let started = std::time::Instant::now();
    let out = work();
    (order.timed)(op, started.elapsed());
    out
}

/// Whether the merge squashes (`squash_option`: `never`, `always`, else the request's or the
/// merge request's `squash`); `always` without a squash asked is GitLab's refusal.
pub fn squash_on_merge(project: &Project, asked: Option<bool>, mr: &MergeRequest) -> Result<bool, Failure> {
    match project.settings.squash_option.as_str() {
        "never" => Ok(false),
        "always" if asked != Some(true) && !mr.squash => Err(Failure::Failed(SQUASH_REQUIRED.into())),
        "always" => Ok(true),
        _ => Ok(asked.unwrap_or(false) || mr.squash),
    }
}

fn failure_of(error: MergeError) -> Failure {
    Failure::Failed(match &error {
        MergeError::Race(branch) => MergeError::race_text(branch),
        MergeError::NotFastForward => FF_ONLY.into(),
        MergeError::Conflicts(_) => return Failure::Conflicts,
        MergeError::Refused(_) => "An error occurred while merging".into(),
        MergeError::NoBranch(_) => "No source for merge".into(),
        MergeError::Git(_) => return Failure::Broken(ApiError::internal(error)),
    })
}

/// Merges `order.mr` (see the module).
pub fn merge(db: &mut Db, order: &Order) -> Result<Merged, Failure> {
    let (project, repo, mr) = (order.project, order.repo, order.mr);
    let default_branch = order.default_branch.as_deref();
    let broken = Failure::Broken;
    let squash = squash_on_merge(project, order.squash, mr)?;
    let head_sha = mr.head_sha.clone().unwrap_or_default();
    let head = ObjectId::from_hex(head_sha.as_bytes()).map_err(|e| broken(ApiError::internal(e)))?;
    let Some(target) = crate::git::refs::branch(repo, &mr.target_branch).map_err(|e| broken(ApiError::internal(e)))?
    else {
        return Err(Failure::Failed("No source for merge".into()));
    };
    let allowed =
        protection::can_merge(db, order.caller, project, default_branch, &mr.target_branch).map_err(Failure::Broken)?;
    if !allowed {
        return Err(Failure::NotAllowed);
    }
    let who = &order.who;
    let mut squash_commit = None;
    let mut source = head;
    if squash {
        let start = crate::git::merge_base::best(repo, target, &[head])
            .map_err(|e| broken(ApiError::internal(e)))?
            .unwrap_or(target);
        let message = order.squash_commit_message.clone().unwrap_or_else(|| mr.title.clone());
        let commit =
            timed(order, "merge_squash", || git_merge::squash(repo, start, head, &message, &order.author, who))
                .map_err(failure_of)?;
        squash_commit = Some(commit);
        source = commit;
    }
    // Asked just before the target moves, with the commit it moves to.
    let refused = std::cell::RefCell::new(None::<Option<String>>);
    let allow = |new: ObjectId| match (order.push_rule)(target, new) {
        Ok(()) => allowed,
        Err(why) => {
            *refused.borrow_mut() = Some(why);
            false
        }
    };
    let moved = match project.settings.merge_method.as_str() {
        "ff" => {
            timed(order, "merge_ff", || git_merge::fast_forward(repo, &mr.target_branch, target, source, who, allow))
        }
        _ => {
            let reference = format!("{}!{}", project.full_path, mr.iid);
            let message = order.merge_commit_message.clone().unwrap_or_else(|| {
                git_merge::default_message(&mr.source_branch, &mr.target_branch, &mr.title, None, &reference)
            });
            timed(order, "merge_commit", || {
                git_merge::merge_commit(repo, &mr.target_branch, target, source, &message, who, allow)
                    .map(|merged| merged.update)
            })
        }
    };
    let update = match moved {
        Err(MergeError::Refused(_)) if refused.borrow().is_some() => {
            let why = refused.borrow().clone().flatten();
            return Err(Failure::Failed(match why {
                Some(text) => pre_receive_refused(&text),
                None => "An error occurred while merging".into(),
            }));
        }
        other => other.map_err(failure_of)?,
    };
    let merged_to = update.new.unwrap_or(source);
    let now = merge_requests::now_millis();
    let mut changed = mr.clone();
    changed.state = "merged".into();
    changed.merged_by_id = Some(order.merger.id);
    changed.merged_at = Some(now);
    changed.merge_commit_sha = Some(merged_to.to_string());
    changed.squash_commit_sha = squash_commit.map(|c| c.to_string());
    changed.squash = squash;
    changed.should_remove_source_branch = order.remove_source;
    changed.merge_error = None;
    changed.updated_at = now;
    merge_requests::update(db, &changed).map_err(|e| broken(e.into()))?;
    let mut updates = vec![update];
    if order.remove_source.unwrap_or(changed.force_remove_source_branch) {
        if let Some(removed) = remove_source_branch(db, order, &changed, head).map_err(Failure::Broken)? {
            updates.push(removed);
        }
    }
    // The merge request is merged before the move is recorded: the refresh then finds it no
    // longer open and leaves it to this merge's record.
    let events = vec![
        Event::MergeRequest(Box::new(MergeRequestChanged {
            action: MergeRequestAction::Merged,
            merge_request: changed.clone(),
            previous: None,
            user_id: Some(order.merger.id),
        })),
        Event::RefsMoved(RefsMoved {
            project_id: project.id,
            repository: order.git_dir.clone(),
            git_dir: order.git_dir.clone(),
            updates,
            user_id: Some(order.merger.id),
            through: Through::Api,
        }),
    ];
    Ok(Merged { mr: changed, events })
}

/// GitLab's `DeleteSourceBranchWorker` conditions, then the deletion by compare-and-swap on the
/// merged head; `None` when the branch stays.
fn remove_source_branch(
    db: &mut Db,
    order: &Order,
    mr: &MergeRequest,
    head: ObjectId,
) -> Result<Option<RefUpdate>, ApiError> {
    let (project, default_branch) = (order.project, order.default_branch.as_deref());
    if mr.source_project_id != Some(project.id) || default_branch == Some(mr.source_branch.as_str()) {
        return Ok(None);
    }
    let protected = protection::protection_of(db, project, default_branch, &mr.source_branch)?.is_some();
    let may = protection::check(db, order.caller, project, default_branch, &mr.source_branch, RefChange::Delete)?;
    if protected || may.is_err() {
        return Ok(None);
    }
    let name = format!("refs/heads/{}", mr.source_branch);
    match crate::git::write::refs::delete(order.repo, &name, head, &order.who) {
        Ok(update) => Ok(Some(update)),
        // Moved since the merge, or already gone: it stays as it is.
        Err(_) => Ok(None),
    }
}
