//! Project labels and the links that put them on issues and merge requests (issue #40).
//!
//! A label belongs to one project and is named by its title (unique in the project, compared
//! exactly, as GitLab's `find_by_title`). A [`Target`] is anything that carries labels: an
//! issue or a merge request, by its global id; `label_links` holds one row per label on a
//! target. The operations that set a target's labels by name create the labels that do not
//! exist yet with GitLab's default color (`Label::DEFAULT_COLOR`, `#6699cc`), as GitLab's
//! `Labels::FindOrCreateService` does. Reading the labels of many targets is one query
//! ([`of_targets`]); filtering a list by label names is a condition ([`filter_sql`]) the
//! list's own query takes.

use super::db::{Db, Param, Row};
use super::error::{StoreError, StoreResult};
use std::collections::HashMap;

/// GitLab's `Label::DEFAULT_COLOR`.
pub const DEFAULT_COLOR: &str = "#6699cc";

/// What carries labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TargetType {
    Issue,
    MergeRequest,
}

impl TargetType {
    /// The stored name, GitLab's `target_type` (the model's class name).
    pub fn as_str(self) -> &'static str {
        match self {
            TargetType::Issue => "Issue",
            TargetType::MergeRequest => "MergeRequest",
        }
    }
}

/// One labelled thing: its type and global id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    pub kind: TargetType,
    pub id: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub id: i64,
    pub project_id: i64,
    pub title: String,
    pub color: String,
    pub description: Option<String>,
    pub priority: Option<i64>,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    pub updated_at: i64,
}

const COLUMNS: &str = "id, project_id, title, color, description, priority, created_at, updated_at";

fn from_row(row: &Row) -> StoreResult<Label> {
    Ok(Label {
        id: row.i64(0)?,
        project_id: row.i64(1)?,
        title: row.string(2)?,
        color: row.string(3)?,
        description: row.opt_string(4)?,
        priority: row.opt_i64(5)?,
        created_at: row.i64(6)?,
        updated_at: row.i64(7)?,
    })
}

/// Milliseconds since the Unix epoch.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// Every label of a project whose title contains `search` (ignoring case) when given, by title.
pub fn list(db: &mut Db, project_id: i64, search: Option<&str>) -> StoreResult<Vec<Label>> {
    match search {
        Some(term) => db.rows(
            &format!(
                "SELECT {COLUMNS} FROM labels WHERE project_id = $1 AND lower(title) LIKE $2 ESCAPE '\\' ORDER BY title, id"
            ),
            &[&project_id, &super::db::like_pattern(term)],
            from_row,
        ),
        None => db.rows(
            &format!("SELECT {COLUMNS} FROM labels WHERE project_id = $1 ORDER BY title, id"),
            &[&project_id],
            from_row,
        ),
    }
}

pub fn find_by_id(db: &mut Db, project_id: i64, id: i64) -> StoreResult<Option<Label>> {
    db.row(&format!("SELECT {COLUMNS} FROM labels WHERE project_id = $1 AND id = $2"), &[&project_id, &id], from_row)
}

pub fn find_by_title(db: &mut Db, project_id: i64, title: &str) -> StoreResult<Option<Label>> {
    db.row(
        &format!("SELECT {COLUMNS} FROM labels WHERE project_id = $1 AND title = $2"),
        &[&project_id, &title],
        from_row,
    )
}

/// Adds a label; a title the project has already is the store's `Conflict`.
pub fn insert(
    db: &mut Db,
    project_id: i64,
    title: &str,
    color: &str,
    description: Option<&str>,
    priority: Option<i64>,
) -> StoreResult<Label> {
    let now = now_millis();
    let id = db.one(
        "INSERT INTO labels (project_id, title, color, description, priority, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id",
        &[&project_id, &title, &color, &description, &priority, &now],
        |r| r.i64(0),
    )?;
    Ok(Label {
        id,
        project_id,
        title: title.to_string(),
        color: color.to_string(),
        description: description.map(str::to_string),
        priority,
        created_at: now,
        updated_at: now,
    })
}

/// Writes `label`'s title, color, description and priority (by id); `Conflict` when the new
/// title is another label's.
pub fn update(db: &mut Db, label: &Label) -> StoreResult<()> {
    let now = now_millis();
    db.execute(
        "UPDATE labels SET title = $1, color = $2, description = $3, priority = $4, updated_at = $5 WHERE id = $6",
        &[&label.title, &label.color, &label.description, &label.priority, &now, &label.id],
    )?;
    Ok(())
}

/// Removes a label and its links.
pub fn delete(db: &mut Db, id: i64) -> StoreResult<bool> {
    db.execute("DELETE FROM label_links WHERE label_id = $1", &[&id])?;
    Ok(db.execute("DELETE FROM labels WHERE id = $1", &[&id])? > 0)
}

/// The labels titled `titles` in the project, created (with the default color) where missing,
/// in the order of `titles`, duplicates and blank titles dropped.
pub fn find_or_create(db: &mut Db, project_id: i64, titles: &[String]) -> StoreResult<Vec<Label>> {
    let mut out: Vec<Label> = Vec::new();
    for title in titles.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
        if out.iter().any(|l| l.title == title) {
            continue;
        }
        let label = match find_by_title(db, project_id, title)? {
            Some(label) => label,
            None => match insert(db, project_id, title, DEFAULT_COLOR, None, None) {
                Ok(label) => label,
                // A racing writer made it first: take theirs.
                Err(StoreError::Conflict(_)) => find_by_title(db, project_id, title)?.ok_or(StoreError::NoRow)?,
                Err(e) => return Err(e),
            },
        };
        out.push(label);
    }
    Ok(out)
}

/// The labels of `target`, by title.
pub fn of_target(db: &mut Db, target: Target) -> StoreResult<Vec<Label>> {
    Ok(of_targets(db, target.kind, &[target.id])?.remove(&target.id).unwrap_or_default())
}

/// The labels of each of `ids` (targets of `kind`), by title, in one query; a target without
/// labels is absent from the map.
pub fn of_targets(db: &mut Db, kind: TargetType, ids: &[i64]) -> StoreResult<HashMap<i64, Vec<Label>>> {
    let mut out: HashMap<i64, Vec<Label>> = HashMap::new();
    if ids.is_empty() {
        return Ok(out);
    }
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    let columns: Vec<String> = COLUMNS.split(',').map(|c| format!("l.{}", c.trim())).collect();
    let rows = db.rows(
        &format!(
            "SELECT ll.target_id, {} FROM label_links ll JOIN labels l ON l.id = ll.label_id
             WHERE ll.target_type = $1 AND ll.target_id IN ({}) ORDER BY ll.target_id, l.title",
            columns.join(", "),
            list.join(", ")
        ),
        &[&kind.as_str()],
        |row| {
            let label = Label {
                id: row.i64(1)?,
                project_id: row.i64(2)?,
                title: row.string(3)?,
                color: row.string(4)?,
                description: row.opt_string(5)?,
                priority: row.opt_i64(6)?,
                created_at: row.i64(7)?,
                updated_at: row.i64(8)?,
            };
            Ok((row.i64(0)?, label))
        },
    )?;
    for (target, label) in rows {
        out.entry(target).or_default().push(label);
    }
    Ok(out)
}

/// Replaces the labels of `target` with those titled `titles` (created where missing); the
/// labels it has now, by title.
pub fn set(db: &mut Db, project_id: i64, target: Target, titles: &[String]) -> StoreResult<Vec<Label>> {
    let labels = find_or_create(db, project_id, titles)?;
    db.execute(
        "DELETE FROM label_links WHERE target_type = $1 AND target_id = $2",
        &[&target.kind.as_str(), &target.id],
    )?;
    for label in &labels {
        link(db, target, label.id)?;
    }
    of_target(db, target)
}

fn link(db: &mut Db, target: Target, label_id: i64) -> StoreResult<()> {
    db.execute(
        "INSERT INTO label_links (target_type, target_id, label_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
        &[&target.kind.as_str(), &target.id, &label_id],
    )?;
    Ok(())
}

/// Adds the labels titled `titles` (created where missing) to `target`; its labels now.
pub fn add(db: &mut Db, project_id: i64, target: Target, titles: &[String]) -> StoreResult<Vec<Label>> {
    for label in find_or_create(db, project_id, titles)? {
        link(db, target, label.id)?;
    }
    of_target(db, target)
}

/// Takes the labels titled `titles` off `target` (titles it does not carry are ignored); its
/// labels now.
pub fn remove(db: &mut Db, project_id: i64, target: Target, titles: &[String]) -> StoreResult<Vec<Label>> {
    for title in titles.iter().map(|t| t.trim()) {
        if let Some(label) = find_by_title(db, project_id, title)? {
            db.execute(
                "DELETE FROM label_links WHERE target_type = $1 AND target_id = $2 AND label_id = $3",
                &[&target.kind.as_str(), &target.id, &label.id],
            )?;
        }
    }
    of_target(db, target)
}

/// Removes every link of `target` (when it is deleted).
pub fn unlink_all(db: &mut Db, target: Target) -> StoreResult<()> {
    db.execute(
        "DELETE FROM label_links WHERE target_type = $1 AND target_id = $2",
        &[&target.kind.as_str(), &target.id],
    )?;
    Ok(())
}

/// A list's label filter, as GitLab's `labels` parameter: a condition on `id_column` (the
/// targets' id column in the list's query, e.g. `i.id`) true for targets of `kind` carrying
/// every label titled in `titles`; the titles are bound as parameters appended to `params`.
/// GitLab's special values: `None` (no label at all) and `Any` (at least one), ignoring case.
pub fn filter_sql(kind: TargetType, id_column: &str, titles: &[String], params: &mut Vec<Box<dyn Param>>) -> String {
    let kind = kind.as_str();
    let mut conditions = Vec::new();
    for title in titles.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
        let any =
            format!("SELECT 1 FROM label_links ll WHERE ll.target_type = '{kind}' AND ll.target_id = {id_column}");
        if title.eq_ignore_ascii_case("none") {
            conditions.push(format!("NOT EXISTS ({any})"));
        } else if title.eq_ignore_ascii_case("any") {
            conditions.push(format!("EXISTS ({any})"));
        } else {
            params.push(Box::new(title.to_string()));
            conditions.push(format!(
                "EXISTS (SELECT 1 FROM label_links ll JOIN labels l ON l.id = ll.label_id
                 WHERE ll.target_type = '{kind}' AND ll.target_id = {id_column} AND l.title = ${})",
                params.len()
            ));
        }
    }
    if conditions.is_empty() {
        "1 = 1".into()
    } else {
        conditions.join(" AND ")
    }
}

/// How many targets of `kind` carry `label_id`, by their state (`opened`, `closed`, ...), for
/// the counts of GitLab's Label entity; `table` holds the targets and their `state`.
pub fn count_by_state(db: &mut Db, label_id: i64, kind: TargetType, table: &str) -> StoreResult<HashMap<String, i64>> {
    let rows = db.rows(
        &format!(
            "SELECT t.state, count(*) FROM label_links ll JOIN {table} t ON t.id = ll.target_id
             WHERE ll.label_id = $1 AND ll.target_type = $2 GROUP BY t.state"
        ),
        &[&label_id, &kind.as_str()],
        |r| Ok((r.string(0)?, r.i64(1)?)),
    )?;
    Ok(rows.into_iter().collect())
}
