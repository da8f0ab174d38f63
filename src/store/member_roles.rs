//! Custom member roles: a base access level plus a set of permission flags, instance-wide
//! (`group_id` NULL) or owned by a root group. Unique names per namespace are enforced by
//! partial unique indexes; the per-group cap is checked by the caller inside the same
//! transaction as the insert, after locking the group (`groups::lock`).

use super::db::{Db, Row};
use super::error::StoreResult;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRole {
    pub id: i64,
    pub group_id: Option<i64>,
    pub name: String,
    pub description: Option<String>,
    pub base_access_level: i64,
    /// The flags that are enabled; every other flag is false.
    pub permissions: Vec<String>,
}

const COLUMNS: &str = "id, group_id, name, description, base_access_level, permissions";

fn from_row(row: &Row) -> StoreResult<MemberRole> {
    Ok(MemberRole {
        id: row.i64(0)?,
        group_id: row.opt_i64(1)?,
        name: row.string(2)?,
        description: row.opt_string(3)?,
        base_access_level: row.i64(4)?,
        permissions: serde_json::from_str(&row.string(5)?).unwrap_or_default(),
    })
}

/// `WHERE` for one namespace. Two fixed texts rather than one null-safe comparison: SQLite
/// re-plans a statement whose bound value decides between the two partial indexes, on every
/// call.
fn namespace_clause(group_id: Option<i64>) -> &'static str {
    match group_id {
        None => "group_id IS NULL AND CAST($1 AS BIGINT) IS NULL",
        Some(_) => "group_id = $1",
    }
}

/// The roles of one namespace (`None`: instance roles), ordered by name as GitLab lists them.
pub fn list(db: &mut Db, group_id: Option<i64>) -> StoreResult<Vec<MemberRole>> {
    let sql = format!("SELECT {COLUMNS} FROM member_roles WHERE {} ORDER BY name, id", namespace_clause(group_id));
    db.rows(&sql, &[&group_id], from_row)
}

/// A role by id within one namespace (`None`: instance roles only).
pub fn find_in(db: &mut Db, group_id: Option<i64>, id: i64) -> StoreResult<Option<MemberRole>> {
    let sql = format!("SELECT {COLUMNS} FROM member_roles WHERE id = $2 AND {}", namespace_clause(group_id));
    db.row(&sql, &[&group_id, &id], from_row)
}

pub fn find_by_id(db: &mut Db, id: i64) -> StoreResult<Option<MemberRole>> {
    db.row(&format!("SELECT {COLUMNS} FROM member_roles WHERE id = $1"), &[&id], from_row)
}

pub fn count_in(db: &mut Db, group_id: i64) -> StoreResult<i64> {
    db.one("SELECT count(*) FROM member_roles WHERE group_id = $1", &[&group_id], |r| r.i64(0))
}

pub fn name_taken(db: &mut Db, group_id: Option<i64>, name: &str, except_id: Option<i64>) -> StoreResult<bool> {
    let sql = format!(
        "SELECT EXISTS (SELECT 1 FROM member_roles WHERE {} AND name = $2 AND id IS DISTINCT FROM $3)",
        namespace_clause(group_id)
    );
    db.one(&sql, &[&group_id, &name, &except_id], |r| r.bool(0))
}

pub fn insert(db: &mut Db, role: &MemberRole) -> StoreResult<MemberRole> {
    let permissions = serde_json::to_string(&role.permissions).unwrap_or_else(|_| "[]".into());
    let id = db.one(
        "INSERT INTO member_roles (group_id, name, description, base_access_level, permissions, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        &[&role.group_id, &role.name, &role.description, &role.base_access_level, &permissions, &super::now_seconds()],
        |r| r.i64(0),
    )?;
    Ok(MemberRole { id, ..role.clone() })
}

pub fn update_text(db: &mut Db, id: i64, name: &str, description: Option<&str>) -> StoreResult<()> {
    db.execute("UPDATE member_roles SET name = $2, description = $3 WHERE id = $1", &[&id, &name, &description])?;
    Ok(())
}

pub fn delete(db: &mut Db, id: i64) -> StoreResult<bool> {
    Ok(db.execute("DELETE FROM member_roles WHERE id = $1", &[&id])? > 0)
}
