//! Authors of the non-merge commits reachable from a commit, grouped by exact email.
//!
//! The history is walked once in `git log` order ([`super::range::log`]), so "the name on the
//! most recent commit" is GitLab's rule exactly: the first non-blank author name in log order.
//! Without a commit-graph the walk reads every commit object for its parents and keeps the
//! author from the same read. With one, the walk reads no object, and the authors of the
//! non-merge commits are then read on every core at once, each thread a slice of the history
//! (reading commit objects is nearly all of the work: inflating them).

use super::commit_head::Heads;
use super::error::{boxed, BoxError, Classify, Missing};
use super::parallel;
use super::range::{self, Log, RangeError};
use gix::bstr::ByteSlice;
use gix::objs::commit::ref_iter::Token;
use gix::prelude::FindExt;
use gix::ObjectId;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contributor {
    /// The first non-blank author name of this email in log order (its most recent commit's).
    pub name: String,
    pub email: String,
    pub commits: usize,
    /// Position of the most recent commit in log order (0 is the tip).
    pub newest: usize,
}

/// The history could not be walked or a commit could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot walk the history")]
    Walk(#[from] RangeError),
    #[error("cannot read commit {id}")]
    Read {
        id: ObjectId,
        #[source]
        source: BoxError,
    },
}

impl Classify for Error {
    fn missing(&self) -> Option<Missing> {
        None
    }
}

/// Every non-merge commit reachable from `tip` (no cap), counted by author email.
pub fn collect(repo: &gix::Repository, tip: ObjectId) -> Result<Vec<Contributor>, Error> {
    let mut log = range::log(repo, tip)?;
    read_missing_authors(repo, &mut log)?;
    let mut by_author: Vec<Option<usize>> = vec![None; log.authors.len()];
    let mut by_email: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
    let mut out: Vec<Contributor> = Vec::new();
    for (position, commit) in log.commits.iter().enumerate() {
        let Some(author) = commit.author.filter(|_| commit.parents <= 1) else { continue };
        let slot = match by_author[author as usize] {
            Some(slot) => slot,
            None => {
                let (_, email) = log.authors.get(author);
                let slot = *by_email.entry(email).or_insert_with(|| {
                    out.push(Contributor {
                        name: String::new(),
                        email: email.to_str_lossy().into_owned(),
                        commits: 0,
                        newest: position,
                    });
                    out.len() - 1
                });
                by_author[author as usize] = Some(slot);
                slot
            }
        };
        let contributor = &mut out[slot];
        contributor.commits += 1;
        if contributor.name.is_empty() {
            let name = log.authors.get(author).0.trim();
            if !name.is_empty() {
                contributor.name = name.to_str_lossy().into_owned();
            }
        }
    }
    Ok(out)
}

/// Reads the author of every non-merge commit the walk took from the commit-graph, on every
/// core when there are many.
fn read_missing_authors(repo: &gix::Repository, log: &mut Log) -> Result<(), Error> {
    let missing: Vec<usize> =
        (0..log.commits.len()).filter(|&i| log.commits[i].author.is_none() && log.commits[i].parents <= 1).collect();
    let ids: Vec<ObjectId> = missing.iter().map(|&i| log.commits[i].id).collect();
    let authors = parallel::read_commits_with(repo, &ids, Heads::open, author_of)?;
    for (author, i) in authors.into_iter().zip(missing) {
        log.commits[i].author = author.map(|(name, email)| log.authors.intern(&name, &email));
    }
    Ok(())
}

/// An author's name and email, as stored.
type NameEmail = (Vec<u8>, Vec<u8>);

/// The author (name, email; trimmed) of one commit; `None` when it names none.
/// Read from the commit's head alone when a pack holds it whole (see [`super::commit_head`]).
fn author_of(
    repo: &gix::Repository,
    heads: &mut Option<Heads>,
    id: ObjectId,
    buf: &mut Vec<u8>,
) -> Result<Option<NameEmail>, Error> {
    let commit = if heads.as_mut().is_some_and(|heads| heads.read(&id, buf)) {
        gix::objs::CommitRefIter::from_bytes(buf, id.kind())
    } else {
        repo.objects.find_commit_iter(&id, buf).map_err(|e| Error::Read { id, source: boxed(e) })?
    };
    for token in commit {
        match token.map_err(|e| Error::Read { id, source: boxed(e) })? {
            Token::Author { signature } => {
                let signature = signature.trim();
                return Ok(Some((signature.name.to_vec(), signature.email.to_vec())));
            }
            Token::Committer { .. } => break,
            _ => {}
        }
    }
    Ok(None)
}
