//! Merge bases as `git merge-base` computes them.

use super::{GitError, GitResult};

/// What `git merge-base <one> <others...>` prints: the first of the best common ancestors of
/// `one` and a hypothetical merge of `others` (not `--octopus`). `None` without a common
/// ancestor.
pub fn best(repo: &gix::Repository, one: gix::ObjectId, others: &[gix::ObjectId]) -> GitResult<Option<gix::ObjectId>> {
    let bases = repo.merge_bases_many(one, others).map_err(GitError::broken)?;
    Ok(bases.first().map(|id| id.detach()))
}
