//! Deploy tokens: a project's or a group's, by the digest of the token text, with GitLab's
//! scopes (a JSON array), a username git authenticates with, an optional expiry time (seconds)
//! and `last_used_at`. Deleting one removes the row, as GitLab's `DeployTokens::DestroyService`.

use crate::store::db::{Db, Row};
use crate::store::error::StoreResult;

/// Whose a deploy token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeployOwner {
    Project(i64),
    Group(i64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeployToken {
    pub id: i64,
    pub owner: DeployOwner,
    pub name: String,
    pub username: String,
    pub scopes: Vec<String>,
    /// Seconds since the epoch; `None` never expires.
    pub expires_at: Option<i64>,
    pub revoked: bool,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
}

impl DeployToken {
    /// GitLab's `expired?`: its time has come.
    pub fn expired(&self, now: i64) -> bool {
        self.expires_at.is_some_and(|at| at <= now)
    }
}

pub struct NewDeployToken<'a> {
    pub owner: DeployOwner,
    pub name: &'a str,
    /// `None`: GitLab's default, `gitlab+deploy-token-<id>`.
    pub username: Option<&'a str>,
    pub scopes: &'a [String],
    pub expires_at: Option<i64>,
}

const COLUMNS: &str = "id, project_id, group_id, name, username, scopes, expires_at, revoked, created_at, last_used_at";

fn from_row(row: &Row) -> StoreResult<DeployToken> {
    let owner = match (row.opt_i64(1)?, row.opt_i64(2)?) {
        (Some(project), _) => DeployOwner::Project(project),
        (None, group) => DeployOwner::Group(group.unwrap_or(0)),
    };
    Ok(DeployToken {
        id: row.i64(0)?,
        owner,
        name: row.string(3)?,
        username: row.string(4)?,
        scopes: serde_json::from_str(&row.string(5)?).unwrap_or_default(),
        expires_at: row.opt_i64(6)?,
        revoked: row.bool(7)?,
        created_at: row.i64(8)?,
        last_used_at: row.opt_i64(9)?,
    })
}

fn ids(owner: DeployOwner) -> (Option<i64>, Option<i64>) {
    match owner {
        DeployOwner::Project(id) => (Some(id), None),
        DeployOwner::Group(id) => (None, Some(id)),
    }
}

pub fn insert_deploy(db: &mut Db, new: &NewDeployToken, digest: &[u8]) -> StoreResult<DeployToken> {
    let (project_id, group_id) = ids(new.owner);
    let scopes = serde_json::Value::from(new.scopes.to_vec()).to_string();
    // The default username names the row's id, known once it is inserted.
    let username = new.username.unwrap_or("");
    let id = db.one(
        "INSERT INTO deploy_tokens (project_id, group_id, name, username, digest, scopes, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
        &[
            &project_id,
            &group_id,
            &new.name,
            &username,
            &digest,
            &scopes,
            &new.expires_at,
            &crate::store::now_seconds(),
        ],
        |r| r.i64(0),
    )?;
    if new.username.is_none() {
        db.execute(
            "UPDATE deploy_tokens SET username = $2 WHERE id = $1",
            &[&id, &format!("gitlab+deploy-token-{id}")],
        )?;
    }
    db.row(&format!("SELECT {COLUMNS} FROM deploy_tokens WHERE id = $1"), &[&id], from_row)?
        .ok_or(crate::store::StoreError::NoRow)
}

/// The token `id` of `owner` (`None`: of anyone).
pub fn find_deploy(db: &mut Db, owner: Option<DeployOwner>, id: i64) -> StoreResult<Option<DeployToken>> {
    let token = db.row(&format!("SELECT {COLUMNS} FROM deploy_tokens WHERE id = $1"), &[&id], from_row)?;
    Ok(token.filter(|t| owner.is_none_or(|o| o == t.owner)))
}

/// The tokens of `owner` (`None`: every one), by id; `active`: only live ones at `now` (not
/// revoked, not expired), GitLab's `active` filter.
pub fn list_deploy(
    db: &mut Db,
    owner: Option<DeployOwner>,
    active: Option<(bool, i64)>,
    limit: i64,
    offset: i64,
) -> StoreResult<Vec<DeployToken>> {
    let (owner_clause, owner_id) = match owner {
        // Every id is above 0; the comparison types `$1` on PostgreSQL.
        None => ("id > $1", 0),
        Some(DeployOwner::Project(id)) => ("project_id = $1", id),
        Some(DeployOwner::Group(id)) => ("group_id = $1", id),
    };
    let active_clause = match active {
        Some((true, _)) => "NOT revoked AND (expires_at IS NULL OR expires_at > $2)",
        Some((false, _)) => "(revoked OR expires_at <= $2)",
        None => "COALESCE(expires_at, $2) IS NOT NULL",
    };
    let now = active.map_or(0, |(_, now)| now);
    let sql = format!(
        "SELECT {COLUMNS} FROM deploy_tokens WHERE {owner_clause} AND {active_clause} ORDER BY id LIMIT $3 OFFSET $4"
    );
    db.rows(&sql, &[&owner_id, &now, &limit, &offset], from_row)
}

pub fn delete_deploy(db: &mut Db, id: i64) -> StoreResult<bool> {
    Ok(db.execute("DELETE FROM deploy_tokens WHERE id = $1", &[&id])? > 0)
}

/// The deploy token with this digest, in any state.
pub fn deploy_token_by_digest(db: &mut Db, digest: &[u8]) -> StoreResult<Option<DeployToken>> {
    db.row(&format!("SELECT {COLUMNS} FROM deploy_tokens WHERE digest = $1"), &[&digest], from_row)
}

/// Records a use at `now`, unless one was recorded less than `every` seconds before.
pub fn touch_deploy(db: &mut Db, id: i64, now: i64, every: i64) -> StoreResult<bool> {
    let changed = db.execute(
        "UPDATE deploy_tokens SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)",
        &[&id, &now, &(now - every)],
    )?;
    Ok(changed > 0)
}
