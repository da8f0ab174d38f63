//! Blame of one file, as `git blame --porcelain <commit> -- <path>` attributes its lines
//! (renames followed, as git does by default), grouped the way GitLab's `Gitlab::Blame` groups
//! them: each run of consecutive lines from one commit is one group.
//!
//! The blame is gix-blame's algorithm, run here ([`walk`], [`hunks`], [`diffs`]) so that it is
//! bounded: in memory by the state of the blame and the versions of the diff at hand (never
//! every version of the file, whatever the history's length), and in time by a deadline
//! ([`Error::Timeout`]). It reads the history through [`skip`], which skips the commits that
//! certainly did not change the file (the commit-graph's changed-path Bloom filters say so, as
//! git's blame asks them, or the file's entry is its first parent's). Attributes are read as git
//! reads them in a bare repository (not from `HEAD`'s tree: see [`resources`]).

mod ahead;
mod diffs;
mod history;
mod hunks;
mod recent;
mod skip;
mod walk;

use super::error::{boxed, BoxError, Classify, Missing};
use gix::ObjectId;
use std::time::Instant;

/// Why a file could not be blamed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the line range is outside the file")]
    Range,
    #[error("cannot blame the file")]
    Blame(#[source] BoxError),
    /// Still running at its deadline (`limits.blame_timeout_millis`).
    #[error("the blame took longer than its time limit")]
    Timeout,
}

impl Classify for Error {
    fn missing(&self) -> Option<Missing> {
        None
    }
}

/// Consecutive lines from one commit: the lines' text without their line ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub commit: ObjectId,
    pub lines: Vec<Vec<u8>>,
}

/// The groups of `path` at `commit`, for lines `range` (1-based, inclusive) or the whole file;
/// [`Error::Timeout`] when the blame still runs at `deadline`.
pub fn file(
    repo: &gix::Repository,
    commit: ObjectId,
    path: &str,
    range: Option<(u32, u32)>,
    deadline: Instant,
) -> Result<Vec<Group>, Error> {
    let ranges = match range {
        Some((start, end)) => {
            gix::blame::BlameRanges::from_one_based_inclusive_range(start..=end).map_err(|_| Error::Range)?
        }
        None => gix::blame::BlameRanges::default(),
    };
    // Its commits are written anew (from the commit-graph when it has them): the blame is
    // given no graph of its own.
    let skipping = skip::Skipping::new(repo, path, commit, deadline);
    let outcome = blame(repo, &skipping, None, path, commit, &ranges, deadline)?;
    // What was skipped was judged for `path` alone: once a line was followed to another path
    // (a rename), blame again reading every commit.
    let renamed = outcome.entries.iter().any(|e| e.source_file_name.as_ref().is_some_and(|n| n != path));
    let outcome = if renamed {
        let graph = repo.commit_graph_if_enabled().ok().flatten();
        blame(repo, &repo.objects, graph.as_ref(), path, commit, &ranges, deadline)?
    } else {
        outcome
    };
    let lines: Vec<&[u8]> = outcome.blob.split_inclusive(|b| *b == b'\n').collect();
    let mut groups: Vec<Group> = Vec::new();
    let mut entries = outcome.entries;
    entries.sort_by_key(|e| e.start_in_blamed_file);
    for entry in entries {
        let start = entry.start_in_blamed_file as usize;
        let end = start + entry.len.get() as usize;
        let text = lines.get(start..end).ok_or(Error::Range)?;
        let text = text.iter().map(|line| line.strip_suffix(b"\n").unwrap_or(line).to_vec());
        match groups.last_mut() {
            Some(last) if last.commit == entry.commit_id => last.lines.extend(text),
            _ => groups.push(Group { commit: entry.commit_id, lines: text.collect() }),
        }
    }
    Ok(groups)
}

/// The blame of `path` at `commit` reading objects from `objects` (and commits from `graph`
/// when given), renames followed, with the repository's diff algorithm.
fn blame(
    repo: &gix::Repository,
    objects: impl gix::objs::Find + gix::objs::FindHeader,
    graph: Option<&gix::commitgraph::Graph>,
    path: &str,
    commit: ObjectId,
    ranges: &gix::blame::BlameRanges,
    deadline: Instant,
) -> Result<walk::Outcome, Error> {
    let broken = |e: gix::Error| Error::Blame(boxed(e));
    let diffs = diffs::Diffs::new(resources(repo).map_err(broken)?, repo.diff_algorithm().map_err(broken)?);
    let rewrites = Some(gix::diff::Rewrites::default());
    walk::Blame::new(objects, graph, diffs, rewrites, deadline).file(commit, path.into(), ranges)
}

/// The blob diff platform the blame diffs with ([`diffs::Diffs`] bounds it), its attributes
/// read as git reads them in a bare repository (`info/attributes`, not the `.gitattributes` of
/// `HEAD`): gix's own `diff_resource_cache_for_tree_diff` builds an index of `HEAD`'s whole
/// tree to find them, which for a large tree was most of a blame's time.
fn resources(repo: &gix::Repository) -> gix::Result<gix::diff::blob::Platform> {
    let empty = gix::index::State::new(repo.object_hash());
    let source = gix::worktree::stack::state::attributes::Source::IdMapping;
    let attributes = repo.attributes_only(&empty, source)?.detach();
    gix::diff::resource_cache(repo, gix::diff::blob::pipeline::Mode::ToGit, attributes, Default::default())
}
