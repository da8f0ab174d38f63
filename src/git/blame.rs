//! Blame of one file, as `git blame --porcelain <commit> -- <path>` attributes its lines
//! (renames followed, as git does by default), grouped the way GitLab's `Gitlab::Blame` groups
//! them: each run of consecutive lines from one commit is one group.
//!
//! gix's blame (`gix-blame`) does the work: it reads the commit-graph when there is one.

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
    let outcome = match repo.blame_file(path.into(), commit, options) {
        Ok(outcome) => outcome,
        Err(e) => return Err(Error::Blame(boxed(e))),
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
