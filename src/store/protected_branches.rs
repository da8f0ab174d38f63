//! Protected branches (decisions D8): per project, a branch name or wildcard pattern with the
//! lowest access level that may push and merge, and whether force pushes are allowed. What the
//! rows mean for a write is `auth::protection`'s to say.

use super::db::{Db, Row};
use super::error::StoreResult;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedBranch {
    pub id: i64,
    pub project_id: i64,
    /// A branch name, or a pattern where `*` matches any run of characters.
    pub name: String,
    pub push_access_level: i64,
    pub merge_access_level: i64,
    pub allow_force_push: bool,
}

const COLUMNS: &str = "id, project_id, name, push_access_level, merge_access_level, allow_force_push";

fn from_row(row: &Row) -> StoreResult<ProtectedBranch> {
    Ok(ProtectedBranch {
        id: row.i64(0)?,
        project_id: row.i64(1)?,
        name: row.string(2)?,
        push_access_level: row.i64(3)?,
        merge_access_level: row.i64(4)?,
        allow_force_push: row.bool(5)?,
    })
}

/// Every protection of a project, by name.
pub fn list(db: &mut Db, project_id: i64) -> StoreResult<Vec<ProtectedBranch>> {
    db.rows(
        &format!("SELECT {COLUMNS} FROM protected_branches WHERE project_id = $1 ORDER BY name, id"),
        &[&project_id],
        from_row,
    )
}

/// The protection named exactly `name` (a branch or a pattern).
pub fn find(db: &mut Db, project_id: i64, name: &str) -> StoreResult<Option<ProtectedBranch>> {
    db.row(
        &format!("SELECT {COLUMNS} FROM protected_branches WHERE project_id = $1 AND name = $2"),
        &[&project_id, &name],
        from_row,
    )
}

/// Adds a protection; a name already protected is the store's `Conflict`.
pub fn insert(
    db: &mut Db,
    project_id: i64,
    name: &str,
    push_access_level: i64,
    merge_access_level: i64,
    allow_force_push: bool,
) -> StoreResult<ProtectedBranch> {
    let id = db.one(
        "INSERT INTO protected_branches (project_id, name, push_access_level, merge_access_level, allow_force_push)
         VALUES ($1, $2, $3, $4, $5) RETURNING id",
        &[&project_id, &name, &push_access_level, &merge_access_level, &allow_force_push],
        |r| r.i64(0),
    )?;
    Ok(ProtectedBranch {
        id,
        project_id,
        name: name.to_string(),
        push_access_level,
        merge_access_level,
        allow_force_push,
    })
}

/// Removes the protection named exactly `name`; whether there was one.
pub fn delete(db: &mut Db, project_id: i64, name: &str) -> StoreResult<bool> {
    Ok(db.execute("DELETE FROM protected_branches WHERE project_id = $1 AND name = $2", &[&project_id, &name])? > 0)
}
