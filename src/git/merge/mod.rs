//! Merges are git's: whether a source can merge into a target, and the commits each merge style
//! builds, in-process with gix's tree merge (ort's rules, `git merge-tree --write-tree`'s
//! answers). One file per style, as Gitea keeps them (`services/pull/merge_*.go`):
//! - [`merge_tree`]: the three-way tree merge every style uses, and [`mergeability`];
//! - [`merge_merge`]: a merge commit (two parents, GitLab's message);
//! - [`merge_squash`]: one commit on the merge base holding the source's changes;
//! - [`merge_rebase`]: the source's commits replayed onto the target;
//! - [`merge_ff_only`]: the target fast-forwarded to the source.
//!
//! Every style builds its objects in memory first ([`Staging`]), writes and flushes exactly
//! those, then moves the one branch it changes by compare-and-swap on the tip it started
//! from, through the one write path ([`crate::git::write::refs::update`]): a push that moved
//! the branch meanwhile makes the merge lose ([`MergeError::Race`], GitLab's "Please refresh
//! and try again"), never the push. The [`RefUpdate`] returned is what the caller announces.

pub mod merge_ff_only;
pub mod merge_merge;
pub mod merge_rebase;
pub mod merge_squash;
pub mod merge_tree;

pub use merge_ff_only::fast_forward;
pub use merge_merge::{default_message, merge_commit, merge_to_ref};
pub use merge_rebase::{rebase, Rebased};
pub use merge_squash::squash;
pub use merge_tree::{mergeability, Mergeability, TreeMerge};

use super::error::{boxed, BoxError, Classify, Missing};
use super::write::{durable, RefUpdate};
use gix::objs::Write as _;
use gix::ObjectId;

/// Why a merge built or moved nothing.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// The merge (or a replayed commit) leaves these paths in conflict.
    #[error("the merge has conflicts in {}", .0.join(", "))]
    Conflicts(Vec<String>),
    /// Fast-forward only, and the target is not an ancestor of the source.
    #[error("the target branch is not an ancestor of the source")]
    NotFastForward,
    /// The branch to move is not where the merge started from (another writer moved it).
    #[error("{0} moved while the merge was built")]
    Race(String),
    /// The branch to move does not exist (any more).
    #[error("the branch {0} does not exist")]
    NoBranch(String),
    /// The caller's protection rule refused the move.
    #[error("the rule refused to move {0}")]
    Refused(String),
    #[error("cannot read or write the repository")]
    Git(#[source] BoxError),
}

impl Classify for MergeError {
    fn missing(&self) -> Option<Missing> {
        None
    }
}

impl MergeError {
    /// GitLab's words when the branch moved under a merge (Gitaly's `UserMergeBranch` and the
    /// write path's lost race).
    pub fn race_text(branch: &str) -> String {
        format!("9:Could not update refs/heads/{branch}. Please refresh and try again.")
    }
}

pub(crate) fn broken(e: impl std::error::Error + Send + Sync + 'static) -> MergeError {
    MergeError::Git(boxed(e))
}

/// A handle whose writes stay in memory until [`Staging::persist`]: a merge that fails or
/// loses writes nothing, and one that wins flushes exactly the objects it made.
pub(crate) struct Staging {
    pub repo: gix::Repository,
}

impl Staging {
    pub fn new(repo: &gix::Repository) -> Staging {
        Staging { repo: repo.clone().with_object_memory() }
    }

    /// Writes what was made in memory into `repo`'s object database and flushes it.
    pub fn persist(mut self, repo: &gix::Repository) -> Result<(), MergeError> {
        let Some(memory) = self.repo.objects.take_object_memory() else { return Ok(()) };
        let mut ids = Vec::with_capacity(memory.len());
        for (id, (kind, data)) in memory.iter() {
            let written = repo.write_buf(*kind, data).map_err(broken)?;
            debug_assert_eq!(written, *id);
            ids.push(*id);
        }
        ids.sort();
        durable::flush_objects(repo, &ids).map_err(broken)
    }
}

/// The tree of `commit`.
pub(crate) fn tree_of(repo: &gix::Repository, commit: ObjectId) -> Result<ObjectId, MergeError> {
    let commit = repo.find_commit(commit).map_err(broken)?;
    Ok(commit.tree_id().map_err(broken)?.detach())
}

/// Moves `refs/heads/<branch>` from `expected` to `new` by compare-and-swap, after `allow`
/// agreed to `new` (written and flushed, on no ref yet, so the rule may read it); a branch elsewhere is [`MergeError::Race`].
pub(crate) fn move_branch(
    repo: &gix::Repository,
    branch: &str,
    expected: ObjectId,
    new: ObjectId,
    who: &super::write::Identity,
    message: &str,
    allow: &mut dyn FnMut(ObjectId) -> bool,
) -> Result<RefUpdate, MergeError> {
    use super::write::refs;
    let name = format!("refs/heads/{branch}");
    if !allow(new) {
        return Err(MergeError::Refused(branch.to_string()));
    }
    match refs::update(repo, &name, expected, new, who, message) {
        Ok(update) => Ok(update),
        Err(refs::Error::Changed) => Err(MergeError::Race(branch.to_string())),
        Err(refs::Error::InvalidName) => Err(MergeError::NoBranch(branch.to_string())),
        // Deleted meanwhile: the compare-and-swap found nothing to compare.
        Err(_) if branch_tip(repo, branch)?.is_none() => Err(MergeError::NoBranch(branch.to_string())),
        Err(e) => Err(broken(e)),
    }
}

/// The tip of `refs/heads/<branch>`, `None` when it does not exist.
pub fn branch_tip(repo: &gix::Repository, branch: &str) -> Result<Option<ObjectId>, MergeError> {
    super::refs::branch(repo, branch).map_err(broken)
}

/// The signature gix writes for `who`.
pub(crate) fn sign(who: &super::write::Identity) -> gix::actor::Signature {
    super::write::signature(who)
}

/// Writes a commit object into `repo` (the staging handle).
pub(crate) fn write_commit(
    repo: &gix::Repository,
    tree: ObjectId,
    parents: Vec<ObjectId>,
    author: gix::actor::Signature,
    committer: gix::actor::Signature,
    message: &str,
) -> Result<ObjectId, MergeError> {
    let commit = gix::objs::Commit {
        tree,
        parents: parents.into(),
        author,
        committer,
        encoding: None,
        message: message.into(),
        extra_headers: Vec::new(),
    };
    Ok(repo.write_object(&commit).map_err(broken)?.detach())
}
