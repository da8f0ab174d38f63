//! The listeners every context has, in the order they hear:
//! - [`DefaultBranch`] (durable): what GitLab does after an empty project's first branch is
//!   created (`Git::BranchHooksService`, `Projects::ProtectDefaultBranchService`): HEAD names
//!   that branch (Gitaly's choice among several pushed at once) and the branch is protected as
//!   a new project's default branch is, unless a rule already covers it; recorded with the
//!   change, so that no answer or push report goes out before the new default branch is
//!   protected.
//! - [`OpenHandles`]: a host keeps its gix handle of a repository open across requests, and its
//!   object store learns of new packs only when a lookup misses; after a push (objects and refs
//!   written by receive-pack, outside gix) both handles of the repository (the API's, by the
//!   store's path, and the transport's, by its canonical git directory) are forgotten, so that
//!   the next request opens it afresh. The API's own writes went through that handle.
//! - [`Maintenance`]: the moved refs' repository is queued for housekeeping (a new
//!   commit-graph layer with its Bloom filters, packs rolled up), never waited for.
//!
//! What answers from refs needs no listener: it reads them from the repository on every
//! request, and the answers cache keys on commit ids, never on names. Other hosts (PostgreSQL
//! clusters) keep nothing derived from refs either, so no notification goes between hosts.

use super::{Event, Listener, Through};
use crate::auth::protection::{self, Protection};
use crate::error::ApiError;
use crate::git;
use crate::git::maintenance::worker::Maintenance;
use crate::store::{self, Db, StoreError};

/// Follows an empty project's first branch with HEAD and protects it.
pub struct DefaultBranch;

impl Listener for DefaultBranch {
    /// Only a change that created a branch can have made a project's first one.
    fn durable(&self, event: &Event) -> bool {
        let Event::RefsMoved(moved) = event else { return false };
        moved.updates.iter().any(|u| u.old.is_none() && u.new.is_some() && u.name.starts_with("refs/heads/"))
    }

    fn record(&self, db: &mut Db, event: &Event) -> Result<(), ApiError> {
        let Event::RefsMoved(moved) = event else { return Ok(()) };
        let repo = git::open(&moved.git_dir).map_err(ApiError::internal)?;
        let Some(default) = git::write::refs::follow_first_branch(&repo).map_err(ApiError::internal)? else {
            return Ok(());
        };
        let full = format!("refs/heads/{default}");
        if !moved.updates.iter().any(|u| u.name == full && u.old.is_none()) {
            return Ok(());
        }
        let Some(project) = store::projects::find_by_id(db, moved.project_id)? else { return Ok(()) };
        // A project whose rules were never stored protects its default branch, whichever it
        // is, by the implicit rule.
        if !project.protections_stored {
            return Ok(());
        }
        let rules = store::protected_branches::list(db, project.id)?;
        if rules.iter().any(|rule| protection::matches(&rule.name, &default)) {
            return Ok(());
        }
        let rule = Protection::default_branch(&default);
        let inserted = store::protected_branches::insert(
            db,
            project.id,
            &default,
            rule.push_access_level,
            rule.merge_access_level,
            rule.allow_force_push,
        );
        match inserted {
            // Another host protected it first.
            Ok(_) | Err(StoreError::Conflict(_)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    fn heard(&self, _event: &Event) {}
}

/// Forgets the open repository handles a push made stale.
pub struct OpenHandles;

impl Listener for OpenHandles {
    fn heard(&self, event: &Event) {
        let Event::RefsMoved(moved) = event else { return };
        if moved.through == Through::Push {
            git::forget(&moved.repository);
            git::forget(&moved.git_dir);
        }
    }
}

/// Queues the repository whose refs moved for maintenance.
impl Listener for Maintenance {
    fn heard(&self, event: &Event) {
        let Event::RefsMoved(moved) = event else { return };
        self.after_refs_changed(&moved.git_dir);
    }
}
