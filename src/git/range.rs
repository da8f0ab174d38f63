//! The commits of a range `from..to` in `git log` order, and which merge brought each one in.
//!
//! [`commits`] walks like git's limited revision walk: a queue ordered by committer date (newest
//! first, first-in first-out among equal dates), `from` painted uninteresting and the paint
//! passed to parents, stopping when only uninteresting commits are queued. Each commit object is
//! read once; the answer is the interesting commits in the order they left the queue, which is
//! what `git log from..to` prints. The walk stops as soon as more than `limit` commits were found.
//!
//! [`merged_by`] answers, for every commit of such a range, the oldest merge commit of the range
//! that brought it in: a merge `M` brings in what is reachable from its second parent and not
//! from its first (and `M` itself); merges are taken oldest first and the first one wins.

use super::error::{boxed, BoxError, Classify, Missing};
use gix::bstr::ByteSlice;
use gix::objs::commit::ref_iter::Token;
use gix::prelude::FindExt;
use gix::ObjectId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One commit of the range.
#[derive(Debug, Clone)]
pub struct RangeCommit {
    pub id: ObjectId,
    pub parents: Vec<ObjectId>,
    pub author_name: String,
    pub author_email: String,
    /// The whole message, lossily decoded as UTF-8.
    pub message: String,
    /// Committer time, seconds since the epoch.
    pub time: i64,
}

/// Why the commits of a range, or the refs that bound it, could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RangeError {
    #[error("the range has more commits than the limit")]
    TooMany,
    #[error("{0} names no commit")]
    UnknownRevision(String),
    #[error("{0} is no commit")]
    NotACommit(ObjectId),
    #[error("commit {id} is malformed")]
    Decode {
        id: ObjectId,
        #[source]
        source: BoxError,
    },
    #[error("cannot read the references")]
    References(#[source] BoxError),
}

/// Equal when they are the same failure and say the same (causes are not compared).
impl PartialEq for RangeError {
    fn eq(&self, other: &RangeError) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other) && self.to_string() == other.to_string()
    }
}

impl Classify for RangeError {
    fn missing(&self) -> Option<Missing> {
        match self {
            RangeError::UnknownRevision(_) => Some(Missing::Revision),
            RangeError::NotACommit(_) => Some(Missing::Object),
            _ => None,
        }
    }
}

struct Node {
    commit: RangeCommit,
    uninteresting: bool,
    queued: bool,
    /// Indexes of parents, once the node left the queue.
    parents: Vec<usize>,
}

struct Walk<'r> {
    repo: &'r gix::Repository,
    nodes: Vec<Node>,
    index: gix::hashtable::HashMap<ObjectId, usize>,
    queue: BinaryHeap<(i64, Reverse<u64>, usize)>,
    sequence: u64,
    buf: Vec<u8>,
}

impl Walk<'_> {
    fn read(&mut self, id: ObjectId) -> Result<RangeCommit, RangeError> {
        let iter = self.repo.objects.find_commit_iter(&id, &mut self.buf).map_err(|_| RangeError::NotACommit(id))?;
        let mut commit = RangeCommit {
            id,
            parents: Vec::new(),
            author_name: String::new(),
            author_email: String::new(),
            message: String::new(),
            time: 0,
        };
        for token in iter {
            match token.map_err(|e| RangeError::Decode { id, source: boxed(e) })? {
                Token::Parent { id } => commit.parents.push(id),
                Token::Author { signature } => {
                    let signature = signature.trim();
                    commit.author_name = signature.name.to_str_lossy().into_owned();
                    commit.author_email = signature.email.to_str_lossy().into_owned();
                }
                Token::Committer { signature } => commit.time = signature.seconds(),
                Token::Message(message) => commit.message = message.to_str_lossy().into_owned(),
                _ => {}
            }
        }
        Ok(commit)
    }

    /// The node of `id`, read and registered when first seen.
    fn node(&mut self, id: ObjectId) -> Result<usize, RangeError> {
        if let Some(&i) = self.index.get(&id) {
            return Ok(i);
        }
        let commit = self.read(id)?;
        self.nodes.push(Node { commit, uninteresting: false, queued: false, parents: Vec::new() });
        let i = self.nodes.len() - 1;
        self.index.insert(id, i);
        Ok(i)
    }

    fn enqueue(&mut self, i: usize) {
        if !self.nodes[i].queued {
            self.nodes[i].queued = true;
            self.sequence += 1;
            self.queue.push((self.nodes[i].commit.time, Reverse(self.sequence), i));
        }
    }

    /// Paints `i` and everything already known below it uninteresting.
    fn mark_uninteresting(&mut self, i: usize) {
        let mut stack = vec![i];
        while let Some(i) = stack.pop() {
            if self.nodes[i].uninteresting {
                continue;
            }
            self.nodes[i].uninteresting = true;
            for p in self.nodes[i].parents.clone() {
                if !self.nodes[p].uninteresting {
                    stack.push(p);
                }
            }
        }
    }

    fn everybody_uninteresting(&self) -> bool {
        self.queue.iter().all(|(_, _, i)| self.nodes[*i].uninteresting)
    }
}

/// The commits of `from..to` (everything reachable from `to` and not from `from`), newest first
/// in `git log` order; `TooMany` once more than `limit` are found.
pub fn commits(
    repo: &gix::Repository,
    from: Option<ObjectId>,
    to: ObjectId,
    limit: usize,
) -> Result<Vec<RangeCommit>, RangeError> {
    let mut walk = Walk {
        repo,
        nodes: Vec::new(),
        index: Default::default(),
        queue: BinaryHeap::new(),
        sequence: 0,
        buf: Vec::new(),
    };
    if let Some(from) = from {
        let i = walk.node(from)?;
        walk.nodes[i].uninteresting = true;
        walk.enqueue(i);
    }
    let i = walk.node(to)?;
    walk.enqueue(i);
    let mut order = Vec::new();
    let mut interesting = 0usize;
    while let Some((_, _, i)) = walk.queue.pop() {
        let parent_ids = walk.nodes[i].commit.parents.clone();
        let mut parents = Vec::with_capacity(parent_ids.len());
        for id in parent_ids {
            parents.push(walk.node(id)?);
        }
        walk.nodes[i].parents = parents.clone();
        let uninteresting = walk.nodes[i].uninteresting;
        for &p in &parents {
            if uninteresting && !walk.nodes[p].uninteresting {
                walk.mark_uninteresting(p);
            }
            walk.enqueue(p);
        }
        if !uninteresting {
            order.push(i);
            interesting += 1;
            if interesting > limit {
                return Err(RangeError::TooMany);
            }
        }
        if walk.everybody_uninteresting() {
            break;
        }
    }
    let mut nodes: Vec<Option<Node>> = walk.nodes.into_iter().map(Some).collect();
    Ok(order.into_iter().filter_map(|i| nodes[i].take().filter(|n| !n.uninteresting).map(|n| n.commit)).collect())
}

/// For each commit of `range` (as [`commits`] answers it), the index in `range` of the oldest
/// merge that brought it in, among the merges `is_merge_request` accepts.
pub fn merged_by(range: &[RangeCommit], is_merge_request: impl Fn(usize) -> bool) -> Vec<Option<usize>> {
    let n = range.len();
    let mut answer = vec![None; n];
    let merges: Vec<usize> = (0..n).filter(|&i| range[i].parents.len() > 1 && is_merge_request(i)).collect();
    if merges.is_empty() {
        return answer;
    }
    let index: gix::hashtable::HashMap<ObjectId, usize> = range.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    let parents: Vec<Vec<usize>> =
        range.iter().map(|c| c.parents.iter().filter_map(|p| index.get(p).copied()).collect()).collect();
    let topo = topological_positions(&parents);
    let mut merges = merges;
    merges.sort_by_key(|&m| Reverse(topo[m]));
    const ONE: u8 = 1;
    const TWO: u8 = 2;
    let mut color = vec![0u8; n];
    let mut touched: Vec<usize> = Vec::new();
    for m in merges {
        if answer[m].is_none() {
            answer[m] = Some(m);
        }
        let (Some(&first), Some(second)) = (range[m].parents.first(), range[m].parents.get(1)) else { continue };
        let Some(&second) = index.get(second) else { continue };
        let mut queue: BinaryHeap<Reverse<(usize, usize)>> = BinaryHeap::new();
        let mut only_two = 0usize;
        color[second] = TWO;
        touched.push(second);
        queue.push(Reverse((topo[second], second)));
        only_two += 1;
        if let Some(&first) = index.get(&first) {
            if color[first] == 0 {
                touched.push(first);
                queue.push(Reverse((topo[first], first)));
            }
            if color[first] == TWO {
                only_two -= 1;
            }
            color[first] |= ONE;
        }
        while only_two > 0 {
            let Some(Reverse((_, c))) = queue.pop() else { break };
            let paint = color[c];
            if paint == TWO {
                only_two -= 1;
                if answer[c].is_none() {
                    answer[c] = Some(m);
                }
            }
            for &p in &parents[c] {
                let before = color[p];
                let after = before | paint;
                if before == after {
                    continue;
                }
                if before == 0 {
                    touched.push(p);
                    queue.push(Reverse((topo[p], p)));
                } else if before == TWO {
                    only_two -= 1;
                }
                if after == TWO {
                    only_two += 1;
                }
                color[p] = after;
            }
        }
        for c in touched.drain(..) {
            color[c] = 0;
        }
    }
    answer
}

/// A topological position for each commit (children before parents), close to the given order.
fn topological_positions(parents: &[Vec<usize>]) -> Vec<usize> {
    let n = parents.len();
    let mut children = vec![0usize; n];
    for ps in parents {
        for &p in ps {
            children[p] += 1;
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..n).filter(|&i| children[i] == 0).map(Reverse).collect();
    let mut position = vec![0usize; n];
    let mut next = 0;
    while let Some(Reverse(i)) = ready.pop() {
        position[i] = next;
        next += 1;
        for &p in &parents[i] {
            children[p] -= 1;
            if children[p] == 0 {
                ready.push(Reverse(p));
            }
        }
    }
    position
}

/// The short names of all tags (`refs/tags/<name>`), in name order.
pub fn tag_names(repo: &gix::Repository) -> Result<Vec<String>, RangeError> {
    let platform = repo.references().map_err(|e| RangeError::References(boxed(e)))?;
    let mut names: Vec<String> = platform
        .tags()
        .map_err(|e| RangeError::References(boxed(e)))?
        .filter_map(Result::ok)
        .filter_map(|r| r.name().as_bstr().strip_prefix(b"refs/tags/").map(|n| n.to_str_lossy().into_owned()))
        .collect();
    names.sort();
    Ok(names)
}

/// The commit the tag `refs/tags/<name>` points at, peeled.
pub fn tag_commit(repo: &gix::Repository, name: &str) -> Result<ObjectId, RangeError> {
    peeled(repo, &format!("refs/tags/{name}"))
}

/// The commit `refs/heads/<branch>` points at.
pub fn branch_commit(repo: &gix::Repository, branch: &str) -> Result<ObjectId, RangeError> {
    peeled(repo, &format!("refs/heads/{branch}"))
}

/// The commit the reference `full_name` points at, peeled.
fn peeled(repo: &gix::Repository, full_name: &str) -> Result<ObjectId, RangeError> {
    let unknown = || RangeError::UnknownRevision(full_name.to_string());
    let name: &gix::refs::FullNameRef = full_name.try_into().map_err(|_| unknown())?;
    let mut reference = repo.find_reference(name).map_err(|_| unknown())?;
    let id = reference.peel_to_id().map_err(|_| unknown())?;
    let commit = id.object().map_err(|_| unknown())?.peel_to_commit().map_err(|_| unknown())?;
    Ok(commit.id)
}

/// The trailers of a commit message (`git interpret-trailers --parse`), in order.
pub fn trailers(message: &str) -> Vec<(String, String)> {
    gix::objs::commit::MessageRef::from_bytes(message.as_bytes())
        .body()
        .map(|body| {
            body.trailers()
                .map(|t| (t.token.to_str_lossy().into_owned(), t.value.to_str_lossy().into_owned()))
                .collect()
        })
        .unwrap_or_default()
}
