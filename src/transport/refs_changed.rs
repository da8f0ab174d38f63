//! What follows a change of a repository's refs by a push: [`after_refs_changed`], the one call
//! site for everything that must see the new refs (maintenance hooks onto it).
//!
//! What answers from refs today reads them from the repository on every request: branches,
//! tags, the project's `empty_repo` and `default_branch`, every `ref` parameter. The answers
//! cache keys on commit ids, never on branch names, so a moved branch resolves to another key.
//! What a host keeps is its open gix handle, whose object store learns of new packs when a
//! lookup misses; it is forgotten here so that the next request opens the repository afresh.
//! Other hosts (PostgreSQL clusters) keep no ref-derived answer either: they read the same
//! repository storage on their next request, and nothing in the store depends on refs, so no
//! notification is needed.

use super::policy::Command;
use crate::context::Context;
use crate::store::projects::Project;

/// Called once a push that changed `commands` of `project` has ended.
pub fn after_refs_changed(ctx: &Context, project: &Project, commands: &[Command]) {
    if commands.is_empty() {
        return;
    }
    if let Ok(dir) = crate::api::git_dir(ctx, project) {
        crate::git::forget(&dir);
    }
}
