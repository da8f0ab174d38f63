//! The `path` and `exclude_paths` of an archive: cleaning them as Gitaly does, checking that
//! they exist, and deciding which entries of the walk they select.

use crate::error::Error;
use gix::objs::tree::EntryKind;
use gix::objs::{Find, TreeRefIter};

/// A path cleaned lexically the way Gitaly's `ValidateRelativePath` does (Go's
/// `filepath.Clean` under the repository root): empty and `.` components vanish, `..` removes
/// the one before it, a leading `/` is ignored. `None` when it would leave the root or holds
/// a NUL; an empty result is the root itself.
pub fn clean_path(path: &str) -> Option<Vec<u8>> {
    if path.contains('\0') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/").into_bytes())
}

/// Whether `path` (cleaned, not empty) names an entry of any kind in the tree `root`, as
/// Gitaly's archive precondition requires of `path` and every exclude.
pub fn entry_exists(repo: &gix::Repository, root: gix::ObjectId, path: &[u8]) -> Result<bool, Error> {
    let mut current = root;
    let mut buf = Vec::new();
    let mut components = path.split(|b| *b == b'/').peekable();
    while let Some(component) = components.next() {
        let data = repo
            .try_find(&current, &mut buf)
            .map_err(|source| Error::FindObject { id: current, source })?
            .ok_or(Error::MissingObject { id: current })?;
        if data.kind != gix::objs::Kind::Tree {
            return Ok(false);
        }
        let mut found = None;
        for entry in TreeRefIter::from_bytes(data.data, repo.object_hash()) {
            let entry = entry.map_err(|source| Error::DecodeTree { id: current, source })?;
            if entry.filename.as_ref() as &[u8] == component {
                found = Some((entry.mode.kind(), entry.oid.to_owned()));
                break;
            }
        }
        match found {
            None => return Ok(false),
            Some(_) if components.peek().is_none() => return Ok(true),
            Some((EntryKind::Tree, id)) => current = id,
            Some(_) => return Ok(false),
        }
    }
    Ok(false)
}

/// `path` is `base` or lies below it.
fn within(path: &[u8], base: &[u8]) -> bool {
    path.starts_with(base) && (path.len() == base.len() || path[base.len()] == b'/')
}

/// Which entries the request selects: git's pathspec rules for one literal path and literal
/// excludes. An entry is taken when it lies at or below `include` (or is a directory on the
/// way to it) and at or below no exclude.
pub struct Filter<'a> {
    pub include: &'a [u8],
    pub excludes: &'a [Vec<u8>],
}

impl Filter<'_> {
    /// Whether the entry at `path` (repository-relative) is written; directories that are
    /// written are also walked into.
    pub fn takes(&self, path: &[u8], is_tree: bool) -> bool {
        let positive = self.include.is_empty()
            || within(path, self.include)
            || (is_tree && self.include.len() > path.len() && within(self.include, path));
        positive && !self.excludes.iter().any(|exclude| within(path, exclude))
    }

    /// Whether nothing at all is filtered (the common case, checked once).
    pub fn is_everything(&self) -> bool {
        self.include.is_empty() && self.excludes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_follows_gitaly() {
        assert_eq!(clean_path("").as_deref(), Some(&b""[..]));
        assert_eq!(clean_path(".").as_deref(), Some(&b""[..]));
        assert_eq!(clean_path("a/b/").as_deref(), Some(&b"a/b"[..]));
        assert_eq!(clean_path("/abs").as_deref(), Some(&b"abs"[..]));
        assert_eq!(clean_path("a/../b").as_deref(), Some(&b"b"[..]));
        assert_eq!(clean_path("a//./c").as_deref(), Some(&b"a/c"[..]));
        assert_eq!(clean_path("../x"), None);
        assert_eq!(clean_path("a/../.."), None);
        assert_eq!(clean_path("a\0b"), None);
    }

    #[test]
    fn filter_takes_the_path_its_ancestors_and_not_the_excludes() {
        let excludes = vec![b"a/b/c".to_vec()];
        let filter = Filter { include: b"a/b", excludes: &excludes };
        assert!(filter.takes(b"a", true));
        assert!(!filter.takes(b"a", false));
        assert!(filter.takes(b"a/b", true));
        assert!(filter.takes(b"a/b/x", false));
        assert!(!filter.takes(b"a/bc", false));
        assert!(!filter.takes(b"a/b/c", true));
        assert!(!filter.takes(b"a/b/c/d", false));
        assert!(filter.takes(b"a/b/cd", false));
        assert!(!filter.takes(b"z", true));
        let everything = Filter { include: b"", excludes: &[] };
        assert!(everything.takes(b"anything", false) && everything.is_everything());
    }
}
