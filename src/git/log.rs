//! The commits `git log` lists, one page at a time: `git log [--all] [--first-parent]
//! [--topo-order] [--since=] [--until=] [--author=] [--skip=] [-n] <tips> [-- <path>]`, as
//! Gitaly's `FindCommits` runs it for GitLab's commits list.
//!
//! The default order is git's unlimited walk (`get_revision_1` without `limit_list`): a queue
//! ordered by committer date, newest first, first-in first-out among equal dates; a commit is
//! listed when it leaves the queue, so the walk stops as soon as the page is filled and reads
//! nothing past it. What git does per commit is done here in the same order:
//! - `--since`: a commit older than it is dropped and its parents are not walked (git's
//!   `max_age` in an unlimited walk);
//! - parents: with a path, git's default history simplification (`try_to_simplify_commit`): a
//!   commit whose path entry equals a parent's is TREESAME; a merge TREESAME to a parent follows
//!   only that (first such) parent; a root commit is TREESAME when the path is absent. With
//!   `--first-parent` only the first parent is compared and walked;
//! - listed unless TREESAME, newer than `--until` (`min_age`: ignored, parents still walked), or
//!   not by the author (`--author`: a basic regular expression found in `Name <email>`).
//!
//! `--topo-order` with a commit-graph is git's incremental topological walk ([`Topo`]),
//! which reads about as much history as the page shows; without one (or with `--since`) the
//! whole walk is sorted first (git's `sort_in_topological_order`), as git's limited walk does.
//! A range `a..b` or `a...b` is walked whole too ([`super::range`]'s limited walk, then the
//! same filters per commit). Parents, dates and root trees come from the commit-graph when the
//! repository has one, and with a path its changed-path Bloom filters answer first, as git
//! asks them ([`super::bloom`]); a commit object is read only for its author, and only when
//! asked to match one.

use super::error::{boxed, BoxError, Classify, Missing};
use gix::bstr::ByteSlice;
use gix::objs::commit::ref_iter::Token;
use gix::prelude::FindExt;
use gix::ObjectId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// Why the log could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0} is no commit")]
    NotACommit(ObjectId),
    #[error("commit {id} is malformed")]
    Decode {
        id: ObjectId,
        #[source]
        source: BoxError,
    },
    #[error("cannot read the tree {id}")]
    Tree {
        id: ObjectId,
        #[source]
        source: BoxError,
    },
    #[error("cannot read the references")]
    References(#[source] BoxError),
    #[error(transparent)]
    Range(#[from] super::range::RangeError),
}

impl Classify for Error {
    fn missing(&self) -> Option<Missing> {
        match self {
            Error::NotACommit(_) => Some(Missing::Object),
            _ => None,
        }
    }
}

/// The clock is read once every this many commits.
const DEADLINE_EVERY: usize = 512;
/// Objects (trees, and blame's blobs) a walk reads through gix before it opens the packs to
/// read them itself ([`super::packs`]): a short walk (a commit-graph's Bloom filters answer
/// most commits, or the page fills within the newest) does not pay for opening them (about
/// 0.25 ms for the 100k-file repository's pack).
const OBJECTS_BEFORE_PACKS: usize = 32;
/// Path entries kept by (tree, depth) before the cache starts over.
const ENTRY_CACHE_MAX: usize = 1 << 16;

/// What `git log` is asked to list besides its tips.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// `--since`: committer dates before this (seconds) end the walk along that line.
    pub since: Option<i64>,
    /// `--until`: committer dates after this (seconds) are not listed.
    pub until: Option<i64>,
    /// `--author`: a pattern `Name <email>` must match.
    pub author: Option<AuthorPattern>,
    /// `-- <path>`: the path's components (a file or a directory).
    pub path: Option<Vec<Vec<u8>>>,
    pub first_parent: bool,
    pub topo: bool,
}

/// `--author`'s pattern as git reads it: a POSIX basic regular expression (`+`, `?`, `|`, `(`,
/// `)`, `{`, `}` are literal unless escaped), found anywhere in `Name <email>`, case-sensitive.
/// A pattern that does not compile is matched as fixed text.
#[derive(Debug, Clone)]
pub enum AuthorPattern {
    Regex(regex::bytes::Regex),
    Text(Vec<u8>),
}

impl AuthorPattern {
    pub fn new(pattern: &str) -> AuthorPattern {
        match regex::bytes::RegexBuilder::new(&basic_to_extended(pattern)).size_limit(1 << 20).build() {
            Ok(regex) => AuthorPattern::Regex(regex),
            Err(_) => AuthorPattern::Text(pattern.as_bytes().to_vec()),
        }
    }

    fn matches(&self, ident: &[u8]) -> bool {
        match self {
            AuthorPattern::Regex(regex) => regex.is_match(ident),
            AuthorPattern::Text(text) => ident.find(text.as_slice()).is_some(),
        }
    }
}

/// A POSIX basic regular expression in the `regex` crate's syntax: the characters that are
/// special only when escaped in BRE swap their escaping.
fn basic_to_extended(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next @ ('+' | '?' | '|' | '(' | ')' | '{' | '}')) => out.push(next),
                Some(next) => {
                    out.push('\\');
                    out.push(next);
                }
                None => out.push_str("\\\\"),
            },
            '+' | '?' | '|' | '(' | ')' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            other => out.push(other),
        }
    }
    out
}

/// One page: skip `skip` listed commits, then list at most `take`.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub skip: usize,
    pub take: usize,
}

/// A commit the walk has heard of.
struct Node {
    id: ObjectId,
    time: i64,
    tree: ObjectId,
    /// The parents as the object names them.
    parents: Vec<u32>,
    /// The parents walked after simplification (git rewrites `commit->parents` so).
    walked: Vec<u32>,
    /// Position in gix's reading of the commit-graph: a hint for the Bloom filters' lookup.
    position: Option<u32>,
    /// Generation number from the commit-graph; `u32::MAX` (git's infinity) without one.
    generation: u32,
    parsed: bool,
    seen: bool,
    treesame: bool,
}

struct Walk<'r> {
    repo: &'r gix::Repository,
    graph: Option<gix::commitgraph::Graph>,
    nodes: Vec<Node>,
    index: gix::hashtable::HashMap<ObjectId, u32>,
    /// By position in the commit-graph, the node's index plus one (0: none yet): parents read
    /// from the graph are found by position, with no search of the graph's ids or hashing.
    by_position: Vec<u32>,
    buf: Vec<u8>,
    compare: Compare<'r>,
    /// Commit objects read ahead on another core (a path walk without a commit-graph), begun
    /// once the walk is long.
    read_ahead: super::prefetch::ReadAhead,
    /// Commit heads read straight from the packs, for what was not read ahead.
    heads: super::commit_head::LaterHeads,
}

/// What git's `rev_compare_tree` reads to tell whether a commit changed the path: the path's
/// entry in trees, and first the commit-graph's changed-path Bloom filters.
pub(super) struct Compare<'r> {
    repo: &'r gix::Repository,
    buf: Vec<u8>,
    /// The entry (id and mode) of the filter's path component at each depth (the index), by tree.
    entries: Vec<gix::hashtable::HashMap<ObjectId, Option<(ObjectId, u16)>>>,
    /// How many entries `entries` holds.
    entries_held: usize,
    /// The commit-graph's changed-path filters and the filter path's keys, when both exist.
    bloom: Option<(std::sync::Arc<super::bloom::Graph>, super::bloom::Keys)>,
    /// The packs trees (and blame's blobs) are read from, opened once [`OBJECTS_BEFORE_PACKS`]
    /// objects were read.
    packs: Option<super::packs::Packs>,
    /// Bytes of decoded objects the packs keep, when not their default ([`Compare::keeping`]).
    kept: Option<usize>,
    objects_read: usize,
}

impl<'r> Compare<'r> {
    pub(super) fn new(repo: &'r gix::Repository) -> Compare<'r> {
        Compare {
            repo,
            buf: Vec::new(),
            entries: Vec::new(),
            entries_held: 0,
            bloom: None,
            packs: None,
            kept: None,
            objects_read: 0,
        }
    }

    /// Keeps at most `bytes` of the objects decoded from the packs
    /// ([`super::packs::Packs::keeping`]): blame bounds what its view keeps.
    pub(super) fn keeping(&mut self, bytes: usize) {
        self.kept = Some(bytes);
    }

    /// Reads the commit-graph's changed-path filters for `path`, when there are any.
    pub(super) fn use_bloom(&mut self, path: Option<&[Vec<u8>]>, graph: bool) {
        if let (Some(path), true) = (path, graph) {
            let objects = self.repo.common_dir().join("objects");
            self.bloom = super::bloom::load(&objects).map(|graph| (graph, super::bloom::Keys::new(path)));
        }
    }

    /// Whether the filter of commit `id` says it certainly left the path as its first parent
    /// had it; `hint` is its position in gix's reading of the commit-graph, when known.
    pub(super) fn certainly_unchanged(&self, id: &gix::oid, hint: Option<u32>) -> bool {
        self.bloom.as_ref().is_some_and(|(graph, keys)| graph.certainly_unchanged_at(id, hint, keys))
    }

    /// The entry at `path` in tree `tree` (id and mode). Each level's answer is kept by
    /// (tree, depth): consecutive commits share most subtrees, so a commit usually costs one
    /// read of its root tree.
    pub(super) fn entry(&mut self, tree: ObjectId, path: &[Vec<u8>]) -> Result<Option<(ObjectId, u16)>, Error> {
        if self.entries_held >= ENTRY_CACHE_MAX {
            // Only a cache: a walk through a long history starts it afresh now and then.
            self.entries.iter_mut().for_each(|level| level.clear());
            self.entries_held = 0;
        }
        if self.entries.len() < path.len() {
            self.entries.resize_with(path.len(), Default::default);
        }
        let mut current = tree;
        let mut found = None;
        for (depth, name) in path.iter().enumerate() {
            let here = match self.entries[depth].get(&current) {
                Some(&known) => known,
                None => {
                    let unreadable = |e: BoxError| Error::Tree { id: current, source: e };
                    let iter = self.tree(&current).map_err(unreadable)?;
                    let mut hit = None;
                    for entry in iter {
                        let entry = entry.map_err(|e| unreadable(boxed(e)))?;
                        if entry.filename == name.as_slice() {
                            hit = Some((entry.oid.to_owned(), entry.mode.value()));
                            break;
                        }
                    }
                    self.entries[depth].insert(current, hit);
                    self.entries_held += 1;
                    hit
                }
            };
            let Some((id, mode)) = here else { return Ok(None) };
            found = Some((id, mode));
            if depth + 1 < path.len() {
                if mode & 0o170000 != 0o040000 {
                    return Ok(None);
                }
                current = id;
            }
        }
        Ok(found)
    }

    /// Tree `id`, from the packs with the delta bases on the way kept ([`super::packs`]), else
    /// through gix.
    fn tree(&mut self, id: &gix::oid) -> Result<gix::objs::TreeRefIter<'_>, BoxError> {
        let mut buf = std::mem::take(&mut self.buf);
        let packed = self.packed(id, &mut buf);
        self.buf = buf;
        match packed {
            Some(gix::objs::Kind::Tree) => Ok(gix::objs::TreeRefIter::from_bytes(&self.buf, id.kind())),
            _ => self.repo.objects.find_tree_iter(id, &mut self.buf).map_err(boxed),
        }
    }

    /// Object `id` into `out` from the packs, the delta bases on the way kept, once the walk
    /// has read [`OBJECTS_BEFORE_PACKS`] objects (a short walk does not pay for opening them);
    /// `None` before, and for what the packs do not hold (the caller reads it through gix).
    pub(super) fn packed(&mut self, id: &gix::oid, out: &mut Vec<u8>) -> Option<gix::objs::Kind> {
        self.objects_read += 1;
        if self.objects_read == OBJECTS_BEFORE_PACKS {
            let packs = super::packs::Packs::of(self.repo);
            self.packs = Some(match self.kept {
                Some(bytes) => packs.keeping(bytes),
                None => packs,
            });
        }
        self.packs.as_mut()?.find(id, out)
    }

    /// git's `try_to_simplify_commit` for a commit whose root tree is `tree`, with `parents`
    /// parents: `parent(n)` reads the `n`th and answers its root tree and whether it is relevant
    /// (git's `relevant_commit`: always in an unlimited walk). A commit TREESAME to a relevant
    /// parent walks on that (first such) parent alone; TREESAME to an irrelevant one, it keeps
    /// them all. The first parent is asked of the Bloom filter first, as git asks it.
    fn simplify(
        &mut self,
        path: &[Vec<u8>],
        commit: &super::range::Commit,
        parents: usize,
        first_parent: bool,
        parent: &mut dyn FnMut(usize) -> Result<(ObjectId, bool), Error>,
    ) -> Result<super::range::Simplified, Error> {
        use super::range::Simplified;
        if parents == 0 {
            let treesame = self.entry(commit.tree, path)?.is_none();
            return Ok(Simplified { keep: None, treesame });
        }
        let mut own = None;
        let (mut relevant_parents, mut relevant_change, mut irrelevant_change) = (0, false, false);
        for n in 0..parents {
            if n == 1 && first_parent {
                break;
            }
            let (theirs, relevant) = parent(n)?;
            relevant_parents += usize::from(relevant);
            let same = if n == 0 && self.certainly_unchanged(&commit.id, commit.position) {
                true
            } else {
                let own = match own {
                    Some(own) => own,
                    None => *own.insert(self.entry(commit.tree, path)?),
                };
                self.entry(theirs, path)? == own
            };
            match (same, relevant) {
                (true, true) => return Ok(Simplified { keep: Some(n), treesame: true }),
                (true, false) => {}
                (false, true) => relevant_change = true,
                (false, false) => irrelevant_change = true,
            }
        }
        let treesame = if relevant_parents > 0 { !relevant_change } else { !irrelevant_change };
        Ok(Simplified { keep: None, treesame })
    }
}

impl<'r> Walk<'r> {
    fn new(repo: &'r gix::Repository) -> Walk<'r> {
        Walk {
            repo,
            graph: repo.commit_graph_if_enabled().ok().flatten(),
            nodes: Vec::new(),
            index: Default::default(),
            by_position: Vec::new(),
            buf: Vec::new(),
            compare: Compare::new(repo),
            read_ahead: super::prefetch::ReadAhead::from(Vec::new(), super::prefetch::Keep::Whole),
            heads: Default::default(),
        }
    }

    /// Reads the commit-graph's changed-path filters for `path`, when there are any.
    fn use_bloom(&mut self, path: Option<&[Vec<u8>]>) {
        self.compare.use_bloom(path, self.graph.is_some());
    }

    fn lookup(&mut self, id: ObjectId) -> u32 {
        if let Some(&i) = self.index.get(&id) {
            return i;
        }
        let i = match self.graph.as_ref().and_then(|graph| graph.lookup(id)) {
            Some(at) => self.at_position(at.0),
            None => self.push(id, None),
        };
        self.index.insert(id, i);
        i
    }

    /// The node of the commit at `position` in the commit-graph.
    fn at_position(&mut self, position: u32) -> u32 {
        let Some(graph) = &self.graph else { return u32::MAX };
        if self.by_position.is_empty() {
            self.by_position = vec![0; graph.num_commits() as usize];
        }
        match self.by_position.get(position as usize) {
            Some(&known) if known > 0 => known - 1,
            _ => {
                let id = graph.id_at(gix::commitgraph::Position(position)).to_owned();
                let i = self.push(id, Some(position));
                if let Some(slot) = self.by_position.get_mut(position as usize) {
                    *slot = i + 1;
                }
                i
            }
        }
    }

    fn push(&mut self, id: ObjectId, position: Option<u32>) -> u32 {
        let i = self.nodes.len() as u32;
        self.nodes.push(Node {
            id,
            time: 0,
            tree: ObjectId::null(id.kind()),
            parents: Vec::new(),
            walked: Vec::new(),
            position,
            generation: u32::MAX,
            parsed: false,
            seen: false,
            treesame: false,
        });
        i
    }

    /// Parents, committer date and root tree of node `i`, from the commit-graph when it has
    /// the commit, else from the object.
    fn parse(&mut self, i: u32) -> Result<(), Error> {
        if self.nodes[i as usize].parsed {
            return Ok(());
        }
        let id = self.nodes[i as usize].id;
        let mut from_graph = None;
        let mut generation = u32::MAX;
        let mut position = self.nodes[i as usize].position;
        if let Some(graph) = &self.graph {
            if let Some(at) = position.map(gix::commitgraph::Position).or_else(|| graph.lookup(id)) {
                let commit = graph.commit_at(at);
                position = Some(at.0);
                let mut in_graph = Vec::new();
                if commit.iter_parents().try_for_each(|p| p.map(|pos| in_graph.push(pos.0))).is_ok() {
                    let time = i64::try_from(commit.committer_timestamp()).unwrap_or(i64::MAX);
                    from_graph = Some((time, commit.root_tree_id().to_owned(), in_graph));
                    generation = commit.generation();
                }
            }
        }
        let (time, tree, parents): (i64, ObjectId, Vec<u32>) = match from_graph {
            Some((time, tree, in_graph)) => {
                (time, tree, in_graph.into_iter().map(|pos| self.at_position(pos)).collect())
            }
            None => {
                if let Some(read_ahead) = self.read_ahead.take(self.repo, &id) {
                    self.buf = read_ahead;
                } else if !self.heads.get(self.repo).is_some_and(|heads| heads.read(&id, &mut self.buf)) {
                    self.repo.objects.find_commit_iter(&id, &mut self.buf).map_err(|_| Error::NotACommit(id))?;
                }
                let header =
                    super::commit::header(&self.buf, id.kind()).map_err(|e| Error::Decode { id, source: e })?;
                (header.time, header.tree, header.parents.into_iter().map(|p| self.lookup(p)).collect())
            }
        };
        let node = &mut self.nodes[i as usize];
        node.time = time;
        node.tree = tree;
        node.walked = parents.clone();
        node.parents = parents;
        node.generation = generation;
        node.position = position;
        node.parsed = true;
        Ok(())
    }

    /// git's `try_to_simplify_commit` for node `i` (parsed): marks it TREESAME and narrows the
    /// parents it walks on.
    fn simplify(&mut self, i: u32, filter: &Filter) -> Result<(), Error> {
        let Some(path) = &filter.path else { return Ok(()) };
        let node = &self.nodes[i as usize];
        let commit = super::range::Commit { id: node.id, tree: node.tree, position: node.position };
        let parents = node.parents.clone();
        let mut compare = std::mem::replace(&mut self.compare, Compare::new(self.repo));
        let mut parent = |n: usize| -> Result<(ObjectId, bool), Error> {
            self.parse(parents[n])?;
            Ok((self.nodes[parents[n] as usize].tree, true))
        };
        let simplified = compare.simplify(path, &commit, parents.len(), filter.first_parent, &mut parent);
        self.compare = compare;
        let simplified = simplified?;
        let node = &mut self.nodes[i as usize];
        node.treesame = simplified.treesame;
        if let Some(k) = simplified.keep {
            node.walked = vec![parents[k]];
        }
        Ok(())
    }

    /// Whether node `i` is listed: not TREESAME, not newer than `until`, by the author.
    fn listed(&mut self, i: u32, filter: &Filter) -> Result<bool, Error> {
        let node = &self.nodes[i as usize];
        if node.treesame || filter.until.is_some_and(|until| node.time > until) {
            return Ok(false);
        }
        match &filter.author {
            None => Ok(true),
            Some(author) => self.authored_by(node.id, author),
        }
    }

    fn authored_by(&mut self, id: ObjectId, author: &AuthorPattern) -> Result<bool, Error> {
        let iter = self.repo.objects.find_commit_iter(&id, &mut self.buf).map_err(|_| Error::NotACommit(id))?;
        for token in iter {
            if let Token::Author { signature } = token.map_err(|e| Error::Decode { id, source: boxed(e) })? {
                let line = [signature.name.as_bytes(), b" <", signature.email.as_bytes(), b">"].concat();
                return Ok(author.matches(&line));
            }
        }
        Ok(false)
    }
}

/// The commits `git log` lists from `tips` (in command-line order), within `window`, as the
/// module documentation describes; `None` when the clock passed `deadline` first.
pub fn page(
    repo: &gix::Repository,
    tips: &[ObjectId],
    filter: &Filter,
    window: Window,
    deadline: Instant,
) -> Result<Option<Vec<ObjectId>>, Error> {
    let mut walk = Walk::new(repo);
    walk.use_bloom(filter.path.as_deref());
    // A path walk reads commits until the page is full of ones that changed the path: often
    // much of the history. Without a commit-graph its commits are read ahead on another core.
    if let (Some(_), None, Some(&tip)) = (&filter.path, &walk.graph, tips.first()) {
        walk.read_ahead = super::prefetch::ReadAhead::from(vec![tip], super::prefetch::Keep::Whole);
    }
    if filter.topo && filter.since.is_none() && walk.graph.is_some() {
        return Topo::new(walk).page(tips, filter, window, deadline);
    }
    let mut queue: BinaryHeap<(i64, Reverse<u64>, u32)> = BinaryHeap::new();
    let mut sequence = 0u64;
    for &tip in tips {
        let i = walk.lookup(tip);
        walk.parse(i)?;
        if !walk.nodes[i as usize].seen {
            walk.nodes[i as usize].seen = true;
            sequence += 1;
            queue.push((walk.nodes[i as usize].time, Reverse(sequence), i));
        }
    }
    let (mut skip, mut out, mut order, mut popped) = (window.skip, Vec::new(), Vec::new(), 0usize);
    while let Some((_, _, i)) = queue.pop() {
        if popped % DEADLINE_EVERY == 0 && Instant::now() > deadline {
            return Ok(None);
        }
        popped += 1;
        if filter.since.is_some_and(|since| walk.nodes[i as usize].time < since) {
            continue;
        }
        walk.simplify(i, filter)?;
        let mut walked = walk.nodes[i as usize].walked.clone();
        if filter.first_parent {
            walked.truncate(1);
            walk.nodes[i as usize].walked.truncate(1);
        }
        for p in walked {
            walk.parse(p)?;
            if !walk.nodes[p as usize].seen {
                walk.nodes[p as usize].seen = true;
                sequence += 1;
                queue.push((walk.nodes[p as usize].time, Reverse(sequence), p));
            }
        }
        if !filter.topo {
            // A commit that left the queue is never walked from again: only its id, date and
            // verdict stay, so a long walk (a path changed long ago) holds little per commit.
            let node = &mut walk.nodes[i as usize];
            node.parents = Vec::new();
            node.walked = Vec::new();
        }
        if filter.topo {
            order.push(i);
            continue;
        }
        if !walk.listed(i, filter)? {
            continue;
        }
        if skip > 0 {
            skip -= 1;
            continue;
        }
        if out.len() >= window.take {
            break;
        }
        out.push(walk.nodes[i as usize].id);
        if out.len() >= window.take {
            break;
        }
    }
    if !filter.topo {
        return Ok(Some(out));
    }
    let mut listed = Vec::new();
    for i in topological(&walk, &order) {
        if Instant::now() > deadline {
            return Ok(None);
        }
        if walk.listed(i, filter)? {
            listed.push(walk.nodes[i as usize].id);
        }
    }
    Ok(Some(listed.into_iter().skip(window.skip).take(window.take).collect()))
}

/// git's incremental topological walk (`init_topo_walk`, `expand_topo_walk`), used as git uses
/// it when the commit-graph gives generation numbers: children are counted only down to the
/// lowest generation reached so far, so a page reads about as much history as it shows. The
/// order is [`topological`]'s: a LIFO of commits whose children are all out, tips first in
/// date order.
struct Topo<'r> {
    walk: Walk<'r>,
    /// git's indegree: 0 unknown, 1 + the children counted so far.
    indegree: Vec<u32>,
    /// Queued for exploring (git's `TOPO_WALK_EXPLORED`).
    explored: Vec<bool>,
    /// Explored: simplified, parents known.
    done: Vec<bool>,
    /// Queued for counting (git's `TOPO_WALK_INDEGREE`).
    counted: Vec<bool>,
    explore: BinaryHeap<(u32, i64, Reverse<u64>, u32)>,
    count: BinaryHeap<(u32, i64, Reverse<u64>, u32)>,
    sequence: u64,
}

impl<'r> Topo<'r> {
    fn new(walk: Walk<'r>) -> Topo<'r> {
        Topo {
            walk,
            indegree: Vec::new(),
            explored: Vec::new(),
            done: Vec::new(),
            counted: Vec::new(),
            explore: BinaryHeap::new(),
            count: BinaryHeap::new(),
            sequence: 0,
        }
    }

    fn grow(&mut self) {
        let n = self.walk.nodes.len();
        if self.indegree.len() < n {
            self.indegree.resize(n, 0);
            self.explored.resize(n, false);
            self.done.resize(n, false);
            self.counted.resize(n, false);
        }
    }

    fn key(&mut self, i: u32) -> (u32, i64, Reverse<u64>, u32) {
        self.sequence += 1;
        let node = &self.walk.nodes[i as usize];
        (node.generation, node.time, Reverse(self.sequence), i)
    }

    fn push_explore(&mut self, i: u32) {
        self.grow();
        if !std::mem::replace(&mut self.explored[i as usize], true) {
            let key = self.key(i);
            self.explore.push(key);
        }
    }

    fn push_count(&mut self, i: u32) {
        self.grow();
        if !std::mem::replace(&mut self.counted[i as usize], true) {
            let key = self.key(i);
            self.count.push(key);
        }
    }

    /// `explore_to_depth`: simplify every commit down to `generation` (its parents walked on).
    fn explore_to(&mut self, generation: u32, filter: &Filter) -> Result<(), Error> {
        while self.explore.peek().is_some_and(|&(g, ..)| g >= generation) {
            let Some((_, _, _, i)) = self.explore.pop() else { break };
            self.done[i as usize] = true;
            self.walk.simplify(i, filter)?;
            if filter.first_parent {
                self.walk.nodes[i as usize].walked.truncate(1);
            }
            for p in self.walk.nodes[i as usize].walked.clone() {
                self.walk.parse(p)?;
                self.push_explore(p);
            }
        }
        Ok(())
    }

    /// `compute_indegrees_to_depth`: count the children of every commit down to `generation`.
    fn count_to(&mut self, generation: u32, filter: &Filter) -> Result<(), Error> {
        while self.count.peek().is_some_and(|&(g, ..)| g >= generation) {
            let Some((g, _, _, i)) = self.count.pop() else { break };
            self.explore_to(g, filter)?;
            for p in self.walk.nodes[i as usize].walked.clone() {
                self.grow();
                let d = &mut self.indegree[p as usize];
                *d = if *d > 0 { *d + 1 } else { 2 };
                self.push_count(p);
            }
        }
        Ok(())
    }

    fn page(
        mut self,
        tips: &[ObjectId],
        filter: &Filter,
        window: Window,
        deadline: Instant,
    ) -> Result<Option<Vec<ObjectId>>, Error> {
        let mut starts: Vec<u32> = Vec::new();
        for &tip in tips {
            let i = self.walk.lookup(tip);
            self.walk.parse(i)?;
            if !starts.contains(&i) {
                starts.push(i);
            }
        }
        // prepare_revision_walk sorts the tips by date, newest first (a stable sort).
        starts.sort_by_key(|&i| Reverse(self.walk.nodes[i as usize].time));
        let mut lowest = u32::MAX;
        for &i in &starts {
            self.push_explore(i);
            self.push_count(i);
            lowest = lowest.min(self.walk.nodes[i as usize].generation);
            self.indegree[i as usize] = 1;
        }
        self.count_to(lowest, filter)?;
        let mut stack: Vec<u32> = starts.into_iter().filter(|&i| self.indegree[i as usize] == 1).collect();
        stack.reverse();
        let (mut skip, mut out, mut popped) = (window.skip, Vec::new(), 0usize);
        while let Some(i) = stack.pop() {
            if popped % DEADLINE_EVERY == 0 && Instant::now() > deadline {
                return Ok(None);
            }
            popped += 1;
            self.indegree[i as usize] = 0;
            // Counting explored every commit it reached; this keeps it so whatever the order.
            if !self.done[i as usize] {
                self.push_explore(i);
                self.explore_to(self.walk.nodes[i as usize].generation, filter)?;
            }
            for p in self.walk.nodes[i as usize].walked.clone() {
                self.walk.parse(p)?;
                let generation = self.walk.nodes[p as usize].generation;
                if generation < lowest {
                    lowest = generation;
                    self.count_to(lowest, filter)?;
                }
                self.grow();
                let d = &mut self.indegree[p as usize];
                *d = d.saturating_sub(1);
                if *d == 1 {
                    stack.push(p);
                }
            }
            if !self.walk.listed(i, filter)? {
                continue;
            }
            if skip > 0 {
                skip -= 1;
                continue;
            }
            out.push(self.walk.nodes[i as usize].id);
            if out.len() >= window.take {
                break;
            }
        }
        Ok(Some(out))
    }
}

/// git's `sort_in_topological_order` (`REV_SORT_IN_GRAPH_ORDER`) of `order` (the walk's
/// output order): tips in that order, then a LIFO of commits whose children are all out.
fn topological(walk: &Walk<'_>, order: &[u32]) -> Vec<u32> {
    // git's indegree: 0 for commits outside the list, 1 + children in the list otherwise.
    let mut indegree = vec![0usize; walk.nodes.len()];
    for &i in order {
        indegree[i as usize] = 1;
    }
    for &i in order {
        for &p in &walk.nodes[i as usize].walked {
            if indegree[p as usize] > 0 {
                indegree[p as usize] += 1;
            }
        }
    }
    let mut stack: Vec<u32> = order.iter().copied().filter(|&i| indegree[i as usize] == 1).collect();
    // The initial tips are shown in the walk's order: the LIFO gives its last first, so reverse.
    stack.reverse();
    let mut out = Vec::with_capacity(order.len());
    while let Some(i) = stack.pop() {
        for &p in &walk.nodes[i as usize].walked {
            let d = &mut indegree[p as usize];
            if *d == 0 {
                continue;
            }
            *d -= 1;
            if *d == 1 {
                stack.push(p);
            }
        }
        out.push(i);
    }
    out
}

/// The commits of a range that [`page`]'s filters list, within `window`; `None` past
/// `deadline`. `tips` are git's command line: `from..to` is `[(from, true), (to, false)]`,
/// `a...b` the merge bases excluded, then `a` and `b`. The walk is git's limited walk
/// ([`super::range`]) with, for a path, its history simplification: a merge TREESAME to a
/// relevant parent walks on that parent alone, so what only its other parents brought in is not
/// listed (`git log a..b -- path`).
pub fn range_page(
    repo: &gix::Repository,
    tips: &[(ObjectId, bool)],
    filter: &Filter,
    window: Window,
    deadline: Instant,
) -> Result<Option<Vec<ObjectId>>, Error> {
    let mut compare = Compare::new(repo);
    let graph = repo.commit_graph_if_enabled().ok().flatten().is_some();
    compare.use_bloom(filter.path.as_deref(), graph);
    let mut simplify = RangeSimplify { compare, filter };
    let walked = super::range::simplified_ids(repo, tips, filter.since, filter.first_parent, &mut simplify, deadline)?;
    let Some(walked) = walked else { return Ok(None) };
    let mut walk = Walk::new(repo);
    let (mut skip, mut out) = (window.skip, Vec::new());
    for (id, time, treesame) in walked {
        if out.len() >= window.take {
            break;
        }
        if treesame || filter.until.is_some_and(|until| time > until) {
            continue;
        }
        if let Some(author) = &filter.author {
            if !walk.authored_by(id, author)? {
                continue;
            }
        }
        if skip > 0 {
            skip -= 1;
            continue;
        }
        out.push(id);
    }
    Ok(Some(out))
}

/// The path's history simplification, as the range walk asks it of each interesting commit.
struct RangeSimplify<'a, 'r> {
    compare: Compare<'r>,
    filter: &'a Filter,
}

impl super::range::Simplify for RangeSimplify<'_, '_> {
    fn simplify(
        &mut self,
        commit: &super::range::Commit,
        parents: usize,
        parent: &mut dyn FnMut(usize) -> Result<(ObjectId, bool), super::range::RangeError>,
    ) -> Result<super::range::Simplified, BoxError> {
        let Some(path) = &self.filter.path else {
            return Ok(super::range::Simplified { keep: None, treesame: false });
        };
        let mut parent = |n: usize| parent(n).map_err(Error::from);
        self.compare.simplify(path, commit, parents, self.filter.first_parent, &mut parent).map_err(boxed)
    }
}

/// The tips of `git log --all`: every reference that peels to a commit, in name order, then
/// HEAD.
pub fn all_tips(repo: &gix::Repository) -> Result<Vec<ObjectId>, Error> {
    let platform = repo.references().map_err(|e| Error::References(boxed(e)))?;
    let mut named: Vec<(gix::bstr::BString, ObjectId)> = Vec::new();
    for reference in platform.all().map_err(|e| Error::References(boxed(e)))? {
        let Ok(mut reference) = reference else { continue };
        let name = reference.name().as_bstr().to_owned();
        let Ok(id) = reference.peel_to_id() else { continue };
        if let Ok(commit) = id.object().and_then(|o| o.peel_to_commit()) {
            named.push((name, commit.id));
        }
    }
    named.sort();
    let mut tips: Vec<ObjectId> = named.into_iter().map(|(_, id)| id).collect();
    if let Ok(Some(head)) = repo.head().map(|mut h| h.try_peel_to_id().ok().flatten().map(|id| id.detach())) {
        tips.push(head);
    }
    Ok(tips)
}

/// `git rev-list --count [--first-parent] <tip>`: how many commits are reachable from `tip`.
pub fn count(repo: &gix::Repository, tip: ObjectId, first_parent: bool) -> Result<usize, Error> {
    let mut walk = Walk::new(repo);
    let start = walk.lookup(tip);
    let mut pending = vec![start];
    walk.nodes[start as usize].seen = true;
    let mut count = 0;
    while let Some(i) = pending.pop() {
        count += 1;
        walk.parse(i)?;
        let mut parents = walk.nodes[i as usize].parents.clone();
        if first_parent {
            parents.truncate(1);
        }
        for p in parents {
            if !walk.nodes[p as usize].seen {
                walk.nodes[p as usize].seen = true;
                pending.push(p);
            }
        }
    }
    Ok(count)
}

/// Which of `tips` reach `target` (each tip paired with whether it does), as `git branch
/// --contains` answers it. One walk serves every tip: a commit's answer is kept, and with a
/// commit-graph nothing older than the target by generation is walked.
pub fn contains(repo: &gix::Repository, target: ObjectId, tips: &[ObjectId]) -> Result<Vec<bool>, Error> {
    let mut walk = Walk::new(repo);
    let target_generation =
        walk.graph.as_ref().and_then(|g| g.commit_by_id(target).map(|c| c.generation())).filter(|&g| g > 0);
    let generation = |walk: &Walk<'_>, id: ObjectId| -> Option<u32> {
        walk.graph.as_ref().and_then(|g| g.commit_by_id(id).map(|c| c.generation()))
    };
    // 0 unknown, 1 on the stack, 2 reaches the target, 3 does not.
    let mut state: Vec<u8> = Vec::new();
    let mut answers = Vec::with_capacity(tips.len());
    for &tip in tips {
        let root = walk.lookup(tip);
        let mut stack: Vec<(u32, usize)> = vec![(root, 0)];
        while let Some(&(i, next)) = stack.last() {
            if state.len() < walk.nodes.len() {
                state.resize(walk.nodes.len(), 0);
            }
            if next == 0 && state[i as usize] == 0 {
                let id = walk.nodes[i as usize].id;
                if id == target {
                    state[i as usize] = 2;
                } else if target_generation.is_some_and(|t| generation(&walk, id).is_some_and(|g| g <= t)) {
                    state[i as usize] = 3;
                } else {
                    walk.parse(i)?;
                    state[i as usize] = 1;
                }
            }
            if state[i as usize] >= 2 {
                stack.pop();
                continue;
            }
            let parents = &walk.nodes[i as usize].parents;
            if next < parents.len() {
                let p = parents[next];
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
                if state.get(p as usize).copied().unwrap_or(0) == 2 {
                    state[i as usize] = 2;
                    stack.pop();
                } else if state.get(p as usize).copied().unwrap_or(0) == 0 {
                    stack.push((p, 0));
                }
                continue;
            }
            // Every parent answered: reaches the target when one does.
            let reaches = walk.nodes[i as usize].parents.iter().any(|&p| state[p as usize] == 2);
            state[i as usize] = if reaches { 2 } else { 3 };
            stack.pop();
        }
        answers.push(state[root as usize] == 2);
    }
    Ok(answers)
}

#[cfg(test)]
mod author_tests {
    use super::{basic_to_extended, AuthorPattern};

    #[test]
    fn basic_regular_expressions_read_as_git_reads_them() {
        assert_eq!(basic_to_extended(r"a+b?(c)|{d}"), r"a\+b\?\(c\)\|\{d\}");
        assert_eq!(basic_to_extended(r"a\+b\|c\(d\)"), "a+b|c(d)");
        assert_eq!(basic_to_extended(r"^x\.y$"), r"^x\.y$");
        assert!(AuthorPattern::new(r"Alice\|Bob").matches(b"Bob <b@example.com>"));
        assert!(!AuthorPattern::new("b+").matches(b"bb <b@example.com>"));
        assert!(AuthorPattern::new("[").matches(b"x[ <x@example.com>"), "a pattern that does not compile is text");
    }
}
