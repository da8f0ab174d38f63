//! Personal access tokens and CI job tokens, kept only as SHA-256 digests of the token text.
//! A lookup is by digest; the token itself never reaches the database.

use super::db::Db;
use super::error::StoreResult;
use super::users::{self, User};

/// What a live token authenticates: a user (personal access token) or a CI job's project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    User(User),
    Job { project_id: i64 },
}

/// What the live token with this digest authenticates (`job`: a job token, else a personal
/// access token), in one lookup; `None` when there is no such live token.
pub fn principal(db: &mut Db, digest: &[u8], job: bool) -> StoreResult<Option<Principal>> {
    Ok(if job {
        job_token_project(db, digest)?.map(|project_id| Principal::Job { project_id })
    } else {
        personal_token_user(db, digest)?.map(Principal::User)
    })
}

pub fn insert_personal(db: &mut Db, user_id: i64, name: &str, digest: &[u8]) -> StoreResult<i64> {
    db.one(
        "INSERT INTO personal_access_tokens (user_id, name, digest, created_at) VALUES ($1, $2, $3, $4) RETURNING id",
        &[&user_id, &name, &digest, &super::now_seconds()],
        |r| r.i64(0),
    )
}

/// The user behind a live personal token with this digest, in one lookup.
pub fn personal_token_user(db: &mut Db, digest: &[u8]) -> StoreResult<Option<User>> {
    db.row(
        "SELECT u.id, u.username, u.name, u.email, u.is_admin
         FROM personal_access_tokens t JOIN users u ON u.id = t.user_id
         WHERE t.digest = $1 AND NOT t.revoked",
        &[&digest],
        users::from_row,
    )
}

/// Revokes the token with this digest; false when there is no such live token.
pub fn revoke_personal(db: &mut Db, digest: &[u8]) -> StoreResult<bool> {
    let changed =
        db.execute("UPDATE personal_access_tokens SET revoked = TRUE WHERE digest = $1 AND NOT revoked", &[&digest])?;
    Ok(changed > 0)
}

pub fn insert_job(db: &mut Db, project_id: i64, digest: &[u8]) -> StoreResult<i64> {
    db.one(
        "INSERT INTO job_tokens (project_id, digest, created_at) VALUES ($1, $2, $3) RETURNING id",
        &[&project_id, &digest, &super::now_seconds()],
        |r| r.i64(0),
    )
}

/// The project a live job token with this digest belongs to.
pub fn job_token_project(db: &mut Db, digest: &[u8]) -> StoreResult<Option<i64>> {
    db.row("SELECT project_id FROM job_tokens WHERE digest = $1 AND NOT revoked", &[&digest], |r| r.i64(0))
}

pub fn revoke_job(db: &mut Db, digest: &[u8]) -> StoreResult<bool> {
    let changed = db.execute("UPDATE job_tokens SET revoked = TRUE WHERE digest = $1 AND NOT revoked", &[&digest])?;
    Ok(changed > 0)
}
