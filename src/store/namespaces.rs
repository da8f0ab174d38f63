//! Namespaces: where projects live, a group or a user's own namespace, in one id space as
//! GitLab's are. A group's namespace id is its group id; a user's is
//! [`USER_NAMESPACE_BASE`] plus the user's id (no group id reaches it), and its path and full
//! path are the username. Nothing is stored for a user's namespace: it follows from the user.

use super::db::{Db, Row};
use super::error::StoreResult;
use super::groups::{self, Group};
use super::users::{self, User};

/// The namespace id of user 1 is this plus 1. Group ids stay below it.
pub const USER_NAMESPACE_BASE: i64 = 1_000_000_000_000;

/// What a namespace id or path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Namespace {
    Group(Group),
    User(User),
}

impl Namespace {
    pub fn id(&self) -> i64 {
        match self {
            Namespace::Group(group) => group.id,
            Namespace::User(user) => user_namespace_id(user.id),
        }
    }
}

/// The namespace id of a user's own namespace.
pub fn user_namespace_id(user_id: i64) -> i64 {
    USER_NAMESPACE_BASE + user_id
}

/// The user whose namespace `namespace_id` is, if it is a user's namespace id.
pub fn user_of_namespace_id(namespace_id: i64) -> Option<i64> {
    (namespace_id > USER_NAMESPACE_BASE).then(|| namespace_id - USER_NAMESPACE_BASE)
}

/// The namespace with this id: a group below [`USER_NAMESPACE_BASE`], a user above it.
pub fn find_by_id(db: &mut Db, id: i64) -> StoreResult<Option<Namespace>> {
    match user_of_namespace_id(id) {
        Some(user_id) => Ok(users::find_by_id(db, user_id)?.map(Namespace::User)),
        None => Ok(groups::find_by_id(db, id)?.map(Namespace::Group)),
    }
}

/// The namespace at this full path (ignoring case): a group's, else (a single segment) a
/// user's.
pub fn find_by_full_path(db: &mut Db, full_path: &str) -> StoreResult<Option<Namespace>> {
    if let Some(group) = groups::find_by_full_path(db, full_path)? {
        return Ok(Some(Namespace::Group(group)));
    }
    if full_path.contains('/') {
        return Ok(None);
    }
    Ok(users::find_by_username(db, full_path)?.map(Namespace::User))
}

/// One namespace of a list: enough for GitLab's `NamespaceBasic`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub id: i64,
    /// `group` or `user`.
    pub kind: String,
    pub name: String,
    pub path: String,
    pub full_path: String,
    pub parent_id: Option<i64>,
    /// The caller's level on a group (through it or an ancestor); `None` for users' namespaces.
    pub level: Option<i64>,
}

/// Which namespaces `GET /namespaces` lists.
#[derive(Debug, Clone)]
pub struct ListQuery {
    pub user_id: i64,
    /// Every namespace (administrators).
    pub all: bool,
    /// Only groups the caller owns (and their own namespace).
    pub owned_only: bool,
    pub top_level_only: bool,
    pub search: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

/// The level a group's `project_creation_level` asks of a member to create projects in it
/// (`None`: no member may; administrators always may): GitLab's access levels of Developer,
/// Maintainer and Owner (`auth::roles` names them above the store; a stored setting's meaning
/// is the store's to read).
pub fn project_creation_min_level(level: &str) -> Option<i64> {
    match level {
        "developer" => Some(30),
        "maintainer" => Some(40),
        "owner" => Some(50),
        _ => None,
    }
}

fn list_sql(query: &ListQuery, select: &str) -> (String, Vec<Box<dyn super::db::Param>>) {
    let mut params: Vec<Box<dyn super::db::Param>> = vec![Box::new(query.user_id), Box::new(USER_NAMESPACE_BASE)];
    let bind = |value: Box<dyn super::db::Param>, params: &mut Vec<Box<dyn super::db::Param>>| {
        params.push(value);
        format!("${}", params.len())
    };
    let level = "(SELECT max(down.level) FROM down WHERE down.id = g.id)";
    let mut groups_where: Vec<String> = Vec::new();
    let mut users_where: Vec<String> = Vec::new();
    if !query.all {
        groups_where.push(if query.owned_only {
            format!("{level} >= 50")
        } else {
            format!(
                "{level} >= CASE g.project_creation_level WHEN 'developer' THEN 30 WHEN 'maintainer' THEN 40
                                 WHEN 'owner' THEN 50 ELSE 1000 END"
            )
        });
        users_where.push("u.id = $1".into());
    }
    if query.top_level_only {
        groups_where.push("g.parent_id IS NULL".into());
    }
    if let Some(search) = &query.search {
        let at = bind(Box::new(super::db::like_pattern(search)), &mut params);
        groups_where.push(format!("(lower(g.name) LIKE {at} ESCAPE '\\' OR lower(g.path) LIKE {at} ESCAPE '\\')"));
        users_where.push(format!("(lower(u.name) LIKE {at} ESCAPE '\\' OR lower(u.username) LIKE {at} ESCAPE '\\')"));
    }
    let filter = |conditions: &[String]| {
        if conditions.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", conditions.join(" AND "))
        }
    };
    let sql = format!(
        "WITH RECURSIVE down(id, level, depth) AS (
             SELECT group_id, access_level, 0 FROM members WHERE user_id = $1 AND group_id IS NOT NULL
             UNION ALL
             SELECT g.id, down.level, down.depth + 1 FROM groups g JOIN down ON g.parent_id = down.id
             WHERE down.depth < 100
         )
         SELECT {select} FROM (
             SELECT g.id AS id, 'group' AS kind, g.name AS name, g.path AS path, g.full_path AS full_path,
                    g.parent_id AS parent_id, {level} AS level
             FROM groups g {}
             UNION ALL
             SELECT $2 + u.id, 'user', u.name, u.username, u.username, NULL, NULL FROM users u {}
         ) n",
        filter(&groups_where),
        filter(&users_where)
    );
    (sql, params)
}

fn listed(row: &Row) -> StoreResult<Listed> {
    Ok(Listed {
        id: row.i64(0)?,
        kind: row.string(1)?,
        name: row.string(2)?,
        path: row.string(3)?,
        full_path: row.string(4)?,
        parent_id: row.opt_i64(5)?,
        level: row.opt_i64(6)?,
    })
}

/// One page of the namespaces `query` selects, by id.
pub fn list(db: &mut Db, query: &ListQuery) -> StoreResult<Vec<Listed>> {
    let (mut sql, mut params) = list_sql(query, "n.id, n.kind, n.name, n.path, n.full_path, n.parent_id, n.level");
    params.push(Box::new(query.limit));
    params.push(Box::new(query.offset));
    sql.push_str(&format!(" ORDER BY n.id LIMIT ${} OFFSET ${}", params.len() - 1, params.len()));
    let refs: Vec<&dyn super::db::Param> = params.iter().map(|p| p.as_ref()).collect();
    db.rows(&sql, &refs, listed)
}

/// How many namespaces `query` selects in all pages.
pub fn count(db: &mut Db, query: &ListQuery) -> StoreResult<i64> {
    let (sql, params) = list_sql(query, "count(*)");
    let refs: Vec<&dyn super::db::Param> = params.iter().map(|p| p.as_ref()).collect();
    db.one(&sql, &refs, |row| row.i64(0))
}

/// How many distinct users are members of the group or any group or project below it
/// (GitLab's `members_count_with_descendants`).
pub fn members_count_with_descendants(db: &mut Db, group_id: i64) -> StoreResult<i64> {
    db.one(
        "WITH RECURSIVE tree(id, depth) AS (
             SELECT id, 0 FROM groups WHERE id = $1
             UNION ALL
             SELECT g.id, tree.depth + 1 FROM groups g JOIN tree ON g.parent_id = tree.id WHERE tree.depth < 100
         )
         SELECT count(DISTINCT user_id) FROM members WHERE group_id IN (SELECT id FROM tree)",
        &[&group_id],
        |r| r.i64(0),
    )
}

/// Whether `full_path` is taken by a group or a project (ignoring case), or, at the top level,
/// by a user's namespace (a username): GitLab's namespaces and routes are one space.
pub fn path_taken(db: &mut Db, full_path: &str, except_group: Option<i64>) -> StoreResult<bool> {
    let group = groups::find_by_full_path(db, full_path)?;
    if group.is_some_and(|g| Some(g.id) != except_group) {
        return Ok(true);
    }
    if super::projects::find_by_full_path(db, full_path)?.is_some() {
        return Ok(true);
    }
    Ok(!full_path.contains('/') && users::find_by_username(db, full_path)?.is_some())
}
