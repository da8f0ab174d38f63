//! The one write path: every change the API makes to a repository's files goes through here.
//!
//! - [`commit`] (the engine, `write/commit.rs`): actions (create, update, move, delete, chmod)
//!   applied to the start commit's tree, only the trees along changed paths rewritten, the
//!   objects flushed ([`durable`]), the branch moved by compare-and-swap after the caller's
//!   protection rule agreed, lost races retried from the new tip.
//! - [`commit_file`]: one file whose new content depends on the current one (the changelog),
//!   recomputed on every attempt.
//! - [`refs`]: branches and tags created, moved (merges: [`crate::git::merge`]) and deleted by
//!   compare-and-swap, tag objects, and the first commit GitLab makes before a branch of an
//!   empty repository.
//! - [`path_components`]: which paths may be written at all (git's `verify_path`);
//!   [`gitmodules`]: what a `.gitmodules` written may hold (git's fsck).
//!
//! Every writer that moves a reference says which and how ([`RefUpdate`]), so that the caller
//! can announce exactly what changed (`events::RefsMoved`) from the place that changed it.

pub mod commit;
pub mod durable;
pub mod gitmodules;
pub mod refs;

pub use commit::{commit, Action, BranchMove, Committed, PathProblem, Request, Start, WriteError};

use super::error::{boxed, BoxError, Classify, Missing};
use gix::objs::tree::EntryKind;
use gix::ObjectId;

/// A reference the write path moved: its full name (`refs/heads/main`), the object it named
/// before (`None`: created) and the one it names now (`None`: deleted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefUpdate {
    pub name: String,
    pub old: Option<ObjectId>,
    pub new: Option<ObjectId>,
}

/// Longest file path accepted.
pub const MAX_PATH_BYTES: usize = 4096;

/// Who commits, and when.
#[derive(Debug, Clone)]
pub struct Identity {
    pub name: String,
    pub email: String,
    pub seconds: i64,
    pub offset: i32,
}

/// `who` as gix signs with it.
pub(crate) fn signature(who: &Identity) -> gix::actor::Signature {
    gix::actor::Signature {
        name: who.name.as_str().into(),
        email: who.email.as_str().into(),
        time: gix::date::Time::new(who.seconds, who.offset),
    }
}

/// The components of a repository path a file may be written at: relative, no empty, `.` or
/// `..` component, no control characters, at most [`MAX_PATH_BYTES`], and no `.git` under any
/// name NTFS or HFS+ would also open as `.git` (`.git.`, `GIT~1`, `.git `, `.Git\u{200c}`,
/// `.git::$INDEX_ALLOCATION`): git's own `verify_path` with `core.protectNTFS` and
/// `core.protectHFS`, so a commit written here always passes `git fsck`. NTFS also separates
/// on `\` (git's `is_ntfs_dotgit` reads `.git\hooks` as `.git`: fsck's `hasDotgit`), so the
/// same rules hold for the pieces of each component split on `\`: `.git\hooks\x` and
/// `x\..\.git\config` are refused; `a\b` stays one file of that name.
pub fn path_components(path: &str) -> Result<Vec<&str>, String> {
    if path.is_empty() || path.len() > MAX_PATH_BYTES {
        return Err("the file path must have between 1 and 4096 bytes".into());
    }
    if path.chars().any(char::is_control) {
        return Err("the file path must not contain control characters".into());
    }
    let components: Vec<&str> = path.split('/').collect();
    for piece in components.iter().flat_map(|component| component.split('\\')) {
        if piece.is_empty() || piece == "." || piece == ".." {
            return Err(
                "the file path must be relative, without empty, `.` or `..` components (split on `/` or `\\`)".into()
            );
        }
        if is_dot_git_alias(piece) {
            return Err("the file path must not enter `.git`".into());
        }
    }
    Ok(components)
}

/// Whether a path component names `.git` on some file system git protects (gix's port of
/// git's `is_ntfs_dotgit` and `is_hfs_dotgit`).
fn is_dot_git_alias(component: &str) -> bool {
    use gix::validate::path::component::{Error, Options};
    let options = Options { protect_windows: false, protect_hfs: true, protect_ntfs: true };
    matches!(gix::validate::path::component(component.into(), None, options), Err(Error::DotGitDir))
}

/// The entry at `components` in the tree `root`, with its kind; `None` when nothing is there
/// (a path that crosses a file finds nothing).
pub fn entry_at(
    repo: &gix::Repository,
    root: ObjectId,
    components: &[&str],
) -> Result<Option<(ObjectId, EntryKind)>, LookupError> {
    let mut tree = root;
    for (depth, name) in components.iter().enumerate() {
        let object = repo.find_object(tree).map_err(|e| LookupError(boxed(e)))?;
        let tree_ref = object.try_into_tree().map_err(|e| LookupError(boxed(e)))?;
        let mut found = None;
        for entry in tree_ref.iter() {
            let entry = entry.map_err(|e| LookupError(boxed(e)))?;
            if entry.filename() == name.as_bytes() {
                found = Some((entry.object_id(), entry.mode().kind()));
                break;
            }
        }
        let Some((id, kind)) = found else { return Ok(None) };
        if depth + 1 == components.len() {
            return Ok(Some((id, kind)));
        }
        if kind != EntryKind::Tree {
            return Ok(None);
        }
        tree = id;
    }
    Ok(None)
}

/// A tree could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read a tree")]
pub struct LookupError(#[source] BoxError);

impl Classify for LookupError {
    fn missing(&self) -> Option<Missing> {
        None
    }
}

/// A regular file's blob id and executable bit, `None` for nothing there, or why the path
/// cannot hold a file.
pub type FileLookup = Result<Option<(ObjectId, bool)>, &'static str>;

/// What is at `components` in the tree `root`: `None` when nothing is; the blob id and whether it
/// is executable when a regular file is; `Err(reason)` for directories, links and submodules, and
/// when the path crosses something that is not a directory.
pub fn file_at(repo: &gix::Repository, root: ObjectId, components: &[&str]) -> Result<FileLookup, LookupError> {
    for depth in 1..components.len() {
        if let Some((_, kind)) = entry_at(repo, root, &components[..depth])? {
            if kind != EntryKind::Tree {
                return Ok(Err("a component of the file path is not a directory"));
            }
        }
    }
    Ok(match entry_at(repo, root, components)? {
        None => Ok(None),
        Some((id, EntryKind::Blob)) => Ok(Some((id, false))),
        Some((id, EntryKind::BlobExecutable)) => Ok(Some((id, true))),
        Some((_, EntryKind::Tree)) => Err("the file path names a directory"),
        Some(_) => Err("the file path names a link or a submodule"),
    })
}

/// Why [`commit_file`] committed nothing.
#[derive(Debug, thiserror::Error)]
pub enum FileWriteError {
    #[error("the path is not a place a file can be written: {0}")]
    BadPath(String),
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// Commits the file at `path` on `branch` with the content `update` makes from the current one
/// (`None`: absent); `update` answering `None` means nothing to commit. The commit made, or
/// `None` when nothing was committed. `max_existing` bounds the size of the current file read.
/// `allow` is the protection rule, asked before the branch moves.
#[allow(clippy::too_many_arguments)]
pub fn commit_file(
    repo: &gix::Repository,
    branch: &str,
    path: &str,
    message: &str,
    who: &Identity,
    max_existing: u64,
    mut allow: impl FnMut(BranchMove, ObjectId) -> bool,
    mut update: impl FnMut(Option<&[u8]>) -> Option<Vec<u8>>,
) -> Result<Option<Committed>, FileWriteError> {
    let components = path_components(path).map_err(FileWriteError::BadPath)?;
    let name = commit::branch_name(branch).map_err(|_| WriteError::NotOnBranch)?;
    let started = std::time::Instant::now();
    let mut attempt = 0u32;
    loop {
        attempt += 1;
        if started.elapsed() > commit::RETRY_BUDGET {
            return Err(WriteError::Race.into());
        }
        let reference = repo.try_find_reference(name.as_ref()).map_err(|e| WriteError::Git(boxed(e)))?;
        let Some(mut reference) = reference else { return Err(WriteError::NotOnBranch.into()) };
        let tip = reference.peel_to_commit().map_err(|_| WriteError::NotOnBranch)?;
        let root = tip.tree_id().map_err(|e| WriteError::Git(boxed(e)))?.detach();
        let tip = tip.id;
        let existing = file_at(repo, root, &components).map_err(|e| WriteError::Git(boxed(e)))?;
        let existing = existing.map_err(|reason| FileWriteError::BadPath(reason.to_string()))?;
        let current = match existing {
            None => None,
            Some((id, _)) => {
                let header = repo.find_header(id).map_err(|e| WriteError::Git(boxed(e)))?;
                if header.size() > max_existing {
                    return Err(WriteError::TooLarge.into());
                }
                Some(repo.find_object(id).map_err(|e| WriteError::Git(boxed(e)))?.detach().data)
            }
        };
        let Some(content) = update(current.as_deref()) else { return Ok(None) };
        let action = match existing {
            None => Action::Create { path: path.to_string(), content, executable: false },
            Some(_) => Action::Update { path: path.to_string(), content, executable: None, last_commit_id: None },
        };
        // Pinned to the tip the content was computed from: a writer who moved the branch in
        // between makes this attempt lose, and the content is computed again.
        let request =
            Request { branch, start: Some(Start::Commit(tip)), force: true, message, author: who, committer: who };
        match commit::commit_once(repo, &request, &[action], Some(tip), &mut allow)? {
            Some(committed) => return Ok(Some(committed)),
            None => commit::pause(attempt),
        }
    }
}
