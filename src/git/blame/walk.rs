//! The blame itself: commits taken newest first from a queue by committer date, each suspect
//! diffed against its parents, lines passed on or attributed ([`super::hunks`]), until every line
//! has its commit. It is gix-blame's loop (`gix-blame` 0.20, `src/file/function.rs`, MIT or
//! Apache-2.0), step for step, so that the answer stays git's, with two bounds gix-blame lacks:
//!
//! - Memory: what it keeps is the state of the blame (the unattributed lines and their
//!   suspects, the queue, the lines attributed) and the versions of the file of the diffs at
//!   hand; the diff platform is bounded ([`super::diffs::Diffs`]) instead of keeping every
//!   version it was given.
//! - Time: past `deadline` it stops ([`super::Error::Timeout`]), checked before each commit.

use super::diffs::{Diffs, TreeChange};
use super::hunks::{self, Unblamed};
use super::Error;
use crate::git::error::BoxError;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::commitgraph::Graph;
use gix::diff::blob::TokenSource;
use gix::objs::{Find, FindExt, FindHeader};
use gix::traverse::commit::Either;
use gix::ObjectId;
use std::num::NonZeroU32;
use std::time::Instant;

/// The lines of the blamed file by the commit each came from, and the file.
pub struct Outcome {
    pub entries: Vec<gix::blame::BlameEntry>,
    pub blob: Vec<u8>,
}

/// What a blame reads and how: the objects (commits from `graph` when given), the diffs, the
/// rename tracking and the deadline.
pub struct Blame<'a, O> {
    objects: O,
    graph: Option<&'a Graph>,
    diffs: Diffs,
    rewrites: Option<gix::diff::Rewrites>,
    deadline: Instant,
    /// Buffers for the objects read, reused from commit to commit.
    buf: Vec<u8>,
    buf2: Vec<u8>,
}

impl From<BoxError> for Error {
    fn from(error: BoxError) -> Error {
        Error::Blame(error)
    }
}

impl<'a, O: Find + FindHeader> Blame<'a, O> {
    pub fn new(
        objects: O,
        graph: Option<&'a Graph>,
        diffs: Diffs,
        rewrites: Option<gix::diff::Rewrites>,
        deadline: Instant,
    ) -> Blame<'a, O> {
        Blame { objects, graph, diffs, rewrites, deadline, buf: Vec::new(), buf2: Vec::new() }
    }

    /// The blame of `path` at commit `start`, for `ranges` of its lines.
    pub fn file(&mut self, start: ObjectId, path: &BStr, ranges: &gix::blame::BlameRanges) -> Result<Outcome, Error> {
        let entry = self.path_entry(&start, path)?.ok_or_else(|| message("the file is not in the first commit"))?;
        let blob = self.objects.find_blob(&entry, &mut self.buf).map_err(boxed)?.data.to_vec();
        let lines = gix::diff::blob::sources::byte_lines(&blob).tokenize().count();
        let lines = u32::try_from(lines).map_err(|_| message("the file has too many lines"))?;
        let mut out = Vec::new();
        if lines == 0 {
            return Ok(Outcome { entries: out, blob });
        }
        let mut hunks: Vec<Unblamed> =
            ranges.to_zero_based_exclusive_ranges(lines).into_iter().map(|range| Unblamed::new(range, start)).collect();
        let mut queue = gix::revwalk::PriorityQueue::<gix::date::SecondsSinceUnixEpoch, ObjectId>::new();
        let (time, _) = self.commit(&start)?;
        queue.insert(time, start);
        // The path's entry in the first parent of the commit just blamed, for when it is next.
        let mut previous: Option<(ObjectId, ObjectId)> = None;
        'suspects: while let Some(suspect) = queue.pop_value() {
            if hunks.is_empty() {
                break;
            }
            if Instant::now() > self.deadline {
                return Err(Error::Timeout);
            }
            let Some(first) = hunks.iter().find(|hunk| hunk.has(&suspect)) else { continue };
            let current: BString = first.source.clone().unwrap_or_else(|| path.to_owned());
            let (_, parents) = self.commit(&suspect)?;
            if parents.is_empty() {
                if queue.is_empty() && attribute_all(&mut hunks, &mut out, suspect) {
                    break;
                }
                continue;
            }
            let entry = match previous.take().filter(|(id, _)| *id == suspect) {
                Some((_, entry)) => Some(entry),
                None => self.path_entry(&suspect, current.as_ref())?,
            };
            let Some(entry) = entry else { continue };
            // A parent with the same version of the file takes every line.
            for (n, (parent, parent_time)) in parents.iter().enumerate() {
                if let Some(parent_entry) = self.path_entry(parent, current.as_ref())? {
                    if n == 0 {
                        previous = Some((*parent, parent_entry));
                    }
                    if parent_entry == entry {
                        hunks.iter_mut().for_each(|hunk| hunk.pass(suspect, *parent));
                        queue.insert(*parent_time, *parent);
                        continue 'suspects;
                    }
                }
            }
            let merge = parents.len() > 1;
            for (parent, parent_time) in &parents {
                queue.insert(*parent_time, *parent);
                let trees = (self.commit_tree(parent)?, self.commit_tree(&suspect)?);
                let change = self.diffs.at_path(&self.objects, trees, current.as_ref(), self.rewrites)?;
                match change {
                    None if merge => hunks.iter_mut().for_each(|hunk| hunk.share(suspect, *parent)),
                    None => hunks.iter_mut().for_each(|hunk| hunk.pass(suspect, *parent)),
                    // Added in a merge: it comes from another parent, as modified there.
                    Some(TreeChange::Addition) if merge => {}
                    Some(TreeChange::Addition) => {
                        if attribute_all(&mut hunks, &mut out, suspect) {
                            break 'suspects;
                        }
                    }
                    Some(TreeChange::Deletion) => return Err(message("the file is deleted where it is").into()),
                    Some(TreeChange::Modification { previous_id, id }) => {
                        let changes = self.diffs.lines(&self.objects, (previous_id, path), (id, path))?;
                        hunks = hunks::process(hunks, &changes, suspect, *parent);
                    }
                    Some(TreeChange::Rewrite { source_location, source_id, id }) => {
                        let changes =
                            self.diffs.lines(&self.objects, (source_id, source_location.as_bstr()), (id, path))?;
                        hunks = hunks::process(hunks, &changes, suspect, *parent);
                        for hunk in hunks.iter_mut().filter(|hunk| hunk.has(parent)) {
                            hunk.source = Some(source_location.clone());
                        }
                    }
                }
            }
            // Lines no parent took are the suspect's.
            hunks.retain_mut(|hunk| match entry_of(hunk, suspect).filter(|_| hunk.suspects.len() == 1) {
                Some(entry) => {
                    out.push(entry);
                    false
                }
                None => {
                    hunk.remove(suspect);
                    true
                }
            });
        }
        out.sort_by_key(|entry| entry.start_in_blamed_file);
        Ok(Outcome { entries: out, blob })
    }

    /// Committer date and parents (each with its committer date) of commit `id`.
    fn commit(&mut self, id: &gix::oid) -> Result<(i64, Vec<(ObjectId, i64)>), BoxError> {
        let commit = gix::traverse::commit::find(self.graph, &self.objects, id, &mut self.buf)?;
        let time = commit.commit_time()?;
        let mut parents = Vec::new();
        match commit {
            Either::CachedCommit(commit) => {
                let graph = self.graph.ok_or_else(|| message("a commit from a graph not given"))?;
                for position in commit.iter_parents() {
                    let parent = graph.commit_at(position?);
                    parents.push((parent.id().to_owned(), parent.committer_timestamp() as i64));
                }
            }
            Either::CommitRefIter(commit) => {
                for id in commit.parent_ids() {
                    let parent = self.objects.find_commit_iter(&id, &mut self.buf2).ok();
                    let time = parent.and_then(|p| p.committer().ok().map(|c| c.seconds())).unwrap_or_default();
                    parents.push((id, time));
                }
            }
        }
        Ok((time, parents))
    }

    fn commit_tree(&mut self, id: &gix::oid) -> Result<ObjectId, BoxError> {
        Ok(gix::traverse::commit::find(self.graph, &self.objects, id, &mut self.buf)?.tree_id()?)
    }

    /// The entry of `path` in commit `id`, when it has one.
    fn path_entry(&mut self, id: &gix::oid, path: &BStr) -> Result<Option<ObjectId>, BoxError> {
        let tree = self.commit_tree(id)?;
        let tree = self.objects.find_tree_iter(&tree, &mut self.buf)?;
        let entry = tree.lookup_entry(&self.objects, &mut self.buf2, path.split(|b| *b == b'/'))?;
        Ok(entry.map(|e| e.oid))
    }
}

/// Attributes to `suspect` every hunk it is a suspect of; whether none is left.
fn attribute_all(hunks: &mut Vec<Unblamed>, out: &mut Vec<gix::blame::BlameEntry>, suspect: ObjectId) -> bool {
    hunks.retain(|hunk| match entry_of(hunk, suspect) {
        Some(entry) => {
            out.push(entry);
            false
        }
        None => true,
    });
    hunks.is_empty()
}

/// The lines of `hunk` as coming from `commit`, when it is one of its suspects.
fn entry_of(hunk: &Unblamed, commit: ObjectId) -> Option<gix::blame::BlameEntry> {
    let range = hunk.range(&commit)?;
    Some(gix::blame::BlameEntry {
        start_in_blamed_file: hunk.lines.start,
        start_in_source_file: range.start,
        len: NonZeroU32::new(range.end - range.start)?,
        commit_id: commit,
        source_file_name: hunk.source.clone(),
    })
}

fn message(text: &'static str) -> BoxError {
    text.into()
}

fn boxed(error: impl std::error::Error + Send + Sync + 'static) -> BoxError {
    Box::new(error)
}
