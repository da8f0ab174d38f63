//! A merge request's `merge_status` and `detailed_merge_status` (reference §3.2), from one
//! function, [`merge_status`]: until mergeability is computed (`git merge-tree`, helper D's
//! `src/git/merge/`), every merge request answers GitLab's initial state, `unchecked` for both
//! (GitLab's `DetailedMergeStatusService` answers `unchecked` while the stored status is
//! `unchecked`, before any of its checks). `has_conflicts` is `merge_status ==
//! "cannot_be_merged"`, as GitLab's entity has it.

use crate::api::Call;
use crate::store::merge_requests::MergeRequest;
use crate::store::projects::Project;

/// The two statuses an entity shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeStatus {
    /// `unchecked`, `checking`, `can_be_merged`, `cannot_be_merged`, `cannot_be_merged_recheck`.
    pub merge_status: String,
    /// `unchecked`, `checking`, `not_open`, `draft_status`, `conflict`, `mergeable`, ...
    pub detailed_merge_status: String,
}

/// The statuses of `mr` in `project` as `call`'s caller sees them.
pub fn merge_status(_call: &Call, _project: &Project, _mr: &MergeRequest) -> MergeStatus {
    MergeStatus { merge_status: "unchecked".into(), detailed_merge_status: "unchecked".into() }
}
