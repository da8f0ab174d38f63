//! Committing one file to a branch without losing anyone's update, and durably.
//!
//! [`commit_file`] reads the branch tip and the file in it, asks the caller for the new content
//! (or nothing to do), writes the blob, the trees along the path and the commit, flushes them to
//! disk (gix writes by temporary file and rename but never calls fsync), then moves the branch
//! with a compare-and-swap on the tip it started from. When another writer moved the branch in
//! between (or holds its lock), everything is done again from the new tip, so an update is never
//! lost; the objects of a losing attempt stay behind as unreachable garbage, which `git fsck`
//! accepts. The branch reference (and its reflog, if kept) is flushed before the answer.

use super::error::{boxed, BoxError, Classify, Missing};
use gix::objs::tree::EntryKind;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::Target;
use gix::ObjectId;
use std::path::Path;
use std::time::{Duration, Instant};

/// Longest file path accepted.
pub const MAX_PATH_BYTES: usize = 4096;
/// How long a commit keeps retrying against concurrent writers.
const RETRY_BUDGET: Duration = Duration::from_secs(30);

/// Who commits, and when.
#[derive(Debug, Clone)]
pub struct Identity {
    pub name: String,
    pub email: String,
    pub seconds: i64,
    pub offset: i32,
}

/// Why a file could not be committed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("refs/heads/<branch> does not exist or is not a plain branch")]
    NoBranch,
    #[error("the path is not a place a file can be written: {0}")]
    BadPath(String),
    #[error("the existing file is larger than the limit")]
    TooLarge,
    #[error("other writers kept winning for the whole retry budget")]
    Busy,
    #[error("cannot read or write the repository")]
    Git(#[source] BoxError),
}

impl Classify for WriteError {
    fn missing(&self) -> Option<Missing> {
        match self {
            WriteError::NoBranch => Some(Missing::Revision),
            WriteError::BadPath(_) => Some(Missing::Path),
            _ => None,
        }
    }
}

fn broken(e: impl std::error::Error + Send + Sync + 'static) -> WriteError {
    WriteError::Git(boxed(e))
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

/// What is at `components` in the tree `root`: `None` when nothing is; the blob id and whether it
/// is executable when a regular file is; an error for directories, links and submodules, and
/// when the path crosses something that is not a directory.
pub fn file_at(
    repo: &gix::Repository,
    root: ObjectId,
    components: &[&str],
) -> Result<Option<(ObjectId, bool)>, WriteError> {
    let mut tree = root;
    for (depth, name) in components.iter().enumerate() {
        let object = repo.find_object(tree).map_err(broken)?;
        let tree_ref = object.try_into_tree().map_err(broken)?;
        let decoded = tree_ref.decode().map_err(broken)?;
        let Some(entry) = decoded.entries.iter().find(|e| e.filename == name.as_bytes()) else { return Ok(None) };
        let last = depth + 1 == components.len();
        let kind = entry.mode.kind();
        match (last, kind) {
            (false, EntryKind::Tree) => tree = entry.oid.to_owned(),
            (false, _) => return Err(WriteError::BadPath(format!("`{name}` in the file path is not a directory"))),
            (true, EntryKind::Blob) => return Ok(Some((entry.oid.to_owned(), false))),
            (true, EntryKind::BlobExecutable) => return Ok(Some((entry.oid.to_owned(), true))),
            (true, EntryKind::Tree) => return Err(WriteError::BadPath("the file path names a directory".into())),
            (true, _) => return Err(WriteError::BadPath("the file path names a link or a submodule".into())),
        }
    }
    Ok(None)
}

fn fsync_path(path: &Path) -> std::io::Result<()> {
    std::fs::File::open(path)?.sync_all()
}

/// Flushes the loose object `id` (when it was written as one) and its fan-out directory.
fn fsync_object(objects_dir: &Path, id: ObjectId) -> std::io::Result<()> {
    let hex = id.to_string();
    let dir = objects_dir.join(&hex[..2]);
    let file = dir.join(&hex[2..]);
    if !file.exists() {
        return Ok(());
    }
    fsync_path(&file)?;
    fsync_path(&dir)
}

/// Flushes `file` and every directory from its parent up to `root`.
fn fsync_with_parents(file: &Path, root: &Path) -> std::io::Result<()> {
    fsync_path(file)?;
    let mut dir = file.parent();
    while let Some(d) = dir {
        fsync_path(d)?;
        if d == root {
            break;
        }
        dir = d.parent();
    }
    Ok(())
}

/// The tree ids along `components` (the root first), for flushing what an edit wrote.
fn trees_along(repo: &gix::Repository, root: ObjectId, components: &[&str]) -> Vec<ObjectId> {
    let mut out = vec![root];
    let mut tree = root;
    for name in &components[..components.len().saturating_sub(1)] {
        let next = repo.find_object(tree).ok().and_then(|o| o.try_into_tree().ok()).and_then(|t| {
            t.decode()
                .ok()
                .and_then(|d| d.entries.iter().find(|e| e.filename == name.as_bytes()).map(|e| e.oid.to_owned()))
        });
        match next {
            Some(id) => {
                out.push(id);
                tree = id;
            }
            None => break,
        }
    }
    out
}

fn is_retryable(e: &gix::Error) -> bool {
    e.downcast_any_ref::<gix::refs::file::transaction::prepare::ReferenceOutOfDate>().is_some()
        || e.downcast_any_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::AlreadyExists)
}

/// Commits the file at `path` on `branch` with the content `update` makes from the current one
/// (`None`: absent); `update` answering `None` means nothing to commit. The new commit's id, or
/// `None` when nothing was committed. `max_existing` bounds the size of the current file read.
pub fn commit_file(
    repo: &gix::Repository,
    branch: &str,
    path: &str,
    message: &str,
    who: &Identity,
    max_existing: u64,
    mut update: impl FnMut(Option<&[u8]>) -> Option<Vec<u8>>,
) -> Result<Option<ObjectId>, WriteError> {
    let components = path_components(path).map_err(WriteError::BadPath)?;
    let ref_name = format!("refs/heads/{branch}");
    let full_name: gix::refs::FullName = ref_name.as_str().try_into().map_err(|_| WriteError::NoBranch)?;
    let objects_dir = repo.objects.store_ref().path().to_path_buf();
    let common_dir = repo.common_dir().to_path_buf();
    let signature = gix::actor::Signature {
        name: who.name.as_str().into(),
        email: who.email.as_str().into(),
        time: gix::date::Time::new(who.seconds, who.offset),
    };
    let mut time_buf = gix::date::parse::TimeBuf::default();
    let signature = signature.to_ref(&mut time_buf);
    let started = Instant::now();
    let mut attempt = 0u32;
    loop {
        attempt += 1;
        let reference = repo.try_find_reference(full_name.as_ref()).map_err(broken)?.ok_or(WriteError::NoBranch)?;
        let Target::Object(tip) = reference.target().into_owned() else { return Err(WriteError::NoBranch) };
        let tip_commit = repo.find_object(tip).map_err(broken)?.try_into_commit().map_err(|_| WriteError::NoBranch)?;
        let root = tip_commit.tree_id().map_err(broken)?.detach();
        let existing = file_at(repo, root, &components)?;
        let current = match existing {
            None => None,
            Some((id, _)) => {
                let header = repo.find_header(id).map_err(broken)?;
                if header.size() > max_existing {
                    return Err(WriteError::TooLarge);
                }
                Some(repo.find_object(id).map_err(broken)?.detach().data)
            }
        };
        let Some(content) = update(current.as_deref()) else { return Ok(None) };
        let blob = repo.write_blob(&content).map_err(broken)?.detach();
        let kind = if existing.is_some_and(|(_, executable)| executable) {
            EntryKind::BlobExecutable
        } else {
            EntryKind::Blob
        };
        let mut editor = repo.edit_tree(root).map_err(broken)?;
        editor.upsert(path, kind, blob).map_err(|e| WriteError::BadPath(format!("{e}")))?;
        let tree = editor.write().map_err(broken)?.detach();
        let commit = repo.new_commit_as(signature, signature, message, tree, [tip]).map_err(broken)?.id;
        let mut written = trees_along(repo, tree, &components);
        written.push(blob);
        written.push(commit);
        for id in written {
            fsync_object(&objects_dir, id).map_err(broken)?;
        }
        fsync_path(&objects_dir).map_err(broken)?;
        let title = message.lines().next().unwrap_or("");
        let edit = RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: format!("commit: {title}").into(),
                },
                expected: PreviousValue::MustExistAndMatch(Target::Object(tip)),
                new: Target::Object(commit),
            },
            name: full_name.clone(),
            deref: false,
        };
        match repo.edit_references_as([edit], Some(signature)) {
            Ok(_) => {
                fsync_with_parents(&common_dir.join(&ref_name), &common_dir).map_err(broken)?;
                let log = common_dir.join("logs").join(&ref_name);
                if log.exists() {
                    fsync_with_parents(&log, &common_dir).map_err(broken)?;
                }
                return Ok(Some(commit));
            }
            Err(e) if is_retryable(&e) => {
                if started.elapsed() > RETRY_BUDGET {
                    return Err(WriteError::Busy);
                }
                // Spread the retries of many writers: a short, growing, jittered pause.
                let jitter = u64::from(commit.as_bytes()[0]) % 8;
                std::thread::sleep(Duration::from_millis(u64::from(attempt.min(20)) + jitter));
            }
            Err(e) => return Err(broken(e)),
        }
    }
}
