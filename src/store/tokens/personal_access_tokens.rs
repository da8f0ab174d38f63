//! Personal access tokens: a user's, by the digest of the token text, with GitLab's scopes (a
//! JSON array of names), an optional expiry date (`YYYY-MM-DD`, UTC) and a description; live
//! until revoked or expired. A rotation revokes the token and makes its successor in one
//! transaction (`previous_id` names the token it replaced).

use crate::store::db::{Db, Row};
use crate::store::error::StoreResult;
use crate::store::users::{self, User};

/// What a token carries into a request: which token, its scopes, its expiry, whether revoked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub id: i64,
    pub scopes: Vec<String>,
    pub expires_at: Option<String>,
    pub revoked: bool,
    /// When it was last used (seconds), as far as the lookup knew.
    pub last_used_at: Option<i64>,
}

/// A token as the API shows it (never its text: only its digest is stored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonalToken {
    pub id: i64,
    pub user_id: i64,
    pub name: String,
    pub description: Option<String>,
    pub scopes: Vec<String>,
    pub expires_at: Option<String>,
    pub revoked: bool,
    /// Seconds since the Unix epoch.
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    /// A project or group access token's resource: `("project" | "group", id)`.
    pub resource: Option<(String, i64)>,
}

/// What a new token is made of.
#[derive(Debug, Clone)]
pub struct NewToken<'a> {
    pub user_id: i64,
    pub name: &'a str,
    pub description: Option<&'a str>,
    pub scopes: &'a [String],
    pub expires_at: Option<&'a str>,
}

/// The scopes column's text: a JSON array. Text that is not one grants nothing.
fn parse_scopes(text: &str) -> Vec<String> {
    serde_json::from_str(text).unwrap_or_default()
}

fn scopes_text(scopes: &[String]) -> String {
    serde_json::Value::from(scopes.to_vec()).to_string()
}

const COLUMNS: &str =
    "id, user_id, name, description, scopes, expires_at, revoked, created_at, last_used_at, resource_type, resource_id";

fn from_row(row: &Row) -> StoreResult<PersonalToken> {
    Ok(PersonalToken {
        id: row.i64(0)?,
        user_id: row.i64(1)?,
        name: row.string(2)?,
        description: row.opt_string(3)?,
        scopes: parse_scopes(&row.string(4)?),
        expires_at: row.opt_string(5)?,
        revoked: row.bool(6)?,
        created_at: row.i64(7)?,
        last_used_at: row.opt_i64(8)?,
        resource: match (row.opt_string(9)?, row.opt_i64(10)?) {
            (Some(kind), Some(id)) => Some((kind, id)),
            _ => None,
        },
    })
}

pub fn insert_personal(db: &mut Db, token: &NewToken, digest: &[u8]) -> StoreResult<i64> {
    insert_with_previous(db, token, digest, None)
}

fn insert_with_previous(db: &mut Db, token: &NewToken, digest: &[u8], previous: Option<i64>) -> StoreResult<i64> {
    db.one(
        "INSERT INTO personal_access_tokens
             (user_id, name, digest, created_at, scopes, expires_at, description, previous_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
        &[
            &token.user_id,
            &token.name,
            &digest,
            &crate::store::now_seconds(),
            &scopes_text(token.scopes),
            &token.expires_at,
            &token.description,
            &previous,
        ],
        |r| r.i64(0),
    )
}

/// The user behind the personal token with this digest and what the token grants, revoked or
/// expired ones included (the caller answers those with GitLab's `invalid_token`), in one lookup.
/// The user's columns are the users module's own list, so this stays in step with `User`;
/// users in any state are found: what a blocked or deactivated account may do is decided where
/// the caller is identified (`Call`, git over HTTP), with GitLab's answers.
pub fn personal_token_user(db: &mut Db, digest: &[u8]) -> StoreResult<Option<(User, Grant)>> {
    let sql = format!(
        "SELECT {}, t.id, t.scopes, t.expires_at, t.revoked, t.last_used_at
         FROM personal_access_tokens t JOIN users u ON u.id = t.user_id
         WHERE t.digest = $1",
        users::columns("u")
    );
    let at = users::COLUMN_COUNT;
    db.row(&sql, &[&digest], |r| {
        let user = users::from_row(r)?;
        let grant = Grant {
            id: r.i64(at)?,
            scopes: parse_scopes(&r.string(at + 1)?),
            expires_at: r.opt_string(at + 2)?,
            revoked: r.bool(at + 3)?,
            last_used_at: r.opt_i64(at + 4)?,
        };
        Ok((user, grant))
    })
}

/// Revokes the token with this digest; false when there is no such live token.
pub fn revoke_personal(db: &mut Db, digest: &[u8]) -> StoreResult<bool> {
    let changed =
        db.execute("UPDATE personal_access_tokens SET revoked = TRUE WHERE digest = $1 AND NOT revoked", &[&digest])?;
    Ok(changed > 0)
}

pub fn find_personal(db: &mut Db, id: i64) -> StoreResult<Option<PersonalToken>> {
    db.row(&format!("SELECT {COLUMNS} FROM personal_access_tokens WHERE id = $1"), &[&id], from_row)
}

/// The filters of `GET /personal_access_tokens` the store applies, as GitLab's scopes compare
/// (`CreatedAtFilterable`; `last_used_before` `<=`, `last_used_after` `>=`, `expires_before` `<`,
/// `expires_after` `>=`).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub user_id: Option<i64>,
    pub revoked: Option<bool>,
    /// Names containing this text, ignoring case.
    pub search: Option<String>,
    pub created_after: Option<i64>,
    pub created_before: Option<i64>,
    pub last_used_after: Option<i64>,
    pub last_used_before: Option<i64>,
    /// Dates, `YYYY-MM-DD`.
    pub expires_after: Option<String>,
    pub expires_before: Option<String>,
    /// `(true, today)`: live tokens only (not revoked, not expired on `today`); `(false, today)`:
    /// revoked or expired ones.
    pub active_on: Option<(bool, String)>,
    /// The tokens of one project (`"project"`) or group (`"group"`) only.
    pub resource: Option<(&'static str, i64)>,
}

/// The tokens `filter` selects, by id, `limit` from `offset`.
pub fn list_personal(db: &mut Db, filter: &Filter, limit: i64, offset: i64) -> StoreResult<Vec<PersonalToken>> {
    let mut conditions: Vec<String> = Vec::new();
    let mut ints: Vec<i64> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    // Parameters are numbered in one sequence: integers first, then texts, then the page.
    let int_conditions = [
        ("user_id = ", filter.user_id),
        ("created_at >= ", filter.created_after),
        ("created_at <= ", filter.created_before),
        ("last_used_at >= ", filter.last_used_after),
        ("last_used_at <= ", filter.last_used_before),
    ];
    for (condition, value) in int_conditions {
        if let Some(value) = value {
            ints.push(value);
            conditions.push(format!("{condition}${}", ints.len()));
        }
    }
    if let Some((kind, id)) = filter.resource {
        ints.push(id);
        let kind = if kind == "group" { "group" } else { "project" };
        conditions.push(format!("resource_type = '{kind}' AND resource_id = ${}", ints.len()));
    }
    if let Some(revoked) = filter.revoked {
        conditions.push(if revoked { "revoked".into() } else { "NOT revoked".into() });
    }
    let text_conditions = [
        ("expires_at >= ", filter.expires_after.clone()),
        ("expires_at < ", filter.expires_before.clone()),
        ("lower(name) LIKE ", filter.search.as_ref().map(|s| format!("%{}%", like_escaped(&s.to_lowercase())))),
    ];
    let mut text_conditions = text_conditions.to_vec();
    match &filter.active_on {
        Some((true, today)) => {
            text_conditions.push(("NOT revoked AND (expires_at IS NULL OR expires_at > ", Some(today.clone())))
        }
        Some((false, today)) => text_conditions.push(("(revoked OR expires_at <= ", Some(today.clone()))),
        None => {}
    }
    for (condition, value) in text_conditions {
        if let Some(value) = value {
            texts.push(value);
            let escape = if condition.contains("LIKE") { " ESCAPE '\\'" } else { "" };
            let open = condition.matches('(').count() > condition.matches(')').count();
            let close = if open { ")" } else { "" };
            conditions.push(format!("{condition}${}{escape}{close}", ints.len() + texts.len()));
        }
    }
    let filters = if conditions.is_empty() { String::new() } else { format!("WHERE {}", conditions.join(" AND ")) };
    let n = ints.len() + texts.len();
    let sql = format!(
        "SELECT {COLUMNS} FROM personal_access_tokens {filters} ORDER BY id LIMIT ${} OFFSET ${}",
        n + 1,
        n + 2
    );
    let mut params: Vec<&dyn crate::store::db::Param> = Vec::new();
    for value in &ints {
        params.push(value);
    }
    for value in &texts {
        params.push(value);
    }
    params.push(&limit);
    params.push(&offset);
    db.rows(&sql, &params, from_row)
}

fn like_escaped(text: &str) -> String {
    text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

/// Revokes the token `id`; false when it was not live.
pub fn revoke_personal_by_id(db: &mut Db, id: i64) -> StoreResult<bool> {
    let changed =
        db.execute("UPDATE personal_access_tokens SET revoked = TRUE WHERE id = $1 AND NOT revoked", &[&id])?;
    Ok(changed > 0)
}

/// Revokes `old` and makes its successor (same user, name, description and scopes, `digest`,
/// `expires_at`); `None` when `old` was not live (a racing rotation or revocation won). Run it
/// inside one write so that both happen or neither does.
pub fn rotate_personal(
    db: &mut Db,
    old: &PersonalToken,
    digest: &[u8],
    expires_at: Option<&str>,
) -> StoreResult<Option<i64>> {
    if !revoke_personal_by_id(db, old.id)? {
        return Ok(None);
    }
    let token = NewToken {
        user_id: old.user_id,
        name: &old.name,
        description: old.description.as_deref(),
        scopes: &old.scopes,
        expires_at,
    };
    let id = insert_with_previous(db, &token, digest, Some(old.id))?;
    if let Some((kind, resource_id)) = &old.resource {
        set_resource(db, id, kind, *resource_id)?;
    }
    Ok(Some(id))
}

/// Marks the token `id` as the access token of a project or group (`kind`: `project`, `group`).
pub fn set_resource(db: &mut Db, id: i64, kind: &str, resource_id: i64) -> StoreResult<()> {
    db.execute(
        "UPDATE personal_access_tokens SET resource_type = $2, resource_id = $3 WHERE id = $1",
        &[&id, &kind, &resource_id],
    )?;
    Ok(())
}

/// Records a use of the token `id` at `now`, unless one was recorded less than `every` seconds
/// before (GitLab's `PersonalAccessTokens::LastUsedService` writes at most every 10 minutes).
/// True when it wrote.
pub fn touch_personal(db: &mut Db, id: i64, now: i64, every: i64) -> StoreResult<bool> {
    let changed = db.execute(
        "UPDATE personal_access_tokens SET last_used_at = $2
         WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)",
        &[&id, &now, &(now - every)],
    )?;
    Ok(changed > 0)
}
