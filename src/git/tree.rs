//! Tree listings (B1): the entries of a directory at a commit, or of the whole subtree, in
//! GitLab's order, with the pieces keyset pagination needs.
//!
//! # Order
//!
//! GitLab lists every tree first, then every blob (files and symlinks), then every submodule
//! (gitlink), each group in git's order. For a recursive listing the rule is global: the trees
//! of every depth come before any blob. Within a group the order is the order of
//! `git ls-tree -r -t` (a depth-first, pre-order walk of tree objects, each in its stored order).
//!
//! For trees git writes, that walk order is the byte order of a *sort key*: the entry's full
//! path, with a `/` appended when the entry is a tree (`a-b` < `a/` < `a/x` < `a0`). So a
//! position in a listing is `(group, path)` ([`Position`]) and can be compared with any entry
//! without looking anything up, whether or not the entry still exists. (A tree object whose
//! entries are not in git's order, which git itself refuses to write, would make keyset pages
//! skip or repeat entries; whole listings are unaffected.)
//!
//! # Cost
//!
//! Only tree objects are read; blob contents never are. [`walk`] is one depth-first pass with
//! one reused path buffer and a free list of tree buffers, so the entries it hands out cost no
//! allocation. [`list_grouped`] records entries in [`Entries`] (one byte arena for all paths).
//!
//! Keyset pages ([`list_after`]) run one pass per group, starting at the token's group:
//! - the walk starts *at* the token: subtrees whose whole key range lies before the token are
//!   not read at all, and siblings before it are skipped without a lookup;
//! - it stops as soon as the page (plus one entry, to know whether more follow) is full.
//!
//! A page of trees therefore reads about as many tree objects as it returns plus the ones on
//! the token's path. A page of blobs reads the trees between the token and the page's last
//! blob. Submodules come last, so the page that finishes the blobs (or any page of submodules)
//! walks every remaining tree once: a full walk of the tree objects, never of blobs. A raw
//! entry id as `page_token` ([`position_of_id`]) costs at most one full walk to find it.

use super::error::{boxed, BoxError, Classify, Missing};
use gix::objs::tree::EntryKind;
use gix::objs::{Find, TreeRefIter};
use gix::ObjectId;
use std::cmp::Ordering;
use std::ops::ControlFlow;

/// Why a tree could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0} names no commit")]
    UnknownCommit(ObjectId),
    #[error("the path is not a directory at that commit")]
    NotADirectory,
    #[error("tree {0} is missing")]
    MissingTree(ObjectId),
    #[error("{id} is a {kind}, not a tree")]
    NotATree { id: ObjectId, kind: gix::objs::Kind },
    #[error("cannot read {id}")]
    Read {
        id: ObjectId,
        #[source]
        source: BoxError,
    },
    #[error("tree {id} is malformed")]
    Decode {
        id: ObjectId,
        #[source]
        source: BoxError,
    },
}

impl Classify for Error {
    fn missing(&self) -> Option<Missing> {
        match self {
            Error::UnknownCommit(_) => Some(Missing::Revision),
            Error::NotADirectory => Some(Missing::Path),
            _ => None,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// The three groups of a listing, in listing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group {
    Tree,
    Blob,
    Commit,
}

/// Every group in listing order. (Not an associated constant: cbindgen, which reads the whole
/// crate, would put an opaque `Group` into the C header for one.)
const GROUPS: [Group; 3] = [Group::Tree, Group::Blob, Group::Commit];

impl Group {
    pub fn of(kind: EntryKind) -> Group {
        match kind {
            EntryKind::Tree => Group::Tree,
            EntryKind::Commit => Group::Commit,
            EntryKind::Blob | EntryKind::BlobExecutable | EntryKind::Link => Group::Blob,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A place in a listing: just after the entry of `group` at `path` (a full path from the
/// repository root). The entry need not exist: the place is defined by the order alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub group: Group,
    pub path: Vec<u8>,
}

impl Position {
    /// The sort key within the group: the path, plus `/` for a tree.
    fn key(&self) -> Vec<u8> {
        let mut key = self.path.clone();
        if self.group == Group::Tree {
            key.push(b'/');
        }
        key
    }
}

/// One entry as a walk sees it, borrowed from the walk's buffers.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// Full path from the repository root.
    pub path: &'a [u8],
    /// Where the entry's name starts in `path`.
    pub name_start: usize,
    pub id: &'a gix::oid,
    pub kind: EntryKind,
}

impl<'a> Entry<'a> {
    pub fn name(&self) -> &'a [u8] {
        &self.path[self.name_start..]
    }

    pub fn group(&self) -> Group {
        Group::of(self.kind)
    }

    pub fn position(&self) -> Position {
        Position { group: self.group(), path: self.path.to_vec() }
    }
}

#[derive(Debug, Clone)]
struct Record {
    id: ObjectId,
    kind: EntryKind,
    start: usize,
    name_start: usize,
    end: usize,
}

/// Recorded entries, in the order they were pushed; all paths share one byte arena.
#[derive(Debug, Clone, Default)]
pub struct Entries {
    paths: Vec<u8>,
    records: Vec<Record>,
}

impl Entries {
    pub fn push(&mut self, entry: &Entry<'_>) {
        let start = self.paths.len();
        self.paths.extend_from_slice(entry.path);
        self.records.push(Record {
            id: entry.id.to_owned(),
            kind: entry.kind,
            start,
            name_start: start + entry.name_start,
            end: self.paths.len(),
        });
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    pub fn get(&self, index: usize) -> Option<Entry<'_>> {
        self.records.get(index).map(|r| Entry {
            path: &self.paths[r.start..r.end],
            name_start: r.name_start - r.start,
            id: &r.id,
            kind: r.kind,
        })
    }

    pub fn iter(&self) -> impl Iterator<Item = Entry<'_>> + '_ {
        (0..self.records.len()).filter_map(move |i| self.get(i))
    }

    /// Total bytes of all paths (for sizing an output buffer).
    pub fn path_bytes(&self) -> usize {
        self.paths.len()
    }
}

/// The root tree of `commit`.
pub fn commit_tree(repo: &gix::Repository, commit: ObjectId) -> Result<ObjectId> {
    let found = repo.find_commit(commit).map_err(|_| Error::UnknownCommit(commit))?;
    found.tree_id().map(|id| id.detach()).map_err(|e| Error::Decode { id: commit, source: boxed(e) })
}

/// Reads tree `id` into `out` (exactly its entries), using `scratch` for the lookup; a large
/// tree read lately is taken from [`super::recent_trees`]. The copy keeps the code free of
/// assumptions about where the object store puts the data; a tree object is small next to the
/// cost of finding and inflating it.
fn load(repo: &gix::Repository, id: &gix::oid, scratch: &mut Vec<u8>, out: &mut Vec<u8>) -> Result<()> {
    let objects = repo.objects.store_ref().path();
    if super::recent_trees::get(objects, id, out) {
        return Ok(());
    }
    let data = repo
        .try_find(id, scratch)
        .map_err(|e| Error::Read { id: id.to_owned(), source: boxed(e) })?
        .ok_or_else(|| Error::MissingTree(id.to_owned()))?;
    if data.kind != gix::objs::Kind::Tree {
        return Err(Error::NotATree { id: id.to_owned(), kind: data.kind });
    }
    out.clear();
    out.extend_from_slice(data.data);
    super::recent_trees::put(objects, id, out);
    Ok(())
}

/// The tree at `components` below `root`: every component must name a tree.
/// Anything else (missing, a file, a submodule) is [`Error::NotADirectory`].
pub fn resolve_dir(repo: &gix::Repository, root: ObjectId, components: &[&[u8]]) -> Result<ObjectId> {
    let mut current = root;
    let (mut scratch, mut buf) = (Vec::new(), Vec::new());
    for component in components {
        load(repo, &current, &mut scratch, &mut buf)?;
        let mut found = None;
        for entry in TreeRefIter::from_bytes(&buf, repo.object_hash()) {
            let entry = entry.map_err(|e| Error::Decode { id: current, source: boxed(e) })?;
            if entry.filename.as_ref() as &[u8] == *component {
                found = Some((entry.mode.kind(), entry.oid.to_owned()));
                break;
            }
        }
        match found {
            Some((EntryKind::Tree, id)) => current = id,
            _ => return Err(Error::NotADirectory),
        }
    }
    Ok(current)
}

/// `path` followed by `/` when `is_tree`, compared with `key`.
fn compare_key(path: &[u8], is_tree: bool, key: &[u8]) -> Ordering {
    let suffix: &[u8] = if is_tree { b"/" } else { b"" };
    path.iter().chain(suffix).cmp(key.iter())
}

/// Whether `key` lies inside the tree at `path` (or is the tree itself).
fn key_within(path: &[u8], key: &[u8]) -> bool {
    key.len() > path.len() && key.starts_with(path) && key[path.len()] == b'/'
}

struct Frame {
    /// The tree's id (for errors) and its entries.
    id: ObjectId,
    buf: Vec<u8>,
    pos: usize,
    /// Length of the walk's path buffer for this tree's entries (its own path and `/`).
    path_len: usize,
}

/// Walks the entries of `tree` (the directory at `base`, a path from the repository root,
/// empty for the root) in git's order, depth-first into subtrees when `recursive`, handing each
/// entry to `visit` until it breaks. With `after` (a sort key, see [`Position`]), entries whose
/// key is not greater are skipped, and subtrees lying entirely before it are not read.
pub fn walk<F>(
    repo: &gix::Repository,
    tree: ObjectId,
    base: &[u8],
    recursive: bool,
    after: Option<&[u8]>,
    mut visit: F,
) -> Result<()>
where
    F: FnMut(&Entry<'_>) -> ControlFlow<()>,
{
    let hash_kind = repo.object_hash();
    let mut path: Vec<u8> = Vec::with_capacity(base.len() + 256);
    path.extend_from_slice(base);
    if !base.is_empty() {
        path.push(b'/');
    }
    let mut after = after;
    let mut free: Vec<Vec<u8>> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut scratch = Vec::new();
    let mut buf = Vec::new();
    load(repo, &tree, &mut scratch, &mut buf)?;
    stack.push(Frame { id: tree, buf, pos: 0, path_len: path.len() });

    'frames: while let Some(mut frame) = stack.pop() {
        loop {
            let rest = &frame.buf[frame.pos..];
            if rest.is_empty() {
                free.push(frame.buf);
                continue 'frames;
            }
            let mut iter = TreeRefIter::from_bytes(rest, hash_kind);
            let entry = match iter.next() {
                Some(Ok(entry)) => entry,
                Some(Err(e)) => return Err(Error::Decode { id: frame.id, source: boxed(e) }),
                None => {
                    free.push(frame.buf);
                    continue 'frames;
                }
            };
            frame.pos += iter.offset_to_next_entry(rest);
            path.truncate(frame.path_len);
            path.extend_from_slice(entry.filename);
            let kind = entry.mode.kind();
            let is_tree = kind == EntryKind::Tree;
            let mut descend = recursive && is_tree;
            let mut emit = true;
            if let Some(key) = after {
                if compare_key(&path, is_tree, key) == Ordering::Greater {
                    // The walk order is the key order: everything from here on is after.
                    after = None;
                } else {
                    emit = false;
                    descend = descend && key_within(&path, key);
                }
            }
            if emit {
                let seen = Entry { path: &path, name_start: frame.path_len, id: entry.oid, kind };
                if visit(&seen).is_break() {
                    return Ok(());
                }
            }
            if descend {
                let child = entry.oid.to_owned();
                path.push(b'/');
                let path_len = path.len();
                stack.push(frame);
                let mut buf = free.pop().unwrap_or_default();
                load(repo, &child, &mut scratch, &mut buf)?;
                stack.push(Frame { id: child, buf, pos: 0, path_len });
                continue 'frames;
            }
        }
    }
    Ok(())
}

/// A whole listing by group: `counts` has every entry, `groups` the first `keep` of each group
/// (all of them with `usize::MAX`).
#[derive(Debug, Default)]
pub struct Grouped {
    pub groups: [Entries; 3],
    pub counts: [usize; 3],
}

impl Grouped {
    pub fn total(&self) -> usize {
        self.counts.iter().sum()
    }

    /// The entry at `index` of the whole listing (trees, then blobs, then submodules), when it
    /// was kept.
    pub fn get(&self, index: usize) -> Option<Entry<'_>> {
        let mut index = index;
        for group in GROUPS {
            let count = self.counts[group.index()];
            if index < count {
                return self.groups[group.index()].get(index);
            }
            index -= count;
        }
        None
    }
}

/// Every entry of the listing in one walk, grouped; see [`Grouped`].
pub fn list_grouped(
    repo: &gix::Repository,
    tree: ObjectId,
    base: &[u8],
    recursive: bool,
    keep: usize,
) -> Result<Grouped> {
    let mut grouped = Grouped::default();
    walk(repo, tree, base, recursive, None, |entry| {
        let group = entry.group().index();
        grouped.counts[group] += 1;
        if grouped.groups[group].len() < keep {
            grouped.groups[group].push(entry);
        }
        ControlFlow::Continue(())
    })?;
    Ok(grouped)
}

/// Up to `limit` entries of the listing in order, starting after `after` (from the start
/// without it). One walk per group from the position's group on; each stops once `limit`
/// entries are recorded.
pub fn list_after(
    repo: &gix::Repository,
    tree: ObjectId,
    base: &[u8],
    recursive: bool,
    after: Option<&Position>,
    limit: usize,
) -> Result<Entries> {
    let mut out = Entries::default();
    if limit == 0 {
        return Ok(out);
    }
    let key = after.map(Position::key);
    let first = after.map_or(Group::Tree, |p| p.group);
    for group in GROUPS.into_iter().filter(|g| *g >= first) {
        let from = if group == first { key.as_deref() } else { None };
        walk(repo, tree, base, recursive, from, |entry| {
            if entry.group() == group {
                out.push(entry);
                if out.len() >= limit {
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        })?;
        if out.len() >= limit {
            break;
        }
    }
    Ok(out)
}

/// The position of the first entry with object id `id` in the listing's order, if any: one
/// walk, which stops at the first tree with that id.
pub fn position_of_id(
    repo: &gix::Repository,
    tree: ObjectId,
    base: &[u8],
    recursive: bool,
    id: &gix::oid,
) -> Result<Option<Position>> {
    let mut first: [Option<Position>; 3] = [None, None, None];
    walk(repo, tree, base, recursive, None, |entry| {
        if entry.id == id {
            let slot = &mut first[entry.group().index()];
            if slot.is_none() {
                *slot = Some(entry.position());
            }
            if entry.group() == Group::Tree {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })?;
    Ok(first.into_iter().flatten().next())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_keys_follow_git_tree_order() {
        // git order of entries `a-b` (blob), `a` (tree) with child `x`, `a0` (blob).
        let key_tree_a = b"a/".as_slice();
        assert_eq!(compare_key(b"a-b", false, key_tree_a), Ordering::Less);
        assert_eq!(compare_key(b"a/x", false, key_tree_a), Ordering::Greater);
        assert_eq!(compare_key(b"a0", false, key_tree_a), Ordering::Greater);
        assert_eq!(compare_key(b"a", true, key_tree_a), Ordering::Equal);
        assert_eq!(compare_key(b"a", false, b"a/x"), Ordering::Less);
        assert!(key_within(b"a", b"a/"));
        assert!(key_within(b"a", b"a/x/y"));
        assert!(!key_within(b"a", b"a0"));
        assert!(!key_within(b"a", b"a"));
    }
}
