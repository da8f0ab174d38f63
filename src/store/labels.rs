//! Labels of projects and groups and the links that put them on issues and merge requests
//! (issue #40; group labels, subscriptions and label events: issue-extras).
//!
//! A label belongs to one project or one group ([`Owner`]) and is named by its title (unique
//! in its owner, compared exactly, as GitLab's `find_by_title`). What a project's issues and
//! merge requests may carry is [`Available`]: the project's labels, then those of its group
//! and the group's ancestors (GitLab's `LabelsFinder` with `include_ancestor_groups`). A
//! [`Target`] is anything that carries labels: an issue or a merge request, by its global id;
//! `label_links` holds one row per label on a target. The operations that set a target's
//! labels by name ([`set`], [`add`], [`remove`]) find the titles among the available labels
//! and create the missing ones in the project with GitLab's default color
//! (`Label::DEFAULT_COLOR`, `#6699cc`), as GitLab's `Labels::FindOrCreateService` does, and
//! they are the one place label links change: each records what it added and removed as
//! resource label events ([`events`]), as GitLab's `ResourceEvents::ChangeLabelsService`
//! does, whichever route changed them. Reading the labels of many targets is one query
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

/// Who a label belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Owner {
    Project(i64),
    Group(i64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub id: i64,
    /// The project of a project label, `None` for a group's.
    pub project_id: Option<i64>,
    /// The group of a group label, `None` for a project's.
    pub group_id: Option<i64>,
    pub title: String,
    pub color: String,
    pub description: Option<String>,
    pub priority: Option<i64>,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    pub updated_at: i64,
}

impl Label {
    pub fn owner(&self) -> Owner {
        match (self.project_id, self.group_id) {
            (Some(project), _) => Owner::Project(project),
            (None, group) => Owner::Group(group.unwrap_or(0)),
        }
    }
}

const COLUMNS: &str = "id, project_id, group_id, title, color, description, priority, created_at, updated_at";

fn from_row(row: &Row) -> StoreResult<Label> {
    from_row_at(row, 0)
}

fn from_row_at(row: &Row, at: usize) -> StoreResult<Label> {
    Ok(Label {
        id: row.i64(at)?,
        project_id: row.opt_i64(at + 1)?,
        group_id: row.opt_i64(at + 2)?,
        title: row.string(at + 3)?,
        color: row.string(at + 4)?,
        description: row.opt_string(at + 5)?,
        priority: row.opt_i64(at + 6)?,
        created_at: row.i64(at + 7)?,
        updated_at: row.i64(at + 8)?,
    })
}

/// Milliseconds since the Unix epoch.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// The labels a place may use: a project's own (when `project_id` is set) and those of
/// `group_ids` (a project's group and its ancestors, nearest first; or a group and its
/// ancestors).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Available {
    pub project_id: Option<i64>,
    pub group_ids: Vec<i64>,
}

impl Available {
    /// What a project in `group_id` (or in no group) may use.
    pub fn for_project(db: &mut Db, project_id: i64, group_id: Option<i64>) -> StoreResult<Available> {
        let group_ids = match group_id {
            Some(group) => super::groups::self_and_ancestor_ids(db, group)?,
            None => Vec::new(),
        };
        Ok(Available { project_id: Some(project_id), group_ids })
    }

    /// What a group may use: its own labels and its ancestors'.
    pub fn for_group(db: &mut Db, group_id: i64) -> StoreResult<Available> {
        Ok(Available { project_id: None, group_ids: super::groups::self_and_ancestor_ids(db, group_id)? })
    }

    /// Only `owner`'s own labels.
    pub fn only(owner: Owner) -> Available {
        match owner {
            Owner::Project(id) => Available { project_id: Some(id), group_ids: Vec::new() },
            Owner::Group(id) => Available { project_id: None, group_ids: vec![id] },
        }
    }

    /// The SQL condition on `labels` (unqualified columns) that holds for these labels.
    fn condition(&self) -> String {
        let mut parts = Vec::new();
        if let Some(project) = self.project_id {
            parts.push(format!("project_id = {project}"));
        }
        if !self.group_ids.is_empty() {
            let ids: Vec<String> = self.group_ids.iter().map(i64::to_string).collect();
            parts.push(format!("group_id IN ({})", ids.join(", ")));
        }
        if parts.is_empty() {
            "1 = 0".into()
        } else {
            format!("({})", parts.join(" OR "))
        }
    }
}

/// Every available label whose title contains `search` (ignoring case) when given, by title
/// (a project's own label before a group's of the same title).
pub fn list(db: &mut Db, available: &Available, search: Option<&str>) -> StoreResult<Vec<Label>> {
    let condition = available.condition();
    let order = "ORDER BY title, project_id IS NULL, id";
    match search {
        Some(term) => db.rows(
            &format!("SELECT {COLUMNS} FROM labels WHERE {condition} AND lower(title) LIKE $1 ESCAPE '\\' {order}"),
            &[&super::db::like_pattern(term)],
            from_row,
        ),
        None => db.rows(&format!("SELECT {COLUMNS} FROM labels WHERE {condition} {order}"), &[], from_row),
    }
}

pub fn find_by_id(db: &mut Db, available: &Available, id: i64) -> StoreResult<Option<Label>> {
    db.row(&format!("SELECT {COLUMNS} FROM labels WHERE {} AND id = $1", available.condition()), &[&id], from_row)
}

/// The available label titled `title`: the project's own first, then the nearest group's.
pub fn find_by_title(db: &mut Db, available: &Available, title: &str) -> StoreResult<Option<Label>> {
    let found = db.rows(
        &format!("SELECT {COLUMNS} FROM labels WHERE {} AND title = $1", available.condition()),
        &[&title],
        from_row,
    )?;
    let rank = |label: &Label| match label.group_id {
        None => 0,
        Some(group) => 1 + available.group_ids.iter().position(|g| *g == group).unwrap_or(usize::MAX - 1),
    };
    Ok(found.into_iter().min_by_key(rank))
}

/// Adds a label; a title its owner has already is the store's `Conflict`.
pub fn insert(
    db: &mut Db,
    owner: Owner,
    title: &str,
    color: &str,
    description: Option<&str>,
    priority: Option<i64>,
) -> StoreResult<Label> {
    let now = now_millis();
    let (project_id, group_id) = match owner {
        Owner::Project(id) => (Some(id), None),
        Owner::Group(id) => (None, Some(id)),
    };
    let id = db.one(
        "INSERT INTO labels (project_id, group_id, title, color, description, priority, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id",
        &[&project_id, &group_id, &title, &color, &description, &priority, &now],
        |r| r.i64(0),
    )?;
    Ok(Label {
        id,
        project_id,
        group_id,
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

/// Removes a label and its links (its events stay, without it).
pub fn delete(db: &mut Db, id: i64) -> StoreResult<bool> {
    db.execute("DELETE FROM label_links WHERE label_id = $1", &[&id])?;
    db.execute("UPDATE resource_label_events SET label_id = NULL WHERE label_id = $1", &[&id])?;
    db.execute("DELETE FROM label_subscriptions WHERE label_id = $1", &[&id])?;
    Ok(db.execute("DELETE FROM labels WHERE id = $1", &[&id])? > 0)
}

/// The labels titled `titles` among `available`, created in project `project_id` (with the
/// default color) where missing, in the order of `titles`, duplicates and blank titles
/// dropped.
pub fn find_or_create(
    db: &mut Db,
    available: &Available,
    project_id: i64,
    titles: &[String],
) -> StoreResult<Vec<Label>> {
    let mut out: Vec<Label> = Vec::new();
    for title in titles.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
        if out.iter().any(|l| l.title == title) {
            continue;
        }
        let label = match find_by_title(db, available, title)? {
            Some(label) => label,
            None => match insert(db, Owner::Project(project_id), title, DEFAULT_COLOR, None, None) {
                Ok(label) => label,
                // A racing writer made it first: take theirs.
                Err(StoreError::Conflict(_)) => find_by_title(db, available, title)?.ok_or(StoreError::NoRow)?,
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
        |row| Ok((row.i64(0)?, from_row_at(row, 1)?)),
    )?;
    for (target, label) in rows {
        out.entry(target).or_default().push(label);
    }
    Ok(out)
}

/// Replaces the labels of `target` with those titled `titles` (found among `available`,
/// created in `project_id` where missing), recording the change as `actor`'s; the labels it
/// has now, by title.
pub fn set(
    db: &mut Db,
    available: &Available,
    project_id: i64,
    target: Target,
    titles: &[String],
    actor: Option<i64>,
) -> StoreResult<Vec<Label>> {
    let wanted: Vec<i64> = find_or_create(db, available, project_id, titles)?.iter().map(|l| l.id).collect();
    apply(db, target, |_| wanted.clone(), actor)
}

/// Adds the labels titled `titles` (created where missing) to `target`; its labels now.
pub fn add(
    db: &mut Db,
    available: &Available,
    project_id: i64,
    target: Target,
    titles: &[String],
    actor: Option<i64>,
) -> StoreResult<Vec<Label>> {
    let more: Vec<i64> = find_or_create(db, available, project_id, titles)?.iter().map(|l| l.id).collect();
    apply(db, target, |now| now.iter().chain(&more).copied().collect(), actor)
}

/// Takes the labels titled `titles` off `target` (titles it does not carry are ignored); its
/// labels now.
pub fn remove(db: &mut Db, target: Target, titles: &[String], actor: Option<i64>) -> StoreResult<Vec<Label>> {
    let titles: Vec<&str> = titles.iter().map(|t| t.trim()).collect();
    let carried = of_target(db, target)?;
    let gone: Vec<i64> = carried.iter().filter(|l| titles.contains(&l.title.as_str())).map(|l| l.id).collect();
    apply(db, target, |now| now.iter().copied().filter(|id| !gone.contains(id)).collect(), actor)
}

/// Moves `target`'s links from the label ids it has to `wanted(those ids)`, recording one
/// `add` event per label added and one `remove` per label taken off, at one time; its labels
/// now.
fn apply(
    db: &mut Db,
    target: Target,
    wanted: impl FnOnce(&[i64]) -> Vec<i64>,
    actor: Option<i64>,
) -> StoreResult<Vec<Label>> {
    let before: Vec<i64> = of_target(db, target)?.iter().map(|l| l.id).collect();
    let mut after: Vec<i64> = Vec::new();
    for id in wanted(&before) {
        if !after.contains(&id) {
            after.push(id);
        }
    }
    let now = now_millis();
    let kind = target.kind.as_str();
    for id in after.iter().filter(|id| !before.contains(id)) {
        db.execute(
            "INSERT INTO label_links (target_type, target_id, label_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &[&kind, &target.id, id],
        )?;
        record(db, target, *id, actor, "add", now)?;
    }
    for id in before.iter().filter(|id| !after.contains(id)) {
        db.execute(
            "DELETE FROM label_links WHERE target_type = $1 AND target_id = $2 AND label_id = $3",
            &[&kind, &target.id, id],
        )?;
        record(db, target, *id, actor, "remove", now)?;
    }
    of_target(db, target)
}

fn record(db: &mut Db, target: Target, label_id: i64, actor: Option<i64>, action: &str, at: i64) -> StoreResult<()> {
    db.execute(
        "INSERT INTO resource_label_events (target_type, target_id, label_id, user_id, action, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[&target.kind.as_str(), &target.id, &label_id, &actor, &action, &at],
    )?;
    Ok(())
}

/// Removes every link and label event of `target` (when it is deleted).
pub fn unlink_all(db: &mut Db, target: Target) -> StoreResult<()> {
    db.execute(
        "DELETE FROM label_links WHERE target_type = $1 AND target_id = $2",
        &[&target.kind.as_str(), &target.id],
    )?;
    db.execute(
        "DELETE FROM resource_label_events WHERE target_type = $1 AND target_id = $2",
        &[&target.kind.as_str(), &target.id],
    )?;
    Ok(())
}

/// One label added to or removed from a target (GitLab's `ResourceLabelEvent`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelEvent {
    pub id: i64,
    pub target: Target,
    /// `None` once the label is deleted.
    pub label: Option<Label>,
    pub user_id: Option<i64>,
    /// `add` or `remove`.
    pub action: String,
    /// Milliseconds since the epoch.
    pub created_at: i64,
}

fn events_where(db: &mut Db, target: Target, id: Option<i64>) -> StoreResult<Vec<LabelEvent>> {
    let columns: Vec<String> = COLUMNS.split(',').map(|c| format!("l.{}", c.trim())).collect();
    let sql = format!(
        "SELECT e.id, e.user_id, e.action, e.created_at, l.id IS NOT NULL, {}
         FROM resource_label_events e LEFT JOIN labels l ON l.id = e.label_id
         WHERE e.target_type = $1 AND e.target_id = $2 {} ORDER BY e.id",
        columns.join(", "),
        if id.is_some() { "AND e.id = $3" } else { "" }
    );
    let kind = target.kind.as_str();
    let read = |row: &Row| -> StoreResult<LabelEvent> {
        let present = row.bool(4)?;
        Ok(LabelEvent {
            id: row.i64(0)?,
            target,
            label: if present { Some(from_row_at(row, 5)?) } else { None },
            user_id: row.opt_i64(1)?,
            action: row.string(2)?,
            created_at: row.i64(3)?,
        })
    };
    match id {
        Some(id) => db.rows(&sql, &[&kind, &target.id, &id], read),
        None => db.rows(&sql, &[&kind, &target.id], read),
    }
}

/// The label events of `target`, oldest first.
pub fn events(db: &mut Db, target: Target) -> StoreResult<Vec<LabelEvent>> {
    events_where(db, target, None)
}

/// One label event of `target`.
pub fn event(db: &mut Db, target: Target, id: i64) -> StoreResult<Option<LabelEvent>> {
    Ok(events_where(db, target, Some(id))?.pop())
}

/// Whether `user_id` is subscribed to `label_id` everywhere or, when `project_id` is given,
/// in that project (GitLab's `subscribed?(user)` or `subscribed?(user, project)`).
pub fn subscribed(db: &mut Db, label_id: i64, user_id: i64, project_id: Option<i64>) -> StoreResult<bool> {
    let project = project_id.unwrap_or(0);
    let count = db.one(
        "SELECT count(*) FROM label_subscriptions WHERE label_id = $1 AND user_id = $2
         AND (project_id IS NULL OR project_id = $3)",
        &[&label_id, &user_id, &project],
        |r| r.i64(0),
    )?;
    Ok(count > 0)
}

/// Subscribes `user_id` to `label_id` everywhere (`project_id` `None`) or in one project.
pub fn subscribe(db: &mut Db, label_id: i64, user_id: i64, project_id: Option<i64>) -> StoreResult<()> {
    db.execute(
        "INSERT INTO label_subscriptions (label_id, user_id, project_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
        &[&label_id, &user_id, &project_id],
    )?;
    Ok(())
}

/// Ends every subscription of `user_id` to `label_id` that [`subscribed`] would count.
pub fn unsubscribe(db: &mut Db, label_id: i64, user_id: i64, project_id: Option<i64>) -> StoreResult<()> {
    let project = project_id.unwrap_or(0);
    db.execute(
        "DELETE FROM label_subscriptions WHERE label_id = $1 AND user_id = $2 AND (project_id IS NULL OR project_id = $3)",
        &[&label_id, &user_id, &project],
    )?;
    Ok(())
}

/// Turns project label `label` into a label of `group_id` (GitLab's `Labels::PromoteService`):
/// the group's label of that title (made with `label`'s color and description when the group
/// has none) takes the place of every project label of that title in the group's projects and
/// their subgroups' — their links, events and subscriptions move to it — and those project
/// labels are removed. The group's label.
pub fn promote(db: &mut Db, label: &Label, group_id: i64) -> StoreResult<Label> {
    let group_label = match find_by_title(db, &Available::only(Owner::Group(group_id)), &label.title)? {
        Some(existing) => existing,
        None => insert(db, Owner::Group(group_id), &label.title, &label.color, label.description.as_deref(), None)?,
    };
    let groups = super::groups::group_and_descendant_ids(db, group_id)?;
    let projects = super::projects::ids_in_groups(db, &groups)?;
    let new = group_label.id;
    for project in projects {
        let Some(old) = find_by_title(db, &Available::only(Owner::Project(project)), &label.title)? else { continue };
        let old = old.id;
        db.execute(
            "DELETE FROM label_links WHERE label_id = $1 AND EXISTS (SELECT 1 FROM label_links n
             WHERE n.label_id = $2 AND n.target_type = label_links.target_type AND n.target_id = label_links.target_id)",
            &[&old, &new],
        )?;
        db.execute("UPDATE label_links SET label_id = $1 WHERE label_id = $2", &[&new, &old])?;
        db.execute("UPDATE resource_label_events SET label_id = $1 WHERE label_id = $2", &[&new, &old])?;
        db.execute(
            "DELETE FROM label_subscriptions WHERE label_id = $1 AND EXISTS (SELECT 1 FROM label_subscriptions n
             WHERE n.label_id = $2 AND n.user_id = label_subscriptions.user_id
             AND coalesce(n.project_id, 0) = coalesce(label_subscriptions.project_id, 0))",
            &[&old, &new],
        )?;
        db.execute("UPDATE label_subscriptions SET label_id = $1 WHERE label_id = $2", &[&new, &old])?;
        db.execute("DELETE FROM labels WHERE id = $1", &[&old])?;
    }
    Ok(group_label)
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
