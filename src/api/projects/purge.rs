//! Purging what was marked for deletion (decisions D9): a project's row goes, and with it its
//! repository when forgecore created it (`created_repository`); a repository registered in
//! place is only unregistered. A group's purge purges its subgroups and projects first.
//!
//! Purges run without a request of their own: a project lookup that finds a marked project
//! past `limits.deletion_delay_days` purges it (and answers 404), and the project lists,
//! creation and deletion sweep everything due first ([`purge_due`]). Several hosts on one
//! PostgreSQL may sweep at once: each removal is one `DELETE` in a transaction, so one host
//! removes the row and only that host deletes the repository; the others find nothing to do.

use crate::context::Context;
use crate::error::ApiResult;
use crate::git;
use crate::store::{self, now_seconds, projects::Project, Db, StoreResult};

const DAY: i64 = 86_400;

/// Seconds a mark lasts before its subject is due.
pub fn delay_seconds(ctx: &Context) -> i64 {
    i64::from(ctx.config.limits.deletion_delay_days) * DAY
}

/// Whether something marked at `marked_at` is due for purging now.
pub fn due(ctx: &Context, marked_at: i64) -> bool {
    marked_at + delay_seconds(ctx) <= now_seconds()
}

/// Purges the project `id` (see the module). Another host's purge first is no error.
pub fn purge_project(ctx: &Context, id: i64) -> ApiResult<()> {
    let removed = ctx.store.write(|db| store::projects::remove(db, id))?;
    if let Some(project) = removed {
        remove_repository(ctx, &project);
    }
    Ok(())
}

/// Deletes the repository of a purged project when forgecore created it.
fn remove_repository(ctx: &Context, project: &Project) {
    if !project.created_repository {
        return;
    }
    let Ok(dir) = ctx.git_dir(project) else { return };
    git::forget(&dir);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => log::warn!("could not remove the repository of purged project {}: {e}", project.id),
    }
}

/// The group `id` and every group below it, the deepest first.
fn tree_deepest_first(db: &mut Db, id: i64) -> StoreResult<Vec<i64>> {
    db.rows(
        "WITH RECURSIVE tree(id, depth) AS (
             SELECT id, 0 FROM groups WHERE id = $1
             UNION ALL
             SELECT g.id, tree.depth + 1 FROM groups g JOIN tree ON g.parent_id = tree.id WHERE tree.depth < 100
         ) SELECT id FROM tree ORDER BY depth DESC, id DESC",
        &[&id],
        |r| r.i64(0),
    )
}

/// Purges the group `id`: every project of it and of its subgroups, then the groups. A project
/// made in the tree meanwhile is purged too (the loop asks again until none is left).
pub fn purge_group(ctx: &Context, id: i64) -> ApiResult<()> {
    for _ in 0..10 {
        let projects = ctx.store.read(|db| {
            let tree = tree_deepest_first(db, id)?;
            store::projects::ids_in_groups(db, &tree)
        })?;
        for project in projects {
            purge_project(ctx, project)?;
        }
        let done = ctx.store.write(|db| -> ApiResult<bool> {
            let tree = tree_deepest_first(db, id)?;
            if tree.is_empty() {
                return Ok(true);
            }
            if !store::projects::ids_in_groups(db, &tree)?.is_empty() {
                return Ok(false);
            }
            let ids: Vec<String> = tree.iter().map(i64::to_string).collect();
            // Memberships elsewhere holding a role of these groups keep their base level.
            db.execute(
                &format!(
                    "UPDATE members SET member_role_id = NULL
                     WHERE member_role_id IN (SELECT id FROM member_roles WHERE group_id IN ({}))",
                    ids.join(", ")
                ),
                &[],
            )?;
            store::groups::remove_all(db, &tree)?;
            Ok(true)
        })?;
        if done {
            return Ok(());
        }
    }
    Ok(())
}

/// Purges every group and project whose mark is past the delay.
pub fn purge_due(ctx: &Context) -> ApiResult<()> {
    let cutoff = now_seconds() - delay_seconds(ctx);
    let (groups, projects) = ctx.store.read(|db| -> StoreResult<_> {
        Ok((store::groups::due_for_purge(db, cutoff)?, store::projects::due_for_purge(db, cutoff)?))
    })?;
    for group in groups {
        purge_group(ctx, group)?;
    }
    for project in projects {
        purge_project(ctx, project)?;
    }
    Ok(())
}
