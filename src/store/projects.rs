//! Projects: a full path, the git directory served in place, visibility and fork parent.
//!
//! A project's repository is either on a named storage (`storage`, with `repo_dir` relative to
//! that storage's root, as Gitaly keeps a repository's relative path) or, without a storage, at
//! the absolute `repo_dir` it was registered with.

use super::db::{Db, Row};
use super::error::StoreResult;
use super::users::equal_ignoring_case;
use super::Visibility;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    pub id: i64,
    pub group_id: Option<i64>,
    pub path: String,
    pub full_path: String,
    pub name: String,
    /// Relative to the storage's root when `storage` is set; absolute otherwise.
    pub repo_dir: String,
    pub visibility: Visibility,
    pub forked_from_id: Option<i64>,
    pub storage: Option<String>,
}

const COLUMNS: &str = "id, group_id, path, full_path, name, repo_dir, visibility, forked_from_id, storage";

fn from_row(row: &Row) -> StoreResult<Project> {
    Ok(Project {
        id: row.i64(0)?,
        group_id: row.opt_i64(1)?,
        path: row.string(2)?,
        full_path: row.string(3)?,
        name: row.string(4)?,
        repo_dir: row.string(5)?,
        visibility: Visibility::read(&row.string(6)?)?,
        forked_from_id: row.opt_i64(7)?,
        storage: row.opt_string(8)?,
    })
}

pub struct NewProject<'a> {
    pub group_id: Option<i64>,
    pub path: &'a str,
    pub full_path: &'a str,
    pub repo_dir: &'a str,
    pub visibility: Visibility,
    pub forked_from_id: Option<i64>,
    pub storage: Option<&'a str>,
}

pub fn insert(db: &mut Db, new: &NewProject) -> StoreResult<Project> {
    let id = db.one(
        "INSERT INTO projects (group_id, path, full_path, name, repo_dir, visibility, forked_from_id, storage)
         VALUES ($1, $2, $3, $2, $4, $5, $6, $7) RETURNING id",
        &[
            &new.group_id,
            &new.path,
            &new.full_path,
            &new.repo_dir,
            &new.visibility.as_str(),
            &new.forked_from_id,
            &new.storage,
        ],
        |r| r.i64(0),
    )?;
    Ok(Project {
        id,
        group_id: new.group_id,
        path: new.path.into(),
        full_path: new.full_path.into(),
        name: new.path.into(),
        repo_dir: new.repo_dir.into(),
        visibility: new.visibility,
        forked_from_id: new.forked_from_id,
        storage: new.storage.map(Into::into),
    })
}

pub fn find_by_id(db: &mut Db, id: i64) -> StoreResult<Option<Project>> {
    db.row(&format!("SELECT {COLUMNS} FROM projects WHERE id = $1"), &[&id], from_row)
}

/// How a request names a project: by id, or by full path as given (matched ignoring case).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Name {
    Id(i64),
    FullPath(String),
}

pub fn find(db: &mut Db, name: &Name) -> StoreResult<Option<Project>> {
    match name {
        Name::Id(id) => find_by_id(db, *id),
        Name::FullPath(path) => find_by_full_path(db, path),
    }
}

pub fn find_by_full_path(db: &mut Db, full_path: &str) -> StoreResult<Option<Project>> {
    let sql = format!("SELECT {COLUMNS} FROM projects WHERE {}", equal_ignoring_case(db, "full_path"));
    db.row(&sql, &[&full_path], from_row)
}
