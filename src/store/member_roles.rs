//! Custom member roles: a base access level plus a set of permission flags, instance-wide
//! (`group_id` NULL) or owned by a root group. Unique names per namespace are enforced by
//! partial unique indexes; the per-group cap is checked by the caller inside the same
//! `BEGIN IMMEDIATE` transaction as the insert.

use crate::error::ApiResult;
use rusqlite::{params, Connection, OptionalExtension, Row};

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

fn from_row(row: &Row) -> rusqlite::Result<MemberRole> {
    let permissions: String = row.get(5)?;
    Ok(MemberRole {
        id: row.get(0)?,
        group_id: row.get(1)?,
        name: row.get(2)?,
        description: row.get(3)?,
        base_access_level: row.get(4)?,
        permissions: serde_json::from_str(&permissions).unwrap_or_default(),
    })
}

/// `WHERE` for one namespace. Two fixed texts rather than `group_id IS ?`: SQLite re-plans a
/// statement whose bound value decides between the two partial indexes, on every call.
fn namespace_clause(group_id: Option<i64>) -> &'static str {
    match group_id {
        None => "group_id IS NULL AND ?1 IS NULL",
        Some(_) => "group_id = ?1",
    }
}

/// The roles of one namespace (`None`: instance roles), ordered by name as GitLab lists them.
pub fn list(conn: &Connection, group_id: Option<i64>) -> ApiResult<Vec<MemberRole>> {
    let sql = format!("SELECT {COLUMNS} FROM member_roles WHERE {} ORDER BY name, id", namespace_clause(group_id));
    let mut stmt = conn.prepare_cached(&sql)?;
    let roles = stmt.query_map([group_id], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(roles)
}

/// A role by id within one namespace (`None`: instance roles only).
pub fn find_in(conn: &Connection, group_id: Option<i64>, id: i64) -> ApiResult<Option<MemberRole>> {
    let sql = format!("SELECT {COLUMNS} FROM member_roles WHERE id = ?2 AND {}", namespace_clause(group_id));
    Ok(super::row(conn, &sql, params![group_id, id], from_row).optional()?)
}

pub fn find_by_id(conn: &Connection, id: i64) -> ApiResult<Option<MemberRole>> {
    let sql = format!("SELECT {COLUMNS} FROM member_roles WHERE id = ?1");
    Ok(super::row(conn, &sql, [id], from_row).optional()?)
}

pub fn count_in(conn: &Connection, group_id: i64) -> ApiResult<i64> {
    Ok(super::row(conn, "SELECT count(*) FROM member_roles WHERE group_id = ?1", [group_id], |r| r.get(0))?)
}

pub fn name_taken(conn: &Connection, group_id: Option<i64>, name: &str, except_id: Option<i64>) -> ApiResult<bool> {
    let sql = format!(
        "SELECT EXISTS (SELECT 1 FROM member_roles WHERE {} AND name = ?2 AND id IS NOT ?3)",
        namespace_clause(group_id)
    );
    let found: i64 = super::row(conn, &sql, params![group_id, name, except_id], |r| r.get(0))?;
    Ok(found != 0)
}

pub fn insert(conn: &Connection, role: &MemberRole) -> ApiResult<MemberRole> {
    let permissions = serde_json::to_string(&role.permissions).unwrap_or_else(|_| "[]".into());
    conn.execute(
        "INSERT INTO member_roles (group_id, name, description, base_access_level, permissions, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![role.group_id, role.name, role.description, role.base_access_level, permissions, super::now_seconds()],
    )?;
    Ok(MemberRole { id: conn.last_insert_rowid(), ..role.clone() })
}

pub fn update_text(conn: &Connection, id: i64, name: &str, description: Option<&str>) -> ApiResult<()> {
    conn.execute("UPDATE member_roles SET name = ?2, description = ?3 WHERE id = ?1", params![id, name, description])?;
    Ok(())
}

pub fn delete(conn: &Connection, id: i64) -> ApiResult<bool> {
    Ok(conn.execute("DELETE FROM member_roles WHERE id = ?1", [id])? > 0)
}
