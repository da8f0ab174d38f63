//! Project topics (GitLab's `Projects::Topic`, `Projects::ProjectTopic`): instance-wide names
//! projects are tagged with, unique ignoring case. A project's topics, in its order, are the
//! names in `projects.topics`; [`assign`] keeps `project_topics` and the topics themselves in
//! step with that list (a name no topic has yet makes one, titled as named, as GitLab's
//! `Project#topic_list=` does), and answers the names as the topics spell them. Counts are read
//! from the links, so they are never out of step: `total_projects_count` every project,
//! `non_private_projects_count` (the lists' order) the public and internal ones.

use super::db::{like_pattern, Db, Row};
use super::error::{StoreError, StoreResult};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topic {
    pub id: i64,
    pub name: String,
    pub title: String,
    pub description: Option<String>,
    pub total_projects_count: i64,
    pub non_private_projects_count: i64,
}

const SELECT: &str = "SELECT t.id, t.name, t.title, t.description,
        (SELECT count(*) FROM project_topics pt WHERE pt.topic_id = t.id),
        (SELECT count(*) FROM project_topics pt JOIN projects p ON p.id = pt.project_id
          WHERE pt.topic_id = t.id AND p.visibility <> 'private')
    FROM topics t";

fn from_row(row: &Row) -> StoreResult<Topic> {
    Ok(Topic {
        id: row.i64(0)?,
        name: row.string(1)?,
        title: row.string(2)?,
        description: row.opt_string(3)?,
        total_projects_count: row.i64(4)?,
        non_private_projects_count: row.i64(5)?,
    })
}

/// Which topics a list holds.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// Matched against name and title ignoring case: anywhere in them from three characters on,
    /// the whole of either below that (GitLab's `fuzzy_search` with its minimum length).
    pub search: Option<String>,
    /// Only topics no project has.
    pub without_projects: bool,
    pub limit: i64,
    pub offset: i64,
}

fn filter(query: &ListQuery) -> (String, Vec<String>) {
    let mut conditions = Vec::new();
    let mut params = Vec::new();
    if let Some(term) = query.search.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        if term.chars().count() >= 3 {
            params.push(like_pattern(term));
            conditions.push("(lower(t.name) LIKE $1 ESCAPE '\\' OR lower(t.title) LIKE $1 ESCAPE '\\')".to_string());
        } else {
            params.push(term.to_lowercase());
            conditions.push("(lower(t.name) = $1 OR lower(t.title) = $1)".to_string());
        }
    }
    if query.without_projects {
        conditions.push("NOT EXISTS (SELECT 1 FROM project_topics pt WHERE pt.topic_id = t.id)".into());
    }
    let filter = if conditions.is_empty() { String::new() } else { format!("WHERE {}", conditions.join(" AND ")) };
    (filter, params)
}

/// One page of topics: most public and internal projects first, then by id (GitLab's
/// `order_by_non_private_projects_count`); a search puts the names most like it first (an
/// exact name, then a name starting with it), as `reorder_by_similarity` does.
pub fn list(db: &mut Db, query: &ListQuery) -> StoreResult<Vec<Topic>> {
    let (filter, params) = filter(query);
    let mut order = String::from("ORDER BY ");
    if !params.is_empty() {
        order
            .push_str("CASE WHEN lower(t.name) = $2 THEN 0 WHEN lower(t.name) LIKE $3 ESCAPE '\\' THEN 1 ELSE 2 END, ");
    }
    order.push_str("6 DESC, t.id ASC");
    let mut values: Vec<Box<dyn super::db::Param>> = params.iter().map(|p| Box::new(p.clone()) as _).collect();
    if let Some(term) = query.search.as_deref().map(|t| t.trim().to_lowercase()).filter(|t| !t.is_empty()) {
        values.push(Box::new(term.clone()));
        values.push(Box::new(format!("{}%", like_escape(&term))));
    }
    values.push(Box::new(query.limit));
    values.push(Box::new(query.offset));
    let sql = format!("{SELECT} {filter} {order} LIMIT ${} OFFSET ${}", values.len() - 1, values.len());
    let refs: Vec<&dyn super::db::Param> = values.iter().map(|p| p.as_ref()).collect();
    db.rows(&sql, &refs, from_row)
}

/// `term` with LIKE's wildcards and escape character escaped (`\`).
fn like_escape(term: &str) -> String {
    term.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

/// How many topics `query` selects, every page.
pub fn count(db: &mut Db, query: &ListQuery) -> StoreResult<i64> {
    let (filter, params) = filter(query);
    let refs: Vec<&dyn super::db::Param> = params.iter().map(|p| p as &dyn super::db::Param).collect();
    db.one(&format!("SELECT count(*) FROM topics t {filter}"), &refs, |r| r.i64(0))
}

pub fn find(db: &mut Db, id: i64) -> StoreResult<Option<Topic>> {
    db.row(&format!("{SELECT} WHERE t.id = $1"), &[&id], from_row)
}

/// The topic named `name`, ignoring case.
pub fn find_by_name(db: &mut Db, name: &str) -> StoreResult<Option<Topic>> {
    db.row(&format!("{SELECT} WHERE lower(t.name) = $1"), &[&name.to_lowercase()], from_row)
}

/// Adds a topic; a name taken (ignoring case) is the store's `Conflict`.
pub fn insert(db: &mut Db, name: &str, title: &str, description: Option<&str>) -> StoreResult<Topic> {
    let now = super::now_seconds();
    let id = db.one(
        "INSERT INTO topics (name, title, description, created_at, updated_at) VALUES ($1, $2, $3, $4, $4) RETURNING id",
        &[&name, &title, &description, &now],
        |r| r.i64(0),
    )?;
    find(db, id)?.ok_or(StoreError::NoRow)
}

/// Writes a topic's name, title and description. A new name is written into the topic lists of
/// its projects too; a name another topic has is the store's `Conflict`.
pub fn update(db: &mut Db, topic: &Topic) -> StoreResult<()> {
    let before = find(db, topic.id)?.ok_or(StoreError::NoRow)?;
    db.execute(
        "UPDATE topics SET name = $2, title = $3, description = $4, updated_at = $5 WHERE id = $1",
        &[&topic.id, &topic.name, &topic.title, &topic.description, &super::now_seconds()],
    )?;
    if before.name != topic.name {
        rewrite_lists(db, topic.id, |names| {
            for name in names.iter_mut() {
                if name.eq_ignore_ascii_case(&before.name) {
                    *name = topic.name.clone();
                }
            }
        })?;
    }
    Ok(())
}

/// Removes a topic from every project that has it, then the topic.
pub fn delete(db: &mut Db, topic: &Topic) -> StoreResult<()> {
    rewrite_lists(db, topic.id, |names| names.retain(|n| !n.eq_ignore_ascii_case(&topic.name)))?;
    db.execute("DELETE FROM topics WHERE id = $1", &[&topic.id])?;
    Ok(())
}

/// Moves every project of `source` to `target` (once: a project with both keeps `target`
/// where it had it), then removes `source` (GitLab's `Topics::MergeService`).
pub fn merge(db: &mut Db, source: &Topic, target: &Topic) -> StoreResult<()> {
    rewrite_lists(db, source.id, |names| {
        let has_target = names.iter().any(|n| n.eq_ignore_ascii_case(&target.name));
        if has_target {
            names.retain(|n| !n.eq_ignore_ascii_case(&source.name));
        } else {
            for name in names.iter_mut() {
                if name.eq_ignore_ascii_case(&source.name) {
                    *name = target.name.clone();
                }
            }
        }
    })?;
    db.execute(
        "INSERT INTO project_topics (project_id, topic_id)
         SELECT project_id, $2 FROM project_topics WHERE topic_id = $1
         AND project_id NOT IN (SELECT project_id FROM project_topics WHERE topic_id = $2)",
        &[&source.id, &target.id],
    )?;
    db.execute("DELETE FROM topics WHERE id = $1", &[&source.id])?;
    Ok(())
}

/// Changes the topic list of every project linked to `topic_id` with `change`.
fn rewrite_lists(db: &mut Db, topic_id: i64, change: impl Fn(&mut Vec<String>)) -> StoreResult<()> {
    let lists = db.rows(
        "SELECT p.id, p.topics FROM projects p JOIN project_topics pt ON pt.project_id = p.id WHERE pt.topic_id = $1",
        &[&topic_id],
        |r| Ok((r.i64(0)?, r.string(1)?)),
    )?;
    for (project_id, text) in lists {
        let mut names: Vec<String> = serde_json::from_str(&text).unwrap_or_default();
        change(&mut names);
        let text = serde_json::to_string(&names).unwrap_or_else(|_| "[]".into());
        db.execute("UPDATE projects SET topics = $2 WHERE id = $1", &[&project_id, &text])?;
    }
    Ok(())
}

/// Makes `names` the topics of the project `project_id`: each name is its topic's (made, titled
/// as named, when no topic has it yet), the links are exactly those; answers the names as their
/// topics spell them, in the order given, for `projects.topics`.
pub fn assign(db: &mut Db, project_id: i64, names: &[String]) -> StoreResult<Vec<String>> {
    let mut spelled = Vec::with_capacity(names.len());
    let mut ids = Vec::with_capacity(names.len());
    for name in names {
        if find_by_name(db, name)?.is_none() {
            // Another writer may make it first (on PostgreSQL): then theirs is the topic.
            let now = super::now_seconds();
            db.execute(
                "INSERT INTO topics (name, title, created_at, updated_at) VALUES ($1, $1, $2, $2) ON CONFLICT DO NOTHING",
                &[name, &now],
            )?;
        }
        let topic = find_by_name(db, name)?.ok_or(StoreError::NoRow)?;
        if !ids.contains(&topic.id) {
            ids.push(topic.id);
            spelled.push(topic.name);
        }
    }
    db.execute("DELETE FROM project_topics WHERE project_id = $1", &[&project_id])?;
    for id in &ids {
        db.execute("INSERT INTO project_topics (project_id, topic_id) VALUES ($1, $2)", &[&project_id, id])?;
    }
    Ok(spelled)
}

/// The ids of the topics named `names` (ignoring case); `None` when one of them is no topic.
pub fn ids_named(db: &mut Db, names: &[String]) -> StoreResult<Option<Vec<i64>>> {
    let mut ids = Vec::with_capacity(names.len());
    for name in names {
        match find_by_name(db, name)? {
            Some(topic) => ids.push(topic.id),
            None => return Ok(None),
        }
    }
    Ok(Some(ids))
}
