//! Personal access tokens: a user's, by the digest of the token text, live until revoked.

use crate::store::db::Db;
use crate::store::error::StoreResult;
use crate::store::users::{self, User};

pub fn insert_personal(db: &mut Db, user_id: i64, name: &str, digest: &[u8]) -> StoreResult<i64> {
    db.one(
        "INSERT INTO personal_access_tokens (user_id, name, digest, created_at) VALUES ($1, $2, $3, $4) RETURNING id",
        &[&user_id, &name, &digest, &crate::store::now_seconds()],
        |r| r.i64(0),
    )
}

/// The user behind a live personal token with this digest, in one lookup.
pub fn personal_token_user(db: &mut Db, digest: &[u8]) -> StoreResult<Option<User>> {
    // The user's columns are the users module's own list, so this stays in step with `User`;
    // users in any state are found: what a blocked or deactivated account may do is decided
    // where the caller is identified (`Call`, git over HTTP), with GitLab's answers.
    let sql = format!(
        "SELECT {} FROM personal_access_tokens t JOIN users u ON u.id = t.user_id
         WHERE t.digest = $1 AND NOT t.revoked",
        users::columns("u")
    );
    db.row(&sql, &[&digest], users::from_row)
}

/// Revokes the token with this digest; false when there is no such live token.
pub fn revoke_personal(db: &mut Db, digest: &[u8]) -> StoreResult<bool> {
    let changed =
        db.execute("UPDATE personal_access_tokens SET revoked = TRUE WHERE digest = $1 AND NOT revoked", &[&digest])?;
    Ok(changed > 0)
}
