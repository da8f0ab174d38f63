//! CI job tokens: a job's, for its project, by the digest of the token text, live until
//! revoked.

use crate::store::db::Db;
use crate::store::error::StoreResult;

pub fn insert_job(db: &mut Db, project_id: i64, digest: &[u8]) -> StoreResult<i64> {
    db.one(
        "INSERT INTO job_tokens (project_id, digest, created_at) VALUES ($1, $2, $3) RETURNING id",
        &[&project_id, &digest, &crate::store::now_seconds()],
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
