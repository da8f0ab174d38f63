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
    mut allow: impl FnMut(ObjectId) -> bool,
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

/// The merge commit of `source` into `target` written to the reference `ref_name` (GitLab's
/// `MergeToRefService` and `refs/merge-requests/:iid/merge`): created, or moved by
/// compare-and-swap from what it named when read. No branch moves.
pub fn merge_to_ref(
    repo: &gix::Repository,
    ref_name: &str,
    target: ObjectId,
    source: ObjectId,
    message: &str,
    who: &Identity,
) -> Result<Merged, MergeError> {
    use crate::git::write::refs;
    let staging = Staging::new(repo);
    let (merged, _) = merge_commits(&staging.repo, target, source)?;
    if !merged.conflicts.is_empty() {
        return Err(MergeError::Conflicts(merged.conflicts));
    }
    let commit = write_commit(&staging.repo, merged.tree, vec![target, source], sign(who), sign(who), message)?;
    staging.persist(repo)?;
    let current = crate::git::refs::target(repo, ref_name).map_err(super::broken)?;
    let moved = match current {
        Some(old) => refs::update(repo, ref_name, old, commit, who, "merge to ref"),
        None => refs::create(repo, ref_name, commit, who, "merge to ref"),
    };
    match moved {
        Ok(update) => Ok(Merged { commit, update }),
        Err(refs::Error::Changed | refs::Error::AlreadyExists) => Err(MergeError::Race(ref_name.to_string())),
        Err(e) => Err(super::broken(e)),
    }
}
