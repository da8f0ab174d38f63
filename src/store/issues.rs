//! Issues (issue #40): per project, numbered by `iid` from the project's own counter in
//! `internal_ids` (usage `issues`, shared with nothing else), with their assignees. Their labels
//! are `labels`' links (target `Issue`), their notes `notes`' rows (noteable `Issue`).
//!
//! A list is one query for the page and one for the count, filtered in SQL (state, author,
//! assignee, iids, search, labels, times, confidentiality as the caller may see it) and ordered
//! by an indexed column with the id as tie-breaker: `(project_id, state, created_at, id)` and
//! `(project_id, created_at, id)` / `(project_id, updated_at, id)` serve a project's pages.

use super::db::{like_pattern, Db, Param, Row};
use super::error::StoreResult;
use super::labels::{self, TargetType};
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub id: i64,
    pub project_id: i64,
    pub iid: i64,
    pub author_id: Option<i64>,
    pub title: String,
    pub description: Option<String>,
    /// `opened` or `closed`.
    pub state: String,
    pub confidential: bool,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    pub updated_at: i64,
    pub closed_at: Option<i64>,
    pub closed_by_id: Option<i64>,
}

const COLUMNS: &str =
    "id, project_id, iid, author_id, title, description, state, confidential, created_at, updated_at, closed_at, closed_by_id";

fn from_row(row: &Row) -> StoreResult<Issue> {
    Ok(Issue {
        id: row.i64(0)?,
        project_id: row.i64(1)?,
        iid: row.i64(2)?,
        author_id: row.opt_i64(3)?,
        title: row.string(4)?,
        description: row.opt_string(5)?,
        state: row.string(6)?,
        confidential: row.bool(7)?,
        created_at: row.i64(8)?,
        updated_at: row.i64(9)?,
        closed_at: row.opt_i64(10)?,
        closed_by_id: row.opt_i64(11)?,
    })
}

fn prefixed(prefix: &str) -> String {
    COLUMNS.split(',').map(|c| format!("{prefix}{}", c.trim())).collect::<Vec<_>>().join(", ")
}

/// The next internal id of `usage` (`issues`, `merge_requests`) in the project: one more than
/// the last one handed out. The counter row is written by the statement that reads it, so on
/// PostgreSQL a concurrent create waits for this transaction and takes the next number.
pub fn next_internal_id(db: &mut Db, project_id: i64, usage: &str) -> StoreResult<i64> {
    db.one(
        "INSERT INTO internal_ids (project_id, usage, last_value) VALUES ($1, $2, 1)
         ON CONFLICT (project_id, usage) DO UPDATE SET last_value = internal_ids.last_value + 1
         RETURNING last_value",
        &[&project_id, &usage],
        |r| r.i64(0),
    )
}

/// Moves the counter of `usage` to at least `value` (an `iid` set by hand).
pub fn track_internal_id(db: &mut Db, project_id: i64, usage: &str, value: i64) -> StoreResult<()> {
    db.execute(
        "INSERT INTO internal_ids (project_id, usage, last_value) VALUES ($1, $2, $3)
         ON CONFLICT (project_id, usage) DO UPDATE SET last_value =
             CASE WHEN internal_ids.last_value < $3 THEN $3 ELSE internal_ids.last_value END",
        &[&project_id, &usage, &value],
    )?;
    Ok(())
}

/// What a new issue holds.
#[derive(Debug, Clone, Default)]
pub struct NewIssue {
    pub project_id: i64,
    /// Set by hand (administrators and owners); otherwise the project's next.
    pub iid: Option<i64>,
    pub author_id: Option<i64>,
    pub title: String,
    pub description: Option<String>,
    pub confidential: bool,
    /// Milliseconds; now when `None`.
    pub created_at: Option<i64>,
}

/// Adds an issue (opened); an `iid` the project has already is the store's `Conflict`.
pub fn insert(db: &mut Db, new: &NewIssue) -> StoreResult<Issue> {
    let iid = match new.iid {
        Some(iid) => {
            track_internal_id(db, new.project_id, "issues", iid)?;
            iid
        }
        None => next_internal_id(db, new.project_id, "issues")?,
    };
    let now = labels::now_millis();
    let created = new.created_at.unwrap_or(now);
    let id = db.one(
        "INSERT INTO issues (project_id, iid, author_id, title, description, state, confidential, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'opened', $6, $7, $7) RETURNING id",
        &[&new.project_id, &iid, &new.author_id, &new.title, &new.description, &new.confidential, &created],
        |r| r.i64(0),
    )?;
    Ok(Issue {
        id,
        project_id: new.project_id,
        iid,
        author_id: new.author_id,
        title: new.title.clone(),
        description: new.description.clone(),
        state: "opened".into(),
        confidential: new.confidential,
        created_at: created,
        updated_at: created,
        closed_at: None,
        closed_by_id: None,
    })
}

pub fn find_by_iid(db: &mut Db, project_id: i64, iid: i64) -> StoreResult<Option<Issue>> {
    db.row(&format!("SELECT {COLUMNS} FROM issues WHERE project_id = $1 AND iid = $2"), &[&project_id, &iid], from_row)
}

pub fn find_by_id(db: &mut Db, id: i64) -> StoreResult<Option<Issue>> {
    db.row(&format!("SELECT {COLUMNS} FROM issues WHERE id = $1"), &[&id], from_row)
}

/// Writes `issue`'s title, description, state, confidentiality and close fields, and
/// `updated_at` (now unless given).
pub fn update(db: &mut Db, issue: &mut Issue, updated_at: Option<i64>) -> StoreResult<()> {
    issue.updated_at = updated_at.unwrap_or_else(labels::now_millis);
    db.execute(
        "UPDATE issues SET title = $1, description = $2, state = $3, confidential = $4, updated_at = $5,
         closed_at = $6, closed_by_id = $7 WHERE id = $8",
        &[
            &issue.title,
            &issue.description,
            &issue.state,
            &issue.confidential,
            &issue.updated_at,
            &issue.closed_at,
            &issue.closed_by_id,
            &issue.id,
        ],
    )?;
    Ok(())
}

/// Moves `updated_at` to now (a label or assignee changed, a note was added).
pub fn touch(db: &mut Db, id: i64) -> StoreResult<i64> {
    let now = labels::now_millis();
    db.execute("UPDATE issues SET updated_at = $1 WHERE id = $2", &[&now, &id])?;
    Ok(now)
}

/// Removes an issue with its assignees, label links, notes and award emoji.
pub fn delete(db: &mut Db, issue: &Issue) -> StoreResult<()> {
    labels::unlink_all(db, labels::Target { kind: TargetType::Issue, id: issue.id })?;
    super::notes::delete_all(db, super::notes::On::Record { noteable_type: "Issue", noteable_id: issue.id })?;
    super::award_emoji::delete_all(db, "Issue", issue.id)?;
    db.execute("DELETE FROM issue_assignees WHERE issue_id = $1", &[&issue.id])?;
    db.execute("DELETE FROM issues WHERE id = $1", &[&issue.id])?;
    Ok(())
}

/// The assignees (user ids, in the order assigned: by user id) of each of `ids`, in one query.
pub fn assignees_of(db: &mut Db, ids: &[i64]) -> StoreResult<HashMap<i64, Vec<i64>>> {
    let mut out: HashMap<i64, Vec<i64>> = HashMap::new();
    if ids.is_empty() {
        return Ok(out);
    }
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    let rows = db.rows(
        &format!(
            "SELECT issue_id, user_id FROM issue_assignees WHERE issue_id IN ({}) ORDER BY issue_id, user_id",
            list.join(", ")
        ),
        &[],
        |r| Ok((r.i64(0)?, r.i64(1)?)),
    )?;
    for (issue, user) in rows {
        out.entry(issue).or_default().push(user);
    }
    Ok(out)
}

/// Replaces the assignees of an issue.
pub fn set_assignees(db: &mut Db, issue_id: i64, user_ids: &[i64]) -> StoreResult<()> {
    db.execute("DELETE FROM issue_assignees WHERE issue_id = $1", &[&issue_id])?;
    for user in user_ids {
        db.execute(
            "INSERT INTO issue_assignees (issue_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[&issue_id, user],
        )?;
    }
    Ok(())
}

/// GitLab's `None` / `Any` / an id, for `assignee_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assignee {
    None,
    Any,
    Id(i64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    #[default]
    CreatedAt,
    UpdatedAt,
    Title,
}

impl Order {
    fn column(self) -> &'static str {
        match self {
            Order::CreatedAt => "i.created_at",
            Order::UpdatedAt => "i.updated_at",
            Order::Title => "i.title",
        }
    }
}

/// Which issues a list holds, for whom, and which page.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// Only issues of these projects (`None`: of every project, for administrators).
    pub project_ids: Option<Vec<i64>>,
    /// The caller, who sees the confidential issues they wrote or are assigned to.
    pub viewer: Option<i64>,
    /// The caller sees every confidential issue of the listed projects.
    pub all_confidential: bool,
    /// Projects among those where the caller sees every confidential issue (Reporters+).
    pub confidential_projects: Vec<i64>,
    pub state: Option<String>,
    pub author_id: Option<i64>,
    pub assignee: Option<Assignee>,
    pub iids: Option<Vec<i64>>,
    /// A search term, and whether it is looked for in the title and in the description.
    pub search: Option<(String, bool, bool)>,
    pub labels: Vec<String>,
    pub confidential: Option<bool>,
    pub created_after: Option<i64>,
    pub created_before: Option<i64>,
    pub updated_after: Option<i64>,
    pub updated_before: Option<i64>,
    pub order: Order,
    pub ascending: bool,
    pub limit: i64,
    pub offset: i64,
}

fn list_filter(query: &ListQuery) -> (String, Vec<Box<dyn Param>>) {
    let mut params: Vec<Box<dyn Param>> = Vec::new();
    let mut conditions: Vec<String> = Vec::new();
    fn bind(params: &mut Vec<Box<dyn Param>>, value: Box<dyn Param>) -> String {
        params.push(value);
        format!("${}", params.len())
    }
    if let Some(ids) = &query.project_ids {
        let list: Vec<String> = ids.iter().map(i64::to_string).collect();
        conditions.push(match list.len() {
            0 => "1 = 0".into(),
            1 => format!("i.project_id = {}", list[0]),
            _ => format!("i.project_id IN ({})", list.join(", ")),
        });
    }
    if !query.all_confidential {
        let mut visible = vec!["i.confidential = FALSE".to_string()];
        if !query.confidential_projects.is_empty() {
            let list: Vec<String> = query.confidential_projects.iter().map(i64::to_string).collect();
            visible.push(format!("i.project_id IN ({})", list.join(", ")));
        }
        if let Some(viewer) = query.viewer {
            let at = bind(&mut params, Box::new(viewer));
            visible.push(format!("i.author_id = {at}"));
            visible
                .push(format!("EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id AND a.user_id = {at})"));
        }
        conditions.push(format!("({})", visible.join(" OR ")));
    }
    if let Some(state) = &query.state {
        let at = bind(&mut params, Box::new(state.clone()));
        conditions.push(format!("i.state = {at}"));
    }
    if let Some(author) = query.author_id {
        let at = bind(&mut params, Box::new(author));
        conditions.push(format!("i.author_id = {at}"));
    }
    match query.assignee {
        None => {}
        Some(Assignee::None) => {
            conditions.push("NOT EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id)".into())
        }
        Some(Assignee::Any) => {
            conditions.push("EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id)".into())
        }
        Some(Assignee::Id(user)) => {
            let at = bind(&mut params, Box::new(user));
            conditions
                .push(format!("EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id AND a.user_id = {at})"));
        }
    }
    if let Some(iids) = &query.iids {
        let list: Vec<String> = iids.iter().map(i64::to_string).collect();
        conditions.push(if list.is_empty() { "1 = 0".into() } else { format!("i.iid IN ({})", list.join(", ")) });
    }
    if let Some((term, in_title, in_description)) = &query.search {
        let at = bind(&mut params, Box::new(like_pattern(term)));
        let mut places = Vec::new();
        if *in_title {
            places.push(format!("lower(i.title) LIKE {at} ESCAPE '\\'"));
        }
        if *in_description {
            places.push(format!("lower(coalesce(i.description, '')) LIKE {at} ESCAPE '\\'"));
        }
        if !places.is_empty() {
            conditions.push(format!("({})", places.join(" OR ")));
        }
    }
    if !query.labels.is_empty() {
        conditions.push(labels::filter_sql(TargetType::Issue, "i.id", &query.labels, &mut params));
    }
    if let Some(confidential) = query.confidential {
        let at = bind(&mut params, Box::new(confidential));
        conditions.push(format!("i.confidential = {at}"));
    }
    for (value, condition) in [
        (query.created_after, "i.created_at >="),
        (query.created_before, "i.created_at <="),
        (query.updated_after, "i.updated_at >="),
        (query.updated_before, "i.updated_at <="),
    ] {
        if let Some(value) = value {
            let at = bind(&mut params, Box::new(value));
            conditions.push(format!("{condition} {at}"));
        }
    }
    let filter = if conditions.is_empty() { String::new() } else { format!("WHERE {}", conditions.join(" AND ")) };
    (filter, params)
}

/// One page of the issues `query` selects.
pub fn list(db: &mut Db, query: &ListQuery) -> StoreResult<Vec<Issue>> {
    let (filter, mut params) = list_filter(query);
    let direction = if query.ascending { "ASC" } else { "DESC" };
    params.push(Box::new(query.limit));
    let limit = params.len();
    params.push(Box::new(query.offset));
    let offset = params.len();
    let sql = format!(
        "SELECT {} FROM issues i {filter} ORDER BY {} {direction}, i.id {direction} LIMIT ${limit} OFFSET ${offset}",
        prefixed("i."),
        query.order.column()
    );
    let refs: Vec<&dyn Param> = params.iter().map(|p| p.as_ref()).collect();
    db.rows(&sql, &refs, from_row)
}

/// How many issues `query` selects, every page.
pub fn count(db: &mut Db, query: &ListQuery) -> StoreResult<i64> {
    let (filter, params) = list_filter(query);
    let refs: Vec<&dyn Param> = params.iter().map(|p| p.as_ref()).collect();
    db.one(&format!("SELECT count(*) FROM issues i {filter}"), &refs, |r| r.i64(0))
}
