//! Projects: a full path, the git directory served in place, visibility and fork parent.
//!
//! A project's repository is either on a named storage (`storage`, with `repo_dir` relative to
//! that storage's root, as Gitaly keeps a repository's relative path) or, without a storage, at
//! the absolute `repo_dir` it was registered with.

use super::db::{Db, Dialect, Row};
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
    /// Seconds since the Unix epoch.
    pub created_at: i64,
    pub description: Option<String>,
    /// Whether the project's protected branches are the rows of `protected_branches`; when not
    /// (a project made before they were stored), its default branch is protected implicitly.
    pub protections_stored: bool,
}

const COLUMNS: &str = "id, group_id, path, full_path, name, repo_dir, visibility, forked_from_id, storage, \
                       created_at, description, protections_stored";

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
        created_at: row.i64(9)?,
        description: row.opt_string(10)?,
        protections_stored: row.bool(11)?,
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

/// Inserts a project. Its protections are stored from the start (`protections_stored`): the
/// caller protects its default branch in the same transaction.
pub fn insert(db: &mut Db, new: &NewProject) -> StoreResult<Project> {
    let created_at = super::now_seconds();
    let id = db.one(
        "INSERT INTO projects (group_id, path, full_path, name, repo_dir, visibility, forked_from_id, storage,
                               created_at, protections_stored)
         VALUES ($1, $2, $3, $2, $4, $5, $6, $7, $8, TRUE) RETURNING id",
        &[
            &new.group_id,
            &new.path,
            &new.full_path,
            &new.repo_dir,
            &new.visibility.as_str(),
            &new.forked_from_id,
            &new.storage,
            &created_at,
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
        created_at,
        description: None,
        protections_stored: true,
    })
}

/// Marks the project's protections as the rows of `protected_branches` from now on.
pub fn mark_protections_stored(db: &mut Db, id: i64) -> StoreResult<()> {
    db.execute("UPDATE projects SET protections_stored = TRUE WHERE id = $1 AND NOT protections_stored", &[&id])?;
    Ok(())
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

/// The columns a project list may be ordered by (GitLab's `order_by`; the times this store
/// does not keep apart, `updated_at` and `last_activity_at`, are the creation time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Id,
    Name,
    Path,
    CreatedAt,
}

impl Order {
    fn column(self) -> &'static str {
        match self {
            Order::Id => "p.id",
            Order::Name => "p.name",
            Order::Path => "p.path",
            Order::CreatedAt => "p.created_at",
        }
    }
}

/// Which projects a list holds, for whom, and which page of them.
#[derive(Debug, Clone)]
pub struct ListQuery {
    /// The signed-in caller (`None`: anonymous); their memberships give `level`.
    pub user_id: Option<i64>,
    /// Administrators see every project.
    pub admin: bool,
    /// Only projects the caller is a member of (directly or through a group).
    pub membership: bool,
    pub min_access_level: Option<i64>,
    /// Matched against name and path, ignoring case.
    pub search: Option<String>,
    pub visibility: Option<Visibility>,
    /// Only projects in these groups (`GET /groups/:id/projects`).
    pub group_ids: Option<Vec<i64>>,
    pub id_after: Option<i64>,
    pub id_before: Option<i64>,
    /// Only this project (a single project's entity, already authorized).
    pub only_id: Option<i64>,
    pub order: Order,
    pub ascending: bool,
    pub limit: i64,
    pub offset: i64,
}

/// One project of a list, with what its entity shows beyond the project itself.
#[derive(Debug, Clone)]
pub struct Listed {
    pub project: Project,
    /// The caller's highest membership level reaching it, if any.
    pub level: Option<i64>,
    /// The caller's membership on the project itself.
    pub project_level: Option<i64>,
    /// The caller's highest membership on its group or the group's ancestors.
    pub group_level: Option<i64>,
    pub forks_count: i64,
    /// Its group (`None` for a project outside any group).
    pub namespace: Option<super::groups::Group>,
}

/// The caller's level on the project itself ($1: the user, NULL for nobody).
const PROJECT_LEVEL: &str = "(SELECT max(m.access_level) FROM members m WHERE m.user_id = $1 AND m.project_id = p.id)";
/// The caller's highest level on the project's group or its ancestors (`mg`, below).
const GROUP_LEVEL: &str = "(SELECT max(mg.level) FROM mg WHERE mg.id = p.group_id)";
/// Whether the caller is a member of the project, directly or through a group.
/// On SQLite the group test reads `+p.group_id`, which keeps SQLite from answering it through
/// `projects_group`: with that index it would fetch every project of the caller's groups and
/// sort them for each page (19 ms for the first keyset page of 10,000 projects in the
/// administration bench, against 1.6 ms scanning in the list's order).
const MEMBER: &str = "(p.id IN (SELECT m.project_id FROM members m WHERE m.user_id = $1 AND m.project_id IS NOT NULL)
                      OR {group_id} IN (SELECT mg.id FROM mg))";

fn member(dialect: Dialect) -> String {
    MEMBER.replace("{group_id}", if dialect == Dialect::Sqlite { "+p.group_id" } else { "p.group_id" })
}

/// The projects `query` selects, with `select` as the columns. `mg` holds the groups the caller
/// is a member of and every group below them, with the level that reaches each; a project's
/// levels are asked of it and of `members` row by row, so a page ordered by an indexed column
/// reads the projects of that page, however many there are.
fn list_sql(query: &ListQuery, select: &str, dialect: Dialect) -> (String, Vec<Box<dyn super::db::Param>>) {
    let member = member(dialect);
    let mut params: Vec<Box<dyn super::db::Param>> = vec![Box::new(query.user_id)];
    let mut conditions: Vec<String> = Vec::new();
    let bind = |value: Box<dyn super::db::Param>, params: &mut Vec<Box<dyn super::db::Param>>| {
        params.push(value);
        format!("${}", params.len())
    };
    if let Some(id) = query.only_id {
        let at = bind(Box::new(id), &mut params);
        conditions.push(format!("p.id = {at}"));
    }
    if !query.admin {
        let internal = if query.user_id.is_some() { " OR p.visibility = 'internal'" } else { "" };
        conditions.push(format!("(p.visibility = 'public'{internal} OR {member})"));
    }
    if query.membership {
        conditions.push(member.clone());
    }
    if let Some(level) = query.min_access_level {
        let at = bind(Box::new(level), &mut params);
        conditions.push(format!("({PROJECT_LEVEL} >= {at} OR {GROUP_LEVEL} >= {at})"));
    }
    if let Some(search) = &query.search {
        let escaped: String = search
            .to_lowercase()
            .chars()
            .flat_map(|c| match c {
                '%' | '_' | '\\' => vec!['\\', c],
                c => vec![c],
            })
            .collect();
        let at = bind(Box::new(format!("%{escaped}%")), &mut params);
        conditions.push(format!("(lower(p.name) LIKE {at} ESCAPE '\\' OR lower(p.path) LIKE {at} ESCAPE '\\')"));
    }
    if let Some(visibility) = query.visibility {
        let at = bind(Box::new(visibility.as_str()), &mut params);
        conditions.push(format!("p.visibility = {at}"));
    }
    if let Some(groups) = &query.group_ids {
        let ids: Vec<String> = groups.iter().map(i64::to_string).collect();
        conditions.push(if ids.is_empty() { "1 = 0".into() } else { format!("p.group_id IN ({})", ids.join(", ")) });
    }
    if let Some(id) = query.id_after {
        let at = bind(Box::new(id), &mut params);
        conditions.push(format!("p.id > {at}"));
    }
    if let Some(id) = query.id_before {
        let at = bind(Box::new(id), &mut params);
        conditions.push(format!("p.id < {at}"));
    }
    let filter = if conditions.is_empty() { String::new() } else { format!("WHERE {}", conditions.join(" AND ")) };
    let sql = format!(
        "WITH RECURSIVE mg(id, level, depth) AS (
             SELECT group_id, access_level, 0 FROM members WHERE user_id = $1 AND group_id IS NOT NULL
             UNION ALL
             SELECT g.id, mg.level, mg.depth + 1 FROM groups g JOIN mg ON g.parent_id = mg.id WHERE mg.depth < 100
         )
         SELECT {select} FROM projects p LEFT JOIN groups g ON g.id = p.group_id {filter}"
    );
    (sql, params)
}

/// One page of the projects `query` selects, in its order.
pub fn list(db: &mut Db, query: &ListQuery) -> StoreResult<Vec<Listed>> {
    let columns: Vec<String> = COLUMNS.split(',').map(|c| format!("p.{}", c.trim())).collect();
    let group_columns = "g.id, g.parent_id, g.path, g.full_path, g.name, g.visibility";
    let select = format!(
        "{}, {PROJECT_LEVEL}, {GROUP_LEVEL},
         (SELECT count(*) FROM projects f WHERE f.forked_from_id = p.id), {group_columns}",
        columns.join(", ")
    );
    let direction = if query.ascending { "ASC" } else { "DESC" };
    let order = format!("ORDER BY {} {direction}, p.id {direction}", query.order.column());
    let sql_and_params = if query.offset > 0 {
        // A later offset page picks its ids first, so that the levels and counts of the
        // columns are asked of the page's rows only, not of every row skipped (PostgreSQL
        // computed them for all 9,980 before page 500 of the administration bench: 1.1 s).
        let (inner, mut params) = list_sql(query, "p.id", db.dialect());
        params.push(Box::new(query.limit));
        params.push(Box::new(query.offset));
        let (with, ids) = inner.split_once("SELECT p.id FROM projects p").ok_or(super::StoreError::NoRow)?;
        let sql = format!(
            "{with} SELECT {select} FROM projects p LEFT JOIN groups g ON g.id = p.group_id
             WHERE p.id IN (SELECT p.id FROM projects p{ids} {order} LIMIT ${} OFFSET ${}) {order}",
            params.len() - 1,
            params.len()
        );
        (sql, params)
    } else {
        let (mut sql, mut params) = list_sql(query, &select, db.dialect());
        params.push(Box::new(query.limit));
        sql.push_str(&format!(" {order} LIMIT ${}", params.len()));
        (sql, params)
    };
    let (sql, params) = sql_and_params;
    let refs: Vec<&dyn super::db::Param> = params.iter().map(|p| p.as_ref()).collect();
    db.rows(&sql, &refs, |row| {
        let namespace = match row.opt_i64(15)? {
            Some(_) => Some(super::groups::from_row_at(row, 15)?),
            None => None,
        };
        let (project_level, group_level) = (row.opt_i64(12)?, row.opt_i64(13)?);
        Ok(Listed {
            project: from_row(row)?,
            level: project_level.max(group_level),
            project_level,
            group_level,
            forks_count: row.i64(14)?,
            namespace,
        })
    })
}

/// How many projects `query` selects in all pages.
pub fn count(db: &mut Db, query: &ListQuery) -> StoreResult<i64> {
    let (sql, params) = list_sql(query, "count(*)", db.dialect());
    let refs: Vec<&dyn super::db::Param> = params.iter().map(|p| p.as_ref()).collect();
    db.one(&sql, &refs, |row| row.i64(0))
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
