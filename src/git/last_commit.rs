//! The last commit that changed a path, as `git log -1 --format=%H <commit> -- <path>` answers
//! it (GitLab's `last_commit_id_for_path` with a literal pathspec): the first commit of
//! [`super::log`]'s walk with that path, so the files API, the commits list and the write
//! path's `last_commit_id` check share one history simplification, one use of the
//! commit-graph and of its changed-path Bloom filters.

use super::error::{boxed, BoxError};
use super::log::{self, Filter, Window};
use gix::ObjectId;
use std::time::{Duration, Instant};

/// How long one walk may take before it is given up as an error.
pub const BUDGET: Duration = Duration::from_secs(60);

/// Why the walk failed: the repository could not be read, or the walk outlasted its budget.
#[derive(Debug, thiserror::Error)]
#[error("cannot walk the history of a path")]
pub struct Error(#[source] BoxError);

impl super::Classify for Error {
    fn missing(&self) -> Option<super::Missing> {
        None
    }
}

/// The last commit reachable from `start` that changed `path` (`/`-separated, no leading `/`),
/// or `None` when no commit in that history has it.
pub fn find(repo: &gix::Repository, start: ObjectId, path: &str) -> Result<Option<ObjectId>, Error> {
    find_before(repo, start, path, Instant::now() + BUDGET)
}

/// [`find`], given up as an error at `deadline` (several walks sharing one bound).
pub fn find_before(
    repo: &gix::Repository,
    start: ObjectId,
    path: &str,
    deadline: Instant,
) -> Result<Option<ObjectId>, Error> {
    let components = path.split('/').map(|c| c.as_bytes().to_vec()).collect();
    let filter = Filter { path: Some(components), ..Filter::default() };
    let window = Window { skip: 0, take: 1 };
    match log::page(repo, &[start], &filter, window, deadline) {
        Ok(Some(ids)) => Ok(ids.first().copied()),
        Ok(None) => Err(Error(boxed(std::io::Error::other("the walk outlasted its budget")))),
        Err(e) => Err(Error(boxed(e))),
    }
}
