//! Authors of the non-merge commits reachable from a commit, grouped by exact email.
//!
//! One pass over the history reading each commit object once, and only its headers (parents,
//! author, committer): the message is never parsed. Order does not matter for counting; the
//! name kept for an email is the one on its most recent commit by committer time.

use super::error::{boxed, BoxError, Classify, Missing};
use gix::bstr::ByteSlice;
use gix::objs::commit::ref_iter::Token;
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

/// A commit of the history could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read commit {id}")]
pub struct Error {
    id: gix::ObjectId,
    #[source]
    source: BoxError,
}

impl Classify for Error {
    fn missing(&self) -> Option<Missing> {
        None
    }
}

/// Walks every commit reachable from `tip` (no cap), skipping merges.
pub fn collect(repo: &gix::Repository, tip: gix::ObjectId) -> Result<Vec<Contributor>, Error> {
    let mut seen = gix::hashtable::HashSet::default();
    let mut pending = vec![tip];
    seen.insert(tip);
    let mut by_email: HashMap<Vec<u8>, Contributor> = HashMap::new();
    let mut buf = Vec::new();
    while let Some(id) = pending.pop() {
        let commit = repo.objects.find_commit_iter(&id, &mut buf).map_err(|e| Error { id, source: boxed(e) })?;
        let (mut parents, mut author, mut seconds) = (0usize, None, 0i64);
        for token in commit {
            match token.map_err(|e| Error { id, source: boxed(e) })? {
                Token::Parent { id } => {
                    parents += 1;
                    if seen.insert(id) {
                        pending.push(id);
                    }
                }
                Token::Author { signature } => author = Some(signature.trim()),
                Token::Committer { signature } => {
                    seconds = signature.seconds();
                    break;
                }
                _ => {}
            }
        }
        let Some(author) = author.filter(|_| parents <= 1) else { continue };
        let entry = by_email.entry(author.email.to_vec()).or_insert_with(|| Contributor {
            name: String::new(),
            email: author.email.to_str_lossy().into_owned(),
            commits: 0,
            last_seconds: i64::MIN,
        });
        entry.commits += 1;
        let name = author.name.trim();
        if !name.is_empty() && (seconds > entry.last_seconds || entry.name.is_empty()) {
            entry.name = name.to_str_lossy().into_owned();
        }
        entry.last_seconds = entry.last_seconds.max(seconds);
    }
    Ok(by_email.into_values().collect())
}
