//! One commit of [`Action`]s on a branch: the engine every API write goes through.
//!
//! An attempt reads the branch, picks the commit to start from (the branch, another branch, a
//! commit, or none in an empty repository), applies the actions one after another to the start
//! commit's tree as Gitaly's `UserCommitFiles` does (with its checks and their order), writes the
//! blobs, the rewritten trees (only those along the changed paths) and the commit, flushes them,
//! asks the caller's rule whether the branch may move that way, and moves it with a
//! compare-and-swap on the tip it read. [`commit`] repeats attempts that lost a race with another
//! writer (each re-reads the branch and re-checks every action, so `last_commit_id` and "already
//! exists" are judged against what is really there) until its budget is spent: then
//! [`WriteError::Race`], GitLab's "Please refresh and try again".

use super::durable;
use super::gitmodules;
use super::{entry_at, path_components, signature, Identity, RefUpdate};
use crate::git::error::{boxed, BoxError};
use crate::git::{last_commit, merge_base};
use gix::objs::tree::EntryKind;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::Target;
use gix::ObjectId;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// How long [`commit`] keeps retrying against concurrent writers.
pub(super) const RETRY_BUDGET: Duration = Duration::from_secs(20);

/// Where the new commit's parent comes from; without one, the branch itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    Branch(String),
    Commit(ObjectId),
}

/// One change of a file, as GitLab's commit actions name them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Create {
        path: String,
        content: Vec<u8>,
        executable: bool,
    },
    /// `executable: None` keeps the file's mode.
    Update {
        path: String,
        content: Vec<u8>,
        executable: Option<bool>,
        last_commit_id: Option<String>,
    },
    /// `content: None` keeps the file's content.
    Move {
        previous_path: String,
        path: String,
        content: Option<Vec<u8>>,
        last_commit_id: Option<String>,
    },
    Delete {
        path: String,
        last_commit_id: Option<String>,
    },
    Chmod {
        path: String,
        executable: bool,
        last_commit_id: Option<String>,
    },
}

impl Action {
    /// The path the action writes or removes.
    pub fn path(&self) -> &str {
        match self {
            Action::Create { path, .. }
            | Action::Update { path, .. }
            | Action::Move { path, .. }
            | Action::Delete { path, .. }
            | Action::Chmod { path, .. } => path,
        }
    }
}

/// What a commit asks for, besides its actions.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub branch: &'a str,
    pub start: Option<Start>,
    /// Move `branch` to the new commit even when it exists and the commit does not descend from it.
    pub force: bool,
    pub message: &'a str,
    pub author: &'a Identity,
    pub committer: &'a Identity,
}

/// How the branch moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BranchMove {
    Create,
    FastForward,
    Force,
}

/// A commit made: its id, how the branch moved to it, and the branch as it moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    pub id: ObjectId,
    pub moved: BranchMove,
    pub update: RefUpdate,
}

/// Why a path was refused, in Gitaly's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathProblem {
    Empty,
    Traversal,
    Invalid,
}

/// Why nothing was committed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("the branch name is not a valid branch name")]
    InvalidBranch,
    #[error("the start branch does not exist")]
    NotOnBranch,
    #[error("the branch {0} already exists")]
    BranchExists(String),
    #[error("the path {path} is not valid")]
    InvalidPath { path: String, problem: PathProblem },
    #[error("a file exists at {0}")]
    FileExists(String),
    #[error("no file at {0}")]
    FileMissing(String),
    #[error("a directory exists at {0}")]
    DirectoryExists(String),
    #[error("{0} has changed since the given last commit")]
    Stale(String),
    #[error("the rule refused the branch move")]
    Refused(BranchMove),
    #[error("the existing file is larger than the limit")]
    TooLarge,
    #[error("the start commit or its tree cannot be read")]
    UnreadableStart(#[source] BoxError),
    #[error("the start tree holds a name git does not write into a tree")]
    UnwritableTree(#[source] BoxError),
    #[error("other writers kept winning for the whole retry budget")]
    Race,
    #[error("the branch {0} is checked out in the repository's work tree")]
    CheckedOut(String),
    #[error("the .gitmodules written fails git's fsck: {0}")]
    Gitmodules(String),
    #[error("cannot read or write the repository")]
    Git(#[source] BoxError),
}

impl crate::git::Classify for WriteError {
    fn missing(&self) -> Option<crate::git::Missing> {
        None
    }
}

fn broken(e: impl std::error::Error + Send + Sync + 'static) -> WriteError {
    WriteError::Git(boxed(e))
}

/// An attempt's result: done, or lost the compare-and-swap and worth another try.
enum Attempt {
    Done(Committed),
    Lost,
}

/// Commits `actions` as one commit on `request.branch`, retrying lost races; `allow` is asked,
/// once per attempt and before the branch moves, whether the branch may move that way to the
/// commit written (its id given).
pub fn commit(
    repo: &gix::Repository,
    request: &Request<'_>,
    actions: &[Action],
    mut allow: impl FnMut(BranchMove, ObjectId) -> bool,
) -> Result<Committed, WriteError> {
    let started = Instant::now();
    let deadline = started + last_commit::BUDGET;
    let mut attempt = 0u32;
    loop {
        attempt += 1;
        match try_commit(repo, request, actions, None, deadline, &mut allow)? {
            Attempt::Done(committed) => return Ok(committed),
            Attempt::Lost if started.elapsed() > RETRY_BUDGET => return Err(WriteError::Race),
            Attempt::Lost => pause(attempt),
        }
    }
}

/// A short, growing, jittered pause between attempts, so many writers spread out.
pub(super) fn pause(attempt: u32) {
    let jitter = u64::from(std::process::id().wrapping_add(attempt.wrapping_mul(7919))) % 8;
    std::thread::sleep(Duration::from_millis(u64::from(attempt.min(20)) + jitter));
}

/// The tip of `refs/heads/<branch>`, `None` when it does not exist.
fn branch_tip(repo: &gix::Repository, name: &gix::refs::FullName) -> Result<Option<ObjectId>, WriteError> {
    let Some(reference) = repo.try_find_reference(name.as_ref()).map_err(broken)? else { return Ok(None) };
    match reference.target().into_owned() {
        Target::Object(id) => Ok(Some(id)),
        Target::Symbolic(_) => Err(WriteError::InvalidBranch),
    }
}

/// Whether the repository has no branch at all (GitLab's `empty_repo`).
fn has_no_branch(repo: &gix::Repository) -> Result<bool, WriteError> {
    let refs = repo.references().map_err(broken)?;
    let mut heads = refs.local_branches().map_err(broken)?;
    Ok(heads.next().is_none())
}

pub(super) fn branch_name(branch: &str) -> Result<gix::refs::FullName, WriteError> {
    if branch.is_empty() || branch.starts_with('-') {
        return Err(WriteError::InvalidBranch);
    }
    format!("refs/heads/{branch}").try_into().map_err(|_| WriteError::InvalidBranch)
}

/// The parent of the new commit, as GitLab's `Commits::CreateService#validate!` decides it.
fn start_commit(
    repo: &gix::Repository,
    request: &Request<'_>,
    tip: Option<ObjectId>,
) -> Result<Option<ObjectId>, WriteError> {
    let different = match &request.start {
        None => false,
        Some(Start::Branch(name)) => name != request.branch,
        Some(Start::Commit(_)) => true,
    };
    if different && tip.is_some() && !request.force {
        return Err(WriteError::BranchExists(request.branch.to_string()));
    }
    let start = match &request.start {
        None => tip,
        Some(Start::Branch(name)) if name == request.branch => tip,
        Some(Start::Branch(name)) => branch_tip(repo, &branch_name(name).map_err(|_| WriteError::NotOnBranch)?)?,
        Some(Start::Commit(id)) => Some(*id),
    };
    match start {
        Some(id) => Ok(Some(id)),
        None if has_no_branch(repo)? => Ok(None),
        None => Err(WriteError::NotOnBranch),
    }
}

/// A file as the actions see it: its blob and mode, or `None` once removed.
type FileState = Option<(ObjectId, EntryKind)>;

/// The start tree with the actions applied so far: what each action checks against.
struct Staged<'r> {
    repo: &'r gix::Repository,
    base: ObjectId,
    changed: BTreeMap<String, FileState>,
    /// When the `last_commit_id` checks of the whole request (every action, every attempt)
    /// must be done: one bound, however many actions name one.
    deadline: Instant,
}

impl Staged<'_> {
    /// The file at `path`: a blob or link, after the actions so far.
    fn file(&self, path: &str) -> Result<FileState, WriteError> {
        if let Some(state) = self.changed.get(path) {
            return Ok(*state);
        }
        let components = path.split('/').collect::<Vec<_>>();
        match entry_at(self.repo, self.base, &components).map_err(broken)? {
            Some((id, kind)) if kind != EntryKind::Tree && kind != EntryKind::Commit => Ok(Some((id, kind))),
            _ => Ok(None),
        }
    }

    /// Whether a directory is at `path` after the actions so far.
    fn is_directory(&self, path: &str) -> Result<bool, WriteError> {
        let prefix = format!("{path}/");
        let mut added = self.changed.range(prefix.clone()..).take_while(|(p, _)| p.starts_with(&prefix));
        if added.any(|(_, state)| state.is_some()) {
            return Ok(true);
        }
        let components = path.split('/').collect::<Vec<_>>();
        Ok(matches!(entry_at(self.repo, self.base, &components).map_err(broken)?, Some((_, EntryKind::Tree))))
    }

    /// Whether a file sits where a directory of `path` would have to be.
    fn crosses_file(&self, path: &str) -> Result<bool, WriteError> {
        let mut end = 0;
        while let Some(slash) = path[end..].find('/') {
            end += slash;
            if self.file(&path[..end])?.is_some() {
                return Ok(true);
            }
            end += 1;
        }
        Ok(false)
    }

    fn set(&mut self, path: &str, state: FileState) {
        self.changed.insert(path.to_string(), state);
    }
}

/// `path` if it may be written, as Gitaly's `validatePath` and git's `verify_path` judge it.
fn checked_path(path: &str) -> Result<&str, WriteError> {
    let problem = if path.is_empty() {
        PathProblem::Empty
    } else if path.split('/').any(|c| c == "..") {
        PathProblem::Traversal
    } else if path_components(path).is_err() {
        PathProblem::Invalid
    } else {
        return Ok(path);
    };
    Err(WriteError::InvalidPath { path: path.to_string(), problem })
}

fn kind_of(executable: bool) -> EntryKind {
    if executable {
        EntryKind::BlobExecutable
    } else {
        EntryKind::Blob
    }
}

/// `kind` with the executable bit set or cleared; links and other kinds keep theirs.
fn with_mode(kind: EntryKind, executable: Option<bool>) -> EntryKind {
    match (kind, executable) {
        (EntryKind::Blob | EntryKind::BlobExecutable, Some(x)) => kind_of(x),
        (kind, _) => kind,
    }
}

/// Checks `last_commit_id` against the last commit that changed `path` from `start`.
fn check_fresh(
    repo: &gix::Repository,
    start: Option<ObjectId>,
    path: &str,
    last_commit_id: Option<&String>,
    deadline: Instant,
) -> Result<(), WriteError> {
    let (Some(expected), Some(start)) = (last_commit_id.filter(|s| !s.is_empty()), start) else { return Ok(()) };
    match last_commit::find_before(repo, start, path, deadline).map_err(broken)? {
        Some(last) if ObjectId::from_hex(expected.as_bytes()).ok() != Some(last) => {
            Err(WriteError::Stale(path.to_string()))
        }
        _ => Ok(()),
    }
}

/// Applies `action` to `staged`, writing blobs for new content.
fn apply(
    repo: &gix::Repository,
    staged: &mut Staged<'_>,
    start: Option<ObjectId>,
    action: &Action,
) -> Result<(), WriteError> {
    let path = checked_path(action.path())?;
    let existing = staged.file(path)?;
    let require_file = || existing.ok_or_else(|| WriteError::FileMissing(path.to_string()));
    match action {
        Action::Create { content, executable, .. } => {
            if existing.is_some() || staged.crosses_file(path)? {
                return Err(WriteError::FileExists(path.to_string()));
            }
            if staged.is_directory(path)? {
                return Err(WriteError::DirectoryExists(path.to_string()));
            }
            check_gitmodules(path, content)?;
            let blob = repo.write_blob(content).map_err(broken)?.detach();
            staged.set(path, Some((blob, kind_of(*executable))));
        }
        Action::Update { content, executable, last_commit_id, .. } => {
            let (_, kind) = require_file()?;
            check_fresh(repo, start, path, last_commit_id.as_ref(), staged.deadline)?;
            check_gitmodules(path, content)?;
            let blob = repo.write_blob(content).map_err(broken)?.detach();
            staged.set(path, Some((blob, with_mode(kind, *executable))));
        }
        Action::Chmod { executable, last_commit_id, .. } => {
            let (blob, kind) = require_file()?;
            check_fresh(repo, start, path, last_commit_id.as_ref(), staged.deadline)?;
            staged.set(path, Some((blob, with_mode(kind, Some(*executable)))));
        }
        Action::Delete { last_commit_id, .. } => {
            require_file()?;
            check_fresh(repo, start, path, last_commit_id.as_ref(), staged.deadline)?;
            staged.set(path, None);
        }
        Action::Move { previous_path, content, last_commit_id, .. } => {
            let previous = checked_path(previous_path)?;
            let (old_blob, kind) =
                staged.file(previous)?.ok_or_else(|| WriteError::FileMissing(previous.to_string()))?;
            if previous != path && (existing.is_some() || staged.crosses_file(path)?) {
                return Err(WriteError::FileExists(path.to_string()));
            }
            if staged.is_directory(path)? {
                return Err(WriteError::DirectoryExists(path.to_string()));
            }
            check_fresh(repo, start, previous, last_commit_id.as_ref(), staged.deadline)?;
            let blob = match content {
                Some(content) => {
                    check_gitmodules(path, content)?;
                    repo.write_blob(content).map_err(broken)?.detach()
                }
                None => {
                    if names_gitmodules(path) {
                        check_gitmodules(path, &repo.find_object(old_blob).map_err(broken)?.data)?;
                    }
                    old_blob
                }
            };
            staged.set(previous, None);
            staged.set(path, Some((blob, kind)));
        }
    }
    Ok(())
}

/// Whether the last component of `path` names `.gitmodules` (see [`gitmodules`]).
fn names_gitmodules(path: &str) -> bool {
    gitmodules::names_gitmodules(path.rsplit('/').next().unwrap_or(path))
}

/// A `.gitmodules` at `path` with `content` must pass git's fsck.
fn check_gitmodules(path: &str, content: &[u8]) -> Result<(), WriteError> {
    match names_gitmodules(path).then(|| gitmodules::problem(content)).flatten() {
        Some(problem) => Err(WriteError::Gitmodules(problem)),
        None => Ok(()),
    }
}

/// Whether the tree `id` can be written again as it is: entries in git's order (a directory
/// sorting as its name and `/`), no name twice, and no name git refuses (`..`, `.git`, a `/`).
/// A hostile repository's tree may be neither; the editor would then fail or, on an unsorted
/// tree, stop the process.
fn rewritable(repo: &gix::Repository, id: ObjectId) -> Result<bool, WriteError> {
    use gix::validate::path::component::{Mode, Options};
    let options = Options { protect_windows: false, protect_hfs: true, protect_ntfs: true };
    let object = repo.find_object(id).map_err(broken)?;
    let tree = object.try_into_tree().map_err(broken)?;
    let mut previous: Option<Vec<u8>> = None;
    for entry in tree.iter() {
        let entry = entry.map_err(broken)?;
        let mut key = entry.filename().to_vec();
        let mode = entry.mode();
        if gix::validate::path::component(entry.filename(), mode.is_link().then_some(Mode::Symlink), options).is_err() {
            return Ok(false);
        }
        if mode.is_tree() {
            key.push(b'/');
        }
        if previous.as_ref().is_some_and(|p| *p >= key) {
            return Ok(false);
        }
        previous = Some(key);
    }
    Ok(true)
}

/// The trees an edit of `staged` rewrites: the root and those along every changed path.
fn rewritten_trees(repo: &gix::Repository, staged: &Staged<'_>) -> Result<Vec<ObjectId>, WriteError> {
    let mut trees = vec![staged.base];
    for path in staged.changed.keys() {
        let components: Vec<&str> = path.split('/').collect();
        for depth in 1..components.len() {
            if let Some((id, EntryKind::Tree)) = entry_at(repo, staged.base, &components[..depth]).map_err(broken)? {
                trees.push(id);
            }
        }
    }
    trees.sort();
    trees.dedup();
    Ok(trees)
}

/// The tree of `staged`: the start tree edited at the changed paths only.
fn write_tree(repo: &gix::Repository, staged: &Staged<'_>) -> Result<ObjectId, WriteError> {
    for tree in rewritten_trees(repo, staged)? {
        if !rewritable(repo, tree)? {
            let reason = std::io::Error::other(format!("tree {tree} is not in git's form"));
            return Err(WriteError::UnwritableTree(boxed(reason)));
        }
    }
    let mut editor = repo.edit_tree(staged.base).map_err(broken)?;
    for (path, state) in &staged.changed {
        match state {
            Some((id, kind)) => {
                editor.upsert(path.as_str(), *kind, *id).map_err(broken)?;
            }
            None => {
                editor.remove(path.as_str()).map_err(broken)?;
            }
        }
    }
    match editor.write() {
        Ok(id) => Ok(id.detach()),
        // A hostile repository's tree (an entry named `..` or `.git`) cannot be written again.
        Err(e) if e.downcast_any_ref::<gix::validate::path::component::Error>().is_some() => {
            Err(WriteError::UnwritableTree(boxed(e)))
        }
        Err(e) => Err(broken(e)),
    }
}

/// How `tip` (the branch, if it exists) would move to `commit`, whose parent is `parent`.
fn branch_move(
    repo: &gix::Repository,
    tip: Option<ObjectId>,
    parent: Option<ObjectId>,
) -> Result<BranchMove, WriteError> {
    Ok(match (tip, parent) {
        (None, _) => BranchMove::Create,
        (Some(tip), Some(parent)) if tip == parent => BranchMove::FastForward,
        (Some(tip), Some(parent)) if merge_base::best(repo, tip, &[parent]).map_err(broken)? == Some(tip) => {
            BranchMove::FastForward
        }
        (Some(_), _) => BranchMove::Force,
    })
}

/// One attempt that loses at once when the branch is not at `expected`: `None` when it lost.
pub(super) fn commit_once(
    repo: &gix::Repository,
    request: &Request<'_>,
    actions: &[Action],
    expected: Option<ObjectId>,
    allow: &mut impl FnMut(BranchMove, ObjectId) -> bool,
) -> Result<Option<Committed>, WriteError> {
    Ok(match try_commit(repo, request, actions, expected, Instant::now() + last_commit::BUDGET, allow)? {
        Attempt::Done(committed) => Some(committed),
        Attempt::Lost => None,
    })
}

/// One attempt; with `expected`, the branch must still be at that tip.
fn try_commit(
    repo: &gix::Repository,
    request: &Request<'_>,
    actions: &[Action],
    expected: Option<ObjectId>,
    deadline: Instant,
    allow: &mut impl FnMut(BranchMove, ObjectId) -> bool,
) -> Result<Attempt, WriteError> {
    let name = branch_name(request.branch)?;
    if super::refs::checked_out(repo, name.as_bstr().to_string().as_str()) {
        return Err(WriteError::CheckedOut(request.branch.to_string()));
    }
    let tip = branch_tip(repo, &name)?;
    if expected.is_some() && tip != expected {
        return Ok(Attempt::Lost);
    }
    let parent = start_commit(repo, request, tip)?;
    let base = match parent {
        Some(id) => {
            let unreadable = |e: gix::Error| WriteError::UnreadableStart(boxed(e));
            let commit = repo.find_commit(id).map_err(unreadable)?;
            let tree = commit.tree_id().map_err(unreadable)?.detach();
            repo.find_tree(tree).map_err(unreadable)?;
            tree
        }
        None => ObjectId::empty_tree(repo.object_hash()),
    };
    let mut staged = Staged { repo, base, changed: BTreeMap::new(), deadline };
    for action in actions {
        apply(repo, &mut staged, parent, action)?;
    }
    let tree = write_tree(repo, &staged)?;
    let moved = branch_move(repo, tip, parent)?;
    let author = signature(request.author);
    let committer = signature(request.committer);
    let (mut author_time, mut committer_time) = Default::default();
    let commit = repo
        .new_commit_as(
            committer.to_ref(&mut committer_time),
            author.to_ref(&mut author_time),
            request.message,
            tree,
            parent,
        )
        .map_err(broken)?
        .id;
    // Asked with the commit written (not yet named by any ref), so that the rule may read it:
    // a refused commit stays an unreachable object, as one a pre-receive hook refuses.
    if !allow(moved, commit) {
        return Err(WriteError::Refused(moved));
    }
    let changed: Vec<&str> = staged.changed.keys().map(String::as_str).collect();
    durable::flush_commit(repo, tree, commit, &changed).map_err(broken)?;
    let title = request.message.lines().next().unwrap_or("");
    let verb = if parent.is_none() { "commit (initial)" } else { "commit" };
    let edit = RefEdit {
        change: Change::Update {
            log: LogChange {
                mode: RefLog::AndReference,
                force_create_reflog: false,
                message: format!("{verb}: {title}").into(),
            },
            expected: match tip {
                Some(tip) => PreviousValue::MustExistAndMatch(Target::Object(tip)),
                None => PreviousValue::MustNotExist,
            },
            new: Target::Object(commit),
        },
        name: name.clone(),
        deref: false,
    };
    let mut committer_time = Default::default();
    match repo.edit_references_as([edit], Some(committer.to_ref(&mut committer_time))) {
        Ok(_) => {
            durable::flush_ref(repo, name.as_bstr().to_string().as_str()).map_err(broken)?;
            if parent.is_none() {
                point_unborn_head(repo, &name)?;
            }
            let update = RefUpdate { name: name.as_bstr().to_string(), old: tip, new: Some(commit) };
            Ok(Attempt::Done(Committed { id: commit, moved, update }))
        }
        Err(e) if durable::lost_race(&e) => Ok(Attempt::Lost),
        Err(e) => Err(broken(e)),
    }
}

/// After the first commit of an empty repository: HEAD names that branch when the branch it
/// named does not exist, so the new branch becomes the default one, as in GitLab.
fn point_unborn_head(repo: &gix::Repository, branch: &gix::refs::FullName) -> Result<(), WriteError> {
    let head = repo.find_reference("HEAD").map_err(broken)?;
    let Target::Symbolic(current) = head.target().into_owned() else { return Ok(()) };
    if current == *branch || repo.try_find_reference(current.as_ref()).map_err(broken)?.is_some() {
        return Ok(());
    }
    super::refs::repoint_head(repo, current, branch.clone()).map_err(broken)
}
