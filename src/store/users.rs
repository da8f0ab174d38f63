//! Users: a username, a display name, and whether the user administers the instance.
//! Usernames and emails match case-insensitively, as GitLab's do.

use super::db::{Db, Dialect, Row};
use super::error::StoreResult;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub id: i64,
    pub username: String,
    pub name: String,
    pub email: Option<String>,
    pub is_admin: bool,
}

const COLUMNS: &str = "id, username, name, email, is_admin";

pub(super) fn from_row(row: &Row) -> StoreResult<User> {
    Ok(User {
        id: row.i64(0)?,
        username: row.string(1)?,
        name: row.string(2)?,
        email: row.opt_string(3)?,
        is_admin: row.bool(4)?,
    })
}

/// `column` equal to `$1`, ignoring case (SQLite's columns are declared `COLLATE NOCASE`;
/// PostgreSQL's have unique indexes on `lower(column)`).
pub(super) fn equal_ignoring_case(db: &Db, column: &str) -> String {
    match db.dialect() {
        Dialect::Sqlite => format!("{column} = $1 COLLATE NOCASE"),
        Dialect::Postgres => format!("lower({column}) = lower($1)"),
    }
}

pub fn insert(db: &mut Db, username: &str, name: &str, email: Option<&str>, is_admin: bool) -> StoreResult<User> {
    let id = db.one(
        "INSERT INTO users (username, name, email, is_admin, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id",
        &[&username, &name, &email, &is_admin, &super::now_seconds()],
        |r| r.i64(0),
    )?;
    Ok(User { id, username: username.into(), name: name.into(), email: email.map(Into::into), is_admin })
}

pub fn find_by_id(db: &mut Db, id: i64) -> StoreResult<Option<User>> {
    db.row(&format!("SELECT {COLUMNS} FROM users WHERE id = $1"), &[&id], from_row)
}

pub fn find_by_username(db: &mut Db, username: &str) -> StoreResult<Option<User>> {
    let sql = format!("SELECT {COLUMNS} FROM users WHERE {}", equal_ignoring_case(db, "username"));
    db.row(&sql, &[&username], from_row)
}

/// Users matched by commit email (changelog authors).
pub fn find_by_email(db: &mut Db, email: &str) -> StoreResult<Option<User>> {
    let sql = format!("SELECT {COLUMNS} FROM users WHERE {} ORDER BY id LIMIT 1", equal_ignoring_case(db, "email"));
    db.row(&sql, &[&email], from_row)
}

pub fn first_admin(db: &mut Db) -> StoreResult<Option<User>> {
    db.row(&format!("SELECT {COLUMNS} FROM users WHERE is_admin ORDER BY id LIMIT 1"), &[], from_row)
}

pub fn count(db: &mut Db) -> StoreResult<i64> {
    db.one("SELECT count(*) FROM users", &[], |r| r.i64(0))
}

/// When the user was created, in seconds since the Unix epoch.
pub fn created_at(db: &mut Db, id: i64) -> StoreResult<Option<i64>> {
    db.row("SELECT created_at FROM users WHERE id = $1", &[&id], |r| r.i64(0))
}
