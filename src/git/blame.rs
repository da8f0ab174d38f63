//! Blame of one file, as `git blame --porcelain <commit> -- <path>` attributes its lines
//! (renames followed, as git does by default), grouped the way GitLab's `Gitlab::Blame` groups
//! them: each run of consecutive lines from one commit is one group.
//!
//! gix's blame (`gix-blame`) does the work: it reads the commit-graph when there is one, and
//! when the graph has changed-path Bloom filters it reads the history through [`skip`], which
//! skips what the filters vouch did not change the file, as git's blame does.

mod skip;

use super::error::{boxed, BoxError, Classify, Missing};
use gix::ObjectId;

/// Why a file could not be blamed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the line range is outside the file")]
    Range,
    #[error("cannot blame the file")]
    Blame(#[source] BoxError),
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

/// The groups of `path` at `commit`, for lines `range` (1-based, inclusive) or the whole file.
pub fn file(
    repo: &gix::Repository,
    commit: ObjectId,
    path: &str,
    range: Option<(u32, u32)>,
) -> Result<Vec<Group>, Error> {
    let mut options =
        gix::repository::blame_file::Options { rewrites: Some(gix::diff::Rewrites::default()), ..Default::default() };
    if let Some((start, end)) = range {
        options.ranges =
            gix::blame::BlameRanges::from_one_based_inclusive_range(start..=end).map_err(|_| Error::Range)?;
    }
    let outcome = match skip::Skipping::new(repo, path) {
        Some(skipping) => {
            let outcome = skipping_blame(repo, &skipping, path, commit, options.clone())?;
            // The filters were asked for `path` alone: once a line was followed to another
            // path (a rename), blame again reading every commit.
            let renamed = outcome.entries.iter().any(|e| e.source_file_name.as_ref().is_some_and(|n| n != path));
            if renamed {
                repo.blame_file(path.into(), commit, options).map_err(|e| Error::Blame(boxed(e)))?
            } else {
                outcome
            }
        }
        None => repo.blame_file(path.into(), commit, options).map_err(|e| Error::Blame(boxed(e)))?,
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

/// gix's blame over `skipping` (whose commits come from the commit-graph, so gix-blame is given
/// no graph of its own), with what `Repository::blame_file` would set up.
fn skipping_blame(
    repo: &gix::Repository,
    skipping: &skip::Skipping<'_>,
    path: &str,
    commit: ObjectId,
    options: gix::repository::blame_file::Options,
) -> Result<gix::blame::Outcome, Error> {
    let mut resources = repo.diff_resource_cache_for_tree_diff().map_err(|e| Error::Blame(boxed(e)))?;
    let diff_algorithm = match options.diff_algorithm {
        Some(algorithm) => algorithm,
        None => repo.diff_algorithm().map_err(|e| Error::Blame(boxed(e)))?,
    };
    let options = gix::blame::Options {
        diff_algorithm,
        ranges: options.ranges,
        since: options.since,
        rewrites: options.rewrites,
        debug_track_path: false,
    };
    gix::blame::file(skipping, gix::blame::Start::Commit(commit), None, &mut resources, path.into(), options)
        .map_err(|e| Error::Blame(boxed(e)))
}
