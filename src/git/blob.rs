//! One blob by the `sha` of B2/B3: finding it (the object header only, so its size is known
//! before anything is inflated), reading its bytes, and git's text-or-binary heuristic.
//!
//! GitLab hands `sha` to Gitaly's `GetBlob`, which asks `git cat-file --batch` for it, so any
//! revision that names a blob works there. We accept the forms that are cheap and safe:
//! - a full object id, or an abbreviated one of at least 4 hex digits (either case; an
//!   ambiguous prefix is unknown, as in git);
//! - a reference name (`refs/tags/key`, `key`, ... in git's lookup order), peeled, for the rare
//!   tag that points at a blob; a branch or a commit tag peels to a commit and so is unknown;
//! - `<rev>:<path>`, where `<rev>` is what [`super::resolve_commit`] accepts (id, ref name,
//!   abbreviated id, with revision suffixes such as `~1`) and `<path>` is looked up component by component exactly as git does
//!   (`a//b`, a trailing `/`, `./` or a leading `/` find nothing).
//!
//! Everything else (a revision suffix without a path, `:/text`, the index form `:path`, an option
//! such as `-v`, control characters, over-long text) is unknown without a lookup. Refs take
//! precedence over abbreviated ids, as in git.

use super::error::{boxed, BoxError, Classify, Missing};
use gix::ObjectId;

/// Longest `sha` text looked up at all: a path of git's usual 4096 bytes and a revision.
const MAX_SPEC_BYTES: usize = 4096 + 256;
/// Fewest hex digits of an abbreviated id (git's `MINIMUM_ABBREV`).
const MIN_ABBREV: usize = 4;

/// Why a blob could not be found or read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no blob by that name")]
    Unknown,
    #[error("cannot look up a blob")]
    Lookup(#[source] BoxError),
    #[error("cannot read blob {id}")]
    Read {
        id: ObjectId,
        #[source]
        source: BoxError,
    },
}

impl Classify for Error {
    fn missing(&self) -> Option<Missing> {
        match self {
            Error::Unknown => Some(Missing::Object),
            _ => None,
        }
    }
}

/// A blob found from its header: the full id and the size in bytes, nothing inflated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlobHeader {
    pub id: ObjectId,
    pub size: u64,
}

fn plausible(spec: &str) -> bool {
    !spec.is_empty()
        && spec.len() <= MAX_SPEC_BYTES
        && !spec.starts_with('-')
        && !spec.bytes().any(|b| b.is_ascii_control())
}

/// The id `spec` names, or [`Error::Unknown`].
fn resolve(repo: &gix::Repository, spec: &str) -> Result<ObjectId, Error> {
    if let Some((revision, path)) = spec.split_once(':') {
        return resolve_path(repo, revision, path);
    }
    let hex_len = repo.object_hash().len_in_hex();
    let all_hex = spec.bytes().all(|b| b.is_ascii_hexdigit());
    if all_hex && spec.len() == hex_len {
        return ObjectId::from_hex(spec.to_ascii_lowercase().as_bytes()).map_err(|_| Error::Unknown);
    }
    if let Ok(name) = <&gix::refs::PartialNameRef>::try_from(spec) {
        if let Some(mut reference) = repo.try_find_reference(name).ok().flatten() {
            return reference.peel_to_id().map(|id| id.detach()).map_err(|_| Error::Unknown);
        }
    }
    if all_hex && (MIN_ABBREV..hex_len).contains(&spec.len()) {
        let prefix = gix::hash::Prefix::from_hex(&spec.to_ascii_lowercase()).map_err(|_| Error::Unknown)?;
        return match repo.objects.lookup_prefix(prefix, None).map_err(|e| Error::Lookup(boxed(e)))? {
            Some(Ok(id)) => Ok(id),
            // Ambiguous or absent.
            _ => Err(Error::Unknown),
        };
    }
    Err(Error::Unknown)
}

/// `<revision>:<path>`: the entry at `path` in the tree of the commit `revision` names.
fn resolve_path(repo: &gix::Repository, revision: &str, path: &str) -> Result<ObjectId, Error> {
    if revision.is_empty() || path.is_empty() || path.split('/').any(str::is_empty) {
        return Err(Error::Unknown);
    }
    let commit = super::resolve_commit(repo, revision).map_err(|_| Error::Unknown)?;
    let tree = repo.find_commit(commit).and_then(|c| c.tree()).map_err(|e| Error::Lookup(boxed(e)))?;
    let components = path.split('/').map(str::as_bytes);
    let entry = tree.lookup_entry(components).map_err(|e| Error::Lookup(boxed(e)))?.ok_or(Error::Unknown)?;
    Ok(entry.object_id())
}

/// The blob `spec` names, from its header: [`Error::Unknown`] when nothing by that name exists
/// or it is not a blob (a tree, a commit, a submodule entry, a tag).
pub fn find(repo: &gix::Repository, spec: &str) -> Result<BlobHeader, Error> {
    if !plausible(spec) {
        return Err(Error::Unknown);
    }
    let id = resolve(repo, spec)?;
    let header = repo.try_find_header(id).map_err(|e| Error::Read { id, source: boxed(e) })?.ok_or(Error::Unknown)?;
    if header.kind() != gix::object::Kind::Blob {
        return Err(Error::Unknown);
    }
    Ok(BlobHeader { id, size: header.size() })
}

/// The whole content of the blob `id` (inflated in memory: gix has no streaming reader for
/// one object, so callers bound the size from [`find`] first).
pub fn read(repo: &gix::Repository, id: ObjectId) -> Result<Vec<u8>, Error> {
    let mut blob = repo.find_blob(id).map_err(|e| Error::Read { id, source: boxed(e) })?;
    Ok(blob.take_data())
}

/// Whether `data` is text: valid UTF-8 with no NUL in its first 8000 bytes (git's binary
/// heuristic, plus the encoding a `charset=utf-8` content type promises).
pub fn is_text(data: &[u8]) -> bool {
    forgecore_content::is_text(data)
}
