//! Memberships: a user in a group (inherited by its subgroups and projects) or in a project,
//! with an access level and optionally a custom member role.

use crate::error::ApiResult;
use rusqlite::{params, Connection};

/// One membership that applies to the subject asked about, with its role's flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    pub access_level: i64,
    pub role_permissions: Vec<String>,
}

pub enum Source {
    Group(i64),
    Project(i64),
}

/// Adds or replaces the membership of `user_id` in `source`.
pub fn upsert(
    conn: &Connection,
    source: &Source,
    user_id: i64,
    access_level: i64,
    member_role_id: Option<i64>,
) -> ApiResult<i64> {
    let (group_id, project_id) = match source {
        Source::Group(id) => (Some(*id), None),
        Source::Project(id) => (None, Some(*id)),
    };
    conn.execute(
        "DELETE FROM members WHERE user_id = ?1 AND group_id IS ?2 AND project_id IS ?3",
        params![user_id, group_id, project_id],
    )?;
    conn.execute(
        "INSERT INTO members (user_id, group_id, project_id, access_level, member_role_id) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![user_id, group_id, project_id, access_level, member_role_id],
    )?;
    Ok(conn.last_insert_rowid())
}

fn collect(conn: &Connection, sql: &str, args: impl rusqlite::Params) -> ApiResult<Vec<Membership>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(args, |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?)))?;
    let mut out = Vec::new();
    for row in rows {
        let (access_level, permissions) = row?;
        let role_permissions =
            permissions.and_then(|text| serde_json::from_str::<Vec<String>>(&text).ok()).unwrap_or_default();
        out.push(Membership { access_level, role_permissions });
    }
    Ok(out)
}

const ANCESTORS_OF_PROJECT_GROUP: &str = "WITH RECURSIVE chain(id, parent_id, depth) AS (
        SELECT g.id, g.parent_id, 0 FROM groups g JOIN projects p ON p.group_id = g.id WHERE p.id = ?2
        UNION ALL
        SELECT g.id, g.parent_id, chain.depth + 1 FROM groups g JOIN chain ON g.id = chain.parent_id WHERE chain.depth < 100
    )";

/// Memberships of `user_id` that reach project `project_id`: on the project itself or on
/// its group or any ancestor group.
pub fn for_project(conn: &Connection, user_id: i64, project_id: i64) -> ApiResult<Vec<Membership>> {
    let sql = format!(
        "{ANCESTORS_OF_PROJECT_GROUP}
         SELECT m.access_level, r.permissions FROM members m LEFT JOIN member_roles r ON r.id = m.member_role_id
         WHERE m.user_id = ?1 AND (m.project_id = ?2 OR m.group_id IN (SELECT id FROM chain))"
    );
    collect(conn, &sql, params![user_id, project_id])
}

/// Memberships of `user_id` that reach group `group_id`: on it or any ancestor.
pub fn for_group(conn: &Connection, user_id: i64, group_id: i64) -> ApiResult<Vec<Membership>> {
    collect(
        conn,
        "WITH RECURSIVE chain(id, parent_id, depth) AS (
             SELECT id, parent_id, 0 FROM groups WHERE id = ?2
             UNION ALL
             SELECT g.id, g.parent_id, chain.depth + 1 FROM groups g JOIN chain ON g.id = chain.parent_id WHERE chain.depth < 100
         )
         SELECT m.access_level, r.permissions FROM members m LEFT JOIN member_roles r ON r.id = m.member_role_id
         WHERE m.user_id = ?1 AND m.group_id IN (SELECT id FROM chain)",
        params![user_id, group_id],
    )
}

/// Whether `user_id` is a member anywhere below `group_id` (a subgroup or a project), which
/// lets them see the group even when it is private.
pub fn has_membership_below(conn: &Connection, user_id: i64, group_id: i64) -> ApiResult<bool> {
    let found: i64 = super::row(
        conn,
        "WITH RECURSIVE tree(id, depth) AS (
             SELECT id, 0 FROM groups WHERE id = ?2
             UNION ALL
             SELECT g.id, tree.depth + 1 FROM groups g JOIN tree ON g.parent_id = tree.id WHERE tree.depth < 100
         )
         SELECT EXISTS (SELECT 1 FROM members m WHERE m.user_id = ?1 AND (
             m.group_id IN (SELECT id FROM tree)
             OR m.project_id IN (SELECT p.id FROM projects p WHERE p.group_id IN (SELECT id FROM tree))))",
        params![user_id, group_id],
        |r| r.get(0),
    )?;
    Ok(found != 0)
}

/// How many memberships use the member role.
pub fn count_with_role(conn: &Connection, member_role_id: i64) -> ApiResult<i64> {
    Ok(super::row(conn, "SELECT count(*) FROM members WHERE member_role_id = ?1", [member_role_id], |r| r.get(0))?)
}

/// Whether `user_id` is a member of group `group_id` itself (not through an ancestor).
pub fn is_direct_group_member(conn: &Connection, user_id: i64, group_id: i64) -> ApiResult<bool> {
    let mut stmt = conn.prepare_cached("SELECT 1 FROM members WHERE user_id = ?1 AND group_id = ?2 LIMIT 1")?;
    Ok(stmt.exists(params![user_id, group_id])?)
}
