//! Repository access through gix, always in isolation: no global or user configuration, never a
//! hook, filter or other external program. One file per operation; this module owns opening
//! (a bounded cache of thread-safe handles, a thread-local handle per request), resolving
//! revisions, and the errors every operation shares.

pub mod blob;
pub mod commit;
pub mod compare;
pub mod contributors;
pub mod diff;
pub mod health;
pub mod merge_base;
pub mod range;
pub mod tree;
pub mod write;

use once_cell::sync::Lazy;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How many repositories stay open (each keeps pack indexes mapped).
const CACHE_CAPACITY: usize = 64;
/// Decoded-object cache of one thread-local handle.
const OBJECT_CACHE_BYTES: usize = 8 << 20;
/// Delta-base cache of one thread-local handle (gix's default is 96 MiB, and every request
/// thread has a handle of its own).
const PACK_CACHE_BYTES: usize = 8 << 20;

/// Why a git operation failed, in the terms the API answers with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitError {
    /// The repository directory cannot be opened.
    NoRepository,
    /// The revision does not name a commit (unknown, malformed, or a non-commit object).
    UnknownRevision,
    /// The path does not exist at that revision (or is not of the kind asked for).
    UnknownPath,
    /// The object does not exist or is of another kind.
    UnknownObject,
    /// The repository is corrupt or unreadable; the text is for logs only.
    Broken(String),
}

pub type GitResult<T> = Result<T, GitError>;

impl GitError {
    pub fn broken(e: impl std::fmt::Display) -> GitError {
        GitError::Broken(e.to_string())
    }
}

/// Options every repository is opened with.
fn open_options() -> gix::open::Options {
    gix::open::Options::isolated().open_path_as_is(true)
}

struct Cache {
    handles: HashMap<PathBuf, (gix::ThreadSafeRepository, u64)>,
    clock: u64,
}

static CACHE: Lazy<Mutex<Cache>> = Lazy::new(|| Mutex::new(Cache { handles: HashMap::new(), clock: 0 }));

/// A thread-local handle on the repository at `git_dir`, from the shared cache.
pub fn open(git_dir: &str) -> GitResult<gix::Repository> {
    let key = PathBuf::from(git_dir);
    let shared = {
        let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        cache.clock += 1;
        let now = cache.clock;
        match cache.handles.get_mut(&key) {
            Some((repo, used)) => {
                *used = now;
                Some(repo.clone())
            }
            None => None,
        }
    };
    let shared = match shared {
        Some(repo) => repo,
        None => {
            let repo =
                gix::ThreadSafeRepository::open_opts(&key, open_options()).map_err(|_| GitError::NoRepository)?;
            let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
            if cache.handles.len() >= CACHE_CAPACITY {
                if let Some(oldest) = cache.handles.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| k.clone()) {
                    cache.handles.remove(&oldest);
                }
            }
            let now = cache.clock;
            cache.handles.insert(key, (repo.clone(), now));
            repo
        }
    };
    let mut repo = shared.to_thread_local();
    repo.object_cache_size_if_unset(OBJECT_CACHE_BYTES);
    repo.objects.set_pack_cache(|| Box::new(gix::odb::pack::cache::lru::StaticLinkedList::<64>::new(PACK_CACHE_BYTES)));
    Ok(repo)
}

/// The git directory of `dir`: `dir/.git` for a work tree, `dir` itself for a bare repository.
/// `None` when neither is a git repository.
pub fn git_dir_of(dir: &Path) -> Option<PathBuf> {
    let dot_git = dir.join(".git");
    [dot_git, dir.to_path_buf()]
        .into_iter()
        .find(|candidate| candidate.is_dir() && gix::ThreadSafeRepository::open_opts(candidate, open_options()).is_ok())
}

/// The short name of the branch HEAD points at, even when that branch has no commit yet.
pub fn default_branch(git_dir: &str) -> Option<String> {
    let repo = open(git_dir).ok()?;
    let name = repo.head_name().ok()??;
    Some(name.shorten().to_string())
}

/// Whether `text` may be looked up as a revision at all: not empty, not an option, no NUL,
/// no control characters, bounded. Everything else is "unknown" without touching the repository.
fn plausible_revision(text: &str) -> bool {
    !text.is_empty() && text.len() <= 1024 && !text.starts_with('-') && !text.bytes().any(|b| b.is_ascii_control())
}

/// The commit a revision names, the way GitLab resolves a `ref`/`sha` parameter: a full object
/// id, a reference name looked up in git's order (`x`, `refs/x`, `refs/tags/x`, `refs/heads/x`,
/// `refs/remotes/x`, ...), or an abbreviated object id. Tags are peeled. No revision syntax
/// (`a..b`, `x~1`, `:/text`) is interpreted.
pub fn resolve_commit(repo: &gix::Repository, revision: &str) -> GitResult<gix::ObjectId> {
    if !plausible_revision(revision) {
        return Err(GitError::UnknownRevision);
    }
    let object = if let Ok(id) = gix::ObjectId::from_hex(revision.as_bytes()) {
        repo.try_find_object(id).map_err(GitError::broken)?.ok_or(GitError::UnknownRevision)?
    } else if let Some(mut reference) = <&gix::refs::PartialNameRef>::try_from(revision)
        .ok()
        .and_then(|name| repo.try_find_reference(name).ok().flatten())
    {
        let id = reference.peel_to_id().map_err(|_| GitError::UnknownRevision)?;
        repo.find_object(id).map_err(|_| GitError::UnknownRevision)?
    } else if revision.len() >= 4 && revision.bytes().all(|b| b.is_ascii_hexdigit()) {
        let id = repo.rev_parse_single(revision).map_err(|_| GitError::UnknownRevision)?;
        id.object().map_err(|_| GitError::UnknownRevision)?
    } else {
        return Err(GitError::UnknownRevision);
    };
    let commit = object.peel_to_commit().map_err(|_| GitError::UnknownRevision)?;
    Ok(commit.id)
}

/// The commit of `revision`, or of HEAD when `None`.
pub fn resolve_or_head(repo: &gix::Repository, revision: Option<&str>) -> GitResult<gix::ObjectId> {
    match revision {
        Some(revision) => resolve_commit(repo, revision),
        None => {
            let mut head = repo.head().map_err(GitError::broken)?;
            let id = head.try_peel_to_id().map_err(|_| GitError::UnknownRevision)?.ok_or(GitError::UnknownRevision)?;
            let commit = id
                .object()
                .map_err(|_| GitError::UnknownRevision)?
                .peel_to_commit()
                .map_err(|_| GitError::UnknownRevision)?;
            Ok(commit.id)
        }
    }
}
