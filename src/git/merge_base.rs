//! Merge bases as `git merge-base` computes them.

use super::commit_head::LaterHeads;
use super::error::{boxed, BoxError, Classify, Missing};
use super::prefetch::{Keep, ReadAhead};
use std::cell::RefCell;

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
    Ok(bases(repo, one, others)?.first().copied())
}

/// Every merge base of `one` and `other` (`git merge-base --all`), as a symmetric range
/// `one...other` excludes them.
pub fn all(repo: &gix::Repository, one: gix::ObjectId, other: gix::ObjectId) -> Result<Vec<gix::ObjectId>, Error> {
    bases(repo, one, &[other])
}

/// gix's `merge_bases_many` over a graph that inflates only the heads of commit objects (no
/// commit-graph, or commits it does not hold): see [`super::commit_head`]. A long walk takes
/// commits inflated ahead of it by a second thread ([`super::prefetch`]).
fn bases(repo: &gix::Repository, one: gix::ObjectId, others: &[gix::ObjectId]) -> Result<Vec<gix::ObjectId>, Error> {
    let cache = repo.commit_graph_if_enabled().map_err(|e| Error { one, source: boxed(e) })?;
    let tips = std::iter::once(one).chain(others.iter().copied()).collect();
    let objects =
        HeadsOnly { repo, heads: RefCell::default(), read_ahead: RefCell::new(ReadAhead::from(tips, Keep::Heads)) };
    let mut graph = gix::revwalk::Graph::new(&objects, cache.as_ref());
    let bases =
        repo.merge_bases_many_with_graph(one, others, &mut graph).map_err(|e| Error { one, source: boxed(e) })?;
    Ok(bases.into_iter().map(|id| id.detach()).collect())
}

/// The repository's objects, commits answered by their heads (the walk reads nothing past
/// the committer line).
struct HeadsOnly<'a> {
    repo: &'a gix::Repository,
    heads: RefCell<LaterHeads>,
    read_ahead: RefCell<ReadAhead>,
}

impl gix::objs::Find for HeadsOnly<'_> {
    fn try_find<'b>(&self, id: &gix::oid, buffer: &'b mut Vec<u8>) -> gix::Result<Option<gix::objs::Data<'b>>> {
        let commit = |data: &'b [u8]| gix::objs::Data { kind: gix::objs::Kind::Commit, object_hash: id.kind(), data };
        if let Some(ahead) = self.read_ahead.borrow_mut().take(self.repo, id) {
            *buffer = ahead;
            return Ok(Some(commit(buffer)));
        }
        let mut heads = self.heads.borrow_mut();
        if let Some(heads) = heads.get(self.repo) {
            if heads.read(id, buffer) {
                return Ok(Some(commit(buffer)));
            }
        }
        self.repo.objects.try_find(id, buffer)
    }
}
