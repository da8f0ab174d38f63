//! Fast-forward: the target branch moves to the source's tip, only when the target's tip is
//! an ancestor of it (GitLab's `ff` merge method, and the last step of a squash or rebase
//! merge with it).

use super::{broken, move_branch, MergeError};
use crate::git::write::{Identity, RefUpdate};
use gix::ObjectId;

/// Moves `branch` from `target` to `source` when `target` is an ancestor of `source`;
/// [`MergeError::NotFastForward`] otherwise. `allow` is asked just before the move.
pub fn fast_forward(
    repo: &gix::Repository,
    branch: &str,
    target: ObjectId,
    source: ObjectId,
    who: &Identity,
    mut allow: impl FnMut(ObjectId) -> bool,
) -> Result<RefUpdate, MergeError> {
    if !crate::git::refs::is_ancestor(repo, target, source).map_err(broken)? {
        return Err(MergeError::NotFastForward);
    }
    move_branch(repo, branch, target, source, who, "merge: Fast-forward", &mut allow)
}
