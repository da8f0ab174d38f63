//! Repository access through gix, always in isolation: no global or user configuration, never a
//! hook, filter or other external program (git's own programs are started by [`command`]
//! alone). One file per operation; this module owns opening
//! (a bounded cache of thread-safe handles, a thread-local handle per request) and resolving
//! revisions. Each operation has its own error enum; [`error`] says what they share.

pub mod blame;
pub mod blob;
pub mod bloom;
pub mod command;
pub mod commit;
pub mod commit_head;
pub mod contributors;
pub mod diff;
pub mod error;
pub mod fork_copy;
pub mod fork_view;
pub mod head_file;
pub mod health;
pub mod last_commit;
pub mod log;
pub mod maintenance;
pub mod merge;
pub mod merge_base;
pub mod new_commits;
pub mod packs;
pub mod parallel;
pub mod patch_queue;
pub mod places;
pub mod prefetch;
pub mod push_hook;
pub mod range;
pub mod recent_trees;
pub mod refs;
pub mod rename;
pub mod tree;
pub mod write;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

/// How many repositories stay open (each keeps pack indexes mapped).
const CACHE_CAPACITY: usize = 64;
/// Decoded-object cache of one thread-local handle.
const OBJECT_CACHE_BYTES: usize = 8 << 20;
/// Delta-base cache of one thread-local handle (gix's default is 96 MiB, and every request
/// thread has a handle of its own).
const PACK_CACHE_BYTES: usize = 8 << 20;

pub use error::{Classify, Missing};

/// A repository that cannot be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot open the repository at {}", path.display())]
pub struct OpenError {
    path: PathBuf,
    #[source]
    source: error::BoxError,
}

impl Classify for OpenError {
    fn missing(&self) -> Option<Missing> {
        Some(Missing::Repository)
    }
}

/// A revision that names no commit, or one that could not be looked up.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error("the revision names no commit")]
    Unknown,
    #[error("cannot look up a revision")]
    Lookup(#[source] error::BoxError),
}

impl Classify for ResolveError {
    fn missing(&self) -> Option<Missing> {
        match self {
            ResolveError::Unknown => Some(Missing::Revision),
            ResolveError::Lookup(_) => None,
        }
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

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(Cache { handles: HashMap::new(), clock: 0 }));

/// A thread-local handle on the repository at `git_dir`, from the shared cache.
pub fn open(git_dir: impl AsRef<Path>) -> Result<gix::Repository, OpenError> {
    let key = git_dir.as_ref().to_path_buf();
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
            let repo = gix::ThreadSafeRepository::open_opts(&key, open_options())
                .map_err(|e| OpenError { path: key.clone(), source: error::boxed(e) })?;
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

/// Forgets the open handle on the repository at `git_dir` (after its refs or packs changed
/// outside gix: a push): the next [`open`] opens it afresh.
pub fn forget(git_dir: impl AsRef<Path>) {
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    cache.handles.remove(git_dir.as_ref());
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
pub fn default_branch(git_dir: impl AsRef<Path>) -> Option<String> {
    let repo = open(git_dir).ok()?;
    let name = repo.head_name().ok()??;
    Some(name.shorten().to_string())
}

/// Whether `text` may be looked up as a revision at all: not empty, not an option, no NUL,
/// no control characters or whitespace, no reflog (`@{...}`), search or index form (`:`), no
/// range (`..`), bounded. Everything else is "unknown" without touching the repository.
fn plausible_revision(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 1024
        && !text.starts_with('-')
        && !text.contains("@{")
        && !text.contains("..")
        && !text.bytes().any(|b| b.is_ascii_control() || b.is_ascii_whitespace() || b == b':')
}

/// One revision suffix, as `git rev-parse` reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Suffix {
    /// `~N` (`~` alone is `~1`): the N-th first-parent ancestor.
    Ancestor(usize),
    /// `^N` (`^` alone is `^1`): the N-th parent; `^0` the commit itself.
    Parent(usize),
    /// `^{commit}` or `^{}`: peeled to the commit, which every revision here is anyway.
    Peel,
}

/// The base (a name or id, before the first `~` or `^`, which no ref name holds) and its
/// suffixes; `None` when a suffix is not one of [`Suffix`]'s forms (`^{tree}`, `~x`, ...).
fn split_suffixes(revision: &str) -> Option<(&str, Vec<Suffix>)> {
    let at = revision.find(['~', '^']).unwrap_or(revision.len());
    let (base, mut rest) = revision.split_at(at);
    let mut suffixes = Vec::new();
    let number = |text: &str| -> Option<(usize, usize)> {
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Some((1, 0));
        }
        Some((text[..digits].parse().ok()?, digits))
    };
    while let Some(first) = rest.chars().next() {
        let after = &rest[1..];
        if first == '^' && after.starts_with('{') {
            let close = after.find('}')?;
            match &after[1..close] {
                "" | "commit" => suffixes.push(Suffix::Peel),
                _ => return None,
            }
            rest = &after[close + 1..];
            continue;
        }
        let (n, used) = number(after)?;
        suffixes.push(if first == '~' { Suffix::Ancestor(n) } else { Suffix::Parent(n) });
        rest = &after[used..];
        if !rest.is_empty() && !rest.starts_with(['~', '^']) {
            return None;
        }
    }
    Some((base, suffixes))
}

/// The commit a revision names, the way GitLab (Gitaly, `git rev-parse`) resolves a
/// `ref`/`sha` parameter: a base, which is a full object id, a reference name looked up in
/// git's order (`x`, `refs/x`, `refs/tags/x`, `refs/heads/x`, `refs/remotes/x`, ...) or an
/// abbreviated object id, tags peeled; then any revision suffixes `~N`, `^N`, `^{commit}`
/// (`main~3`, `v1.0^2`, `HEAD^{commit}`). Ranges (`a..b`), reflog entries (`@{...}`), searches
/// and paths (`:/text`, `x:path`) and other peels (`^{tree}`) name no commit here.
pub fn resolve_commit(repo: &gix::Repository, revision: &str) -> Result<gix::ObjectId, ResolveError> {
    use ResolveError::Unknown;
    if !plausible_revision(revision) {
        return Err(Unknown);
    }
    let (base, suffixes) = split_suffixes(revision).ok_or(Unknown)?;
    if base.is_empty() {
        return Err(Unknown);
    }
    let object = if let Ok(id) = gix::ObjectId::from_hex(base.as_bytes()) {
        repo.try_find_object(id).map_err(|e| ResolveError::Lookup(error::boxed(e)))?.ok_or(Unknown)?
    } else if let Some(mut reference) =
        <&gix::refs::PartialNameRef>::try_from(base).ok().and_then(|name| refs::find_fresh(repo, name).ok().flatten())
    {
        let id = reference.peel_to_id().map_err(|_| Unknown)?;
        repo.find_object(id).map_err(|_| Unknown)?
    } else if base.len() >= 4 && base.bytes().all(|b| b.is_ascii_hexdigit()) {
        let id = repo.rev_parse_single(base).map_err(|_| Unknown)?;
        id.object().map_err(|_| Unknown)?
    } else {
        return Err(Unknown);
    };
    let mut id = object.peel_to_commit().map_err(|_| Unknown)?.id;
    for suffix in suffixes {
        let (steps, nth) = match suffix {
            Suffix::Peel | Suffix::Parent(0) => continue,
            Suffix::Ancestor(n) => (n, 0),
            Suffix::Parent(n) => (1, n - 1),
        };
        for step in 0..steps {
            let commit = repo.find_commit(id).map_err(|_| Unknown)?;
            let index = if step == 0 { nth } else { 0 };
            id = commit.parent_ids().nth(index).ok_or(Unknown)?.detach();
        }
    }
    Ok(id)
}

/// The commit of `revision`, or of HEAD when `None` (an unborn HEAD is unknown).
pub fn resolve_or_head(repo: &gix::Repository, revision: Option<&str>) -> Result<gix::ObjectId, ResolveError> {
    use ResolveError::Unknown;
    match revision {
        Some(revision) => resolve_commit(repo, revision),
        None => {
            let mut head = repo.head().map_err(|e| ResolveError::Lookup(error::boxed(e)))?;
            let id = head.try_peel_to_id().map_err(|_| Unknown)?.ok_or(Unknown)?;
            let commit = id.object().map_err(|_| Unknown)?.peel_to_commit().map_err(|_| Unknown)?;
            Ok(commit.id)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{plausible_revision, split_suffixes, Suffix};

    #[test]
    fn suffixes_are_read_as_git_reads_them() {
        assert_eq!(split_suffixes("main"), Some(("main", vec![])));
        assert_eq!(split_suffixes("main~3"), Some(("main", vec![Suffix::Ancestor(3)])));
        assert_eq!(split_suffixes("v1.0^2"), Some(("v1.0", vec![Suffix::Parent(2)])));
        assert_eq!(split_suffixes("HEAD^{commit}"), Some(("HEAD", vec![Suffix::Peel])));
        assert_eq!(
            split_suffixes("a~^^0~2^{}"),
            Some((
                "a",
                vec![Suffix::Ancestor(1), Suffix::Parent(1), Suffix::Parent(0), Suffix::Ancestor(2), Suffix::Peel]
            ))
        );
        assert_eq!(split_suffixes("a^{tree}"), None);
        assert_eq!(split_suffixes("a~x"), None);
        assert_eq!(split_suffixes("a^{commit"), None);
        assert_eq!(split_suffixes("a~99999999999999999999999"), None);
    }

    #[test]
    fn other_forms_are_never_looked_up() {
        for text in ["", "-x", "HEAD@{1}", "@{-1}", ":/fix", "main:README", "a..b", "a b", "a\tb", "a\0"] {
            assert!(!plausible_revision(text), "{text:?}");
        }
        assert!(plausible_revision("main~3^2"));
    }
}
