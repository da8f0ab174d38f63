//! What follows a change of a repository's refs by a push: [`after_refs_changed`], the one call
//! site for everything that must see the new refs, maintenance included (queued, never waited
//! for).
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
use std::path::Path;

/// Called once a push that changed `commands` of `project` (whose repository is `git_dir`,
/// canonical) has ended.
pub fn after_refs_changed(ctx: &Context, project: &Project, git_dir: &Path, commands: &[Command]) {
    if commands.is_empty() {
        return;
    }
    // The API opens the repository by the path the store gives, the transport by its
    // canonical git directory: both handles go.
    if let Ok(dir) = ctx.git_dir(project) {
        crate::git::forget(&dir);
    }
    crate::git::forget(git_dir);
    // The pushed commits and packs are maintained in the background (a new commit-graph
    // layer with their Bloom filters, packs rolled up when they pile up).
    ctx.maintenance.after_refs_changed(git_dir);
}
