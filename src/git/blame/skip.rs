//! The object database gix's blame reads when the commit-graph has changed-path Bloom filters:
//! the repository's, except that a commit is shown with its parents *skipped over* where the
//! filters say the blamed path certainly did not change. gix-blame reads no Bloom filter (it
//! reads every commit's trees to find the path); git's blame asks the filter before diffing a
//! commit against its first parent, and a "certainly unchanged" passes the whole blame on. A
//! parent `P` is shown as `P'`, the first ancestor along first parents that the filters do not
//! vouch for: each commit between left the path as its first parent had it, so the path's entry
//! in `P'` is `P`'s, and blame passes through them unchanged; they are never read.
//!
//! Only the path's entry decides what gix-blame does with a parent, but for one case: a parent
//! without the path (the file was added or renamed in the child), where gix-blame diffs the
//! whole trees to find a rename's source. Such a parent is never skipped, so every diff it
//! makes is against the real parent. Renames are also why [`super::file`] blames again without
//! skipping when a line was followed to another path: the filters were asked for the blamed
//! path only.
//!
//! Commits are shown as a commit object written from the commit-graph: tree, parents and
//! committer date, which is all gix-blame reads of a commit.

use super::super::log::Compare;
use gix::objs::{Find, FindHeader};
use gix::ObjectId;
use std::cell::RefCell;
use std::collections::HashMap;

/// The repository's objects, with commits shown over skipped parents.
pub struct Skipping<'r> {
    repo: &'r gix::Repository,
    graph: gix::commitgraph::Graph,
    path: Vec<Vec<u8>>,
    state: RefCell<State<'r>>,
}

struct State<'r> {
    compare: Compare<'r>,
    /// The parents each commit is shown with, once worked out.
    shown: HashMap<ObjectId, Vec<ObjectId>>,
}

impl<'r> Skipping<'r> {
    /// The skipping view of `repo` for `path` (`/`-separated), when its commit-graph has
    /// changed-path filters; `None` otherwise.
    pub fn new(repo: &'r gix::Repository, path: &str) -> Option<Skipping<'r>> {
        let graph = repo.commit_graph_if_enabled().ok().flatten()?;
        let path: Vec<Vec<u8>> = path.split('/').map(|c| c.as_bytes().to_vec()).collect();
        let mut compare = Compare::new(repo);
        compare.use_bloom(Some(&path), true);
        if !compare.has_bloom() {
            return None;
        }
        Some(Skipping { repo, graph, path, state: RefCell::new(State { compare, shown: HashMap::new() }) })
    }

    /// `P'` for parent `parent`: the first commit along first parents from it whose filter does
    /// not vouch that it left the path unchanged; `parent` itself when that is `parent`, or when
    /// `parent` lacks the path.
    fn skip_from(&self, state: &mut State<'r>, parent: ObjectId) -> ObjectId {
        let mut current = parent;
        while let Some(position) = self.graph.lookup(current) {
            if !state.compare.certainly_unchanged(&current, Some(position.0)) {
                break;
            }
            let commit = self.graph.commit_at(position);
            let Some(Ok(first)) = commit.iter_parents().next() else { break };
            current = self.graph.id_at(first).to_owned();
        }
        if current == parent {
            return parent;
        }
        let tree = self.graph.lookup(parent).map(|p| self.graph.commit_at(p).root_tree_id().to_owned());
        match tree.map(|tree| state.compare.entry(tree, &self.path)) {
            Some(Ok(Some(_))) => current,
            _ => parent,
        }
    }

    /// Commit `id` written from the commit-graph with its shown parents, into `buffer`; `false`
    /// when the graph does not hold it.
    fn write_commit(&self, id: &gix::oid, buffer: &mut Vec<u8>) -> bool {
        let Some(position) = self.graph.lookup(id) else { return false };
        let commit = self.graph.commit_at(position);
        let mut state = self.state.borrow_mut();
        let state = &mut *state;
        let parents = match state.shown.get(id) {
            Some(parents) => parents.clone(),
            None => {
                let real: Result<Vec<ObjectId>, _> =
                    commit.iter_parents().map(|p| p.map(|p| self.graph.id_at(p).to_owned())).collect();
                let Ok(real) = real else { return false };
                let shown: Vec<ObjectId> = real.into_iter().map(|p| self.skip_from(state, p)).collect();
                state.shown.insert(id.to_owned(), shown.clone());
                shown
            }
        };
        let time = commit.committer_timestamp();
        buffer.clear();
        buffer.extend_from_slice(format!("tree {}\n", commit.root_tree_id()).as_bytes());
        for parent in parents {
            buffer.extend_from_slice(format!("parent {parent}\n").as_bytes());
        }
        buffer.extend_from_slice(format!("author - <> {time} +0000\ncommitter - <> {time} +0000\n\n").as_bytes());
        true
    }
}

impl Find for Skipping<'_> {
    fn try_find<'a>(&self, id: &gix::oid, buffer: &'a mut Vec<u8>) -> gix::Result<Option<gix::objs::Data<'a>>> {
        if self.write_commit(id, buffer) {
            let object_hash = id.kind();
            return Ok(Some(gix::objs::Data { kind: gix::objs::Kind::Commit, object_hash, data: buffer.as_slice() }));
        }
        self.repo.objects.try_find(id, buffer)
    }
}

impl FindHeader for Skipping<'_> {
    fn try_header(&self, id: &gix::oid) -> gix::Result<Option<gix::objs::Header>> {
        self.repo.objects.try_header(id)
    }
}
