//! Rebase: the source's commits since the target (`onto..source`, merges left out, oldest
//! first, as `git rebase` picks them) replayed one by one onto the target's tip, each by a tree
//! merge whose base is that commit's parent (a cherry-pick); author and message kept, committer
//! the rebasing user, signatures dropped. A commit whose changes the target already has (it
//! becomes empty) is dropped, as `git rebase` drops it; a conflict stops the rebase with nothing
//! written. The source branch then moves, forced, by compare-and-swap from the tip it was.

use super::merge_tree::Engine;
use super::{broken, move_branch, sign, tree_of, MergeError, Staging};
use crate::git::write::{Identity, RefUpdate};
use gix::ObjectId;

/// A rebase done: the source's new head, and the move of its branch (`None` when the source
/// already sat on the target and nothing moved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rebased {
    pub head: ObjectId,
    pub update: Option<RefUpdate>,
}

/// Rebases `branch` (at `source`) onto `onto`; `allow` is asked before the branch moves.
pub fn rebase(
    repo: &gix::Repository,
    branch: &str,
    source: ObjectId,
    onto: ObjectId,
    who: &Identity,
    mut allow: impl FnMut(ObjectId) -> bool,
) -> Result<Rebased, MergeError> {
    if crate::git::refs::is_ancestor(repo, onto, source).map_err(broken)? {
        return Ok(Rebased { head: source, update: None });
    }
    let mut picks = Vec::new();
    let walk = repo.rev_walk([source]).with_hidden([onto]).all().map_err(broken)?;
    for info in walk {
        let info = info.map_err(broken)?;
        if info.parent_ids.len() <= 1 {
            picks.push((info.id, info.parent_ids.first().copied()));
        }
    }
    picks.reverse();
    let staging = Staging::new(repo);
    let mut engine = Engine::new(&staging.repo);
    let empty = ObjectId::empty_tree(repo.object_hash());
    let mut head = onto;
    let mut head_tree = tree_of(repo, onto)?;
    for (id, parent) in picks {
        let commit = repo.find_commit(id).map_err(broken)?;
        let decoded = commit.decode().map_err(broken)?;
        let tree = decoded.tree();
        let parent_tree = match parent {
            Some(parent) => tree_of(repo, parent)?,
            None => empty,
        };
        let merged = engine.merge(parent_tree, head_tree, tree, ("parent", "onto", "pick"))?;
        if !merged.conflicts.is_empty() {
            return Err(MergeError::Conflicts(merged.conflicts));
        }
        if merged.tree == head_tree && tree != parent_tree {
            continue;
        }
        let author = decoded.author().map_err(broken)?.to_owned().map_err(broken)?;
        let replayed = gix::objs::Commit {
            tree: merged.tree,
            parents: vec![head].into(),
            author,
            committer: sign(who),
            encoding: decoded.encoding.map(|e| e.to_owned()),
            message: decoded.message.to_owned(),
            extra_headers: Vec::new(),
        };
        head = staging.repo.write_object(&replayed).map_err(broken)?.detach();
        head_tree = merged.tree;
    }
    staging.persist(repo)?;
    let update = move_branch(repo, branch, source, head, who, "rebase: onto the target branch", &mut allow)?;
    Ok(Rebased { head, update: Some(update) })
}
