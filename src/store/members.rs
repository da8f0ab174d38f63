//! Memberships: a user in a group (inherited by its subgroups and projects) or in a project,
//! with an access level and optionally a custom member role.

use super::db::{Db, Param};
use super::error::StoreResult;

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
    db: &mut Db,
    source: &Source,
    user_id: i64,
    access_level: i64,
    member_role_id: Option<i64>,
) -> StoreResult<i64> {
    let (group_id, project_id) = match source {
        Source::Group(id) => (Some(*id), None),
        Source::Project(id) => (None, Some(*id)),
    };
    db.execute(
        "DELETE FROM members WHERE user_id = $1 AND group_id IS NOT DISTINCT FROM $2
         AND project_id IS NOT DISTINCT FROM $3",
        &[&user_id, &group_id, &project_id],
    )?;
    db.one(
        "INSERT INTO members (user_id, group_id, project_id, access_level, member_role_id)
         VALUES ($1, $2, $3, $4, $5) RETURNING id",
        &[&user_id, &group_id, &project_id, &access_level, &member_role_id],
        |r| r.i64(0),
    )
}

fn collect(db: &mut Db, sql: &str, params: &[&dyn Param]) -> StoreResult<Vec<Membership>> {
    db.rows(sql, params, |r| {
        let role_permissions =
            r.opt_string(1)?.and_then(|text| serde_json::from_str::<Vec<String>>(&text).ok()).unwrap_or_default();
        Ok(Membership { access_level: r.i64(0)?, role_permissions })
    })
}

/// Memberships of `user_id` that reach project `project_id`: on the project itself or on
/// its group or any ancestor group.
pub fn for_project(db: &mut Db, user_id: i64, project_id: i64) -> StoreResult<Vec<Membership>> {
    collect(
        db,
        "WITH RECURSIVE chain(id, parent_id, depth) AS (
             SELECT g.id, g.parent_id, 0 FROM groups g JOIN projects p ON p.group_id = g.id WHERE p.id = $2
             UNION ALL
             SELECT g.id, g.parent_id, chain.depth + 1 FROM groups g JOIN chain ON g.id = chain.parent_id
             WHERE chain.depth < 100
         )
         SELECT m.access_level, r.permissions FROM members m LEFT JOIN member_roles r ON r.id = m.member_role_id
         WHERE m.user_id = $1 AND (m.project_id = $2 OR m.group_id IN (SELECT id FROM chain))",
        &[&user_id, &project_id],
    )
}

/// Memberships of `user_id` that reach group `group_id`: on it or any ancestor.
pub fn for_group(db: &mut Db, user_id: i64, group_id: i64) -> StoreResult<Vec<Membership>> {
    collect(
        db,
        "WITH RECURSIVE chain(id, parent_id, depth) AS (
             SELECT id, parent_id, 0 FROM groups WHERE id = $2
             UNION ALL
             SELECT g.id, g.parent_id, chain.depth + 1 FROM groups g JOIN chain ON g.id = chain.parent_id
             WHERE chain.depth < 100
         )
         SELECT m.access_level, r.permissions FROM members m LEFT JOIN member_roles r ON r.id = m.member_role_id
         WHERE m.user_id = $1 AND m.group_id IN (SELECT id FROM chain)",
        &[&user_id, &group_id],
    )
}

/// Whether `user_id` is a member anywhere below `group_id` (a subgroup or a project), which
/// lets them see the group even when it is private.
pub fn has_membership_below(db: &mut Db, user_id: i64, group_id: i64) -> StoreResult<bool> {
    db.one(
        "WITH RECURSIVE tree(id, depth) AS (
             SELECT id, 0 FROM groups WHERE id = $2
             UNION ALL
             SELECT g.id, tree.depth + 1 FROM groups g JOIN tree ON g.parent_id = tree.id WHERE tree.depth < 100
         )
         SELECT EXISTS (SELECT 1 FROM members m WHERE m.user_id = $1 AND (
             m.group_id IN (SELECT id FROM tree)
             OR m.project_id IN (SELECT p.id FROM projects p WHERE p.group_id IN (SELECT id FROM tree))))",
        &[&user_id, &group_id],
        |r| r.bool(0),
    )
}

/// How many memberships use the member role.
pub fn count_with_role(db: &mut Db, member_role_id: i64) -> StoreResult<i64> {
    db.one("SELECT count(*) FROM members WHERE member_role_id = $1", &[&member_role_id], |r| r.i64(0))
}

/// Whether `user_id` is a member of group `group_id` itself (not through an ancestor).
pub fn is_direct_group_member(db: &mut Db, user_id: i64, group_id: i64) -> StoreResult<bool> {
    Ok(db
        .row("SELECT 1 FROM members WHERE user_id = $1 AND group_id = $2 LIMIT 1", &[&user_id, &group_id], |_| Ok(()))?
        .is_some())
}
