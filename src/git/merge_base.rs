//! Merge bases as `git merge-base` computes them.

use super::error::{boxed, BoxError, Classify, Missing};

/// The walk over the commit graph failed: the repository could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot find the merge base of {one}")]
pub struct Error {
    one: gix::ObjectId,
    #[source]
    source: BoxError,
}

impl Classify for Error {
    fn missing(&self) -> Option<Missing> {
        None
    }
}

/// What `git merge-base <one> <others...>` prints: the first of the best common ancestors of
/// `one` and a hypothetical merge of `others` (not `--octopus`). `None` without a common
/// ancestor.
pub fn best(
    repo: &gix::Repository,
    one: gix::ObjectId,
    others: &[gix::ObjectId],
) -> Result<Option<gix::ObjectId>, Error> {
    let bases = repo.merge_bases_many(one, others).map_err(|e| Error { one, source: boxed(e) })?;
    Ok(bases.first().map(|id| id.detach()))
}

/// Every merge base of `one` and `other` (`git merge-base --all`), as a symmetric range
/// `one...other` excludes them.
pub fn all(repo: &gix::Repository, one: gix::ObjectId, other: gix::ObjectId) -> Result<Vec<gix::ObjectId>, Error> {
    let bases = repo.merge_bases_many(one, &[other]).map_err(|e| Error { one, source: boxed(e) })?;
    Ok(bases.into_iter().map(|id| id.detach()).collect())
}
