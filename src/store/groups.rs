//! Groups and their hierarchy: a group has at most one parent; `full_path` is unique
//! (case-insensitively, as GitLab's routes are).

use super::db::{Db, Dialect, Row};
use super::error::StoreResult;
use super::users::equal_ignoring_case;
use super::Visibility;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub id: i64,
    pub parent_id: Option<i64>,
    pub path: String,
    pub full_path: String,
    pub name: String,
    pub visibility: Visibility,
}

const COLUMNS: &str = "id, parent_id, path, full_path, name, visibility";

pub(super) fn from_row(row: &Row) -> StoreResult<Group> {
    from_row_at(row, 0)
}

/// A group from the row's columns starting at `at`, in [`COLUMNS`]' order.
pub(super) fn from_row_at(row: &Row, at: usize) -> StoreResult<Group> {
    Ok(Group {
        id: row.i64(at)?,
        parent_id: row.opt_i64(at + 1)?,
        path: row.string(at + 2)?,
        full_path: row.string(at + 3)?,
        name: row.string(at + 4)?,
        visibility: Visibility::read(&row.string(at + 5)?)?,
    })
}

pub fn insert(db: &mut Db, parent: Option<&Group>, path: &str, visibility: Visibility) -> StoreResult<Group> {
    let full_path = match parent {
        Some(p) => format!("{}/{path}", p.full_path),
        None => path.to_string(),
    };
    let parent_id = parent.map(|p| p.id);
    let id = db.one(
        "INSERT INTO groups (parent_id, path, full_path, name, visibility) VALUES ($1, $2, $3, $2, $4) RETURNING id",
        &[&parent_id, &path, &full_path, &visibility.as_str()],
        |r| r.i64(0),
    )?;
    Ok(Group { id, parent_id, path: path.into(), full_path, name: path.into(), visibility })
}

pub fn find_by_id(db: &mut Db, id: i64) -> StoreResult<Option<Group>> {
    db.row(&format!("SELECT {COLUMNS} FROM groups WHERE id = $1"), &[&id], from_row)
}

pub fn find_by_full_path(db: &mut Db, full_path: &str) -> StoreResult<Option<Group>> {
    let sql = format!("SELECT {COLUMNS} FROM groups WHERE {}", equal_ignoring_case(db, "full_path"));
    db.row(&sql, &[&full_path], from_row)
}

/// Holds the group's row until the transaction ends, so that checks on what belongs to it
/// (the roles cap) and the write they guard are one step for every host. SQLite's writes are
/// already one at a time (`BEGIN IMMEDIATE`).
pub fn lock(db: &mut Db, id: i64) -> StoreResult<()> {
    if db.dialect() == Dialect::Postgres {
        db.rows("SELECT id FROM groups WHERE id = $1 FOR UPDATE", &[&id], |_| Ok(()))?;
    }
    Ok(())
}

/// The ids of a group and all its ancestors, the group first.
pub fn self_and_ancestor_ids(db: &mut Db, id: i64) -> StoreResult<Vec<i64>> {
    db.rows(
        "WITH RECURSIVE chain(id, parent_id, depth) AS (
             SELECT id, parent_id, 0 FROM groups WHERE id = $1
             UNION ALL
             SELECT g.id, g.parent_id, chain.depth + 1 FROM groups g JOIN chain ON g.id = chain.parent_id
             WHERE chain.depth < 100
         ) SELECT id FROM chain ORDER BY depth",
        &[&id],
        |r| r.i64(0),
    )
}

/// The root of the hierarchy a group belongs to.
pub fn root_id(db: &mut Db, id: i64) -> StoreResult<i64> {
    Ok(self_and_ancestor_ids(db, id)?.last().copied().unwrap_or(id))
}

/// When the group was marked for deletion (seconds since the epoch), if it is (decisions D9).
/// Kept apart from [`Group`]: only deletion and the entity ask.
pub fn marked_for_deletion_at(db: &mut Db, id: i64) -> StoreResult<Option<i64>> {
    Ok(db.row("SELECT marked_for_deletion_at FROM groups WHERE id = $1", &[&id], |r| r.opt_i64(0))?.flatten())
}

/// Marks the group for deletion at `at` by `by`, or (`None`) restores it; whether a row changed.
pub fn set_marked_for_deletion(db: &mut Db, id: i64, mark: Option<(i64, Option<i64>)>) -> StoreResult<bool> {
    let changed = match mark {
        Some((at, by)) => db.execute(
            "UPDATE groups SET marked_for_deletion_at = $2, marked_for_deletion_by = $3
             WHERE id = $1 AND marked_for_deletion_at IS NULL",
            &[&id, &at, &by],
        )?,
        None => db.execute(
            "UPDATE groups SET marked_for_deletion_at = NULL, marked_for_deletion_by = NULL
             WHERE id = $1 AND marked_for_deletion_at IS NOT NULL",
            &[&id],
        )?,
    };
    Ok(changed > 0)
}

/// The ids of the groups marked for deletion at or before `cutoff`.
pub fn due_for_purge(db: &mut Db, cutoff: i64) -> StoreResult<Vec<i64>> {
    db.rows(
        "SELECT id FROM groups WHERE marked_for_deletion_at IS NOT NULL AND marked_for_deletion_at <= $1 ORDER BY id",
        &[&cutoff],
        |r| r.i64(0),
    )
}

/// Removes the rows of these groups (their memberships and custom roles go with them), the
/// deepest first. Whether any row was removed by this call.
pub fn remove_all(db: &mut Db, deepest_first: &[i64]) -> StoreResult<bool> {
    let mut removed = false;
    for id in deepest_first {
        removed |= db.execute("DELETE FROM groups WHERE id = $1", &[id])? > 0;
    }
    Ok(removed)
}
