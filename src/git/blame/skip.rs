//! The object database the blame reads ([`super::walk`], gix-blame's algorithm; "gix-blame"
//! below is that algorithm): the repository's, except that a commit is shown with its parents
//! *skipped over* where the blamed path certainly did not change. gix-blame reads
//! no Bloom filter, and looks the path up afresh in every commit's trees (four tree reads a
//! commit and as many for its parent, for a path three directories deep); git's blame asks the
//! filter before diffing a commit against its first parent, and a commit that left the path as
//! its first parent had it passes the whole blame on. A parent `P` is shown as `P'`, the first
//! ancestor along first parents that did change the path as far as can be told cheaply: the
//! commit-graph's changed-path filter says "certainly unchanged", or (without one, or where it
//! says "maybe") the path's entry equals the first parent's, read with the entries of unchanged
//! subtrees remembered (one root tree read a commit). Each commit between left the path as its
//! first parent had it, so the path's entry in `P'` is `P`'s, and blame passes through them
//! unchanged, as gix-blame would have passed it one commit at a time.
//!
//! Only the path's entry decides what gix-blame does with a parent, but for one case: a parent
//! without the path (the file was added or renamed in the child), where gix-blame diffs the
//! whole trees to find a rename's source. Such a parent is never skipped, so every diff it
//! makes is against the real parent. Renames are also why [`super::file`] blames again without
//! skipping when a line was followed to another path: the filters were asked for the blamed
//! path only.
//!
//! A commit shown with all its parents having the path is also shown with a tree holding the
//! path alone (real tree objects, named by their hash, served by this view): gix-blame diffs the
//! whole trees of a commit and a parent to find the path's change, descending into every
//! changed directory before it, and reads blobs and trees one whole delta chain at a time; here
//! blobs and trees come from the packs with every delta base met kept ([`super::super::packs`]),
//! as consecutive versions of a file are deltas of one another.
//!
//! Commits are shown as a commit object written anew (from the commit-graph, or from the head
//! of the commit object read straight from the pack: [`super::super::commit_head`]): tree
//! (their own or the path's alone), parents and committer date, which is all gix-blame reads
//! of a commit. The skips along first parents from the blame's start are worked out on another
//! core while gix-blame diffs ([`super::ahead`]).
//!
//! What a view works out per commit is kept for the last few thousand commits it met
//! ([`super::recent`]), and what it decodes from the packs up to [`KEPT`] bytes, so that a blame
//! holds the same whatever the history's length; past the blame's deadline its skips stop
//! where they are.

use super::super::commit_head::LaterHeads;
use super::super::log::Compare;
use super::ahead::{Ahead, Stretches};
use super::history::{Info, Stretch};
use super::recent::Recent;
use gix::objs::{Find, FindHeader};
use gix::ObjectId;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The repository's objects, with commits shown over skipped parents.
pub struct Skipping<'r> {
    repo: &'r gix::Repository,
    graph: Option<gix::commitgraph::Graph>,
    path: Vec<Vec<u8>>,
    state: RefCell<State<'r>>,
    /// The path's history worked out on another core ([`super::ahead`]), for the blame's view.
    ahead: Option<Ahead>,
    /// Set when a walk ahead is to end: its skips stop where they are.
    stop: Option<Arc<AtomicBool>>,
    /// The blame's deadline: past it, skips stop where they are too (the blame then ends).
    deadline: Instant,
}

/// What a view works out, for the commits it met last ([`Recent`]: a blame's memory does not
/// grow with the history's length); each is worked out again when asked for after it was let go.
struct State<'r> {
    compare: Compare<'r>,
    /// Commits read.
    commits: Recent<ObjectId, Info>,
    /// The parents each commit is shown with.
    shown: Recent<ObjectId, Vec<ObjectId>>,
    buf: Vec<u8>,
    /// The heads of commit objects read straight from the packs, once many were read.
    heads: LaterHeads,
    /// The tree each commit is shown with, and the path's entry when it is a tree holding the
    /// path alone.
    trees_shown: Recent<ObjectId, (ObjectId, Option<(ObjectId, u16)>)>,
    /// The trees holding the path alone ([`Skipping::path_only`]): by the path's entry, the root
    /// tree's id, and by id, each level's tree object. A tree handed out must still be served
    /// when it is read a few objects later: it is always handed out from the newer generation
    /// of `path_only_trees`, which ages only as an object is asked for ([`Find::try_find`]).
    path_only_roots: Recent<(ObjectId, u16), ObjectId>,
    path_only_trees: Recent<ObjectId, Vec<u8>>,
}

/// Bytes of decoded objects the blame's view keeps (the versions of the file, and trees): the
/// versions along a delta chain as deep as git makes them (50) for a file of 80 KiB, not the
/// 16 MiB of a history walk's trees (the walk ahead reads trees alone and keeps those), so
/// that blames at once stay small.
const KEPT: usize = 8 << 20;

/// Commits a generation of what a view works out holds ([`Recent`]): some thousands, far more
/// than a blame has in hand at once (a commit and its parents).
const GENERATION: usize = 4096;

/// Tree, parents and committer date of the commit object `data`.
fn parse(data: &[u8], kind: gix::hash::Kind) -> Option<Info> {
    let header = super::super::commit::header(data, kind).ok()?;
    Some(Info { tree: header.tree, parents: header.parents, time: header.time, position: None })
}

impl<'r> Skipping<'r> {
    /// The skipping view of `repo` for `path` (`/`-separated), for a blame from `start` that
    /// ends at `deadline`, with the path's history along first parents worked out ahead on
    /// another core.
    pub fn new(repo: &'r gix::Repository, path: &str, start: ObjectId, deadline: Instant) -> Skipping<'r> {
        let walked = path.to_owned();
        let ahead = Ahead::start(repo, start, move |repo, stop| -> Box<dyn Stretches + '_> {
            Box::new(Skipping::alone(repo, &walked, Some(stop), deadline))
        });
        let mut skipping = Skipping::alone(repo, path, None, deadline);
        skipping.state.get_mut().compare.keeping(KEPT);
        skipping.ahead = ahead;
        skipping
    }

    /// The view without a walk ahead: the walk's own (`stop` cuts its skips short, as
    /// `deadline` does).
    pub(super) fn alone(
        repo: &'r gix::Repository,
        path: &str,
        stop: Option<Arc<AtomicBool>>,
        deadline: Instant,
    ) -> Skipping<'r> {
        let graph = repo.commit_graph_if_enabled().ok().flatten();
        let path: Vec<Vec<u8>> = path.split('/').map(|c| c.as_bytes().to_vec()).collect();
        let mut compare = Compare::new(repo);
        compare.use_bloom(Some(&path), graph.is_some());
        let state = State {
            compare,
            commits: Recent::new(GENERATION),
            shown: Recent::new(GENERATION),
            buf: Vec::new(),
            heads: LaterHeads::default(),
            trees_shown: Recent::new(GENERATION),
            path_only_roots: Recent::new(GENERATION),
            path_only_trees: Recent::new(GENERATION),
        };
        Skipping { repo, graph, path, state: RefCell::new(state), ahead: None, stop, deadline }
    }

    fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|stop| stop.load(Ordering::Relaxed)) || Instant::now() > self.deadline
    }

    /// Commit `id` from the commit-graph, when it holds it.
    fn in_graph(&self, id: &gix::oid) -> Option<Info> {
        let graph = self.graph.as_ref()?;
        let position = graph.lookup(id)?;
        let commit = graph.commit_at(position);
        let parents: Result<Vec<ObjectId>, _> =
            commit.iter_parents().map(|p| p.map(|p| graph.id_at(p).to_owned())).collect();
        Some(Info {
            tree: commit.root_tree_id().to_owned(),
            parents: parents.ok()?,
            time: i64::try_from(commit.committer_timestamp()).unwrap_or(i64::MAX),
            position: Some(position.0),
        })
    }

    /// Commit `id`, from the graph or its object; `None` when it cannot be read.
    fn info(&self, state: &mut State<'r>, id: ObjectId) -> Option<Info> {
        if let Some(info) = state.commits.get(&id) {
            return Some(info.clone());
        }
        let known = self.ahead.as_ref().and_then(|ahead| ahead.info(&id)).or_else(|| self.in_graph(&id));
        let info = match known {
            Some(info) => info,
            None => {
                // The head straight from the pack, else the object through gix.
                if state.heads.get(self.repo).is_some_and(|heads| heads.read(&id, &mut state.buf)) {
                    parse(&state.buf, id.kind())?
                } else {
                    let data = self.repo.objects.try_find(&id, &mut state.buf).ok()??;
                    if data.kind != gix::objs::Kind::Commit {
                        return None;
                    }
                    parse(data.data, id.kind())?
                }
            }
        };
        state.commits.insert(id, info.clone());
        Some(info)
    }

    /// The first parent of `id` when `id` certainly left the path as that parent had it (and
    /// has the path).
    fn unchanged(&self, state: &mut State<'r>, id: ObjectId, info: &Info) -> Option<ObjectId> {
        let first = *info.parents.first()?;
        if state.compare.certainly_unchanged(&id, info.position) {
            return Some(first);
        }
        let own = state.compare.entry(info.tree, &self.path).ok()??;
        let parent = self.info(state, first)?;
        let theirs = state.compare.entry(parent.tree, &self.path).ok()?;
        (theirs == Some(own)).then_some(first)
    }

    /// `P'` for parent `parent`: the first commit along first parents from it that did not
    /// certainly leave the path unchanged; `parent` itself when that is `parent`, or when
    /// `parent` lacks the path.
    fn skip_from(&self, state: &mut State<'r>, parent: ObjectId) -> ObjectId {
        if let Some(skipped_to) = self.ahead.as_ref().and_then(|ahead| ahead.skip(&parent)) {
            return skipped_to;
        }
        let Some(info) = self.info(state, parent) else { return parent };
        if !matches!(state.compare.entry(info.tree, &self.path), Ok(Some(_))) {
            return parent;
        }
        let (mut current, mut info) = (parent, info);
        while let Some(first) = self.unchanged(state, current, &info) {
            if self.stopped() {
                break;
            }
            let Some(next) = self.info(state, first) else { break };
            (current, info) = (first, next);
        }
        current
    }

    /// The parents commit `id` (read as `info`) is shown with.
    fn shown_parents(&self, state: &mut State<'r>, id: &gix::oid, info: &Info) -> Vec<ObjectId> {
        if let Some(parents) = state.shown.get(id) {
            return parents.clone();
        }
        let shown: Vec<ObjectId> = info.parents.iter().map(|&p| self.skip_from(state, p)).collect();
        state.shown.insert(id.to_owned(), shown.clone());
        shown
    }

    /// The path's entry in commit `id`, when it has the path.
    fn path_entry(&self, state: &mut State<'r>, id: ObjectId) -> Option<(ObjectId, u16)> {
        if let Some(entry) = self.ahead.as_ref().and_then(|ahead| ahead.entry(&id)) {
            return entry;
        }
        let info = self.info(state, id)?;
        state.compare.entry(info.tree, &self.path).ok()?
    }

    /// The tree commit `id` (read as `info`) is shown with: a tree holding the path alone
    /// ([`Skipping::path_only`]) when the commit and each parent it is shown with have the path,
    /// else its own. gix-blame diffs the whole trees of a commit and its parent to find the
    /// path's change (descending into every changed directory before the path's), where the
    /// path's entries are all it needs; a parent without the path (the file added or renamed)
    /// keeps the real trees on both sides, so that gix-blame finds a rename's source as before.
    fn shown_tree(&self, state: &mut State<'r>, id: &gix::oid, info: &Info) -> ObjectId {
        if let Some(&(tree, pruned)) = state.trees_shown.get(id) {
            return match pruned {
                Some(entry) if !state.path_only_trees.is_new(&tree) => self.path_only(state, entry),
                _ => tree,
            };
        }
        let own = match self.ahead.as_ref().and_then(|ahead| ahead.entry(id)) {
            Some(entry) => entry,
            None => state.compare.entry(info.tree, &self.path).ok().flatten(),
        };
        let pruned = own.filter(|_| {
            let parents = self.shown_parents(state, id, info);
            parents.into_iter().all(|parent| self.path_entry(state, parent).is_some())
        });
        let tree = pruned.map_or(info.tree, |entry| self.path_only(state, entry));
        state.trees_shown.insert(id.to_owned(), (tree, pruned));
        tree
    }

    /// The root tree of a tree holding only the path, with `entry` (id and mode) at its end:
    /// real tree objects, named by their hash as any tree is, served by this view (from the
    /// newer generation: written again when they are only in the older).
    fn path_only(&self, state: &mut State<'r>, entry: (ObjectId, u16)) -> ObjectId {
        if let Some(&root) = state.path_only_roots.get(&entry) {
            if state.path_only_trees.is_new(&root) {
                return root;
            }
        }
        let (mut id, mut mode) = entry;
        for name in self.path.iter().rev() {
            let mut tree = format!("{mode:o} ").into_bytes();
            tree.extend_from_slice(name);
            tree.push(0);
            tree.extend_from_slice(id.as_bytes());
            id = gix::objs::compute_hash(id.kind(), gix::objs::Kind::Tree, &tree).unwrap_or(id);
            mode = 0o040000;
            state.path_only_trees.insert_new(id, tree);
        }
        state.path_only_roots.insert(entry, id);
        id
    }

    /// Commit `id` (read as `info`) written anew with its shown parents and tree, into `buffer`.
    fn write_commit(&self, state: &mut State<'r>, id: &gix::oid, info: &Info, buffer: &mut Vec<u8>) {
        let parents = self.shown_parents(state, id, info);
        let tree = self.shown_tree(state, id, info);
        let time = info.time;
        buffer.clear();
        buffer.extend_from_slice(format!("tree {tree}\n").as_bytes());
        for parent in parents {
            buffer.extend_from_slice(format!("parent {parent}\n").as_bytes());
        }
        buffer.extend_from_slice(format!("author - <> {time} +0000\ncommitter - <> {time} +0000\n\n").as_bytes());
    }
}

impl Stretches for Skipping<'_> {
    /// The stretch of first parents from `from` to `P'` ([`Skipping::skip_from`]), with the
    /// commits at its ends and the path's entries there; `None` when the walk was stopped.
    fn stretch(&self, from: ObjectId) -> Option<Stretch> {
        let mut state = self.state.borrow_mut();
        let state = &mut *state;
        let to = self.skip_from(state, from);
        if self.stopped() {
            return None;
        }
        let mut infos = Vec::new();
        let mut entries = Vec::new();
        for id in [from, to] {
            if let Some(info) = self.info(state, id) {
                entries.push((id, state.compare.entry(info.tree, &self.path).ok().flatten()));
                infos.push((id, info));
            }
        }
        Some(Stretch { from, to, infos, entries })
    }
}

impl Find for Skipping<'_> {
    fn try_find<'a>(&self, id: &gix::oid, buffer: &'a mut Vec<u8>) -> gix::Result<Option<gix::objs::Data<'a>>> {
        let mut state = self.state.borrow_mut();
        let state = &mut *state;
        // Before anything is handed out for this object: what was handed out for the ones
        // before it stays served.
        state.path_only_trees.age_if_full();
        if let Some(tree) = state.path_only_trees.get(id) {
            buffer.clear();
            buffer.extend_from_slice(tree);
            return Ok(Some(gix::objs::Data {
                kind: gix::objs::Kind::Tree,
                object_hash: id.kind(),
                data: buffer.as_slice(),
            }));
        }
        // A commit the graph holds or that was read is never inflated again; other objects
        // are read as they are, commits among them (known by their kind) rewritten.
        let known = state.commits.get(id).cloned().or_else(|| self.in_graph(id));
        let info = match known {
            Some(info) => info,
            // Blobs and trees from the packs, every delta base met kept: the versions of the
            // blamed file are deltas of one another, newest first, and gix's own reading
            // inflated a whole chain again for each version (most of a long blame's time).
            None => match state.compare.packed(id, buffer) {
                Some(kind) if kind != gix::objs::Kind::Commit => {
                    return Ok(Some(gix::objs::Data { kind, object_hash: id.kind(), data: buffer.as_slice() }));
                }
                Some(_) => match parse(buffer, id.kind()) {
                    Some(info) => info,
                    None => return self.repo.objects.try_find(id, buffer),
                },
                None => {
                    let header = self.repo.objects.try_header(id)?;
                    if header.is_none_or(|h| h.kind != gix::objs::Kind::Commit) {
                        return self.repo.objects.try_find(id, buffer);
                    }
                    let Some(info) = self.info(state, id.to_owned()) else {
                        return self.repo.objects.try_find(id, buffer);
                    };
                    info
                }
            },
        };
        if state.commits.get(id).is_none() {
            state.commits.insert(id.to_owned(), info.clone());
        }
        self.write_commit(state, id, &info, buffer);
        Ok(Some(gix::objs::Data { kind: gix::objs::Kind::Commit, object_hash: id.kind(), data: buffer.as_slice() }))
    }
}

impl FindHeader for Skipping<'_> {
    fn try_header(&self, id: &gix::oid) -> gix::Result<Option<gix::objs::Header>> {
        if let Some(tree) = self.state.borrow().path_only_trees.get(id) {
            return Ok(Some(gix::objs::Header { kind: gix::objs::Kind::Tree, size: tree.len() as u64 }));
        }
        self.repo.objects.try_header(id)
    }
}
