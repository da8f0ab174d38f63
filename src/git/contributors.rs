//! Authors of the non-merge commits reachable from a commit, grouped by exact email.

use super::{GitError, GitResult};
use gix::bstr::ByteSlice;
use gix::prelude::FindExt;
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contributor {
    /// The author name on this email's most recent commit.
    pub name: String,
    pub email: String,
    pub commits: usize,
    /// Committer time of the most recent commit (for ordering by date).
    pub last_seconds: i64,
}

/// Walks every commit reachable from `tip` (no cap), skipping merges.
pub fn collect(repo: &gix::Repository, tip: gix::ObjectId) -> GitResult<Vec<Contributor>> {
    let walk = repo
        .rev_walk([tip])
        .sorting(gix::revision::walk::Sorting::ByCommitTime(Default::default()))
        .all()
        .map_err(GitError::broken)?;
    let mut by_email: HashMap<Vec<u8>, Contributor> = HashMap::new();
    let mut buf = Vec::new();
    for info in walk {
        let info = info.map_err(GitError::broken)?;
        if info.parent_ids.len() > 1 {
            continue;
        }
        let data = repo.objects.find_commit(&info.id, &mut buf).map_err(GitError::broken)?;
        let author = data.author().map_err(GitError::broken)?;
        let seconds = data.time().map(|t| t.seconds).unwrap_or(0);
        let entry = by_email.entry(author.email.to_vec()).or_insert_with(|| Contributor {
            name: String::new(),
            email: author.email.to_string(),
            commits: 0,
            last_seconds: i64::MIN,
        });
        entry.commits += 1;
        // The walk is newest first; the first non-blank name seen is the most recent one.
        if entry.name.trim().is_empty() && !author.name.trim().is_empty() {
            entry.name = author.name.to_string();
        }
        entry.last_seconds = entry.last_seconds.max(seconds);
    }
    Ok(by_email.into_values().collect())
}
