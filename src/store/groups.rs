//! Groups and their hierarchy: a group has at most one parent; `full_path` is unique
//! (case-insensitively, as GitLab's routes are).

use super::Visibility;
use crate::error::ApiResult;
use rusqlite::{params, Connection, OptionalExtension, Row};

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

fn from_row(row: &Row) -> rusqlite::Result<Group> {
    Ok(Group {
        id: row.get(0)?,
        parent_id: row.get(1)?,
        path: row.get(2)?,
        full_path: row.get(3)?,
        name: row.get(4)?,
        visibility: row.get(5)?,
    })
}

pub fn insert(conn: &Connection, parent: Option<&Group>, path: &str, visibility: Visibility) -> ApiResult<Group> {
    let full_path = match parent {
        Some(p) => format!("{}/{path}", p.full_path),
        None => path.to_string(),
    };
    let parent_id = parent.map(|p| p.id);
    conn.execute(
        "INSERT INTO groups (parent_id, path, full_path, name, visibility) VALUES (?1, ?2, ?3, ?2, ?4)",
        params![parent_id, path, full_path, visibility.as_str()],
    )?;
    Ok(Group { id: conn.last_insert_rowid(), parent_id, path: path.into(), full_path, name: path.into(), visibility })
}

pub fn find_by_id(conn: &Connection, id: i64) -> ApiResult<Option<Group>> {
    let sql = format!("SELECT {COLUMNS} FROM groups WHERE id = ?1");
    Ok(super::row(conn, &sql, [id], from_row).optional()?)
}

pub fn find_by_full_path(conn: &Connection, full_path: &str) -> ApiResult<Option<Group>> {
    let sql = format!("SELECT {COLUMNS} FROM groups WHERE full_path = ?1");
    Ok(super::row(conn, &sql, [full_path], from_row).optional()?)
}

/// The ids of a group and all its ancestors, the group first.
pub fn self_and_ancestor_ids(conn: &Connection, id: i64) -> ApiResult<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "WITH RECURSIVE chain(id, parent_id, depth) AS (
             SELECT id, parent_id, 0 FROM groups WHERE id = ?1
             UNION ALL
             SELECT g.id, g.parent_id, chain.depth + 1 FROM groups g JOIN chain ON g.id = chain.parent_id
             WHERE chain.depth < 100
         ) SELECT id FROM chain ORDER BY depth",
    )?;
    let ids = stmt.query_map([id], |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}

/// The root of the hierarchy a group belongs to.
pub fn root_id(conn: &Connection, id: i64) -> ApiResult<i64> {
    Ok(self_and_ancestor_ids(conn, id)?.last().copied().unwrap_or(id))
}

/// The ids of a group and all its descendants.
pub fn self_and_descendant_ids(conn: &Connection, id: i64) -> ApiResult<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "WITH RECURSIVE tree(id, depth) AS (
             SELECT id, 0 FROM groups WHERE id = ?1
             UNION ALL
             SELECT g.id, tree.depth + 1 FROM groups g JOIN tree ON g.parent_id = tree.id WHERE tree.depth < 100
         ) SELECT id FROM tree",
    )?;
    let ids = stmt.query_map([id], |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}
