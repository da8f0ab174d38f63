//! The last commit that changed a path, as `git log -1 --format=%H <commit> -- <path>` answers
//! it (GitLab's `last_commit_id_for_path` with a literal pathspec).
//!
//! git's default history simplification keeps exactly one line to follow: a commit whose path
//! is the same as in one of its parents ("TREESAME") is skipped for the first such parent, and
//! the first commit that differs from all its parents (a root commit that has the path counts)
//! is the answer. So the walk is a chain, one commit at a time, and never needs a date-ordered
//! queue. Each step compares the path's entry with the parent's by descending both trees one
//! component at a time and stopping at the first equal subtree id; the commit-graph, when the
//! repository has one, gives parents and root trees without inflating commits, and its
//! changed-path Bloom filters (when written) let a step skip the trees entirely when the
//! filter says the path did not change against the first parent.

use super::bloom;
use super::error::{boxed, BoxError};
use gix::objs::tree::EntryMode;
use gix::ObjectId;

/// Why the walk failed: the repository could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot walk the history of a path")]
pub struct Error(#[source] BoxError);

impl super::Classify for Error {
    fn missing(&self) -> Option<super::Missing> {
        None
    }
}

fn broken(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error(boxed(e))
}

/// The entry named `name` in `tree`: its id and mode.
fn entry_in(repo: &gix::Repository, tree: ObjectId, name: &[u8]) -> Result<Option<(ObjectId, EntryMode)>, Error> {
    let object = repo.find_object(tree).map_err(broken)?;
    let tree = object.try_into_tree().map_err(broken)?;
    for entry in tree.iter() {
        let entry = entry.map_err(broken)?;
        if entry.filename() == name {
            return Ok(Some((entry.object_id(), entry.mode())));
        }
    }
    Ok(None)
}

/// Whether `path` (its components) is the same in the trees `a` and `b`, as a pathspec sees it:
/// the entries at `path` are equal (id and mode), or neither tree has one. A path that crosses a
/// file names nothing in that tree.
pub fn same_at(repo: &gix::Repository, a: ObjectId, b: ObjectId, components: &[&[u8]]) -> Result<bool, Error> {
    let (mut a, mut b) = (a, b);
    for (depth, name) in components.iter().enumerate() {
        if a == b {
            return Ok(true);
        }
        let last = depth + 1 == components.len();
        let in_a = entry_in(repo, a, name)?;
        let in_b = entry_in(repo, b, name)?;
        if last {
            return Ok(in_a == in_b);
        }
        let dir = |entry: Option<(ObjectId, EntryMode)>| entry.filter(|(_, mode)| mode.is_tree()).map(|(id, _)| id);
        match (dir(in_a), dir(in_b)) {
            (None, None) => return Ok(true),
            (Some(x), Some(y)) => (a, b) = (x, y),
            _ => return Ok(false),
        }
    }
    Ok(a == b)
}

/// What the walk needs of one commit: its root tree and parents.
struct Node {
    tree: ObjectId,
    parents: Vec<ObjectId>,
}

/// Reads commits from the commit-graph when it has them, else from the object database.
struct Commits<'r> {
    repo: &'r gix::Repository,
    graph: Option<gix::commitgraph::Graph>,
}

impl Commits<'_> {
    fn node(&self, id: ObjectId) -> Result<Node, Error> {
        if let Some(graph) = &self.graph {
            if let Some(commit) = graph.commit_by_id(id) {
                let parents = commit
                    .iter_parents()
                    .map(|p| p.map(|pos| graph.id_at(pos).to_owned()))
                    .collect::<Result<Vec<_>, _>>();
                if let Ok(parents) = parents {
                    return Ok(Node { tree: commit.root_tree_id().to_owned(), parents });
                }
            }
        }
        let commit = self.repo.find_commit(id).map_err(broken)?;
        let decoded = commit.decode().map_err(broken)?;
        Ok(Node { tree: decoded.tree(), parents: decoded.parents().collect() })
    }
}

/// The last commit reachable from `start` that changed `path` (`/`-separated, no leading `/`),
/// or `None` when no commit in that history has it.
pub fn find(repo: &gix::Repository, start: ObjectId, path: &str) -> Result<Option<ObjectId>, Error> {
    let components: Vec<&[u8]> = path.split('/').map(str::as_bytes).collect();
    let graph = repo.commit_graph_if_enabled().ok().flatten();
    let filters = graph.as_ref().and_then(|_| bloom::load(repo.objects.store_ref().path()));
    let keys = bloom::Keys::new(&components.iter().map(|c| c.to_vec()).collect::<Vec<_>>());
    let commits = Commits { repo, graph };
    let mut id = start;
    let mut node = commits.node(id)?;
    loop {
        if node.parents.is_empty() {
            let empty = ObjectId::empty_tree(repo.object_hash());
            return Ok((!same_at(repo, node.tree, empty, &components)?).then_some(id));
        }
        let first_parent_unchanged = match (&filters, &commits.graph) {
            (Some(filters), Some(graph)) => {
                graph.lookup(id).is_some_and(|position| filters.certainly_unchanged(position.0, &keys))
            }
            _ => false,
        };
        let mut next = None;
        for (index, parent) in node.parents.iter().enumerate() {
            let parent_node = commits.node(*parent)?;
            if (index == 0 && first_parent_unchanged) || same_at(repo, node.tree, parent_node.tree, &components)? {
                next = Some((*parent, parent_node));
                break;
            }
        }
        match next {
            Some((parent, parent_node)) => (id, node) = (parent, parent_node),
            None => return Ok(Some(id)),
        }
    }
}
