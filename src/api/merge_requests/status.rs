//! A merge request's `merge_status` and `detailed_merge_status` (reference §3.2), from one
//! function, [`merge_status`]. GitLab checks mergeability in a worker and shows `checking`
//! meanwhile; here the check (`git::merge::mergeability`, `git merge-tree`'s answer) is made
//! when a status is read, so a read always shows a verdict: `can_be_merged` or
//! `cannot_be_merged`. Verdicts are cached by (source head, target head): a list page or a
//! second read redoes no merge, and either branch moving asks afresh.
//!
//! `detailed_merge_status` is the first failing check in `DetailedMergeStatusService`'s order
//! (CE): `not_open`, `draft_status`, `commits_status` (no commits, a branch missing: GitLab's
//! `broken?`; older servers said `broken_status`), `discussions_not_resolved` (threads left
//! when the project requires them resolved), `conflict`, `need_rebase` (only for the `ff`
//! and `rebase_merge` methods), then CI when the project requires a successful pipeline
//! (`CheckCiStatusService`, then `DetailedMergeStatusService#ci_status`): the head pipeline
//! (`statuses::head_pipeline`) `success`, or `skipped` with `allow_merge_on_skipped_pipeline`,
//! passes; one in progress (`created`, `pending`, `running`) is `ci_still_running`; none, a
//! failed or a canceled one is `ci_must_pass`; else `mergeable`. `has_conflicts` is
//! `merge_status == "cannot_be_merged"`, as GitLab's entity has it.

use crate::api::Call;
use crate::git::merge::{self, Mergeability};
use crate::store::merge_requests::MergeRequest;
use crate::store::projects::Project;
use gix::ObjectId;
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

/// The two statuses an entity shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeStatus {
    /// `unchecked`, `checking`, `can_be_merged`, `cannot_be_merged`, `cannot_be_merged_recheck`.
    pub merge_status: String,
    /// `unchecked`, `checking`, `not_open`, `draft_status`, `conflict`, `mergeable`, ...
    pub detailed_merge_status: String,
}

/// What git says of a merge request's branches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A branch is missing, or the source has no commits the target lacks (GitLab's `broken?`).
    Broken,
    Conflict,
    /// Merges cleanly; `fast_forward`: the target's head is an ancestor of the source's.
    Clean {
        fast_forward: bool,
    },
}

/// How many verdicts stay cached (each is two ids and a tag).
const CACHE_CAPACITY: usize = 8192;

static VERDICTS: LazyLock<Mutex<HashMap<(ObjectId, ObjectId), Verdict>>> = LazyLock::new(Mutex::default);

/// The verdict for merging the commit `source` into the commit `target` in `repo`, cached.
pub fn verdict_of(repo: &gix::Repository, target: ObjectId, source: ObjectId) -> Result<Verdict, merge::MergeError> {
    if let Some(verdict) = VERDICTS.lock().unwrap_or_else(|p| p.into_inner()).get(&(target, source)) {
        return Ok(*verdict);
    }
    let verdict = match merge::mergeability(repo, target, source)? {
        Mergeability::AlreadyMerged => Verdict::Broken,
        Mergeability::Conflicts { .. } => Verdict::Conflict,
        Mergeability::Clean { base, .. } => Verdict::Clean { fast_forward: base == Some(target) },
    };
    let mut cache = VERDICTS.lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() >= CACHE_CAPACITY {
        cache.clear();
    }
    cache.insert((target, source), verdict);
    Ok(verdict)
}

/// The verdict for `mr` as its branches are now: the source head is the latest diff version's
/// (kept current by the refresh on every source move, and in the target's repository for
/// forks too), the target head the target branch's tip. `None` when git cannot say (the
/// repository cannot be read).
pub fn current_verdict(call: &Call, project: &Project, mr: &MergeRequest) -> Option<Verdict> {
    let repo = call.repository(project, "Project").ok()?;
    let head = mr.head_sha.as_deref().and_then(|h| ObjectId::from_hex(h.as_bytes()).ok());
    let target = crate::git::refs::branch(&repo, &mr.target_branch).ok()?;
    let source_here = mr.source_project_id == Some(project.id);
    let source_exists = if source_here {
        crate::git::refs::branch(&repo, &mr.source_branch).ok()?.is_some()
    } else {
        mr.source_project_id.is_some()
    };
    let (Some(head), Some(target), true) = (head, target, source_exists) else { return Some(Verdict::Broken) };
    verdict_of(&repo, target, head).ok()
}

/// The statuses of `mr` in `project` as `call`'s caller sees them.
pub fn merge_status(call: &Call, project: &Project, mr: &MergeRequest) -> MergeStatus {
    let status = |merge_status: &str, detailed: &str| MergeStatus {
        merge_status: merge_status.into(),
        detailed_merge_status: detailed.into(),
    };
    if mr.state == "merged" {
        return status("can_be_merged", "not_open");
    }
    let Some(verdict) = current_verdict(call, project, mr) else { return status("unchecked", "unchecked") };
    let merge_status = match verdict {
        Verdict::Clean { .. } => "can_be_merged",
        Verdict::Broken | Verdict::Conflict => "cannot_be_merged",
    };
    let pipeline = head_pipeline_status(call, project, mr);
    let blocking = blocking_discussions(call, project, mr);
    status(merge_status, detailed(project, mr, verdict, pipeline.as_deref(), blocking))
}

/// GitLab's `DiscussionsNotResolved` check: the project allows a merge only when every thread
/// is resolved (`only_allow_merge_if_all_discussions_are_resolved`) and `mr` has a resolvable
/// note not resolved. A store that cannot answer blocks nothing here; the merge asks again.
pub fn blocking_discussions(call: &Call, project: &Project, mr: &MergeRequest) -> bool {
    project.settings.only_allow_merge_if_all_discussions_are_resolved
        && call
            .ctx
            .store
            .read(|db| crate::store::notes::unresolved_counts(db, "MergeRequest", &[mr.id]))
            .is_ok_and(|counts| counts.get(&mr.id).copied().unwrap_or(0) > 0)
}

/// The status of `mr`'s head pipeline, `None` when its head has none (or it cannot be read).
pub fn head_pipeline_status(call: &Call, project: &Project, mr: &MergeRequest) -> Option<String> {
    let sha = mr.head_sha.as_deref()?;
    let pipeline = call.ctx.store.read(|db| crate::api::statuses::head_pipeline(db, project.id, sha)).ok()??;
    Some(pipeline.status)
}

/// GitLab's CI check for a project that requires a pipeline: `None` when it passes
/// (`MergeRequest#mergeable_ci_state?`: success, or skipped when allowed), else the status.
pub fn ci_check(project: &Project, pipeline: Option<&str>) -> Option<&'static str> {
    if !project.settings.only_allow_merge_if_pipeline_succeeds {
        return None;
    }
    match pipeline {
        Some("success") => None,
        Some("skipped") if project.settings.allow_merge_on_skipped_pipeline => None,
        // `diff_head_pipeline_considered_in_progress?`: the pipeline is active.
        Some("created" | "waiting_for_resource" | "preparing" | "pending" | "running" | "manual" | "scheduled") => {
            Some("ci_still_running")
        }
        _ => Some("ci_must_pass"),
    }
}

/// The first failing check of GitLab's `DetailedMergeStatusService` (CE), or `mergeable`.
/// `pipeline`: the head pipeline's status ([`head_pipeline_status`]).
/// `blocking`: threads left to resolve ([`blocking_discussions`]).
pub fn detailed(
    project: &Project,
    mr: &MergeRequest,
    verdict: Verdict,
    pipeline: Option<&str>,
    blocking: bool,
) -> &'static str {
    let ff_required = matches!(project.settings.merge_method.as_str(), "ff" | "rebase_merge");
    if !mr.is_open() {
        "not_open"
    } else if mr.draft || super::is_draft(&mr.title) {
        "draft_status"
    } else if verdict == Verdict::Broken {
        "commits_status"
    } else if blocking {
        "discussions_not_resolved"
    } else if verdict == Verdict::Conflict {
        "conflict"
    } else if ff_required && verdict == (Verdict::Clean { fast_forward: false }) {
        "need_rebase"
    } else if let Some(ci) = ci_check(project, pipeline) {
        ci
    } else {
        "mergeable"
    }
}
