//! Notes (issue #40): comments and system notes on any noteable (`Issue`, `MergeRequest`), by
//! the noteable's global id. `internal` notes are GitLab's internal (formerly confidential)
//! notes, seen by Reporters and above only.

use super::db::{Db, Row};
use super::error::StoreResult;
use super::labels::now_millis;
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub id: i64,
    pub project_id: i64,
    /// `Issue` or `MergeRequest`.
    pub noteable_type: String,
    pub noteable_id: i64,
    pub author_id: Option<i64>,
    pub body: String,
    pub system: bool,
    pub internal: bool,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    pub updated_at: i64,
}

const COLUMNS: &str =
    "id, project_id, noteable_type, noteable_id, author_id, body, system, internal, created_at, updated_at";

fn from_row(row: &Row) -> StoreResult<Note> {
    Ok(Note {
        id: row.i64(0)?,
        project_id: row.i64(1)?,
        noteable_type: row.string(2)?,
        noteable_id: row.i64(3)?,
        author_id: row.opt_i64(4)?,
        body: row.string(5)?,
        system: row.bool(6)?,
        internal: row.bool(7)?,
        created_at: row.i64(8)?,
        updated_at: row.i64(9)?,
    })
}

/// What a new note holds.
#[derive(Debug, Clone)]
pub struct NewNote<'a> {
    pub project_id: i64,
    pub noteable_type: &'a str,
    pub noteable_id: i64,
    pub author_id: Option<i64>,
    pub body: &'a str,
    pub system: bool,
    pub internal: bool,
    /// Milliseconds; now when `None`.
    pub created_at: Option<i64>,
}

pub fn insert(db: &mut Db, new: &NewNote) -> StoreResult<Note> {
    let created = new.created_at.unwrap_or_else(now_millis);
    let id = db.one(
        "INSERT INTO notes (project_id, noteable_type, noteable_id, author_id, body, system, internal, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id",
        &[
            &new.project_id,
            &new.noteable_type,
            &new.noteable_id,
            &new.author_id,
            &new.body,
            &new.system,
            &new.internal,
            &created,
        ],
        |r| r.i64(0),
    )?;
    Ok(Note {
        id,
        project_id: new.project_id,
        noteable_type: new.noteable_type.to_string(),
        noteable_id: new.noteable_id,
        author_id: new.author_id,
        body: new.body.to_string(),
        system: new.system,
        internal: new.internal,
        created_at: created,
        updated_at: created,
    })
}

/// The note `id` on the noteable, if it is one of its notes.
pub fn find(db: &mut Db, noteable_type: &str, noteable_id: i64, id: i64) -> StoreResult<Option<Note>> {
    db.row(
        &format!("SELECT {COLUMNS} FROM notes WHERE id = $1 AND noteable_type = $2 AND noteable_id = $3"),
        &[&id, &noteable_type, &noteable_id],
        from_row,
    )
}

/// Which notes of a noteable a list shows and in what order.
#[derive(Debug, Clone, Copy)]
pub struct ListQuery<'a> {
    pub noteable_type: &'a str,
    pub noteable_id: i64,
    /// Whether internal notes are shown.
    pub internal: bool,
    /// `created_at` or `updated_at`.
    pub by_updated: bool,
    pub ascending: bool,
    pub limit: i64,
    pub offset: i64,
}

fn filter(query: &ListQuery) -> &'static str {
    if query.internal {
        "WHERE noteable_type = $1 AND noteable_id = $2"
    } else {
        "WHERE noteable_type = $1 AND noteable_id = $2 AND internal = FALSE"
    }
}

/// One page of a noteable's notes.
pub fn list(db: &mut Db, query: &ListQuery) -> StoreResult<Vec<Note>> {
    let direction = if query.ascending { "ASC" } else { "DESC" };
    let column = if query.by_updated { "updated_at" } else { "created_at" };
    db.rows(
        &format!(
            "SELECT {COLUMNS} FROM notes {} ORDER BY {column} {direction}, id {direction} LIMIT $3 OFFSET $4",
            filter(query)
        ),
        &[&query.noteable_type, &query.noteable_id, &query.limit, &query.offset],
        from_row,
    )
}

pub fn count(db: &mut Db, query: &ListQuery) -> StoreResult<i64> {
    db.one(&format!("SELECT count(*) FROM notes {}", filter(query)), &[&query.noteable_type, &query.noteable_id], |r| {
        r.i64(0)
    })
}

/// Writes a note's new body.
pub fn update_body(db: &mut Db, note: &mut Note, body: &str) -> StoreResult<()> {
    note.body = body.to_string();
    note.updated_at = now_millis();
    db.execute("UPDATE notes SET body = $1, updated_at = $2 WHERE id = $3", &[&note.body, &note.updated_at, &note.id])?;
    Ok(())
}

pub fn delete(db: &mut Db, id: i64) -> StoreResult<bool> {
    Ok(db.execute("DELETE FROM notes WHERE id = $1", &[&id])? > 0)
}

/// How many user (non-system) notes each of `ids` has (GitLab's `user_notes_count`), in one
/// query; `internal` counts internal notes too.
pub fn user_notes_counts(
    db: &mut Db,
    noteable_type: &str,
    ids: &[i64],
    internal: bool,
) -> StoreResult<HashMap<i64, i64>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    let internal = if internal { "" } else { " AND internal = FALSE" };
    let rows = db.rows(
        &format!(
            "SELECT noteable_id, count(*) FROM notes WHERE noteable_type = $1 AND noteable_id IN ({}) AND system = FALSE{internal}
             GROUP BY noteable_id",
            list.join(", ")
        ),
        &[&noteable_type],
        |r| Ok((r.i64(0)?, r.i64(1)?)),
    )?;
    Ok(rows.into_iter().collect())
}

/// The project's newest user note (system notes fire no hooks), for a hook test's sample.
pub fn newest(db: &mut Db, project_id: i64) -> StoreResult<Option<Note>> {
    db.row(
        &format!("SELECT {COLUMNS} FROM notes WHERE project_id = $1 AND NOT system ORDER BY id DESC LIMIT 1"),
        &[&project_id],
        from_row,
    )
}
