//! A merge commit: the target's tip and the source's as parents (in that order), the tree
//! [`super::merge_tree`] merges, author and committer the merging user (Gitaly's
//! `UserMergeBranch`), GitLab's message unless the caller gives one.

use super::merge_tree::merge_commits;
use super::{move_branch, sign, write_commit, MergeError, Staging};
use crate::git::write::{Identity, RefUpdate};
use gix::ObjectId;

/// A merge made: the new commit and the branch moved to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub commit: ObjectId,
    pub update: RefUpdate,
}

/// GitLab's `MergeRequest#default_merge_commit_message`: `Merge branch '<source>' into
/// '<target>'`, the title, `Closes ...` when the description closes issues, and `See merge
/// request <full reference>` (`group/project!iid`), joined by blank lines.
pub fn default_message(source: &str, target: &str, title: &str, closes: Option<&str>, reference: &str) -> String {
    let mut parts = vec![format!("Merge branch '{source}' into '{target}'"), title.to_string()];
    if let Some(closes) = closes.filter(|c| !c.is_empty()) {
        parts.push(format!("Closes {closes}"));
    }
    parts.push(format!("See merge request {reference}"));
    parts.join("\n\n")
}

/// Merges `source` into `branch`, which must still be at `target` when it moves; `allow` (the
/// protection rule) is asked just before. Conflicts build nothing.
pub fn merge_commit(
    repo: &gix::Repository,
    branch: &str,
    target: ObjectId,
    source: ObjectId,
    message: &str,
    who: &Identity,
    mut allow: impl FnMut() -> bool,
) -> Result<Merged, MergeError> {
    let staging = Staging::new(repo);
    let (merged, _) = merge_commits(&staging.repo, target, source)?;
    if !merged.conflicts.is_empty() {
        return Err(MergeError::Conflicts(merged.conflicts));
    }
    let commit = write_commit(&staging.repo, merged.tree, vec![target, source], sign(who), sign(who), message)?;
    staging.persist(repo)?;
    let title = message.lines().next().unwrap_or("");
    let update = move_branch(repo, branch, target, commit, who, &format!("merge: {title}"), &mut allow)?;
    Ok(Merged { commit, update })
}
