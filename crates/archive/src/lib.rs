//! Repository archives (B4) on gix primitives: what goes into an archive and in which order
//! (`walk`), and the containers it is written in (`tar`, `zip`, compressed by `compress`).
//! Its failures are one [`Error`]. Its reader of the object database also serves the core's
//! blob routes ([`Blob`]), so that a large blob is streamed there as it is into an archive.
//!
//! It reads one repository and writes bytes, nothing else: the crate does not depend on the
//! core (forgecore), so it cannot reach the store, the API or authorization. The core checks
//! who may download what, resolves the commit and cleans the paths ([`clean_path`],
//! [`entry_exists`]) before it calls [`write()`], which opens the repository on its own.
//!
//! The contract is `git archive --format=tar --prefix=<prefix>/ <commit> -- <path>
//! ':(exclude)<exclude>'...` (what Gitaly runs for GitLab), entry for entry: the same names,
//! types, modes, link targets and contents in the same order, the commit id in the pax global
//! header and the committer time as every entry's mtime. The uncompressed tar is byte-identical
//! to git's (see `tar.rs`); zip has git's members and attributes; compressed bytes differ from
//! git's (another deflate/bzip2 implementation) but never between two runs.
//!
//! Differences from `git archive`, all deliberate:
//! - `path` and excludes are literal paths (`:(literal)`), never globs: GitLab (Gitaly)
//!   requires each to name an existing tree entry, so a glob could only ever match itself.
//! - With `include_lfs`, a blob marked `filter=lfs` that is a valid LFS pointer is replaced by
//!   its object from `<common dir>/lfs/objects` when that object is present with the size the
//!   pointer states (Gitaly's `gitaly-lfs-smudge`); otherwise the pointer stays.
//! - Content is converted as git converts it for an archive (`convert`: `text`, `eol`, `crlf`,
//!   `ident` with `core.autocrlf` and `core.eol`; `subst`: `export-subst`), but no filter driver
//!   (`filter=`) and no `working-tree-encoding` ever runs, and a few `export-subst` placeholders
//!   stay as they are (`pretty` lists them); `%(describe)` is computed, not run (`describe`).
//! - Hostile entry names (empty, `.`, `..`, with `/` or `\`, `.git` in any spelling HFS+ or
//!   NTFS would take for it) and a second entry of a name already seen in the same tree are
//!   skipped with everything below them, so no member can land outside the prefix.
//!
//! Work: the walk selects members and writes them in order on the calling thread, while two
//! workers inflate the blobs of the members ahead of it (`prefetch`) and, for the compressed
//! formats and zip, two more compress (`compress`, `zip`): inflating and compressing are most
//! of an archive's work, and both spread over the cores this way (`ordered`'s pools).
//!
//! Memory: one tree object per directory level, the blobs of at most three batches of members
//! (512 KiB each, `prefetch`; larger blobs stored whole are streamed; one stored as a delta is
//! inflated whole, as gix can only do), the attribute patterns in scope, converted content up
//! to 1 MiB (larger is converted again on each read rather than held: `convert`), the bounded
//! buffers of the writers and their worker threads (`compress`), a 64th of the pack indexes'
//! ids (`index`), and the pages of the pack files the archive maps, which `objects` keeps to a
//! few MiB however large the repository.
//!
//! Why the writers are our own, rather than the `tar` and `zip` crates (on which gix's
//! `gix-archive` builds) or `git archive` itself:
//! - Byte-identical output with `git archive`: the contract is git's bytes, so the writers
//!   follow `archive-tar.c` and `archive-zip.c` field by field (the pax global header with the
//!   commit id, git's modes, umask and `root` owner, its split of long names, its 10240-byte
//!   blocks; zip's extended-timestamp field and the commit id as comment). A general-purpose
//!   writer lays its headers out its own way.
//! - Bounded memory, whatever the repository: every buffer is ours to bound. Entries are
//!   written as they are read, large blobs inflated piece by piece (a zip member's content is
//!   read twice rather than held), the zip central directory moves to a temporary file past
//!   1 MiB, loading and compression run on at most two workers each with bounded queues, and
//!   the archive's own readers of the object database keep the mapped pack pages to a few MiB. (`git archive`
//!   itself holds hundreds of MiB on a large repository; see the README's Performance section.)
//! - LFS: GitLab's archives carry LFS objects in place of their pointers, which Gitaly gets by
//!   running `git archive` with its `gitaly-lfs-smudge` filter program. Here that is an
//!   attribute lookup and a file read (`lfs`), and no program runs.
#![forbid(unsafe_code)]

mod attributes;
mod blob;
mod compress;
mod content;
mod convert;
mod describe;
mod error;
mod index;
pub mod lfs;
mod objects;
mod ordered;
mod output;
mod paths;
mod prefetch;
mod pretty;
mod subst;
mod tar;
mod walk;
mod zip;

pub use blob::{Blob, STREAM_FROM as BLOB_STREAM_FROM};
pub use error::Error;
pub use paths::{clean_path, entry_exists};

use objects::Objects;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The container and its compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Tar,
    TarGz,
    TarBz2,
    Zip,
}

impl Format {
    /// The format a route suffix names (GitLab's `archive_formats_regex`, case-sensitive):
    /// `tar.gz` (also `tgz`, `gz`), `tar`, `tar.bz2` (also `tbz`, `tbz2`, `tb2`, `bz2`), `zip`.
    pub fn from_suffix(suffix: &str) -> Option<Format> {
        match suffix {
            "tar.gz" | "tgz" | "gz" => Some(Format::TarGz),
            "tar" => Some(Format::Tar),
            "tar.bz2" | "tbz" | "tbz2" | "tb2" | "bz2" => Some(Format::TarBz2),
            "zip" => Some(Format::Zip),
            _ => None,
        }
    }

    /// The file name extension GitLab gives it (`tgz` is still `.tar.gz`).
    pub fn extension(self) -> &'static str {
        match self {
            Format::Tar => "tar",
            Format::TarGz => "tar.gz",
            Format::TarBz2 => "tar.bz2",
            Format::Zip => "zip",
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Format::Zip => "application/zip",
            _ => "application/octet-stream",
        }
    }
}

/// Everything one archive is made from. Paths are repository-relative and already cleaned
/// ([`clean_path`]); empty `include` means the whole tree.
#[derive(Debug, Clone)]
pub struct Spec {
    pub format: Format,
    pub commit: gix::ObjectId,
    /// The single top directory (no `/`).
    pub prefix: String,
    pub include: Vec<u8>,
    pub excludes: Vec<Vec<u8>>,
    /// Substitute LFS objects for their pointers where the object is present.
    pub include_lfs: bool,
}

/// Writes the archive `spec` describes of the repository at `git_dir` to `out`, reading its
/// objects with a reader of its own (`objects`). An error from `out` ends the walk at once and
/// is [`Error::Write`].
pub fn write(git_dir: &Path, spec: &Spec, out: &mut dyn Write) -> Result<(), Error> {
    let mut objects = Objects::open(git_dir)?;
    let mut data = Vec::new();
    objects.load(&spec.commit, gix::objs::Kind::Commit, &mut data)?;
    let decode = |source| Error::DecodeCommit { id: spec.commit, source };
    let commit = gix::objs::CommitRef::from_bytes(&data, objects.object_hash()).map_err(decode)?;
    let mtime = commit.committer().and_then(|committer| committer.time()).map_err(decode)?.seconds;
    let tree = commit.tree();
    let lfs_root = spec.include_lfs.then(|| lfs_objects_dir(objects.repo()));
    let info_attributes = Some(objects.repo().git_dir().join("info").join("attributes"));
    let settings = convert::Settings::from_repo(objects.repo());
    let mut walk = walk::Walk {
        commit: spec.commit,
        settings,
        facts: None,
        objects: &mut objects,
        tree,
        prefix: spec.prefix.as_bytes(),
        include: &spec.include,
        excludes: &spec.excludes,
        lfs_root: lfs_root.as_deref(),
        info_attributes,
    };
    match spec.format {
        Format::Tar => {
            let mut tar = tar::Tar::new(out, &spec.commit, mtime)?;
            walk.run(&mut tar)?;
            Ok(tar.finish()?)
        }
        Format::TarGz | Format::TarBz2 => {
            let codec = if spec.format == Format::TarGz { compress::Codec::Gzip } else { compress::Codec::Bzip2 };
            let mut members = compress::Members::new(out, codec)?;
            let mut tar = tar::Tar::new(&mut members, &spec.commit, mtime)?;
            walk.run(&mut tar)?;
            tar.finish()?;
            Ok(members.finish()?)
        }
        Format::Zip => {
            let mut zip = zip::Zip::new(out, &spec.commit, mtime)?;
            walk.run(&mut zip)?;
            Ok(zip.finish()?)
        }
    }
}

/// Whether `prefix` can be the archive's top directory: one safe path component.
pub fn safe_prefix(prefix: &str) -> bool {
    walk::safe_name(prefix.as_bytes())
}

/// The LFS object the pointer `data` names in `repo`'s store, opened, when the store has it with
/// the stated size (the files API's `raw?lfs=true` serves it as archives do).
pub fn lfs_object(repo: &gix::Repository, data: &[u8]) -> Option<lfs::Object> {
    lfs::open(&lfs_objects_dir(repo), data)
}

/// Where git-lfs keeps the repository's objects.
fn lfs_objects_dir(repo: &gix::Repository) -> PathBuf {
    repo.common_dir().join("lfs").join("objects")
}
