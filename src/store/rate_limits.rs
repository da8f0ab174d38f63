//! Rate-limit counters kept in the store, so every process and every host serving one data
//! set shares them. Fixed windows: a key counts hits for one period from its first hit.
//!
//! A hit is one statement, atomic on both backends (an upsert that opens a new window when the
//! old one has ended, else counts one more), so a limit of N lets exactly N hits through in a
//! window however many hosts race for it.

use super::db::Db;
use super::error::StoreResult;

/// Records one hit on `key`. Returns `Some(seconds until the window ends)` when the hit is over
/// `limit` (and so refused), `None` when it is allowed.
pub fn hit(db: &mut Db, key: &str, limit: u32, period: u32, now: i64) -> StoreResult<Option<u64>> {
    let (hits, expires_at) = db.one(
        "INSERT INTO rate_limits (key, window_start, hits, expires_at) VALUES ($1, $2, 1, $3)
         ON CONFLICT (key) DO UPDATE SET
             window_start = CASE WHEN rate_limits.expires_at <= $2 THEN $2 ELSE rate_limits.window_start END,
             hits = CASE WHEN rate_limits.expires_at <= $2 THEN 1 ELSE rate_limits.hits + 1 END,
             expires_at = CASE WHEN rate_limits.expires_at <= $2 THEN $3 ELSE rate_limits.expires_at END
         RETURNING hits, expires_at",
        &[&key, &now, &(now + i64::from(period))],
        |r| Ok((r.i64(0)?, r.i64(1)?)),
    )?;
    if hits == 1 {
        // A new window: windows of other keys that ended are garbage now.
        db.execute("DELETE FROM rate_limits WHERE expires_at <= $1", &[&now])?;
    }
    Ok((hits > i64::from(limit)).then(|| (expires_at - now).max(1) as u64))
}
