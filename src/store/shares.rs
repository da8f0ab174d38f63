//! Sharing with groups (GitLab's `project_group_links` and `group_group_links`): a project or a
//! group shared with a group at `group_access`, until `expires_at` (`YYYY-MM-DD`; the link
//! counts while that day is after today, as a membership does). The members of the group
//! shared with (direct or inherited from its ancestors) reach the shared subject at the lower
//! of the link's level and their own: [`super::members::for_project`] and `for_group` add
//! those rows, and the members lists (`members/all`) show them.

use super::db::Db;
use super::error::StoreResult;

/// One link, as the entities show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub id: i64,
    /// The project or group shared.
    pub shared_id: i64,
    /// The group shared with.
    pub group_id: i64,
    pub group_name: String,
    pub group_full_path: String,
    pub group_access: i64,
    pub expires_at: Option<String>,
}

/// Which kind of subject is shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shared {
    Project(i64),
    Group(i64),
}

impl Shared {
    fn table(self) -> (&'static str, &'static str, &'static str, i64) {
        match self {
            Shared::Project(id) => ("project_group_links", "project_id", "group_id", id),
            Shared::Group(id) => ("group_group_links", "shared_group_id", "shared_with_group_id", id),
        }
    }
}

/// The live links of `shared`, oldest first.
pub fn list(db: &mut Db, shared: Shared) -> StoreResult<Vec<Link>> {
    let (table, subject, with, id) = shared.table();
    let sql = format!(
        "SELECT l.id, l.{subject}, l.{with}, g.name, g.full_path, l.group_access, l.expires_at
         FROM {table} l JOIN groups g ON g.id = l.{with}
         WHERE l.{subject} = $1 AND (l.expires_at IS NULL OR l.expires_at > $2) ORDER BY l.id"
    );
    db.rows(&sql, &[&id, &super::today()], |r| {
        Ok(Link {
            id: r.i64(0)?,
            shared_id: r.i64(1)?,
            group_id: r.i64(2)?,
            group_name: r.string(3)?,
            group_full_path: r.string(4)?,
            group_access: r.i64(5)?,
            expires_at: r.opt_string(6)?,
        })
    })
}

/// The link of `shared` with `group_id`, live or expired.
pub fn find(db: &mut Db, shared: Shared, group_id: i64) -> StoreResult<Option<(i64, Option<String>)>> {
    let (table, subject, with, id) = shared.table();
    db.row(
        &format!("SELECT id, expires_at FROM {table} WHERE {subject} = $1 AND {with} = $2"),
        &[&id, &group_id],
        |r| Ok((r.i64(0)?, r.opt_string(1)?)),
    )
}

/// Adds a link (an expired one of the same pair is replaced); its id and creation time.
pub fn insert(db: &mut Db, shared: Shared, group_id: i64, access: i64, expires_at: Option<&str>) -> StoreResult<i64> {
    let (table, subject, with, id) = shared.table();
    db.execute(&format!("DELETE FROM {table} WHERE {subject} = $1 AND {with} = $2"), &[&id, &group_id])?;
    db.one(
        &format!(
            "INSERT INTO {table} ({subject}, {with}, group_access, expires_at, created_at)
             VALUES ($1, $2, $3, $4, $5) RETURNING id"
        ),
        &[&id, &group_id, &access, &expires_at, &super::now_seconds()],
        |r| r.i64(0),
    )
}

/// Removes the link of `shared` with `group_id`; whether there was one.
pub fn delete(db: &mut Db, shared: Shared, group_id: i64) -> StoreResult<bool> {
    let (table, subject, with, id) = shared.table();
    Ok(db.execute(&format!("DELETE FROM {table} WHERE {subject} = $1 AND {with} = $2"), &[&id, &group_id])? > 0)
}

/// SQL of the groups whose members reach a subject through its links, with the links' level:
/// a recursive CTE `shared_in(gid, access, anc, depth)`, one row per link and ancestor of the
/// group shared with (inherited members of that group count). `links` selects `(group_id,
/// access)` of the live links that apply, `$3` being today.
pub(super) fn shared_in_cte(links: &str) -> String {
    format!(
        "shared_in(gid, access, anc, depth) AS (
             SELECT l.gid, l.access, l.gid, 0 FROM ({links}) l
             UNION ALL
             SELECT s.gid, s.access, g.parent_id, s.depth + 1 FROM shared_in s JOIN groups g ON g.id = s.anc
             WHERE g.parent_id IS NOT NULL AND s.depth < 100
         )"
    )
}

/// The live links that reach project `{id}` (its own, and those of its group and ancestors,
/// `chain`), as `(gid, access)`.
pub(super) const PROJECT_LINKS: &str = "SELECT group_id AS gid, group_access AS access FROM project_group_links
     WHERE project_id = {id} AND (expires_at IS NULL OR expires_at > $3)
     UNION ALL
     SELECT shared_with_group_id AS gid, group_access AS access FROM group_group_links
     WHERE shared_group_id IN (SELECT id FROM chain) AND (expires_at IS NULL OR expires_at > $3)";

/// The live links that reach group `$1` (its own and its ancestors', `chain`).
pub(super) const GROUP_LINKS: &str = "SELECT shared_with_group_id AS gid, group_access AS access FROM group_group_links
     WHERE shared_group_id IN (SELECT id FROM chain) AND (expires_at IS NULL OR expires_at > $3)";

impl Link {
    /// GitLab's `SharedGroupWithProject` / `SharedGroupWithGroup`.
    pub fn entity(&self) -> serde_json::Value {
        serde_json::json!({
            "group_id": self.group_id,
            "group_name": self.group_name,
            "group_full_path": self.group_full_path,
            "group_access_level": self.group_access,
            "expires_at": self.expires_at,
        })
    }
}
