//! Groups and their hierarchy: a group has at most one parent; `full_path` is unique
//! (case-insensitively, as GitLab's routes are).

use super::db::{Db, Dialect, Row};
use super::error::StoreResult;
use super::users::equal_ignoring_case;
use super::Visibility;
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub id: i64,
    pub parent_id: Option<i64>,
    pub path: String,
    pub full_path: String,
    pub name: String,
    pub visibility: Visibility,
}

const COLUMNS: &str = "id, parent_id, path, full_path, name, visibility";

pub(super) fn from_row(row: &Row) -> StoreResult<Group> {
    from_row_at(row, 0)
}

/// A group from the row's columns starting at `at`, in [`COLUMNS`]' order.
pub(super) fn from_row_at(row: &Row, at: usize) -> StoreResult<Group> {
    Ok(Group {
        id: row.i64(at)?,
        parent_id: row.opt_i64(at + 1)?,
        path: row.string(at + 2)?,
        full_path: row.string(at + 3)?,
        name: row.string(at + 4)?,
        visibility: Visibility::read(&row.string(at + 5)?)?,
    })
}

pub fn insert(db: &mut Db, parent: Option<&Group>, path: &str, visibility: Visibility) -> StoreResult<Group> {
    create(db, parent, path, path, visibility, &Settings::default())
}

/// What GitLab's Group entity shows of a group beyond [`Group`], and `PUT /groups/:id` changes
/// (schema entry 5). The levels are GitLab's strings (`developer`, `maintainer`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub description: String,
    /// Seconds since the Unix epoch; set on insert, never changed.
    pub created_at: i64,
    pub default_branch: Option<String>,
    pub project_creation_level: String,
    pub subgroup_creation_level: String,
    pub request_access_enabled: bool,
    pub share_with_group_lock: bool,
    pub require_two_factor_authentication: bool,
    pub two_factor_grace_period: i64,
    pub lfs_enabled: bool,
    pub emails_enabled: bool,
    pub mentions_disabled: bool,
}

impl Default for Settings {
    /// GitLab's defaults for a new group.
    fn default() -> Settings {
        Settings {
            description: String::new(),
            created_at: 0,
            default_branch: None,
            project_creation_level: "developer".into(),
            subgroup_creation_level: "maintainer".into(),
            request_access_enabled: true,
            share_with_group_lock: false,
            require_two_factor_authentication: false,
            two_factor_grace_period: 48,
            lfs_enabled: true,
            emails_enabled: true,
            mentions_disabled: false,
        }
    }
}

const SETTINGS_COLUMNS: &str = "description, created_at, default_branch, project_creation_level, \
    subgroup_creation_level, request_access_enabled, share_with_group_lock, require_two_factor_authentication, \
    two_factor_grace_period, lfs_enabled, emails_enabled, mentions_disabled";

/// Settings from the row's columns starting at `at`, in [`SETTINGS_COLUMNS`]' order.
fn settings_at(row: &Row, at: usize) -> StoreResult<Settings> {
    Ok(Settings {
        description: row.string(at)?,
        created_at: row.i64(at + 1)?,
        default_branch: row.opt_string(at + 2)?,
        project_creation_level: row.string(at + 3)?,
        subgroup_creation_level: row.string(at + 4)?,
        request_access_enabled: row.bool(at + 5)?,
        share_with_group_lock: row.bool(at + 6)?,
        require_two_factor_authentication: row.bool(at + 7)?,
        two_factor_grace_period: row.i64(at + 8)?,
        lfs_enabled: row.bool(at + 9)?,
        emails_enabled: row.bool(at + 10)?,
        mentions_disabled: row.bool(at + 11)?,
    })
}

/// A group with its settings, as the entity shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detailed {
    pub group: Group,
    pub settings: Settings,
    /// The names of the group and its ancestors, root first (GitLab's `full_name`).
    pub full_name: String,
    /// When the group was marked for deletion (seconds since the epoch), if it is.
    pub marked_for_deletion_at: Option<i64>,
}

/// Inserts a group under `parent` with `settings` (its `created_at` is now, whatever it says).
pub fn create(
    db: &mut Db,
    parent: Option<&Group>,
    path: &str,
    name: &str,
    visibility: Visibility,
    settings: &Settings,
) -> StoreResult<Group> {
    let full_path = match parent {
        Some(p) => format!("{}/{path}", p.full_path),
        None => path.to_string(),
    };
    let parent_id = parent.map(|p| p.id);
    let s = settings;
    let id = db.one(
        &format!(
            "INSERT INTO groups (parent_id, path, full_path, name, visibility, {SETTINGS_COLUMNS})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING id"
        ),
        &[
            &parent_id,
            &path,
            &full_path,
            &name,
            &visibility.as_str(),
            &s.description,
            &super::now_seconds(),
            &s.default_branch,
            &s.project_creation_level,
            &s.subgroup_creation_level,
            &s.request_access_enabled,
            &s.share_with_group_lock,
            &s.require_two_factor_authentication,
            &s.two_factor_grace_period,
            &s.lfs_enabled,
            &s.emails_enabled,
            &s.mentions_disabled,
        ],
        |r| r.i64(0),
    )?;
    Ok(Group { id, parent_id, path: path.into(), full_path, name: name.into(), visibility })
}

/// The group's settings and full name (`None`: no such group).
pub fn detailed(db: &mut Db, group: &Group) -> StoreResult<Option<Detailed>> {
    let Some(settings) =
        db.row(&format!("SELECT {SETTINGS_COLUMNS} FROM groups WHERE id = $1"), &[&group.id], |r| settings_at(r, 0))?
    else {
        return Ok(None);
    };
    let full_name = full_name(db, group.id)?;
    let marked_for_deletion_at = marked_for_deletion_at(db, group.id)?;
    Ok(Some(Detailed { group: group.clone(), settings, full_name, marked_for_deletion_at }))
}

/// `Root / Child / Group`: the names of the group and its ancestors, root first.
fn full_name(db: &mut Db, id: i64) -> StoreResult<String> {
    Ok(full_names(db, &[id])?.remove(&id).unwrap_or_default())
}

/// GitLab's `full_name` (`Root / Child / Group`) of each of the groups `ids`, in one statement
/// for a whole page: a list answers these for every row.
pub fn full_names(db: &mut Db, ids: &[i64]) -> StoreResult<HashMap<i64, String>> {
    let mut names: HashMap<i64, String> = HashMap::new();
    if ids.is_empty() {
        return Ok(names);
    }
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    let rows = db.rows(
        &format!(
            "WITH RECURSIVE chain(start, id, parent_id, name, depth) AS (
                 SELECT id, id, parent_id, name, 0 FROM groups WHERE id IN ({})
                 UNION ALL
                 SELECT chain.start, g.id, g.parent_id, g.name, chain.depth + 1
                 FROM groups g JOIN chain ON g.id = chain.parent_id WHERE chain.depth < 100
             ) SELECT start, name FROM chain ORDER BY start, depth DESC",
            list.join(", ")
        ),
        &[],
        |r| Ok((r.i64(0)?, r.string(1)?)),
    )?;
    for (start, name) in rows {
        let full = names.entry(start).or_default();
        if !full.is_empty() {
            full.push_str(" / ");
        }
        full.push_str(&name);
    }
    Ok(names)
}

/// Stores the group's name, visibility and settings (`created_at` is kept).
pub fn update(db: &mut Db, id: i64, name: &str, visibility: Visibility, s: &Settings) -> StoreResult<()> {
    db.execute(
        "UPDATE groups SET name = $2, visibility = $3, description = $4, default_branch = $5,
             project_creation_level = $6, subgroup_creation_level = $7, request_access_enabled = $8,
             share_with_group_lock = $9, require_two_factor_authentication = $10, two_factor_grace_period = $11,
             lfs_enabled = $12, emails_enabled = $13, mentions_disabled = $14
         WHERE id = $1",
        &[
            &id,
            &name,
            &visibility.as_str(),
            &s.description,
            &s.default_branch,
            &s.project_creation_level,
            &s.subgroup_creation_level,
            &s.request_access_enabled,
            &s.share_with_group_lock,
            &s.require_two_factor_authentication,
            &s.two_factor_grace_period,
            &s.lfs_enabled,
            &s.emails_enabled,
            &s.mentions_disabled,
        ],
    )?;
    Ok(())
}

/// Gives the group the path `path`: its `full_path`, every subgroup's below it and every
/// project's in them change with it, in the caller's transaction. Nothing else stores a full
/// path: memberships, roles, tokens and protected branches name groups and projects by id, and
/// repositories stay where they are (`repo_dir` does not follow the path, as GitLab's hashed
/// storage does not).
pub fn rename(db: &mut Db, group: &Group, path: &str) -> StoreResult<String> {
    let new_full_path = match group.full_path.rsplit_once('/') {
        Some((parent, _)) => format!("{parent}/{path}"),
        None => path.to_string(),
    };
    let ids = lock_tree(db, group.id)?;
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    let list = list.join(", ");
    // Every full path below starts with the old one and a `/`: the rest is kept.
    // (A literal: PostgreSQL's `substr` takes an `integer`, which an `i64` parameter is not.)
    let start = group.full_path.chars().count() + 1;
    db.execute(
        &format!("UPDATE groups SET full_path = $1 || substr(full_path, {start}) WHERE id IN ({list}) AND id <> $2"),
        &[&new_full_path, &group.id],
    )?;
    db.execute("UPDATE groups SET path = $2, full_path = $3 WHERE id = $1", &[&group.id, &path, &new_full_path])?;
    db.execute(
        &format!("UPDATE projects SET full_path = $1 || substr(full_path, {start}) WHERE group_id IN ({list})"),
        &[&new_full_path],
    )?;
    Ok(new_full_path)
}

/// Moves the group below `parent` (`None`: to the top level), its subgroups and projects with
/// it, as [`rename`] moves them (GitLab's `Groups::TransferService`); its new full path.
pub fn transfer(db: &mut Db, group: &Group, parent: Option<&Group>) -> StoreResult<String> {
    let new_full_path = match parent {
        Some(parent) => format!("{}/{}", parent.full_path, group.path),
        None => group.path.clone(),
    };
    let ids = lock_tree(db, group.id)?;
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    let list = list.join(", ");
    let start = group.full_path.chars().count() + 1;
    db.execute(
        &format!("UPDATE groups SET full_path = $1 || substr(full_path, {start}) WHERE id IN ({list}) AND id <> $2"),
        &[&new_full_path, &group.id],
    )?;
    db.execute(
        "UPDATE groups SET parent_id = $2, full_path = $3 WHERE id = $1",
        &[&group.id, &parent.map(|p| p.id), &new_full_path],
    )?;
    db.execute(
        &format!("UPDATE projects SET full_path = $1 || substr(full_path, {start}) WHERE group_id IN ({list})"),
        &[&new_full_path],
    )?;
    // No more visible than the new parent: the group, its subgroups and their projects
    // (`update_children_and_projects_visibility`).
    if let Some(parent) = parent {
        let above: Vec<&str> = [Visibility::Internal, Visibility::Public]
            .into_iter()
            .filter(|v| *v > parent.visibility)
            .map(Visibility::as_str)
            .collect();
        if !above.is_empty() {
            let above = above.iter().map(|v| format!("'{v}'")).collect::<Vec<_>>().join(", ");
            let to = parent.visibility.as_str();
            db.execute(
                &format!("UPDATE groups SET visibility = $1 WHERE id IN ({list}) AND visibility IN ({above})"),
                &[&to],
            )?;
            db.execute(
                &format!("UPDATE projects SET visibility = $1 WHERE group_id IN ({list}) AND visibility IN ({above})"),
                &[&to],
            )?;
        }
    }
    Ok(new_full_path)
}

/// The ids of a group and every group below it, each row held until the transaction ends
/// (PostgreSQL; SQLite's writes are one at a time): whoever creates a subgroup or a project
/// below locks its parent first ([`lock`]), so none appears under a path being changed. A
/// group made below between the read and the locks is found by reading again.
fn lock_tree(db: &mut Db, id: i64) -> StoreResult<Vec<i64>> {
    let mut ids = group_and_descendant_ids(db, id)?;
    if db.dialect() != Dialect::Postgres {
        return Ok(ids);
    }
    for _ in 0..100 {
        let list: Vec<String> = ids.iter().map(i64::to_string).collect();
        db.rows(&format!("SELECT id FROM groups WHERE id IN ({}) FOR UPDATE", list.join(", ")), &[], |_| Ok(()))?;
        let again = group_and_descendant_ids(db, id)?;
        if again.len() == ids.len() {
            return Ok(again);
        }
        ids = again;
    }
    Ok(ids)
}

/// The ids of a group and every group below it.
pub fn group_and_descendant_ids(db: &mut Db, group_id: i64) -> StoreResult<Vec<i64>> {
    db.rows(
        "WITH RECURSIVE tree(id, depth) AS (
             SELECT id, 0 FROM groups WHERE id = $1
             UNION ALL
             SELECT g.id, tree.depth + 1 FROM groups g JOIN tree ON g.parent_id = tree.id WHERE tree.depth < 100
         ) SELECT id FROM tree",
        &[&group_id],
        |r| r.i64(0),
    )
}

/// The highest visibility among the group's direct subgroups and its projects, for the rule
/// that a group is never less visible than what it holds: (subgroups', projects').
pub fn highest_visibility_below(db: &mut Db, id: i64) -> StoreResult<(Option<Visibility>, Option<Visibility>)> {
    let read = |db: &mut Db, sql: &str| -> StoreResult<Option<Visibility>> {
        let all = db.rows(sql, &[&id], |r| Visibility::read(&r.string(0)?))?;
        Ok(all.into_iter().max())
    };
    let subgroups = read(db, "SELECT DISTINCT visibility FROM groups WHERE parent_id = $1")?;
    let projects = read(db, "SELECT DISTINCT visibility FROM projects WHERE group_id = $1")?;
    Ok((subgroups, projects))
}

/// The columns a group list may be ordered by (GitLab's `order_by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Name,
    Path,
    Id,
}

/// Which groups a list holds, for whom, and which page of them.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// The signed-in caller (`None`: anonymous).
    pub user_id: Option<i64>,
    /// Every group, whatever its visibility (administrators with `all_available`).
    pub all: bool,
    /// Public groups (and internal ones for a signed-in caller), besides the caller's own:
    /// GitLab's `all_available`.
    pub all_available: bool,
    /// Only groups where the caller's level (on it or an ancestor) is at least this.
    pub min_access_level: Option<i64>,
    /// Matched against name and path, ignoring case.
    pub search: Option<String>,
    pub visibility: Option<Visibility>,
    pub skip: Vec<i64>,
    pub top_level_only: bool,
    /// Only these groups (a group's subgroups or descendants).
    pub within: Option<Vec<i64>>,
    /// Keyset pages by name (ascending, ties by id): only groups after this name and id.
    pub after: Option<(String, i64)>,
    pub order: Option<Order>,
    pub ascending: bool,
    pub limit: i64,
    pub offset: i64,
}

/// The caller's memberships ($1, live on $2, today) reaching each group (`down`: the group a
/// membership is on and every group below it, with its level; and every group shared with one
/// of those (`group_group_links` live on $2) and the groups below it, at the lower of the
/// link's and the membership's level, as GitLab's `authorized_groups` adds
/// `Group.shared_into_ancestors`), and the groups above a group or project they are a member of
/// (`up`), which they may see too.
const REACH: &str = "WITH RECURSIVE
     mine(id, level, depth) AS (
         SELECT group_id, access_level, 0 FROM members WHERE user_id = $1 AND group_id IS NOT NULL
             AND (expires_at IS NULL OR expires_at > $2)
         UNION ALL
         SELECT g.id, mine.level, mine.depth + 1 FROM groups g JOIN mine ON g.parent_id = mine.id
         WHERE mine.depth < 100
     ),
     shared(id, level, depth) AS (
         SELECT l.shared_group_id, CASE WHEN l.group_access < m.level THEN l.group_access ELSE m.level END, 0
         FROM group_group_links l JOIN mine m ON m.id = l.shared_with_group_id
         WHERE l.expires_at IS NULL OR l.expires_at > $2
         UNION ALL
         SELECT g.id, shared.level, shared.depth + 1 FROM groups g JOIN shared ON g.parent_id = shared.id
         WHERE shared.depth < 100
     ),
     down(id, level) AS (SELECT id, level FROM mine UNION ALL SELECT id, level FROM shared),
     up(id, depth) AS (
         SELECT g.id, 0 FROM groups g
         WHERE g.id IN (SELECT group_id FROM members WHERE user_id = $1 AND group_id IS NOT NULL
                            AND (expires_at IS NULL OR expires_at > $2))
            OR g.id IN (SELECT p.group_id FROM members m JOIN projects p ON p.id = m.project_id
                        WHERE m.user_id = $1 AND p.group_id IS NOT NULL
                            AND (m.expires_at IS NULL OR m.expires_at > $2))
         UNION ALL
         SELECT g.parent_id, up.depth + 1 FROM groups g JOIN up ON g.id = up.id
         WHERE g.parent_id IS NOT NULL AND up.depth < 100
     )";

/// The caller's level on group `g` through `down`.
const LEVEL: &str = "(SELECT max(down.level) FROM down WHERE down.id = g.id)";

fn list_sql(query: &ListQuery, select: &str) -> (String, Vec<Box<dyn super::db::Param>>) {
    let mut params: Vec<Box<dyn super::db::Param>> = vec![Box::new(query.user_id), Box::new(super::today())];
    let mut conditions: Vec<String> = Vec::new();
    let bind = |value: Box<dyn super::db::Param>, params: &mut Vec<Box<dyn super::db::Param>>| {
        params.push(value);
        format!("${}", params.len())
    };
    if !query.all {
        let related = "(g.id IN (SELECT id FROM down) OR g.id IN (SELECT id FROM up))";
        conditions.push(match (query.all_available, query.user_id.is_some()) {
            (true, true) => format!("(g.visibility IN ('public', 'internal') OR {related})"),
            (true, false) => "g.visibility = 'public'".into(),
            (false, _) => related.into(),
        });
    }
    if let Some(level) = query.min_access_level {
        let at = bind(Box::new(level), &mut params);
        conditions.push(format!("{LEVEL} >= {at}"));
    }
    if let Some(search) = &query.search {
        let at = bind(Box::new(super::db::like_pattern(search)), &mut params);
        conditions.push(format!("(lower(g.name) LIKE {at} ESCAPE '\\' OR lower(g.path) LIKE {at} ESCAPE '\\')"));
    }
    if let Some(visibility) = query.visibility {
        let at = bind(Box::new(visibility.as_str()), &mut params);
        conditions.push(format!("g.visibility = {at}"));
    }
    if !query.skip.is_empty() {
        let ids: Vec<String> = query.skip.iter().map(i64::to_string).collect();
        conditions.push(format!("g.id NOT IN ({})", ids.join(", ")));
    }
    if query.top_level_only {
        conditions.push("g.parent_id IS NULL".into());
    }
    if let Some(within) = &query.within {
        let ids: Vec<String> = within.iter().map(i64::to_string).collect();
        conditions.push(if ids.is_empty() { "1 = 0".into() } else { format!("g.id IN ({})", ids.join(", ")) });
    }
    if let Some((name, id)) = &query.after {
        let name_at = bind(Box::new(name.clone()), &mut params);
        let id_at = bind(Box::new(*id), &mut params);
        conditions.push(format!(
            "(lower(g.name) > lower({name_at}) OR (lower(g.name) = lower({name_at}) AND g.id > {id_at}))"
        ));
    }
    let filter = if conditions.is_empty() { String::new() } else { format!("WHERE {}", conditions.join(" AND ")) };
    (format!("{REACH} SELECT {select} FROM groups g {filter}"), params)
}

/// One page of the groups `query` selects, in its order (ties by id, ascending).
pub fn list(db: &mut Db, query: &ListQuery) -> StoreResult<Vec<Detailed>> {
    let group_columns: Vec<String> = COLUMNS.split(',').map(|c| format!("g.{}", c.trim())).collect();
    let settings: Vec<String> = SETTINGS_COLUMNS.split(',').map(|c| format!("g.{}", c.trim())).collect();
    let select = format!("{}, {}", group_columns.join(", "), settings.join(", "));
    let (mut sql, mut params) = list_sql(query, &select);
    let direction = if query.ascending { "ASC" } else { "DESC" };
    let order = match query.order {
        Some(Order::Name) | None => format!("lower(g.name) {direction}, g.id ASC"),
        Some(Order::Path) => format!("lower(g.path) {direction}, g.id ASC"),
        Some(Order::Id) => format!("g.id {direction}"),
    };
    params.push(Box::new(query.limit));
    params.push(Box::new(query.offset));
    sql.push_str(&format!(" ORDER BY {order} LIMIT ${} OFFSET ${}", params.len() - 1, params.len()));
    let refs: Vec<&dyn super::db::Param> = params.iter().map(|p| p.as_ref()).collect();
    let rows = db.rows(&sql, &refs, |row| Ok((from_row(row)?, settings_at(row, 6)?)))?;
    let ids: Vec<i64> = rows.iter().map(|(group, _)| group.id).collect();
    let mut full_names = full_names(db, &ids)?;
    let mut out = Vec::with_capacity(rows.len());
    for (group, settings) in rows {
        let full_name = full_names.remove(&group.id).unwrap_or_default();
        let marked_for_deletion_at = marked_for_deletion_at(db, group.id)?;
        out.push(Detailed { group, settings, full_name, marked_for_deletion_at });
    }
    Ok(out)
}

/// How many groups `query` selects in all pages.
pub fn count(db: &mut Db, query: &ListQuery) -> StoreResult<i64> {
    let (sql, params) = list_sql(query, "count(*)");
    let refs: Vec<&dyn super::db::Param> = params.iter().map(|p| p.as_ref()).collect();
    db.one(&sql, &refs, |row| row.i64(0))
}

/// The ids of the group's direct subgroups.
pub fn child_ids(db: &mut Db, id: i64) -> StoreResult<Vec<i64>> {
    db.rows("SELECT id FROM groups WHERE parent_id = $1", &[&id], |r| r.i64(0))
}

/// The caller's highest level on the group (directly or through an ancestor); 0 for none.
pub fn level_of(db: &mut Db, user_id: i64, group_id: i64) -> StoreResult<i64> {
    Ok(super::members::for_group(db, user_id, group_id)?.iter().map(|m| m.access_level).max().unwrap_or(0))
}

pub fn find_by_id(db: &mut Db, id: i64) -> StoreResult<Option<Group>> {
    db.row(&format!("SELECT {COLUMNS} FROM groups WHERE id = $1"), &[&id], from_row)
}

pub fn find_by_full_path(db: &mut Db, full_path: &str) -> StoreResult<Option<Group>> {
    let sql = format!("SELECT {COLUMNS} FROM groups WHERE {}", equal_ignoring_case(db, "full_path"));
    db.row(&sql, &[&full_path], from_row)
}

/// Holds the group's row until the transaction ends, so that checks on what belongs to it
/// (the roles cap) and the write they guard are one step for every host. SQLite's writes are
/// already one at a time (`BEGIN IMMEDIATE`).
pub fn lock(db: &mut Db, id: i64) -> StoreResult<()> {
    if db.dialect() == Dialect::Postgres {
        db.rows("SELECT id FROM groups WHERE id = $1 FOR UPDATE", &[&id], |_| Ok(()))?;
    }
    Ok(())
}

/// The ids of a group and all its ancestors, the group first.
pub fn self_and_ancestor_ids(db: &mut Db, id: i64) -> StoreResult<Vec<i64>> {
    db.rows(
        "WITH RECURSIVE chain(id, parent_id, depth) AS (
             SELECT id, parent_id, 0 FROM groups WHERE id = $1
             UNION ALL
             SELECT g.id, g.parent_id, chain.depth + 1 FROM groups g JOIN chain ON g.id = chain.parent_id
             WHERE chain.depth < 100
         ) SELECT id FROM chain ORDER BY depth",
        &[&id],
        |r| r.i64(0),
    )
}

/// The root of the hierarchy a group belongs to.
pub fn root_id(db: &mut Db, id: i64) -> StoreResult<i64> {
    Ok(self_and_ancestor_ids(db, id)?.last().copied().unwrap_or(id))
}

/// When the group was marked for deletion (seconds since the epoch), if it is (decisions D9).
/// Kept apart from [`Group`]: only deletion and the entity ask.
pub fn marked_for_deletion_at(db: &mut Db, id: i64) -> StoreResult<Option<i64>> {
    Ok(db.row("SELECT marked_for_deletion_at FROM groups WHERE id = $1", &[&id], |r| r.opt_i64(0))?.flatten())
}

/// Marks the group for deletion at `at` by `by`, or (`None`) restores it; whether a row changed.
pub fn set_marked_for_deletion(db: &mut Db, id: i64, mark: Option<(i64, Option<i64>)>) -> StoreResult<bool> {
    let changed = match mark {
        Some((at, by)) => db.execute(
            "UPDATE groups SET marked_for_deletion_at = $2, marked_for_deletion_by = $3
             WHERE id = $1 AND marked_for_deletion_at IS NULL",
            &[&id, &at, &by],
        )?,
        None => db.execute(
            "UPDATE groups SET marked_for_deletion_at = NULL, marked_for_deletion_by = NULL
             WHERE id = $1 AND marked_for_deletion_at IS NOT NULL",
            &[&id],
        )?,
    };
    Ok(changed > 0)
}

/// The ids of the groups marked for deletion at or before `cutoff`.
pub fn due_for_purge(db: &mut Db, cutoff: i64) -> StoreResult<Vec<i64>> {
    db.rows(
        "SELECT id FROM groups WHERE marked_for_deletion_at IS NOT NULL AND marked_for_deletion_at <= $1 ORDER BY id",
        &[&cutoff],
        |r| r.i64(0),
    )
}

/// Removes the rows of these groups (their memberships, custom roles and CI/CD variables go
/// with them), the deepest first. Whether any row was removed by this call.
pub fn remove_all(db: &mut Db, deepest_first: &[i64]) -> StoreResult<bool> {
    let mut removed = false;
    for id in deepest_first {
        removed |= db.execute("DELETE FROM groups WHERE id = $1", &[id])? > 0;
    }
    Ok(removed)
}
