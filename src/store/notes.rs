//! Notes (issue #40) and their discussions (decisions D10): comments and system notes on any
//! noteable, an `Issue` or `MergeRequest` by its global id, or a `Commit` of a project by its
//! SHA (GitLab's `commit_id`, `noteable_id` NULL). Every note has a 40-hex `discussion_id`; a
//! discussion is the notes of one noteable sharing it, a note made alone (`type` NULL) is its
//! own. `type` is GitLab's STI class (`DiscussionNote`, `DiffNote`), `position` a diff note's
//! position as JSON, `resolved_at`/`resolved_by_id` its resolution. `internal` notes are
//! GitLab's internal (formerly confidential) notes, seen by Reporters and above only.

use super::db::{Db, Param, Row};
use super::error::{StoreError, StoreResult};
use super::labels::now_millis;
use std::collections::HashMap;
use std::io::Read;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub id: i64,
    pub project_id: i64,
    /// `Issue`, `MergeRequest` or `Commit`.
    pub noteable_type: String,
    /// `None` for a note on a commit.
    pub noteable_id: Option<i64>,
    pub author_id: Option<i64>,
    pub body: String,
    pub system: bool,
    pub internal: bool,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    pub updated_at: i64,
    /// `None` (a note alone), `DiscussionNote` or `DiffNote`.
    pub note_type: Option<String>,
    pub discussion_id: String,
    /// The commit of a note on a commit.
    pub commit_id: Option<String>,
    /// A diff note's position, GitLab's `Position#to_h` as JSON.
    pub position: Option<String>,
    pub resolved_at: Option<i64>,
    pub resolved_by_id: Option<i64>,
}

const COLUMNS: &str = "id, project_id, noteable_type, noteable_id, author_id, body, system, internal, created_at, \
     updated_at, type, discussion_id, commit_id, position, resolved_at, resolved_by_id";

fn from_row(row: &Row) -> StoreResult<Note> {
    Ok(Note {
        id: row.i64(0)?,
        project_id: row.i64(1)?,
        noteable_type: row.string(2)?,
        noteable_id: row.opt_i64(3)?,
        author_id: row.opt_i64(4)?,
        body: row.string(5)?,
        system: row.bool(6)?,
        internal: row.bool(7)?,
        created_at: row.i64(8)?,
        updated_at: row.i64(9)?,
        note_type: row.opt_string(10)?,
        discussion_id: row.string(11)?,
        commit_id: row.opt_string(12)?,
        position: row.opt_string(13)?,
        resolved_at: row.opt_i64(14)?,
        resolved_by_id: row.opt_i64(15)?,
    })
}

/// The noteable whose notes a query reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On<'a> {
    /// An issue or merge request: its `noteable_type` and global id.
    Record { noteable_type: &'a str, noteable_id: i64 },
    /// A commit of a project.
    Commit { project_id: i64, commit_id: &'a str },
}

impl On<'_> {
    /// The condition naming the noteable's notes, its parameters numbered from `$first`.
    fn clause(&self, first: usize) -> (String, Vec<&dyn Param>) {
        match self {
            On::Record { noteable_type, noteable_id } => (
                format!("noteable_type = ${first} AND noteable_id = ${}", first + 1),
                vec![noteable_type as &dyn Param, noteable_id as &dyn Param],
            ),
            On::Commit { project_id, commit_id } => (
                format!("noteable_type = 'Commit' AND project_id = ${first} AND commit_id = ${}", first + 1),
                vec![project_id as &dyn Param, commit_id as &dyn Param],
            ),
        }
    }
}

/// A new discussion id: 40 random hex digits (GitLab's is a SHA-1 over a random part).
pub fn new_discussion_id() -> StoreResult<String> {
    let mut random = [0u8; 20];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut random))
        .map_err(|e| StoreError::Failed(Box::new(e)))?;
    Ok(random.iter().map(|b| format!("{b:02x}")).collect())
}

/// What a new note holds.
#[derive(Debug, Clone, Default)]
pub struct NewNote<'a> {
    pub project_id: i64,
    pub noteable_type: &'a str,
    /// `None` for a note on a commit.
    pub noteable_id: Option<i64>,
    pub author_id: Option<i64>,
    pub body: &'a str,
    pub system: bool,
    pub internal: bool,
    /// Milliseconds; now when `None`.
    pub created_at: Option<i64>,
    pub note_type: Option<&'a str>,
    /// The discussion replied to; a new one when `None`.
    pub discussion_id: Option<&'a str>,
    pub commit_id: Option<&'a str>,
    pub position: Option<&'a str>,
}

/// A system note on an issue or a merge request (GitLab's `SystemNoteService`: never internal),
/// by `author_id`, saying `body`.
pub fn insert_system(
    db: &mut Db,
    project_id: i64,
    noteable_type: &str,
    noteable_id: i64,
    author_id: Option<i64>,
    body: &str,
) -> StoreResult<Note> {
    insert(
        db,
        &NewNote {
            project_id,
            noteable_type,
            noteable_id: Some(noteable_id),
            author_id,
            body,
            system: true,
            ..NewNote::default()
        },
    )
}

pub fn insert(db: &mut Db, new: &NewNote) -> StoreResult<Note> {
    let created = new.created_at.unwrap_or_else(now_millis);
    let discussion_id = match new.discussion_id {
        Some(id) => id.to_string(),
        None => new_discussion_id()?,
    };
    let id = db.one(
        "INSERT INTO notes (project_id, noteable_type, noteable_id, author_id, body, system, internal, created_at,
                            updated_at, type, discussion_id, commit_id, position)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10, $11, $12) RETURNING id",
        &[
            &new.project_id,
            &new.noteable_type,
            &new.noteable_id,
            &new.author_id,
            &new.body,
            &new.system,
            &new.internal,
            &created,
            &new.note_type,
            &discussion_id,
            &new.commit_id,
            &new.position,
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
        note_type: new.note_type.map(str::to_string),
        discussion_id,
        commit_id: new.commit_id.map(str::to_string),
        position: new.position.map(str::to_string),
        resolved_at: None,
        resolved_by_id: None,
    })
}

/// The note `id` on the noteable, if it is one of its notes.
pub fn find(db: &mut Db, on: On, id: i64) -> StoreResult<Option<Note>> {
    let (clause, mut params) = on.clause(2);
    params.insert(0, &id);
    db.row(&format!("SELECT {COLUMNS} FROM notes WHERE id = $1 AND {clause}"), &params, from_row)
}

/// Which notes of a noteable a list shows and in what order.
#[derive(Debug, Clone, Copy)]
pub struct ListQuery<'a> {
    pub on: On<'a>,
    /// Whether internal notes are shown.
    pub internal: bool,
    /// `created_at` or `updated_at`.
    pub by_updated: bool,
    pub ascending: bool,
    pub limit: i64,
    pub offset: i64,
}

fn filter<'q>(on: &'q On, internal: bool) -> (String, Vec<&'q dyn Param>) {
    let (clause, params) = on.clause(1);
    let hidden = if internal { "" } else { " AND internal = FALSE" };
    (format!("WHERE {clause}{hidden}"), params)
}

/// One page of a noteable's notes.
pub fn list(db: &mut Db, query: &ListQuery) -> StoreResult<Vec<Note>> {
    let direction = if query.ascending { "ASC" } else { "DESC" };
    let column = if query.by_updated { "updated_at" } else { "created_at" };
    let (filter, mut params) = filter(&query.on, query.internal);
    params.push(&query.limit);
    params.push(&query.offset);
    db.rows(
        &format!(
            "SELECT {COLUMNS} FROM notes {filter} ORDER BY {column} {direction}, id {direction} LIMIT $3 OFFSET $4"
        ),
        &params,
        from_row,
    )
}

pub fn count(db: &mut Db, query: &ListQuery) -> StoreResult<i64> {
    let (filter, params) = filter(&query.on, query.internal);
    db.one(&format!("SELECT count(*) FROM notes {filter}"), &params, |r| r.i64(0))
}

/// One page of a noteable's discussion ids, in the order of their first notes (GitLab's
/// `discussion_ids_relation`: `MIN(created_at), MIN(id)`); `internal` counts discussions of
/// internal notes too.
pub fn discussion_ids(db: &mut Db, on: On, internal: bool, limit: i64, offset: i64) -> StoreResult<Vec<String>> {
    let (filter, mut params) = filter(&on, internal);
    params.push(&limit);
    params.push(&offset);
    db.rows(
        &format!(
            "SELECT discussion_id FROM notes {filter} GROUP BY discussion_id
             ORDER BY MIN(created_at), MIN(id) LIMIT $3 OFFSET $4"
        ),
        &params,
        |r| r.string(0),
    )
}

pub fn count_discussions(db: &mut Db, on: On, internal: bool) -> StoreResult<i64> {
    let (filter, params) = filter(&on, internal);
    db.one(&format!("SELECT count(DISTINCT discussion_id) FROM notes {filter}"), &params, |r| r.i64(0))
}

/// The notes of the noteable's discussions `ids`, oldest first (GitLab's `fresh`).
pub fn of_discussions(db: &mut Db, on: On, ids: &[String]) -> StoreResult<Vec<Note>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let (clause, mut params) = on.clause(1);
    let marks: Vec<String> = (0..ids.len()).map(|i| format!("${}", i + 3)).collect();
    for id in ids {
        params.push(id);
    }
    db.rows(
        &format!(
            "SELECT {COLUMNS} FROM notes WHERE {clause} AND discussion_id IN ({}) ORDER BY created_at, id",
            marks.join(", ")
        ),
        &params,
        from_row,
    )
}

/// Writes a note's new body.
pub fn update_body(db: &mut Db, note: &mut Note, body: &str) -> StoreResult<()> {
    note.body = body.to_string();
    note.updated_at = now_millis();
    db.execute("UPDATE notes SET body = $1, updated_at = $2 WHERE id = $3", &[&note.body, &note.updated_at, &note.id])?;
    Ok(())
}

/// Turns a note made alone into the first note of a discussion (GitLab's
/// `convert_to_discussion!`: its type becomes `DiscussionNote`).
pub fn convert_to_discussion(db: &mut Db, note: &mut Note) -> StoreResult<()> {
    note.note_type = Some("DiscussionNote".into());
    db.execute("UPDATE notes SET type = 'DiscussionNote' WHERE id = $1 AND type IS NULL", &[&note.id])?;
    Ok(())
}

/// Resolves (`Some(user)`) or unresolves (`None`) the notes `ids` that are not so already
/// (GitLab's `resolve!` / `unresolve!` leave a resolved note's resolver alone).
pub fn set_resolved(db: &mut Db, ids: &[i64], by: Option<i64>) -> StoreResult<()> {
    let now = now_millis();
    for id in ids {
        match by {
            Some(user) => db.execute(
                "UPDATE notes SET resolved_at = $1, resolved_by_id = $2 WHERE id = $3 AND resolved_at IS NULL",
                &[&now, &user, id],
            )?,
            None => db.execute(
                "UPDATE notes SET resolved_at = NULL, resolved_by_id = NULL WHERE id = $1 AND resolved_at IS NOT NULL",
                &[id],
            )?,
        };
    }
    Ok(())
}

/// Removes a note and the emoji awarded to it.
pub fn delete(db: &mut Db, id: i64) -> StoreResult<bool> {
    db.execute("DELETE FROM award_emoji WHERE awardable_type = 'Note' AND awardable_id = $1", &[&id])?;
    Ok(db.execute("DELETE FROM notes WHERE id = $1", &[&id])? > 0)
}

/// Removes every note of a noteable and the emoji awarded to them.
pub fn delete_all(db: &mut Db, on: On) -> StoreResult<()> {
    let (clause, params) = on.clause(1);
    db.execute(
        &format!("DELETE FROM award_emoji WHERE awardable_type = 'Note' AND awardable_id IN (SELECT id FROM notes WHERE {clause})"),
        &params,
    )?;
    db.execute(&format!("DELETE FROM notes WHERE {clause}"), &params)?;
    Ok(())
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

/// How many notes each of the merge requests `ids` has that are resolvable and not resolved
/// (GitLab's `unresolved_notes`: user `DiscussionNote`s and `DiffNote`s without `resolved_at`).
pub fn unresolved_counts(db: &mut Db, noteable_type: &str, ids: &[i64]) -> StoreResult<HashMap<i64, i64>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    let rows = db.rows(
        &format!(
            "SELECT noteable_id, count(*) FROM notes WHERE noteable_type = $1 AND noteable_id IN ({})
             AND system = FALSE AND type IN ('DiscussionNote', 'DiffNote') AND resolved_at IS NULL
             GROUP BY noteable_id",
            list.join(", ")
        ),
        &[&noteable_type],
        |r| Ok((r.i64(0)?, r.i64(1)?)),
    )?;
    Ok(rows.into_iter().collect())
}
