//! Projects: a full path, the git directory served in place, visibility and fork parent.

use super::Visibility;
use crate::error::ApiResult;
use rusqlite::{params, Connection, OptionalExtension, Row};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    pub id: i64,
    pub group_id: Option<i64>,
    pub path: String,
    pub full_path: String,
    pub name: String,
    pub repo_dir: String,
    pub visibility: Visibility,
    pub forked_from_id: Option<i64>,
}

const COLUMNS: &str = "id, group_id, path, full_path, name, repo_dir, visibility, forked_from_id";

fn from_row(row: &Row) -> rusqlite::Result<Project> {
    Ok(Project {
        id: row.get(0)?,
        group_id: row.get(1)?,
        path: row.get(2)?,
        full_path: row.get(3)?,
        name: row.get(4)?,
        repo_dir: row.get(5)?,
        visibility: row.get(6)?,
        forked_from_id: row.get(7)?,
    })
}

pub struct NewProject<'a> {
    pub group_id: Option<i64>,
    pub path: &'a str,
    pub full_path: &'a str,
    pub repo_dir: &'a str,
    pub visibility: Visibility,
    pub forked_from_id: Option<i64>,
}

pub fn insert(conn: &Connection, new: &NewProject) -> ApiResult<Project> {
    conn.execute(
        "INSERT INTO projects (group_id, path, full_path, name, repo_dir, visibility, forked_from_id)
         VALUES (?1, ?2, ?3, ?2, ?4, ?5, ?6)",
        params![new.group_id, new.path, new.full_path, new.repo_dir, new.visibility.as_str(), new.forked_from_id],
    )?;
    Ok(Project {
        id: conn.last_insert_rowid(),
        group_id: new.group_id,
        path: new.path.into(),
        full_path: new.full_path.into(),
        name: new.path.into(),
        repo_dir: new.repo_dir.into(),
        visibility: new.visibility,
        forked_from_id: new.forked_from_id,
    })
}

pub fn find_by_id(conn: &Connection, id: i64) -> ApiResult<Option<Project>> {
    let sql = format!("SELECT {COLUMNS} FROM projects WHERE id = ?1");
    Ok(super::row(conn, &sql, [id], from_row).optional()?)
}

pub fn find_by_full_path(conn: &Connection, full_path: &str) -> ApiResult<Option<Project>> {
    let sql = format!("SELECT {COLUMNS} FROM projects WHERE full_path = ?1");
    Ok(super::row(conn, &sql, [full_path], from_row).optional()?)
}
