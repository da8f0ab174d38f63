//! The commits of a range `from..to` in `git log` order, and which merge brought each one in.
//!
//! The walk is git's limited revision walk (`limit_list` in revision.c): a queue ordered by
//! committer date (newest first, first-in first-out among equal dates, as
//! `commit_list_insert_by_date` keeps it), the excluded tips painted uninteresting and the paint
//! passed to parents, stopping when only uninteresting commits are queued (with git's five
//! commits of slop against clock skew). The answer is the commits that left the queue
//! interesting and stayed so, in that order: what `git rev-list` prints. It needs only parents
//! and dates, read from the commit-graph when the repository has one (no object is inflated)
//! and from the commit objects otherwise.
//!
//! [`ids`] is a compare's walk (`to ^from`); [`commits`] a changelog's (`from..to`), keeping the
//! author and message of every commit whose object the walk read anyway and reading the others
//! (those the commit-graph answered) afterwards, on every core; [`log`] a whole history's (`git
//! log <tip>`), keeping the author of every commit whose object the walk read.
//!
//! [`merged_by`] answers, for every commit of such a range, the oldest merge commit of the range
//! that brought it in: a merge `M` brings in what is reachable from its second parent and not
//! from its first (and `M` itself); merges are taken oldest first and the first one wins.

use super::error::{boxed, BoxError, Classify, Missing};
use super::parallel;
use gix::bstr::ByteSlice;
use gix::objs::commit::ref_iter::Token;
use gix::prelude::FindExt;
use gix::ObjectId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

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
    #[error("cannot compare the trees of commit {id} with its parents'")]
    Simplify {
        id: ObjectId,
        #[source]
        source: BoxError,
    },
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

/// git's `SLOP`: commits walked on once everything queued is uninteresting, in case a skewed
/// clock put an interesting commit behind them.
const SLOP: u32 = 5;
/// The clock is read once every this many commits.
const DEADLINE_EVERY: usize = 1024;

/// A commit the walk has heard of. Its parents and date are known once `parsed`.
struct Node {
    id: ObjectId,
    time: i64,
    /// The root tree, for a path-limited walk's [`Simplify`].
    tree: ObjectId,
    /// Position in the commit-graph, when it answered for the commit (a hint for [`Simplify`]).
    position: Option<u32>,
    /// `start..end` in [`Walk::parents`].
    parents: (u32, u32),
    /// Index in [`Reader::authors`], when kept and read.
    author: Option<u32>,
    /// Index in [`Reader::details`], when kept and read.
    detail: Option<u32>,
    parsed: bool,
    uninteresting: bool,
    /// An excluded tip (git's `BOTTOM`): relevant to history simplification though uninteresting.
    bottom: bool,
    /// TREESAME to the parent it walks on, by [`Simplify`]: not listed.
    treesame: bool,
    /// Queued once (git's `SEEN`); it is never queued again.
    seen: bool,
    in_queue: bool,
}

/// Authors (name and email), each kept once and named by its index.
#[derive(Default)]
pub struct Authors {
    /// `name`, NUL, `email`: the key of each author (neither holds a NUL).
    keys: std::collections::HashMap<Vec<u8>, u32>,
    list: Vec<(Vec<u8>, Vec<u8>)>,
    key: Vec<u8>,
}

impl Authors {
    /// The index of this author, added when new.
    pub fn intern(&mut self, name: &[u8], email: &[u8]) -> u32 {
        self.key.clear();
        self.key.extend_from_slice(name);
        self.key.push(0);
        self.key.extend_from_slice(email);
        if let Some(&i) = self.keys.get(self.key.as_slice()) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push((name.to_vec(), email.to_vec()));
        self.keys.insert(self.key.clone(), i);
        i
    }

    /// Name and email of an interned author.
    pub fn get(&self, i: u32) -> (&[u8], &[u8]) {
        let (name, email) = &self.list[i as usize];
        (name, email)
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// A commit's author and message, as a changelog reads them.
#[derive(Debug, Clone, Default)]
struct Detail {
    author_name: String,
    author_email: String,
    message: String,
}

/// What the reader returns for one commit besides its parents.
struct Read {
    time: i64,
    tree: ObjectId,
    position: Option<u32>,
    author: Option<u32>,
    detail: Option<u32>,
}

/// Parents and committer dates, from the commit-graph when it holds the commit; with the
/// author, or author and message, too when they are kept and the commit object had to be read
/// (so that no object is inflated twice).
struct Reader<'r> {
    repo: &'r gix::Repository,
    graph: Option<gix::commitgraph::Graph>,
    buf: Vec<u8>,
    authors: Option<Authors>,
    details: Option<Vec<Detail>>,
    /// Commit objects read ahead on another core (no commit-graph, a walk of many commits).
    prefetch: Option<super::prefetch::Prefetch>,
    /// The packs, for reading commits (their heads alone without details), once many were read.
    heads: super::commit_head::LaterHeads,
}

impl Reader<'_> {
    /// Appends the parents of `id` to `out` and answers its committer date, and its author and
    /// details when they are kept and the object was read.
    fn read(&mut self, id: ObjectId, out: &mut Vec<ObjectId>) -> Result<Read, RangeError> {
        if let Some(graph) = &self.graph {
            if let Some(position) = graph.lookup(id) {
                let commit = graph.commit_at(position);
                let before = out.len();
                let parents: Result<(), _> =
                    commit.iter_parents().try_for_each(|p| p.map(|pos| out.push(graph.id_at(pos).to_owned())));
                if parents.is_ok() {
                    let time = i64::try_from(commit.committer_timestamp()).unwrap_or(i64::MAX);
                    let tree = commit.root_tree_id().to_owned();
                    return Ok(Read { time, tree, position: Some(position.0), author: None, detail: None });
                }
                // A damaged graph: the object says the same, slower.
                out.truncate(before);
            }
        }
        let iter = match self.prefetch.as_ref().and_then(|p| p.take(&id)) {
            Some(read_ahead) => {
                self.buf = read_ahead;
                gix::objs::CommitRefIter::from_bytes(&self.buf, id.kind())
            }
            // Without details nothing past the committer line is needed.
            None if self.heads.get(self.repo).is_some_and(|h| match self.details {
                None => h.read(&id, &mut self.buf),
                Some(_) => h.read_whole(&id, &mut self.buf),
            }) =>
            {
                gix::objs::CommitRefIter::from_bytes(&self.buf, id.kind())
            }
            None => self.repo.objects.find_commit_iter(&id, &mut self.buf).map_err(|_| RangeError::NotACommit(id))?,
        };
        let (mut time, mut author, mut tree) = (None, None, None);
        let mut detail = self.details.is_some().then(Detail::default);
        for token in iter {
            match token.map_err(|e| RangeError::Decode { id, source: boxed(e) })? {
                Token::Tree { id } => tree = Some(id),
                Token::Parent { id } => out.push(id),
                Token::Author { signature } => {
                    let signature = signature.trim();
                    if let Some(authors) = &mut self.authors {
                        author = Some(authors.intern(signature.name, signature.email));
                    }
                    if let Some(detail) = &mut detail {
                        detail.author_name = signature.name.to_str_lossy().into_owned();
                        detail.author_email = signature.email.to_str_lossy().into_owned();
                    }
                }
                Token::Committer { signature } => {
                    time = Some(signature.seconds());
                    if detail.is_none() {
                        break;
                    }
                }
                Token::Message(message) => {
                    if let Some(detail) = &mut detail {
                        detail.message = message.to_str_lossy().into_owned();
                    }
                }
                _ => {}
            }
        }
        let time = time.ok_or_else(|| RangeError::Decode { id, source: "the commit has no committer".into() })?;
        let tree = tree.ok_or_else(|| RangeError::Decode { id, source: "the commit has no tree".into() })?;
        let detail = match (detail, &mut self.details) {
            (Some(detail), Some(details)) => {
                details.push(detail);
                Some(details.len() as u32 - 1)
            }
            _ => None,
        };
        Ok(Read { time, tree, position: None, author, detail })
    }
}

struct Walk<'r> {
    reader: Reader<'r>,
    nodes: Vec<Node>,
    parents: Vec<u32>,
    index: gix::hashtable::HashMap<ObjectId, u32>,
    queue: BinaryHeap<(i64, Reverse<u64>, u32)>,
    sequence: u64,
    /// Queued commits not (yet) painted uninteresting: none left means the walk is closing.
    interesting_queued: usize,
    scratch: Vec<ObjectId>,
}

impl Walk<'_> {
    /// The node of `id`, registered (unparsed) when first heard of.
    fn lookup(&mut self, id: ObjectId) -> u32 {
        if let Some(&i) = self.index.get(&id) {
            return i;
        }
        let i = self.nodes.len() as u32;
        self.nodes.push(Node {
            id,
            time: 0,
            tree: ObjectId::null(id.kind()),
            position: None,
            parents: (0, 0),
            author: None,
            detail: None,
            parsed: false,
            uninteresting: false,
            bottom: false,
            treesame: false,
            seen: false,
            in_queue: false,
        });
        self.index.insert(id, i);
        i
    }

    fn parse(&mut self, i: u32) -> Result<(), RangeError> {
        if self.nodes[i as usize].parsed {
            return Ok(());
        }
        let mut ids = std::mem::take(&mut self.scratch);
        ids.clear();
        let read = self.reader.read(self.nodes[i as usize].id, &mut ids)?;
        let start = self.parents.len() as u32;
        for &id in &ids {
            let p = self.lookup(id);
            self.parents.push(p);
        }
        let node = &mut self.nodes[i as usize];
        node.time = read.time;
        node.tree = read.tree;
        node.position = read.position;
        node.author = read.author;
        node.detail = read.detail;
        node.parents = (start, self.parents.len() as u32);
        node.parsed = true;
        self.scratch = ids;
        Ok(())
    }

    fn parents_of(&self, i: u32) -> std::ops::Range<usize> {
        let (start, end) = self.nodes[i as usize].parents;
        start as usize..end as usize
    }

    /// Queues a parsed node (`commit_list_insert_by_date`).
    fn enqueue(&mut self, i: u32) {
        let node = &mut self.nodes[i as usize];
        node.seen = true;
        node.in_queue = true;
        if !node.uninteresting {
            self.interesting_queued += 1;
        }
        self.sequence += 1;
        self.queue.push((node.time, Reverse(self.sequence), i));
    }

    fn paint(&mut self, i: u32) -> bool {
        let node = &mut self.nodes[i as usize];
        if node.uninteresting {
            return false;
        }
        node.uninteresting = true;
        if node.in_queue {
            self.interesting_queued -= 1;
        }
        true
    }

    /// `mark_parents_uninteresting`: every known ancestor of `i` through parsed commits.
    fn mark_parents_uninteresting(&mut self, i: u32) {
        let mut pending: Vec<u32> = self.parents[self.parents_of(i)].to_vec();
        while let Some(c) = pending.pop() {
            if self.paint(c) && self.nodes[c as usize].parsed {
                pending.extend_from_slice(&self.parents[self.parents_of(c)]);
            }
        }
    }

    /// `process_parents`: parse each parent, pass on the paint, queue the ones not yet seen. An
    /// interesting commit is first simplified (git's `try_to_simplify_commit`), which may narrow
    /// its parents to the one it is TREESAME to; with `first_parent` it walks on its first alone.
    fn process_parents(
        &mut self,
        i: u32,
        simplify: Option<&mut (dyn Simplify + '_)>,
        first_parent: bool,
    ) -> Result<(), RangeError> {
        let uninteresting = self.nodes[i as usize].uninteresting;
        if let (false, Some(simplify)) = (uninteresting, simplify) {
            let parents = self.parents_of(i);
            let node = &self.nodes[i as usize];
            let commit = Commit { id: node.id, tree: node.tree, position: node.position };
            let mut parent = |n: usize| -> Result<(ObjectId, bool), RangeError> {
                let p = self.parents[parents.start + n];
                self.parse(p)?;
                let node = &self.nodes[p as usize];
                Ok((node.tree, !node.uninteresting || node.bottom))
            };
            let simplified = simplify
                .simplify(&commit, parents.len(), &mut parent)
                .map_err(|source| RangeError::Simplify { id: commit.id, source })?;
            let node = &mut self.nodes[i as usize];
            node.treesame = simplified.treesame;
            if let Some(k) = simplified.keep {
                let start = node.parents.0 + k as u32;
                node.parents = (start, start + 1);
            }
        }
        for k in self.parents_of(i) {
            let p = self.parents[k];
            if uninteresting {
                self.paint(p);
            }
            self.parse(p)?;
            if uninteresting {
                self.mark_parents_uninteresting(p);
            }
            if !self.nodes[p as usize].seen {
                self.enqueue(p);
            }
            if first_parent && !uninteresting {
                break;
            }
        }
        Ok(())
    }
}

/// A commit as [`Simplify`] is shown it.
pub struct Commit {
    pub id: ObjectId,
    pub tree: ObjectId,
    /// Its position in the commit-graph, when the graph answered for it (a hint only).
    pub position: Option<u32>,
}

/// What simplifying a commit decided.
pub struct Simplified {
    /// The one parent to walk on (TREESAME to it), or `None` for all of them.
    pub keep: Option<usize>,
    /// The commit is TREESAME: not listed.
    pub treesame: bool,
}

/// git's `try_to_simplify_commit` for a path-limited range walk (`git log a..b -- path`), asked
/// of every interesting commit before its parents are walked, as `limit_list` asks it.
pub trait Simplify {
    /// `parent(n)` reads the `n`th of `parents` parents and answers its root tree and whether it
    /// is relevant (interesting, or an excluded tip: git's `relevant_commit`). Parents are read
    /// only as asked, as git parses them.
    fn simplify(
        &mut self,
        commit: &Commit,
        parents: usize,
        parent: &mut dyn FnMut(usize) -> Result<(ObjectId, bool), RangeError>,
    ) -> Result<Simplified, BoxError>;
}

/// What [`walk()`] stops at besides the end of the range.
struct Bounds {
    /// More interesting commits than this is [`RangeError::TooMany`].
    limit: Option<usize>,
    /// Past this instant the walk gives up and answers `None`.
    deadline: Option<Instant>,
    /// Whether to keep the authors of the commit objects read.
    authors: bool,
    /// Whether to keep the authors and messages of the commit objects read.
    details: bool,
    /// `--since` (git's `max_age`): an older commit is painted uninteresting when it leaves the
    /// queue.
    max_age: Option<i64>,
    /// `--first-parent`: interesting commits walk on their first parent alone.
    first_parent: bool,
}

impl Bounds {
    fn new() -> Bounds {
        Bounds { limit: None, deadline: None, authors: false, details: false, max_age: None, first_parent: false }
    }
}

/// The walk of `git rev-list` over `tips` (each with whether it is excluded, in the order given
/// on git's command line), as the module documentation describes it: the walk's nodes and the
/// indexes of the answer among them, in output order.
fn walk<'r>(
    repo: &'r gix::Repository,
    tips: &[(ObjectId, bool)],
    bounds: Bounds,
    mut simplify: Option<&mut (dyn Simplify + '_)>,
) -> Result<Option<(Walk<'r>, Vec<u32>)>, RangeError> {
    let graph = repo.commit_graph_if_enabled().ok().flatten();
    // Walks that read every commit of a history or a changelog range (authors or details
    // kept) read ahead from the newest tip when there is no commit-graph.
    let prefetch = match (&graph, tips.iter().rev().find(|(_, excluded)| !excluded)) {
        (None, Some(&(tip, _))) if bounds.authors || bounds.details => {
            super::prefetch::Prefetch::start(repo, vec![tip], 0, super::prefetch::Keep::Whole)
        }
        _ => None,
    };
    let reader = Reader {
        repo,
        graph,
        buf: Vec::new(),
        authors: bounds.authors.then(Authors::default),
        details: bounds.details.then(Vec::new),
        prefetch,
        heads: Default::default(),
    };
    let mut walk = Walk {
        reader,
        nodes: Vec::new(),
        parents: Vec::new(),
        index: Default::default(),
        queue: BinaryHeap::new(),
        sequence: 0,
        interesting_queued: 0,
        scratch: Vec::new(),
    };
    // prepare_revision_walk: excluded tips painted (with their parents), then all of them
    // queued once, in command-line order among equal dates.
    for &(id, excluded) in tips {
        let i = walk.lookup(id);
        walk.parse(i)?;
        if excluded {
            walk.paint(i);
            walk.nodes[i as usize].bottom = true;
            walk.mark_parents_uninteresting(i);
        }
    }
    for &(id, _) in tips {
        let i = walk.lookup(id);
        if !walk.nodes[i as usize].seen {
            walk.enqueue(i);
        }
    }
    let mut order = Vec::new();
    let mut slop = SLOP;
    let mut last_date = i64::MAX;
    let mut popped = 0usize;
    while let Some((_, _, i)) = walk.queue.pop() {
        if popped % DEADLINE_EVERY == 0 && bounds.deadline.is_some_and(|deadline| Instant::now() > deadline) {
            return Ok(None);
        }
        popped += 1;
        walk.nodes[i as usize].in_queue = false;
        if !walk.nodes[i as usize].uninteresting {
            walk.interesting_queued -= 1;
        }
        if bounds.max_age.is_some_and(|since| walk.nodes[i as usize].time < since) {
            walk.paint(i);
        }
        walk.process_parents(i, simplify.as_deref_mut(), bounds.first_parent)?;
        if walk.nodes[i as usize].uninteresting {
            walk.mark_parents_uninteresting(i);
            // still_interesting
            slop = match walk.queue.peek() {
                None => 0,
                Some(&(head, _, _)) if last_date <= head => SLOP,
                Some(_) if walk.interesting_queued > 0 => SLOP,
                Some(_) => slop - 1,
            };
            if slop == 0 {
                break;
            }
            continue;
        }
        last_date = walk.nodes[i as usize].time;
        order.push(i);
        if bounds.limit.is_some_and(|limit| order.len() > limit) {
            return Err(RangeError::TooMany);
        }
    }
    // A commit can be painted after it left the queue (a descendant of the same date was
    // queued later); git leaves it out when printing.
    order.retain(|&i| !walk.nodes[i as usize].uninteresting);
    Ok(Some((walk, order)))
}

/// The newest commits reachable from `to` and not from `from`, at most `first`, in the order
/// `git rev-list --max-count=<first> from..to` prints them (Gitaly's `CommitsBetween`). `None` when the clock passed
/// `deadline` first. Like git, the whole range is walked before the first commit is known.
pub fn ids(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
    first: usize,
    deadline: Instant,
) -> Result<Option<Vec<ObjectId>>, RangeError> {
    let Some((walk, order)) =
        walk(repo, &[(from, true), (to, false)], Bounds { deadline: Some(deadline), ..Bounds::new() }, None)?
    else {
        return Ok(None);
    };
    Ok(Some(order.into_iter().take(first).map(|i| walk.nodes[i as usize].id).collect()))
}

/// A commit of [`simplified_ids`]' answer: id, committer date, TREESAME.
pub type Walked = (ObjectId, i64, bool);

/// What `git log [--since] [--first-parent] <tips> -- <path>` walks (each tip with whether it
/// is excluded): the commits in output order, each with its committer date and whether
/// `simplify` found it TREESAME; `None` when the clock passed `deadline` first.
pub fn simplified_ids(
    repo: &gix::Repository,
    tips: &[(ObjectId, bool)],
    since: Option<i64>,
    first_parent: bool,
    simplify: &mut dyn Simplify,
    deadline: Instant,
) -> Result<Option<Vec<Walked>>, RangeError> {
    let bounds = Bounds { deadline: Some(deadline), max_age: since, first_parent, ..Bounds::new() };
    let Some((walk, order)) = walk(repo, tips, bounds, Some(simplify))? else { return Ok(None) };
    Ok(Some(order.into_iter().map(|i| &walk.nodes[i as usize]).map(|n| (n.id, n.time, n.treesame)).collect()))
}

/// The commits of `from..to` (everything reachable from `to` and not from `from`), newest first
/// in `git log from..to` order; `TooMany` once more than `limit` are found.
pub fn commits(
    repo: &gix::Repository,
    from: Option<ObjectId>,
    to: ObjectId,
    limit: usize,
) -> Result<Vec<RangeCommit>, RangeError> {
    let tips: Vec<(ObjectId, bool)> = from.map(|from| (from, true)).into_iter().chain([(to, false)]).collect();
    let bounds = Bounds { limit: Some(limit), details: true, ..Bounds::new() };
    let Some((mut walk, order)) = walk(repo, &tips, bounds, None)? else {
        return Ok(Vec::new());
    };
    // Commits the walk took from the commit-graph are read now, on every core when many.
    let missing: Vec<ObjectId> =
        order.iter().map(|&i| &walk.nodes[i as usize]).filter(|n| n.detail.is_none()).map(|n| n.id).collect();
    let mut read =
        parallel::read_commits_with(repo, &missing, |_| super::commit_head::LaterHeads::default(), detail_of)?
            .into_iter();
    let mut details = walk.reader.details.take().unwrap_or_default();
    order
        .into_iter()
        .map(|i| {
            let node = &walk.nodes[i as usize];
            let detail = match node.detail {
                Some(d) => std::mem::take(&mut details[d as usize]),
                None => read.next().unwrap_or_default(),
            };
            let parents = walk.parents[walk.parents_of(i)].iter().map(|&p| walk.nodes[p as usize].id).collect();
            Ok(RangeCommit {
                id: node.id,
                parents,
                author_name: detail.author_name,
                author_email: detail.author_email,
                message: detail.message,
                time: node.time,
            })
        })
        .collect()
}

/// One commit of a [`Log`].
#[derive(Debug, Clone, Copy)]
pub struct Logged {
    pub id: ObjectId,
    pub parents: u32,
    /// Committer date, seconds since the epoch.
    pub time: i64,
    /// Index in [`Log::authors`]; `None` when the commit-graph answered for the commit, so its
    /// object was never read.
    pub author: Option<u32>,
}

/// A whole history in `git log` order.
pub struct Log {
    pub commits: Vec<Logged>,
    pub authors: Authors,
}

/// Every commit reachable from `tip`, in the order `git log <tip>` prints them.
pub fn log(repo: &gix::Repository, tip: ObjectId) -> Result<Log, RangeError> {
    let bounds = Bounds { authors: true, ..Bounds::new() };
    let Some((walk, order)) = walk(repo, &[(tip, false)], bounds, None)? else {
        return Ok(Log { commits: Vec::new(), authors: Authors::default() });
    };
    let commits = order
        .into_iter()
        .map(|i| {
            let node = &walk.nodes[i as usize];
            let (start, end) = node.parents;
            Logged { id: node.id, parents: end - start, time: node.time, author: node.author }
        })
        .collect();
    Ok(Log { commits, authors: walk.reader.authors.unwrap_or_default() })
}

/// The author and message of commit `id`, read from its object.
fn detail_of(
    repo: &gix::Repository,
    heads: &mut super::commit_head::LaterHeads,
    id: ObjectId,
    buf: &mut Vec<u8>,
) -> Result<Detail, RangeError> {
    let iter = match heads.get(repo).is_some_and(|heads| heads.read_whole(&id, buf)) {
        true => gix::objs::CommitRefIter::from_bytes(buf, id.kind()),
        false => repo.objects.find_commit_iter(&id, buf).map_err(|_| RangeError::NotACommit(id))?,
    };
    let mut detail = Detail::default();
    for token in iter {
        match token.map_err(|e| RangeError::Decode { id, source: boxed(e) })? {
            Token::Author { signature } => {
                let signature = signature.trim();
                detail.author_name = signature.name.to_str_lossy().into_owned();
                detail.author_email = signature.email.to_str_lossy().into_owned();
            }
            Token::Message(message) => detail.message = message.to_str_lossy().into_owned(),
            _ => {}
        }
    }
    Ok(detail)
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
