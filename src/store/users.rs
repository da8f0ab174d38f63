//! Users: a username, a display name, and whether the user administers the instance.

use crate::error::ApiResult;
use rusqlite::{params, Connection, OptionalExtension, Row};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub id: i64,
    pub username: String,
    pub name: String,
    pub email: Option<String>,
    pub is_admin: bool,
}

const COLUMNS: &str = "id, username, name, email, is_admin";

fn from_row(row: &Row) -> rusqlite::Result<User> {
    Ok(User { id: row.get(0)?, username: row.get(1)?, name: row.get(2)?, email: row.get(3)?, is_admin: row.get(4)? })
}

pub fn insert(conn: &Connection, username: &str, name: &str, email: Option<&str>, is_admin: bool) -> ApiResult<User> {
    conn.execute(
        "INSERT INTO users (username, name, email, is_admin, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![username, name, email, is_admin, super::now_seconds()],
    )?;
    Ok(User {
        id: conn.last_insert_rowid(),
        username: username.into(),
        name: name.into(),
        email: email.map(Into::into),
        is_admin,
    })
}

pub fn find_by_id(conn: &Connection, id: i64) -> ApiResult<Option<User>> {
    let sql = format!("SELECT {COLUMNS} FROM users WHERE id = ?1");
    Ok(super::row(conn, &sql, [id], from_row).optional()?)
}

pub fn find_by_username(conn: &Connection, username: &str) -> ApiResult<Option<User>> {
    let sql = format!("SELECT {COLUMNS} FROM users WHERE username = ?1");
    Ok(super::row(conn, &sql, [username], from_row).optional()?)
}

/// Users matched by commit email (changelog authors).
pub fn find_by_email(conn: &Connection, email: &str) -> ApiResult<Option<User>> {
    let sql = format!("SELECT {COLUMNS} FROM users WHERE email = ?1 COLLATE NOCASE ORDER BY id LIMIT 1");
    Ok(super::row(conn, &sql, [email], from_row).optional()?)
}

pub fn first_admin(conn: &Connection) -> ApiResult<Option<User>> {
    let sql = format!("SELECT {COLUMNS} FROM users WHERE is_admin = 1 ORDER BY id LIMIT 1");
    Ok(super::row(conn, &sql, [], from_row).optional()?)
}

pub fn count(conn: &Connection) -> ApiResult<i64> {
    Ok(super::row(conn, "SELECT count(*) FROM users", [], |r| r.get(0))?)
}
