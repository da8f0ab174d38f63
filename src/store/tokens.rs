//! Personal access tokens and CI job tokens, kept only as SHA-256 digests of the token text.
//! A lookup is by digest; the token itself never reaches the database.

use crate::error::ApiResult;
use rusqlite::{params, Connection, OptionalExtension};

pub fn insert_personal(conn: &Connection, user_id: i64, name: &str, digest: &[u8]) -> ApiResult<i64> {
    conn.execute(
        "INSERT INTO personal_access_tokens (user_id, name, digest, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![user_id, name, digest, super::now_seconds()],
    )?;
    Ok(conn.last_insert_rowid())
}

/// The user id behind a live personal token with this digest.
pub fn personal_token_user(conn: &Connection, digest: &[u8]) -> ApiResult<Option<i64>> {
    Ok(super::row(
        conn,
        "SELECT user_id FROM personal_access_tokens WHERE digest = ?1 AND revoked = 0",
        [digest],
        |r| r.get(0),
    )
    .optional()?)
}

/// Revokes the token with this digest; false when there is no such live token.
pub fn revoke_personal(conn: &Connection, digest: &[u8]) -> ApiResult<bool> {
    let changed =
        conn.execute("UPDATE personal_access_tokens SET revoked = 1 WHERE digest = ?1 AND revoked = 0", [digest])?;
    Ok(changed > 0)
}

pub fn insert_job(conn: &Connection, project_id: i64, digest: &[u8]) -> ApiResult<i64> {
    conn.execute(
        "INSERT INTO job_tokens (project_id, digest, created_at) VALUES (?1, ?2, ?3)",
        params![project_id, digest, super::now_seconds()],
    )?;
    Ok(conn.last_insert_rowid())
}

/// The project a live job token with this digest belongs to.
pub fn job_token_project(conn: &Connection, digest: &[u8]) -> ApiResult<Option<i64>> {
    Ok(super::row(conn, "SELECT project_id FROM job_tokens WHERE digest = ?1 AND revoked = 0", [digest], |r| r.get(0))
        .optional()?)
}

pub fn revoke_job(conn: &Connection, digest: &[u8]) -> ApiResult<bool> {
    let changed = conn.execute("UPDATE job_tokens SET revoked = 1 WHERE digest = ?1 AND revoked = 0", [digest])?;
    Ok(changed > 0)
}
