//! The commits a write brings into a repository: those reachable from the new tips and from no
//! ref the repository has (GitLab's "new commits", `Gitlab::Checks::ChangesAccess` asking
//! Gitaly for `--not --all`), handed over one at a time with what the push rules look at:
//! message, author, committer, signature, and the files each commit creates or changes (against
//! its first parent; for a merge, only what differs from every parent, as Gitaly's changed
//! paths with `merge_commit_diff_mode: all_parents`).
//!
//! Bounded: one commit is read at a time (nothing is gathered), the caller may stop at any
//! commit, blob sizes come from object headers (no blob is read), and the walk stops at a
//! deadline ([`Error::Late`]). This module reads; deciding is the caller's.

use super::error::{boxed, BoxError};
use gix::ObjectId;
use std::ops::ControlFlow;
use std::time::Instant;

/// One new commit as the rules see it.
#[derive(Debug, Clone)]
pub struct NewCommit {
    pub id: ObjectId,
    pub message: String,
    pub author_name: String,
    pub author_email: String,
    pub committer_name: String,
    pub committer_email: String,
    /// Whether it carries a signature (`gpgsig` or `gpgsig-sha256`).
    pub signed: bool,
    /// Files it creates (a rename's new path included), with their sizes in bytes.
    pub new_files: Vec<(String, u64)>,
    /// Files whose content it changes, with their new sizes.
    pub changed_files: Vec<(String, u64)>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the deadline passed before every new commit was read")]
    Late,
    #[error("cannot read the new commits")]
    Git(#[source] BoxError),
}

fn broken(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Git(boxed(e))
}

/// The commit every ref of `repo` names (tags peeled), the commits already there.
fn known_tips(repo: &gix::Repository) -> Result<Vec<ObjectId>, Error> {
    let refs = repo.references().map_err(broken)?;
    let mut tips = Vec::new();
    for reference in refs.all().map_err(broken)? {
        let Ok(mut reference) = reference else { continue };
        let Ok(id) = reference.peel_to_id() else { continue };
        let Ok(object) = repo.find_object(id.detach()) else { continue };
        if let Ok(commit) = object.peel_to_commit() {
            tips.push(commit.id);
        }
    }
    tips.sort();
    tips.dedup();
    Ok(tips)
}

/// Calls `visit` with each commit reachable from `tips` (commits, or tags naming them) and from
/// no ref of `repo`, newest first, until it breaks; `Err(Late)` when `deadline` passes first.
pub fn each(
    repo: &gix::Repository,
    tips: &[ObjectId],
    deadline: Instant,
    mut visit: impl FnMut(&NewCommit) -> ControlFlow<()>,
) -> Result<(), Error> {
    let mut starts = Vec::new();
    for tip in tips {
        let object = repo.find_object(*tip).map_err(broken)?;
        // A tag on something that is not a commit brings no commit.
        if let Ok(commit) = object.peel_to_commit() {
            starts.push(commit.id);
        }
    }
    if starts.is_empty() {
        return Ok(());
    }
    let hidden = known_tips(repo)?;
    let walk = repo.rev_walk(starts).with_hidden(hidden).all().map_err(broken)?;
    for info in walk {
        if Instant::now() > deadline {
            return Err(Error::Late);
        }
        let info = info.map_err(broken)?;
        let commit = read(repo, info.id, deadline)?;
        if visit(&commit).is_break() {
            break;
        }
    }
    Ok(())
}

/// What the rules see of commit `id`.
pub fn read(repo: &gix::Repository, id: ObjectId, deadline: Instant) -> Result<NewCommit, Error> {
    let commit = repo.find_commit(id).map_err(broken)?;
    let decoded = commit.decode().map_err(broken)?;
    let signed = decoded.extra_headers.iter().any(|(name, _)| *name == "gpgsig" || *name == "gpgsig-sha256");
    let author = decoded.author().map_err(broken)?;
    let committer = decoded.committer().map_err(broken)?;
    let tree = decoded.tree();
    let parents: Vec<ObjectId> = decoded.parents().collect();
    let mut new_commit = NewCommit {
        id,
        message: decoded.message.to_string(),
        author_name: author.name.to_string(),
        author_email: author.email.to_string(),
        committer_name: committer.name.to_string(),
        committer_email: committer.email.to_string(),
        signed,
        new_files: Vec::new(),
        changed_files: Vec::new(),
    };
    let tree_of = |commit: ObjectId| -> Result<ObjectId, Error> {
        Ok(repo.find_commit(commit).map_err(broken)?.tree_id().map_err(broken)?.detach())
    };
    let first = parents.first().map(|p| tree_of(*p)).transpose()?;
    let others: Vec<ObjectId> = parents.iter().skip(1).map(|p| tree_of(*p)).collect::<Result<_, _>>()?;
    let Some(changes) = super::diff::changes(repo, first, Some(tree), deadline).map_err(broken)? else {
        return Err(Error::Late);
    };
    for change in changes {
        let Some(blob) = change.new_id.filter(|_| change.new_mode != 0o160000) else { continue };
        let path = change.new_path.to_string();
        // A merge brings only what differs from every parent: what another parent already has
        // at that path came from there.
        let mut from_other_parent = false;
        for other in &others {
            let components: Vec<&str> = path.split('/').collect();
            if let Some((id, _)) = super::write::entry_at(repo, *other, &components).map_err(broken)? {
                from_other_parent |= id == blob;
                if change.is_new() || change.is_renamed() {
                    // The path exists in another parent: not a new file for the merge.
                    from_other_parent = true;
                }
            }
        }
        if from_other_parent {
            continue;
        }
        let size = repo.find_header(blob).map_err(broken)?.size();
        if change.is_new() || change.is_renamed() {
            new_commit.new_files.push((path, size));
        } else {
            new_commit.changed_files.push((path, size));
        }
    }
    Ok(new_commit)
}
