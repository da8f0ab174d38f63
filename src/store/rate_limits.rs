//! Rate-limit counters kept in SQLite, so every process serving the same data directory
//! shares them. Fixed windows: a key counts hits from `window_start` for one period.

use crate::error::ApiResult;
use rusqlite::{params, Connection, OptionalExtension};

/// Records one hit on `key`. Returns `Some(seconds until the window ends)` when the hit is over
/// `limit` (and so refused, and not counted), `None` when it is allowed.
pub fn hit(conn: &Connection, key: &str, limit: u32, period: u32, now: i64) -> ApiResult<Option<u64>> {
    let period = i64::from(period);
    conn.execute("DELETE FROM rate_limits WHERE expires_at <= ?1", [now])?;
    let current: Option<(i64, i64)> =
        super::row(conn, "SELECT window_start, hits FROM rate_limits WHERE key = ?1", [key], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    match current {
        Some((start, hits)) if hits >= i64::from(limit) => Ok(Some((start + period - now).max(1) as u64)),
        Some(_) => {
            conn.execute("UPDATE rate_limits SET hits = hits + 1 WHERE key = ?1", [key])?;
            Ok(None)
        }
        None => {
            conn.execute(
                "INSERT INTO rate_limits (key, window_start, hits, expires_at) VALUES (?1, ?2, 1, ?3)",
                params![key, now, now + period],
            )?;
            Ok(None)
        }
    }
}
