//! Squash: one commit holding the source's changes since the merge base, its parent the merge
//! base (Gitaly's `UserSquash` from `diff_start_sha` to `diff_head_sha`), author the merge
//! request's author, committer the merging user, message the caller's (GitLab's default: the
//! merge request's title). The commit is written, not put on a branch: the merge that follows
//! merges or fast-forwards it.

use super::merge_tree::Engine;
use super::{broken, sign, tree_of, write_commit, MergeError, Staging};
use crate::git::merge_base;
use crate::git::write::Identity;
use gix::ObjectId;

/// The squash commit of `source` on `start` (normally their merge base): the tree is
/// `source`'s when `start` is its ancestor, else `source`'s changes since the merge base of
/// the two applied onto `start`.
pub fn squash(
    repo: &gix::Repository,
    start: ObjectId,
    source: ObjectId,
    message: &str,
    author: &Identity,
    committer: &Identity,
) -> Result<ObjectId, MergeError> {
    let staging = Staging::new(repo);
    let base = merge_base::best(repo, start, &[source]).map_err(broken)?;
    let tree = if base == Some(start) {
        tree_of(repo, source)?
    } else {
        let base_tree = match base {
            Some(base) => tree_of(repo, base)?,
            None => ObjectId::empty_tree(repo.object_hash()),
        };
        let mut engine = Engine::new(&staging.repo);
        let merged =
            engine.merge(base_tree, tree_of(repo, start)?, tree_of(repo, source)?, ("base", "start", "source"))?;
        if !merged.conflicts.is_empty() {
            return Err(MergeError::Conflicts(merged.conflicts));
        }
        merged.tree
    };
    let commit = write_commit(&staging.repo, tree, vec![start], sign(author), sign(committer), message)?;
    staging.persist(repo)?;
    Ok(commit)
}
