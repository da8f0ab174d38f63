//! Award emoji (decisions D10): an emoji `name` a user awarded to an awardable (`Issue`,
//! `MergeRequest` or `Note`, by global id), at most one per user, awardable and name (a unique
//! key, so two hosts on one PostgreSQL awarding the same emoji at once store one).

use super::db::{Db, Row};
use super::error::StoreResult;
use super::labels::now_millis;
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Award {
    pub id: i64,
    pub project_id: i64,
    pub name: String,
    pub user_id: i64,
    pub awardable_type: String,
    pub awardable_id: i64,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    pub updated_at: i64,
}

const COLUMNS: &str = "id, project_id, name, user_id, awardable_type, awardable_id, created_at, updated_at";

fn from_row(row: &Row) -> StoreResult<Award> {
    Ok(Award {
        id: row.i64(0)?,
        project_id: row.i64(1)?,
        name: row.string(2)?,
        user_id: row.i64(3)?,
        awardable_type: row.string(4)?,
        awardable_id: row.i64(5)?,
        created_at: row.i64(6)?,
        updated_at: row.i64(7)?,
    })
}

/// Awards `name` from `user_id`; `None` when that user has awarded it there already.
pub fn insert(
    db: &mut Db,
    project_id: i64,
    awardable_type: &str,
    awardable_id: i64,
    user_id: i64,
    name: &str,
) -> StoreResult<Option<Award>> {
    let now = now_millis();
    let id = db.row(
        "INSERT INTO award_emoji (project_id, name, user_id, awardable_type, awardable_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (user_id, awardable_type, awardable_id, name) DO NOTHING
         RETURNING id",
        &[&project_id, &name, &user_id, &awardable_type, &awardable_id, &now],
        |r| r.i64(0),
    )?;
    Ok(id.map(|id| Award {
        id,
        project_id,
        name: name.to_string(),
        user_id,
        awardable_type: awardable_type.to_string(),
        awardable_id,
        created_at: now,
        updated_at: now,
    }))
}

/// One page of an awardable's awards, oldest first.
pub fn list(db: &mut Db, awardable_type: &str, awardable_id: i64, limit: i64, offset: i64) -> StoreResult<Vec<Award>> {
    db.rows(
        &format!(
            "SELECT {COLUMNS} FROM award_emoji WHERE awardable_type = $1 AND awardable_id = $2
             ORDER BY id LIMIT $3 OFFSET $4"
        ),
        &[&awardable_type, &awardable_id, &limit, &offset],
        from_row,
    )
}

pub fn count(db: &mut Db, awardable_type: &str, awardable_id: i64) -> StoreResult<i64> {
    db.one(
        "SELECT count(*) FROM award_emoji WHERE awardable_type = $1 AND awardable_id = $2",
        &[&awardable_type, &awardable_id],
        |r| r.i64(0),
    )
}

/// The award `id` of the awardable, if it is one of its awards.
pub fn find(db: &mut Db, awardable_type: &str, awardable_id: i64, id: i64) -> StoreResult<Option<Award>> {
    db.row(
        &format!("SELECT {COLUMNS} FROM award_emoji WHERE id = $1 AND awardable_type = $2 AND awardable_id = $3"),
        &[&id, &awardable_type, &awardable_id],
        from_row,
    )
}

pub fn delete(db: &mut Db, id: i64) -> StoreResult<bool> {
    Ok(db.execute("DELETE FROM award_emoji WHERE id = $1", &[&id])? > 0)
}

/// Removes every award of an awardable.
pub fn delete_all(db: &mut Db, awardable_type: &str, awardable_id: i64) -> StoreResult<()> {
    db.execute(
        "DELETE FROM award_emoji WHERE awardable_type = $1 AND awardable_id = $2",
        &[&awardable_type, &awardable_id],
    )?;
    Ok(())
}

/// GitLab's `upvotes` and `downvotes` of each of `ids` (awards named `thumbsup` and
/// `thumbsdown`, `AwardEmoji.votes_for_collection`), in one query.
pub fn votes(db: &mut Db, awardable_type: &str, ids: &[i64]) -> StoreResult<HashMap<i64, (i64, i64)>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    let rows = db.rows(
        &format!(
            "SELECT awardable_id, name, count(*) FROM award_emoji
             WHERE awardable_type = $1 AND awardable_id IN ({}) AND name IN ('thumbsup', 'thumbsdown')
             GROUP BY awardable_id, name",
            list.join(", ")
        ),
        &[&awardable_type],
        |r| Ok((r.i64(0)?, r.string(1)?, r.i64(2)?)),
    )?;
    let mut out: HashMap<i64, (i64, i64)> = HashMap::new();
    for (id, name, n) in rows {
        let entry = out.entry(id).or_default();
        if name == "thumbsup" {
            entry.0 = n;
        } else {
            entry.1 = n;
        }
    }
    Ok(out)
}
