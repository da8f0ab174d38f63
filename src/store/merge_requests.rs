//! Merge requests (decisions D10): one row per merge request, numbered by its own iid sequence
//! per target project (`merge_request_iids`, GitLab's `internal_ids` for merge requests), with
//! its latest diff version's SHAs beside its state; every version is a row of
//! `merge_request_diffs`; assignees and reviewers are rows of their own. One open merge request
//! per source and target branch is the partial unique index `merge_requests_one_open` (a race
//! lost to it is the store's `Conflict`). Times are milliseconds since the epoch. What a row
//! means for a request (permissions, entities, git) is the API's and the refresh listener's.

use super::db::{Db, Dialect, Param, Row};
use super::error::StoreResult;
use std::collections::HashMap;

/// The states of GitLab's state machine.
pub const STATES: [&str; 4] = ["opened", "closed", "locked", "merged"];

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MergeRequest {
    pub id: i64,
    pub iid: i64,
    pub target_project_id: i64,
    /// `None`: the source project was deleted.
    pub source_project_id: Option<i64>,
    pub source_branch: String,
    pub target_branch: String,
    pub title: String,
    pub description: Option<String>,
    /// `opened`, `closed`, `locked` or `merged`.
    pub state: String,
    pub author_id: Option<i64>,
    pub draft: bool,
    pub squash: bool,
    /// Create's `remove_source_branch` (GitLab's merge param `force_remove_source_branch`).
    pub force_remove_source_branch: bool,
    /// What the merge call asked (`should_remove_source_branch`); `None` until then.
    pub should_remove_source_branch: Option<bool>,
    pub merged_by_id: Option<i64>,
    pub merged_at: Option<i64>,
    pub closed_by_id: Option<i64>,
    pub closed_at: Option<i64>,
    pub merge_commit_sha: Option<String>,
    pub squash_commit_sha: Option<String>,
    pub merge_error: Option<String>,
    /// The latest diff version's head, merge base and target head; `None` before the first.
    pub head_sha: Option<String>,
    pub base_sha: Option<String>,
    pub start_sha: Option<String>,
    /// Files changed in the latest version.
    pub changes_count: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    /// User ids, in the order they were given.
    pub assignees: Vec<i64>,
    pub reviewers: Vec<i64>,
}

impl MergeRequest {
    pub fn is_open(&self) -> bool {
        self.state == "opened"
    }
}

/// One diff version (GitLab's `MergeRequestDiff`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub id: i64,
    pub merge_request_id: i64,
    pub head_sha: String,
    pub base_sha: Option<String>,
    pub start_sha: Option<String>,
    /// `collected`, or `empty` for a version without commits.
    pub state: String,
    pub files_count: i64,
    pub commits_count: i64,
    pub created_at: i64,
}

const COLUMNS: &str = "id, iid, target_project_id, source_project_id, source_branch, target_branch, title, \
                       description, state, author_id, draft, squash, force_remove_source_branch, \
                       should_remove_source_branch, merged_by_id, merged_at, closed_by_id, closed_at, \
                       merge_commit_sha, squash_commit_sha, merge_error, head_sha, base_sha, start_sha, \
                       changes_count, created_at, updated_at";

fn from_row(row: &Row) -> StoreResult<MergeRequest> {
    Ok(MergeRequest {
        id: row.i64(0)?,
        iid: row.i64(1)?,
        target_project_id: row.i64(2)?,
        source_project_id: row.opt_i64(3)?,
        source_branch: row.string(4)?,
        target_branch: row.string(5)?,
        title: row.string(6)?,
        description: row.opt_string(7)?,
        state: row.string(8)?,
        author_id: row.opt_i64(9)?,
        draft: row.bool(10)?,
        squash: row.bool(11)?,
        force_remove_source_branch: row.bool(12)?,
        should_remove_source_branch: row.opt_bool(13)?,
        merged_by_id: row.opt_i64(14)?,
        merged_at: row.opt_i64(15)?,
        closed_by_id: row.opt_i64(16)?,
        closed_at: row.opt_i64(17)?,
        merge_commit_sha: row.opt_string(18)?,
        squash_commit_sha: row.opt_string(19)?,
        merge_error: row.opt_string(20)?,
        head_sha: row.opt_string(21)?,
        base_sha: row.opt_string(22)?,
        start_sha: row.opt_string(23)?,
        changes_count: row.opt_i64(24)?,
        created_at: row.i64(25)?,
        updated_at: row.i64(26)?,
        assignees: Vec::new(),
        reviewers: Vec::new(),
    })
}

/// Milliseconds since the Unix epoch.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// The next iid of the target project's merge requests: one upsert, which on PostgreSQL holds
/// the sequence row's lock until the creating transaction ends, so concurrent creates get
/// distinct, gapless numbers.
pub fn next_iid(db: &mut Db, project_id: i64) -> StoreResult<i64> {
    db.one(
        "INSERT INTO merge_request_iids (project_id, last_value) VALUES ($1, 1)
         ON CONFLICT (project_id) DO UPDATE SET last_value = merge_request_iids.last_value + 1
         RETURNING last_value",
        &[&project_id],
        |r| r.i64(0),
    )
}

/// Adds `mr` (its `id` and `iid` are given here) with its assignees and reviewers; the open
/// duplicate of its branches is the store's `Conflict`.
pub fn insert(db: &mut Db, mr: &MergeRequest) -> StoreResult<MergeRequest> {
    let iid = next_iid(db, mr.target_project_id)?;
    let id = db.one(
        "INSERT INTO merge_requests (iid, target_project_id, source_project_id, source_branch, target_branch,
             title, description, state, author_id, draft, squash, force_remove_source_branch, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id",
        &[
            &iid,
            &mr.target_project_id,
            &mr.source_project_id,
            &mr.source_branch,
            &mr.target_branch,
            &mr.title,
            &mr.description,
            &mr.state,
            &mr.author_id,
            &mr.draft,
            &mr.squash,
            &mr.force_remove_source_branch,
            &mr.created_at,
            &mr.updated_at,
        ],
        |r| r.i64(0),
    )?;
    let inserted = MergeRequest { id, iid, ..mr.clone() };
    set_assignees(db, id, &inserted.assignees)?;
    set_reviewers(db, id, &inserted.reviewers, inserted.created_at)?;
    Ok(inserted)
}

/// Writes every changeable field of `mr` back (not its iid, projects or creation time).
pub fn update(db: &mut Db, mr: &MergeRequest) -> StoreResult<()> {
    db.execute(
        "UPDATE merge_requests SET source_branch = $2, target_branch = $3, title = $4, description = $5, state = $6,
             draft = $7, squash = $8, force_remove_source_branch = $9, should_remove_source_branch = $10,
             merged_by_id = $11, merged_at = $12, closed_by_id = $13, closed_at = $14, merge_commit_sha = $15,
             squash_commit_sha = $16, merge_error = $17, head_sha = $18, base_sha = $19, start_sha = $20,
             changes_count = $21, updated_at = $22
         WHERE id = $1",
        &[
            &mr.id,
            &mr.source_branch,
            &mr.target_branch,
            &mr.title,
            &mr.description,
            &mr.state,
            &mr.draft,
            &mr.squash,
            &mr.force_remove_source_branch,
            &mr.should_remove_source_branch,
            &mr.merged_by_id,
            &mr.merged_at,
            &mr.closed_by_id,
            &mr.closed_at,
            &mr.merge_commit_sha,
            &mr.squash_commit_sha,
            &mr.merge_error,
            &mr.head_sha,
            &mr.base_sha,
            &mr.start_sha,
            &mr.changes_count,
            &mr.updated_at,
        ],
    )?;
    Ok(())
}

pub fn set_assignees(db: &mut Db, id: i64, users: &[i64]) -> StoreResult<()> {
    db.execute("DELETE FROM merge_request_assignees WHERE merge_request_id = $1", &[&id])?;
    for (position, user) in users.iter().enumerate() {
        db.execute(
            "INSERT INTO merge_request_assignees (merge_request_id, user_id, position) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING",
            &[&id, user, &(position as i64)],
        )?;
    }
    Ok(())
}

/// Sets the reviewers; those already reviewing keep their state and time.
pub fn set_reviewers(db: &mut Db, id: i64, users: &[i64], now: i64) -> StoreResult<()> {
    let kept: Vec<String> = users.iter().map(i64::to_string).collect();
    let keep = if kept.is_empty() { String::new() } else { format!(" AND user_id NOT IN ({})", kept.join(", ")) };
    db.execute(&format!("DELETE FROM merge_request_reviewers WHERE merge_request_id = $1{keep}"), &[&id])?;
    for user in users {
        db.execute(
            "INSERT INTO merge_request_reviewers (merge_request_id, user_id, state, created_at)
             VALUES ($1, $2, 'unreviewed', $3) ON CONFLICT DO NOTHING",
            &[&id, user, &now],
        )?;
    }
    Ok(())
}

/// The reviewers of a merge request: user id, state, when added; in the order they were added.
pub fn reviewer_rows(db: &mut Db, id: i64) -> StoreResult<Vec<(i64, String, i64)>> {
    db.rows(
        "SELECT user_id, state, created_at FROM merge_request_reviewers WHERE merge_request_id = $1
         ORDER BY created_at, user_id",
        &[&id],
        |r| Ok((r.i64(0)?, r.string(1)?, r.i64(2)?)),
    )
}

/// Fills the assignees and reviewers of `mrs`, two statements for the lot.
fn with_people(db: &mut Db, mut mrs: Vec<MergeRequest>) -> StoreResult<Vec<MergeRequest>> {
    if mrs.is_empty() {
        return Ok(mrs);
    }
    let ids: Vec<String> = mrs.iter().map(|m| m.id.to_string()).collect();
    let ids = ids.join(", ");
    let mut assignees: HashMap<i64, Vec<i64>> = HashMap::new();
    for (mr, user) in db.rows(
        &format!(
            "SELECT merge_request_id, user_id FROM merge_request_assignees WHERE merge_request_id IN ({ids})
             ORDER BY merge_request_id, position"
        ),
        &[],
        |r| Ok((r.i64(0)?, r.i64(1)?)),
    )? {
        assignees.entry(mr).or_default().push(user);
    }
    let mut reviewers: HashMap<i64, Vec<i64>> = HashMap::new();
    for (mr, user) in db.rows(
        &format!(
            "SELECT merge_request_id, user_id FROM merge_request_reviewers WHERE merge_request_id IN ({ids})
             ORDER BY merge_request_id, created_at, user_id"
        ),
        &[],
        |r| Ok((r.i64(0)?, r.i64(1)?)),
    )? {
        reviewers.entry(mr).or_default().push(user);
    }
    for mr in &mut mrs {
        mr.assignees = assignees.remove(&mr.id).unwrap_or_default();
        mr.reviewers = reviewers.remove(&mr.id).unwrap_or_default();
    }
    Ok(mrs)
}

fn one_with_people(db: &mut Db, mr: Option<MergeRequest>) -> StoreResult<Option<MergeRequest>> {
    Ok(with_people(db, mr.into_iter().collect())?.pop())
}

/// The merge request `iid` of the target project.
pub fn find(db: &mut Db, project_id: i64, iid: i64) -> StoreResult<Option<MergeRequest>> {
    let mr = db.row(
        &format!("SELECT {COLUMNS} FROM merge_requests WHERE target_project_id = $1 AND iid = $2"),
        &[&project_id, &iid],
        from_row,
    )?;
    one_with_people(db, mr)
}

/// The merge request `id` as it is now, its row locked until the transaction ends (on
/// PostgreSQL; SQLite's write transactions hold the whole database): what a change reads
/// before it writes every field back, so that a racing refresh or update is never lost.
pub fn find_for_update(db: &mut Db, id: i64) -> StoreResult<Option<MergeRequest>> {
    let lock = if db.dialect() == Dialect::Postgres { " FOR UPDATE" } else { "" };
    let mr = db.row(&format!("SELECT {COLUMNS} FROM merge_requests WHERE id = $1{lock}"), &[&id], from_row)?;
    one_with_people(db, mr)
}

pub fn find_by_id(db: &mut Db, id: i64) -> StoreResult<Option<MergeRequest>> {
    let mr = db.row(&format!("SELECT {COLUMNS} FROM merge_requests WHERE id = $1"), &[&id], from_row)?;
    one_with_people(db, mr)
}

/// The open merge request from `source_branch` of `source_project_id` into `target_branch`
/// of `target_project_id`, but `except` (the one being changed).
pub fn find_open(
    db: &mut Db,
    source_project_id: Option<i64>,
    source_branch: &str,
    target_project_id: i64,
    target_branch: &str,
    except: Option<i64>,
) -> StoreResult<Option<MergeRequest>> {
    db.row(
        &format!(
            "SELECT {COLUMNS} FROM merge_requests WHERE source_project_id = $1 AND source_branch = $2
             AND target_project_id = $3 AND target_branch = $4 AND state = 'opened' AND id IS DISTINCT FROM $5"
        ),
        &[&source_project_id, &source_branch, &target_project_id, &target_branch, &except],
        from_row,
    )
}

/// Removes a merge request with its notes and award emoji.
pub fn delete(db: &mut Db, id: i64) -> StoreResult<bool> {
    super::notes::delete_all(db, super::notes::On::Record { noteable_type: "MergeRequest", noteable_id: id })?;
    super::award_emoji::delete_all(db, "MergeRequest", id)?;
    Ok(db.execute("DELETE FROM merge_requests WHERE id = $1", &[&id])? > 0)
}

/// The open merge requests a move of `branches` in `project_id` touches: those whose source
/// branch is there (source side) or whose target branch is (target side).
pub fn touched(db: &mut Db, project_id: i64, branches: &[String]) -> StoreResult<Vec<MergeRequest>> {
    if branches.is_empty() {
        return Ok(Vec::new());
    }
    let mut binds: Vec<&dyn Param> = vec![&project_id];
    let mut marks = Vec::new();
    for (i, branch) in branches.iter().enumerate() {
        binds.push(branch);
        marks.push(format!("${}", i + 2));
    }
    let marks = marks.join(", ");
    // Locked as `find_for_update` locks one: the refresh writes each back.
    let lock = if db.dialect() == Dialect::Postgres { " FOR UPDATE" } else { "" };
    let mrs = db.rows(
        &format!(
            "SELECT {COLUMNS} FROM merge_requests WHERE state IN ('opened', 'locked') AND (
                 (source_project_id = $1 AND source_branch IN ({marks}))
                 OR (target_project_id = $1 AND target_branch IN ({marks})))
             ORDER BY id{lock}"
        ),
        &binds,
        from_row,
    )?;
    with_people(db, mrs)
}

/// Records a new diff version of merge request `id` and makes it the latest.
pub fn add_version(db: &mut Db, version: &Version) -> StoreResult<Version> {
    let id = db.one(
        "INSERT INTO merge_request_diffs (merge_request_id, head_sha, base_sha, start_sha, state, files_count,
             commits_count, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
        &[
            &version.merge_request_id,
            &version.head_sha,
            &version.base_sha,
            &version.start_sha,
            &version.state,
            &version.files_count,
            &version.commits_count,
            &version.created_at,
        ],
        |r| r.i64(0),
    )?;
    Ok(Version { id, ..version.clone() })
}

const VERSION_COLUMNS: &str =
    "id, merge_request_id, head_sha, base_sha, start_sha, state, files_count, commits_count, created_at";

fn version_from_row(row: &Row) -> StoreResult<Version> {
    Ok(Version {
        id: row.i64(0)?,
        merge_request_id: row.i64(1)?,
        head_sha: row.string(2)?,
        base_sha: row.opt_string(3)?,
        start_sha: row.opt_string(4)?,
        state: row.string(5)?,
        files_count: row.i64(6)?,
        commits_count: row.i64(7)?,
        created_at: row.i64(8)?,
    })
}

/// Every version of a merge request, newest first (GitLab's `merge_request_diffs.viewable.order_id_desc`).
pub fn versions(db: &mut Db, merge_request_id: i64) -> StoreResult<Vec<Version>> {
    db.rows(
        &format!("SELECT {VERSION_COLUMNS} FROM merge_request_diffs WHERE merge_request_id = $1 ORDER BY id DESC"),
        &[&merge_request_id],
        version_from_row,
    )
}

pub fn version(db: &mut Db, merge_request_id: i64, id: i64) -> StoreResult<Option<Version>> {
    db.row(
        &format!("SELECT {VERSION_COLUMNS} FROM merge_request_diffs WHERE merge_request_id = $1 AND id = $2"),
        &[&merge_request_id, &id],
        version_from_row,
    )
}

/// `None`/`Any`/one user, as GitLab's `assignee_id` and `reviewer_id` filters take them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Who {
    None,
    Any,
    Users(Vec<i64>),
}

/// The list orders GitLab offers that are stored here (the others order by creation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    #[default]
    CreatedAt,
    UpdatedAt,
    MergedAt,
    Title,
}

/// What a merge request list selects.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// The target projects listed from (`None`: any).
    pub projects: Option<Vec<i64>>,
    pub states: Option<Vec<String>>,
    pub source_branch: Option<String>,
    pub target_branch: Option<String>,
    pub source_project_id: Option<i64>,
    pub author: Option<i64>,
    pub assignee: Option<Who>,
    pub reviewer: Option<Who>,
    /// Searched in lower case, in the title and/or the description.
    pub search: Option<String>,
    pub search_title: bool,
    pub search_description: bool,
    pub iids: Option<Vec<i64>>,
    pub created_after: Option<i64>,
    pub created_before: Option<i64>,
    pub updated_after: Option<i64>,
    pub updated_before: Option<i64>,
    pub merged_after: Option<i64>,
    pub merged_before: Option<i64>,
    pub draft: Option<bool>,
    pub not_author: Option<i64>,
    pub not_assignee: Option<Vec<i64>>,
    pub not_reviewer: Option<Vec<i64>>,
    pub not_source_branch: Option<String>,
    pub not_target_branch: Option<String>,
    pub not_iids: Option<Vec<i64>>,
    /// Every one of these label titles (`None`/`Any` as GitLab's), and none of `not_labels`.
    pub labels: Option<Vec<String>>,
    pub not_labels: Option<Vec<String>>,
    /// Only these head or merge commits (`repository/commits/:sha/merge_requests`).
    pub commit_sha: Option<String>,
    pub order: Order,
    pub ascending: bool,
    pub limit: i64,
    pub offset: i64,
}

/// A bound value of a built statement.
enum Bind {
    Int(i64),
    Text(String),
    Bool(bool),
    Boxed(Box<dyn Param>),
}

impl Bind {
    fn param(&self) -> &dyn Param {
        match self {
            Bind::Int(v) => v,
            Bind::Text(v) => v,
            Bind::Bool(v) => v,
            Bind::Boxed(v) => v.as_ref(),
        }
    }
}

fn id_list(ids: &[i64]) -> String {
    if ids.is_empty() {
        "NULL".into()
    } else {
        ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
    }
}

fn who_clause(table: &str, who: &Who) -> String {
    let any = format!("EXISTS (SELECT 1 FROM {table} w WHERE w.merge_request_id = m.id");
    match who {
        Who::None => format!("NOT {any})"),
        Who::Any => format!("{any})"),
        // Every one of them (GitLab's `assignee_username[]` is an AND).
        Who::Users(ids) if ids.is_empty() => "1 = 1".into(),
        Who::Users(ids) => {
            ids.iter().map(|id| format!("{any} AND w.user_id = {id})")).collect::<Vec<_>>().join(" AND ")
        }
    }
}

fn filter(query: &ListQuery) -> (String, Vec<Bind>) {
    let mut binds = Vec::new();
    let mut at = |value: Bind| {
        binds.push(value);
        format!("${}", binds.len())
    };
    let mut conditions = Vec::new();
    if let Some(projects) = &query.projects {
        conditions.push(format!("m.target_project_id IN ({})", id_list(projects)));
    }
    if let Some(states) = &query.states {
        let marks: Vec<String> = states.iter().map(|s| at(Bind::Text(s.clone()))).collect();
        conditions.push(format!("m.state IN ({})", marks.join(", ")));
    }
    if let Some(branch) = &query.source_branch {
        conditions.push(format!("m.source_branch = {}", at(Bind::Text(branch.clone()))));
    }
    if let Some(branch) = &query.target_branch {
        conditions.push(format!("m.target_branch = {}", at(Bind::Text(branch.clone()))));
    }
    if let Some(id) = query.source_project_id {
        conditions.push(format!("m.source_project_id = {}", at(Bind::Int(id))));
    }
    if let Some(id) = query.author {
        conditions.push(format!("m.author_id = {}", at(Bind::Int(id))));
    }
    if let Some(who) = &query.assignee {
        conditions.push(who_clause("merge_request_assignees", who));
    }
    if let Some(who) = &query.reviewer {
        conditions.push(who_clause("merge_request_reviewers", who));
    }
    if let Some(search) = &query.search {
        let pattern = at(Bind::Text(super::db::like_pattern(search)));
        let mut parts = Vec::new();
        if query.search_title {
            parts.push(format!("lower(m.title) LIKE {pattern} ESCAPE '\\'"));
        }
        if query.search_description {
            parts.push(format!("lower(COALESCE(m.description, '')) LIKE {pattern} ESCAPE '\\'"));
        }
        conditions.push(if parts.is_empty() { "1 = 0".into() } else { format!("({})", parts.join(" OR ")) });
    }
    if let Some(iids) = &query.iids {
        conditions.push(format!("m.iid IN ({})", id_list(iids)));
    }
    for (column, bound, op) in [
        ("created_at", query.created_after, ">="),
        ("created_at", query.created_before, "<="),
        ("updated_at", query.updated_after, ">="),
        ("updated_at", query.updated_before, "<="),
        ("merged_at", query.merged_after, ">="),
        ("merged_at", query.merged_before, "<="),
    ] {
        if let Some(time) = bound {
            conditions.push(format!("m.{column} {op} {}", at(Bind::Int(time))));
        }
    }
    if let Some(draft) = query.draft {
        conditions.push(format!("m.draft = {}", at(Bind::Bool(draft))));
    }
    if let Some(id) = query.not_author {
        conditions.push(format!("m.author_id IS DISTINCT FROM {}", at(Bind::Int(id))));
    }
    if let Some(ids) = &query.not_assignee {
        conditions.push(format!(
            "NOT EXISTS (SELECT 1 FROM merge_request_assignees w WHERE w.merge_request_id = m.id AND w.user_id IN ({}))",
            id_list(ids)
        ));
    }
    if let Some(ids) = &query.not_reviewer {
        conditions.push(format!(
            "NOT EXISTS (SELECT 1 FROM merge_request_reviewers w WHERE w.merge_request_id = m.id AND w.user_id IN ({}))",
            id_list(ids)
        ));
    }
    if let Some(branch) = &query.not_source_branch {
        conditions.push(format!("m.source_branch <> {}", at(Bind::Text(branch.clone()))));
    }
    if let Some(branch) = &query.not_target_branch {
        conditions.push(format!("m.target_branch <> {}", at(Bind::Text(branch.clone()))));
    }
    if let Some(iids) = &query.not_iids {
        conditions.push(format!("m.iid NOT IN ({})", id_list(iids)));
    }
    if let Some(sha) = &query.commit_sha {
        let sha = at(Bind::Text(sha.clone()));
        conditions.push(format!("(m.head_sha = {sha} OR m.merge_commit_sha = {sha} OR m.squash_commit_sha = {sha})"));
    }
    for (titles, negated) in [(&query.labels, false), (&query.not_labels, true)] {
        let Some(titles) = titles else { continue };
        // The labels' own condition numbers its parameters after those bound so far.
        let mut boxed: Vec<Box<dyn Param>> = (0..binds.len()).map(|_| Box::new(0i64) as Box<dyn Param>).collect();
        let condition = if negated {
            let any: Vec<String> = titles
                .iter()
                .map(|t| {
                    super::labels::filter_sql(
                        super::labels::TargetType::MergeRequest,
                        "m.id",
                        std::slice::from_ref(t),
                        &mut boxed,
                    )
                })
                .map(|c| format!("NOT ({c})"))
                .collect();
            if any.is_empty() {
                "1 = 1".to_string()
            } else {
                any.join(" AND ")
            }
        } else {
            super::labels::filter_sql(super::labels::TargetType::MergeRequest, "m.id", titles, &mut boxed)
        };
        let bound = binds.len();
        binds.extend(boxed.into_iter().skip(bound).map(Bind::Boxed));
        conditions.push(format!("({condition})"));
    }
    let text = if conditions.is_empty() { String::new() } else { format!("WHERE {}", conditions.join(" AND ")) };
    (text, binds)
}

/// One page of the merge requests `query` selects, in its order (ties by id, the same way).
pub fn list(db: &mut Db, query: &ListQuery) -> StoreResult<Vec<MergeRequest>> {
    let (filter, binds) = filter(query);
    let direction = if query.ascending { "ASC" } else { "DESC" };
    let order = match query.order {
        Order::CreatedAt => format!("m.created_at {direction}, m.id {direction}"),
        Order::UpdatedAt => format!("m.updated_at {direction}, m.id {direction}"),
        // GitLab puts merge requests never merged last either way.
        Order::MergedAt => format!("m.merged_at IS NULL, m.merged_at {direction}, m.id {direction}"),
        Order::Title => format!("lower(m.title) {direction}, m.id {direction}"),
    };
    let columns: Vec<String> = COLUMNS.split(", ").map(|c| format!("m.{}", c.trim())).collect();
    let sql = format!(
        "SELECT {} FROM merge_requests m {filter} ORDER BY {order} LIMIT {} OFFSET {}",
        columns.join(", "),
        query.limit.max(0),
        query.offset.max(0)
    );
    let params: Vec<&dyn Param> = binds.iter().map(Bind::param).collect();
    let mrs = db.rows(&sql, &params, from_row)?;
    with_people(db, mrs)
}

pub fn count(db: &mut Db, query: &ListQuery) -> StoreResult<i64> {
    let (filter, binds) = filter(query);
    let params: Vec<&dyn Param> = binds.iter().map(Bind::param).collect();
    db.one(&format!("SELECT count(*) FROM merge_requests m {filter}"), &params, |r| r.i64(0))
}

/// The target projects of the merge requests `query` selects without its project filter: the
/// candidates a list across projects checks for visibility.
pub fn target_projects(db: &mut Db, query: &ListQuery) -> StoreResult<Vec<i64>> {
    let (filter, binds) = filter(&ListQuery { projects: None, ..query.clone() });
    let params: Vec<&dyn Param> = binds.iter().map(Bind::param).collect();
    db.rows(
        &format!("SELECT DISTINCT m.target_project_id FROM merge_requests m {filter} ORDER BY m.target_project_id"),
        &params,
        |r| r.i64(0),
    )
}

/// The project's newest merge request (as target), for a hook test's sample.
pub fn newest(db: &mut Db, project_id: i64) -> StoreResult<Option<MergeRequest>> {
    let mr = db.row(
        &format!("SELECT {COLUMNS} FROM merge_requests WHERE target_project_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1"),
        &[&project_id],
        from_row,
    )?;
    one_with_people(db, mr)
}
