//! The auto-merge (GitLab's `AutoMerge::MergeWhenChecksPassService` and the parts of
//! `MergeRequests::RefreshService`, `UpdateService` and `CloseService` that end it, issues
//! #39/#42, decisions D10): a durable listener that, in the transaction of the change it hears,
//! - merges the merge requests queued on a head whose pipeline has just succeeded (a commit
//!   status made it `success`), through [`super::merge`], the merge `PUT .../merge` makes, with
//!   the parameters stored when the auto-merge was set, as the user who set it. The auto-merge
//!   row is taken (deleted) first: of two hosts hearing the same success, the one whose delete
//!   took it merges, and the other finds nothing (PostgreSQL's row lock; the status's project
//!   lock already orders them). A merge request that cannot merge now (a conflict, a draft,
//!   the merger without the right any more) stays queued, as `process` returns without
//!   merging; a merge that fails keeps its `merge_error` and stays queued, as `MergeService`
//!   does;
//! - aborts the auto-merge, with GitLab's system note `aborted the automatic merge because
//!   <reason>` written by the user who made the change, when the source branch moves to a head
//!   other than the one it was set for (`RefreshService#abort_auto_merges`: `the source branch
//!   was updated. [Learn more](<help>).`), the target branch changes (`target branch was
//!   changed`) or the merge request is closed (`merge request was closed`);
//! - forgets it when the merge request is merged by any path.
//!
//! A failed pipeline does not abort it (V, `Ci::Pipeline`'s completed transition runs
//! `AutoMergeProcessWorker`, whose `process` returns unless the head pipeline succeeded; the
//! docs: "If a retried job succeeds on the second try, the merge request is merged"): a retried
//! status that succeeds merges it.

use super::merge::{self, Failure, Order};
use super::{Event, Listener, MergeRequestAction};
use crate::auth::Caller;
use crate::error::ApiError;
use crate::git::write::Identity;
use crate::store::auto_merges::{self, AutoMerge as Queued};
use crate::store::merge_requests::{self, MergeRequest};
use crate::store::users::User;
use crate::store::{self, Db};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The merge requests queued on a head, merged when its pipeline succeeds (see the module).
pub struct AutoMerge {
    /// The named repository storages, to find a project's repository on this host.
    pub storages: BTreeMap<String, PathBuf>,
    /// The instance's public base URL (commit emails, the note's help link).
    pub base_url: String,
}

/// GitLab's system note when an auto-merge is aborted.
pub fn aborted_note(reason: &str) -> String {
    format!("aborted the automatic merge because {reason}")
}

impl AutoMerge {
    fn source_updated(&self) -> String {
        format!(
            "the source branch was updated. [Learn more]({}/help/ci/pipelines/merge_trains.md#merge-request-dropped-from-the-merge-train).",
            self.base_url
        )
    }

    fn identity(&self, user: &User) -> Identity {
        Identity {
            name: if user.name.trim().is_empty() { user.username.clone() } else { user.name.clone() },
            email: store::users::commit_email(user, &self.base_url),
            seconds: store::now_seconds(),
            offset: 0,
        }
    }

    /// Takes the auto-merge of `mr` and writes the note of why it ended.
    fn abort(&self, db: &mut Db, mr: &MergeRequest, reason: &str, user_id: Option<i64>) -> Result<(), ApiError> {
        if auto_merges::take(db, mr.id)?.is_none() {
            return Ok(());
        }
        store::notes::insert_system(db, mr.target_project_id, "MergeRequest", mr.id, user_id, &aborted_note(reason))?;
        Ok(())
    }

    /// Merges the merge requests of `project_id` queued on `sha`, whose head pipeline is now
    /// `success`; the events of each merge made.
    fn merge_queued(&self, db: &mut Db, project_id: i64, sha: &str) -> Result<Vec<Event>, ApiError> {
        let waiting = auto_merges::waiting_on(db, project_id, sha)?;
        if waiting.is_empty() {
            return Ok(Vec::new());
        }
        // The head pipeline is the newest of the sha, whichever ref posted this status.
        let head = store::statuses::latest_for_sha(db, project_id, sha, None)?;
        if head.is_none_or(|p| p.status != "success") {
            return Ok(Vec::new());
        }
        let Some(project) = store::projects::find_by_id(db, project_id)? else { return Ok(Vec::new()) };
        let Some(git_dir) = project.git_dir(&self.storages) else { return Ok(Vec::new()) };
        let repo = crate::git::open(&git_dir).map_err(ApiError::internal)?;
        let default_branch = crate::git::default_branch(&git_dir);
        let mut events = Vec::new();
        for queued in waiting {
            let Some(mr) = merge_requests::find_for_update(db, queued.merge_request_id)? else { continue };
            if !mr.is_open() || mr.head_sha.as_deref() != Some(queued.sha.as_str()) {
                continue;
            }
            // Claimed: another host's transaction that took it first leaves nothing here.
            let Some(queued) = auto_merges::take(db, mr.id)? else { continue };
            let merger = match queued.merge_user_id {
                Some(id) => store::users::find_by_id(db, id)?,
                None => None,
            };
            let Some(merger) = merger else {
                auto_merges::set(db, &queued)?;
                continue;
            };
            if mr.draft || crate::events::merge::is_draft(&mr.title) {
                auto_merges::set(db, &queued)?;
                continue;
            }
            let author = match mr.author_id {
                Some(id) => store::users::find_by_id(db, id)?,
                None => None,
            };
            let who = self.identity(&merger);
            let caller = Caller::User(merger.clone());
            let order = Order {
                project: &project,
                repo: &repo,
                git_dir: git_dir.clone(),
                default_branch: default_branch.clone(),
                mr: &mr,
                merger: &merger,
                caller: &caller,
                author: author.as_ref().map_or_else(|| who.clone(), |a| self.identity(a)),
                who,
                squash: queued.squash.then_some(true),
                merge_commit_message: queued.merge_commit_message.clone(),
                squash_commit_message: queued.squash_commit_message.clone(),
                remove_source: queued.should_remove_source_branch,
                timed: &|_, _| {},
                // Not yet: the push rule's check reads the instance's settings through the
                // API's context, which a listener does not hold (left for issue #42).
                push_rule: &|_, _| Ok(()),
            };
            match merge::merge(db, &order) {
                Ok(merged) => events.extend(merged.events),
                Err(Failure::Conflicts | Failure::NotAllowed) => {
                    auto_merges::set(db, &queued)?;
                }
                Err(Failure::Failed(reason)) => self.keep_failed(db, &queued, mr, reason)?,
                Err(Failure::Broken(_)) => {
                    self.keep_failed(db, &queued, mr, "An error occurred while merging".into())?
                }
            }
        }
        Ok(events)
    }

    /// GitLab's `handle_merge_error`: the reason in `merge_error`, the auto-merge still set.
    fn keep_failed(&self, db: &mut Db, queued: &Queued, mut mr: MergeRequest, reason: String) -> Result<(), ApiError> {
        auto_merges::set(db, queued)?;
        mr.merge_error = Some(reason);
        merge_requests::update(db, &mr)?;
        Ok(())
    }
}

impl Listener for AutoMerge {
    fn durable(&self, event: &Event) -> bool {
        match event {
            Event::CommitStatus(s) => s.pipeline_status == "success" && s.pipeline_before != "success",
            Event::MergeRequest(changed) => matches!(
                changed.action,
                MergeRequestAction::Updated | MergeRequestAction::Closed | MergeRequestAction::Merged
            ),
            _ => false,
        }
    }

    fn record_changes(&self, db: &mut Db, event: &Event) -> Result<Vec<Event>, ApiError> {
        match event {
            Event::CommitStatus(s) => self.merge_queued(db, s.project_id, &s.sha),
            Event::MergeRequest(changed) => {
                let mr = &changed.merge_request;
                let Some(queued) = auto_merges::find(db, mr.id)? else { return Ok(Vec::new()) };
                match changed.action {
                    MergeRequestAction::Merged => {
                        auto_merges::take(db, mr.id)?;
                    }
                    MergeRequestAction::Closed => self.abort(db, mr, "merge request was closed", changed.user_id)?,
                    MergeRequestAction::Updated => {
                        let retargeted = changed.previous.as_ref().is_some_and(|p| p.target_branch != mr.target_branch);
                        if retargeted {
                            self.abort(db, mr, "target branch was changed", changed.user_id)?;
                        } else if mr.head_sha.as_deref() != Some(queued.sha.as_str()) {
                            self.abort(db, mr, &self.source_updated(), changed.user_id)?;
                        }
                    }
                    _ => {}
                }
                Ok(Vec::new())
            }
            _ => Ok(Vec::new()),
        }
    }

    fn heard(&self, _event: &Event) {}
}
