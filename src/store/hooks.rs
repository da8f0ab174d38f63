//! Webhooks (issue #41, decisions D11): project hooks, the outbox of their deliveries and their
//! logs. What a hook's fields mean for a request is `api::hooks`'; when a delivery is made,
//! `hooks::deliver`'s. Times: hooks and logs in seconds, the outbox's schedule and leases in
//! milliseconds.

use super::db::{Db, Dialect, Row};
use super::error::StoreResult;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub struct Hook {
    pub id: i64,
    pub project_id: Option<i64>,
    pub url: String,
    pub name: String,
    pub description: String,
    pub token: String,
    /// The event flags (`push_events`, `tag_push_events`, ...), each a boolean.
    pub events: Map<String, Value>,
    pub enable_ssl_verification: bool,
    pub push_events_branch_filter: Option<String>,
    pub branch_filter_strategy: String,
    pub custom_webhook_template: Option<String>,
    pub custom_headers: BTreeMap<String, String>,
    pub url_variables: BTreeMap<String, String>,
    pub recent_failures: i64,
    /// Seconds; a hook temporarily disabled until then.
    pub disabled_until: Option<i64>,
    /// Permanently disabled (40 failures in a row).
    pub disabled: bool,
    pub created_at: i64,
    /// The group owning a group hook; `None` with `project_id` `None`: a system hook.
    pub group_id: Option<i64>,
}

impl Hook {
    /// A system hook: neither a project's nor a group's.
    pub fn is_system(&self) -> bool {
        self.project_id.is_none() && self.group_id.is_none()
    }

    pub fn event(&self, flag: &str) -> bool {
        self.events.get(flag).and_then(Value::as_bool).unwrap_or(false)
    }
}

const COLUMNS: &str = "id, project_id, url, name, description, token, events, enable_ssl_verification,
    push_events_branch_filter, branch_filter_strategy, custom_webhook_template, custom_headers, url_variables,
    recent_failures, disabled_until, disabled, created_at, group_id";

fn json_map<T: serde::de::DeserializeOwned + Default>(text: &str) -> T {
    serde_json::from_str(text).unwrap_or_default()
}

fn from_row(row: &Row) -> StoreResult<Hook> {
    Ok(Hook {
        id: row.i64(0)?,
        project_id: row.opt_i64(1)?,
        url: row.string(2)?,
        name: row.string(3)?,
        description: row.string(4)?,
        token: row.string(5)?,
        events: json_map(&row.string(6)?),
        enable_ssl_verification: row.bool(7)?,
        push_events_branch_filter: row.opt_string(8)?,
        branch_filter_strategy: row.string(9)?,
        custom_webhook_template: row.opt_string(10)?,
        custom_headers: json_map(&row.string(11)?),
        url_variables: json_map(&row.string(12)?),
        recent_failures: row.i64(13)?,
        disabled_until: row.opt_i64(14)?,
        disabled: row.bool(15)?,
        created_at: row.i64(16)?,
        group_id: row.opt_i64(17)?,
    })
}

fn text(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "{}".into())
}

/// The hooks of a project, by id.
pub fn list(db: &mut Db, project_id: i64) -> StoreResult<Vec<Hook>> {
    db.rows(&format!("SELECT {COLUMNS} FROM web_hooks WHERE project_id = $1 ORDER BY id"), &[&project_id], from_row)
}

/// The instance's system hooks (no project, no group), by id.
pub fn list_system(db: &mut Db) -> StoreResult<Vec<Hook>> {
    db.rows(
        &format!("SELECT {COLUMNS} FROM web_hooks WHERE project_id IS NULL AND group_id IS NULL ORDER BY id"),
        &[],
        from_row,
    )
}

/// The hooks of a group, by id.
pub fn list_group(db: &mut Db, group_id: i64) -> StoreResult<Vec<Hook>> {
    db.rows(&format!("SELECT {COLUMNS} FROM web_hooks WHERE group_id = $1 ORDER BY id"), &[&group_id], from_row)
}

/// The group's hook `id`.
pub fn find_group(db: &mut Db, group_id: i64, id: i64) -> StoreResult<Option<Hook>> {
    db.row(&format!("SELECT {COLUMNS} FROM web_hooks WHERE group_id = $1 AND id = $2"), &[&group_id, &id], from_row)
}

/// The project's hook `id`.
pub fn find(db: &mut Db, project_id: i64, id: i64) -> StoreResult<Option<Hook>> {
    db.row(&format!("SELECT {COLUMNS} FROM web_hooks WHERE project_id = $1 AND id = $2"), &[&project_id, &id], from_row)
}

pub fn find_by_id(db: &mut Db, id: i64) -> StoreResult<Option<Hook>> {
    db.row(&format!("SELECT {COLUMNS} FROM web_hooks WHERE id = $1"), &[&id], from_row)
}

/// Adds `hook` (its `id` is ignored); the new id.
pub fn insert(db: &mut Db, hook: &Hook) -> StoreResult<i64> {
    db.one(
        "INSERT INTO web_hooks (project_id, url, name, description, token, events, enable_ssl_verification,
             push_events_branch_filter, branch_filter_strategy, custom_webhook_template, custom_headers,
             url_variables, recent_failures, disabled_until, disabled, created_at, group_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING id",
        &[
            &hook.project_id,
            &hook.url,
            &hook.name,
            &hook.description,
            &hook.token,
            &text(&hook.events),
            &hook.enable_ssl_verification,
            &hook.push_events_branch_filter,
            &hook.branch_filter_strategy,
            &hook.custom_webhook_template,
            &text(&hook.custom_headers),
            &text(&hook.url_variables),
            &hook.recent_failures,
            &hook.disabled_until,
            &hook.disabled,
            &hook.created_at,
            &hook.group_id,
        ],
        |r| r.i64(0),
    )
}

/// Writes every settable field of `hook` (not its failure state).
pub fn update(db: &mut Db, hook: &Hook) -> StoreResult<()> {
    db.execute(
        "UPDATE web_hooks SET url = $2, name = $3, description = $4, token = $5, events = $6,
             enable_ssl_verification = $7, push_events_branch_filter = $8, branch_filter_strategy = $9,
             custom_webhook_template = $10, custom_headers = $11, url_variables = $12
         WHERE id = $1",
        &[
            &hook.id,
            &hook.url,
            &hook.name,
            &hook.description,
            &hook.token,
            &text(&hook.events),
            &hook.enable_ssl_verification,
            &hook.push_events_branch_filter,
            &hook.branch_filter_strategy,
            &hook.custom_webhook_template,
            &text(&hook.custom_headers),
            &text(&hook.url_variables),
        ],
    )?;
    Ok(())
}

pub fn delete(db: &mut Db, id: i64) -> StoreResult<bool> {
    Ok(db.execute("DELETE FROM web_hooks WHERE id = $1", &[&id])? > 0)
}

/// GitLab's auto-disabling (`WebHooks::AutoDisabling`): a success clears the failures; each
/// failure counts (up to 40); from the 4th, the hook is off for 1 min × 2^(n−4), at most a
/// day; at the 40th, for good. Read and written in one statement each, so that two hosts
/// counting at once both count.
pub fn record_outcome(db: &mut Db, id: i64, success: bool, now: i64) -> StoreResult<()> {
    if success {
        db.execute(
            "UPDATE web_hooks SET recent_failures = 0, disabled_until = NULL WHERE id = $1 AND disabled = $2",
            &[&id, &false],
        )?;
        return Ok(());
    }
    // System hooks are never disabled (GitLab applies auto-disabling to project hooks).
    db.execute(
        "UPDATE web_hooks SET recent_failures = CASE WHEN recent_failures >= 40 THEN 40 ELSE recent_failures + 1 END
         WHERE id = $1 AND project_id IS NOT NULL",
        &[&id],
    )?;
    let Some(failures) = db.row("SELECT recent_failures FROM web_hooks WHERE id = $1", &[&id], |r| r.i64(0))? else {
        return Ok(());
    };
    if failures >= 40 {
        db.execute("UPDATE web_hooks SET disabled = $2, disabled_until = NULL WHERE id = $1", &[&id, &true])?;
    } else if failures >= 4 {
        let minutes = 1i64 << (failures - 4).min(11);
        let until = now + (minutes * 60).min(86_400);
        db.execute("UPDATE web_hooks SET disabled_until = $2 WHERE id = $1", &[&id, &until])?;
    }
    Ok(())
}

/// One event to deliver to one hook.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub id: i64,
    pub hook_id: i64,
    /// `push_hooks`, `tag_push_hooks`, ...
    pub hook_name: String,
    pub payload: String,
    /// The same for every try of this delivery (GitLab's `Idempotency-Key`).
    pub idempotency_key: String,
    pub event_uuid: String,
    pub attempts: i64,
}

/// Puts a delivery in the outbox, due now (`now_millis`).
pub fn enqueue(
    db: &mut Db,
    hook_id: i64,
    hook_name: &str,
    payload: &str,
    idempotency_key: &str,
    event_uuid: &str,
    now_millis: i64,
) -> StoreResult<i64> {
    db.one(
        "INSERT INTO web_hook_deliveries (hook_id, hook_name, payload, idempotency_key, event_uuid, created_at,
             attempts, next_at, state)
         VALUES ($1, $2, $3, $4, $5, $6, 0, $6, 'pending') RETURNING id",
        &[&hook_id, &hook_name, &payload, &idempotency_key, &event_uuid, &now_millis],
        |r| r.i64(0),
    )
}

/// Whether any delivery is due at `now_millis` and not held by a live lease: a read, so that
/// idle delivery threads never take the write lock to find nothing.
pub fn any_due(db: &mut Db, now_millis: i64) -> StoreResult<bool> {
    Ok(db
        .row(
            "SELECT id FROM web_hook_deliveries
             WHERE state = 'pending' AND next_at <= $1 AND (lease_until IS NULL OR lease_until < $1) LIMIT 1",
            &[&now_millis],
            |r| r.i64(0),
        )?
        .is_some())
}

/// Claims up to `limit` due deliveries for `owner` until `now + lease`: pending ones whose time
/// has come and whose last claim (by anyone) has expired. On PostgreSQL rows another host is
/// claiming at this moment are skipped, never waited for; SQLite's writes are one at a time.
pub fn claim(db: &mut Db, owner: &str, now_millis: i64, lease_millis: i64, limit: i64) -> StoreResult<Vec<Delivery>> {
    let lock = match db.dialect() {
        Dialect::Postgres => "FOR UPDATE SKIP LOCKED",
        Dialect::Sqlite => "",
    };
    let until = now_millis + lease_millis;
    db.rows(
        &format!(
            "UPDATE web_hook_deliveries SET lease_owner = $1, lease_until = $2, attempts = attempts + 1
             WHERE id IN (SELECT id FROM web_hook_deliveries
                          WHERE state = 'pending' AND next_at <= $3 AND (lease_until IS NULL OR lease_until < $3)
                          ORDER BY next_at, id LIMIT $4 {lock})
             RETURNING id, hook_id, hook_name, payload, idempotency_key, event_uuid, attempts"
        ),
        &[&owner, &until, &now_millis, &limit],
        |r| {
            Ok(Delivery {
                id: r.i64(0)?,
                hook_id: r.i64(1)?,
                hook_name: r.string(2)?,
                payload: r.string(3)?,
                idempotency_key: r.string(4)?,
                event_uuid: r.string(5)?,
                attempts: r.i64(6)?,
            })
        },
    )
}

/// Ends `owner`'s claim of a delivery: `state` `delivered` or `failed`, or `pending` again at
/// `next_at`. Whether the claim was still `owner`'s (a host that outlived its lease finds it
/// taken and changes nothing).
pub fn settle(db: &mut Db, id: i64, owner: &str, state: &str, next_at: i64) -> StoreResult<bool> {
    Ok(db.execute(
        "UPDATE web_hook_deliveries SET state = $3, next_at = $4, lease_owner = NULL, lease_until = NULL
         WHERE id = $1 AND lease_owner = $2",
        &[&id, &owner, &state, &next_at],
    )? > 0)
}

/// The state of each delivery to `hook_id`, oldest first (for tests and administration).
pub fn deliveries(db: &mut Db, hook_id: i64) -> StoreResult<Vec<(i64, String, i64)>> {
    db.rows("SELECT id, state, attempts FROM web_hook_deliveries WHERE hook_id = $1 ORDER BY id", &[&hook_id], |r| {
        Ok((r.i64(0)?, r.string(1)?, r.i64(2)?))
    })
}

/// Delivered and failed deliveries older than `before` (milliseconds) are dropped.
pub fn prune(db: &mut Db, before_millis: i64, logs_before: i64) -> StoreResult<()> {
    db.execute("DELETE FROM web_hook_deliveries WHERE state <> 'pending' AND created_at < $1", &[&before_millis])?;
    db.execute("DELETE FROM web_hook_logs WHERE created_at < $1", &[&logs_before])?;
    Ok(())
}

/// One request made to a hook, as GitLab's `WebHookLog` keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct Log {
    pub id: i64,
    pub hook_id: i64,
    pub hook_name: String,
    pub url: String,
    pub request_headers: String,
    pub request_data: String,
    pub response_headers: String,
    pub response_body: String,
    /// The status as text, or `internal error`.
    pub response_status: String,
    /// Microseconds.
    pub execution_duration: i64,
    pub created_at: i64,
}

const LOG_COLUMNS: &str = "id, hook_id, hook_name, url, request_headers, request_data, response_headers,
    response_body, response_status, execution_duration, created_at";

fn log_from_row(r: &Row) -> StoreResult<Log> {
    Ok(Log {
        id: r.i64(0)?,
        hook_id: r.i64(1)?,
        hook_name: r.string(2)?,
        url: r.string(3)?,
        request_headers: r.string(4)?,
        request_data: r.string(5)?,
        response_headers: r.string(6)?,
        response_body: r.string(7)?,
        response_status: r.string(8)?,
        execution_duration: r.i64(9)?,
        created_at: r.i64(10)?,
    })
}

pub fn insert_log(db: &mut Db, log: &Log) -> StoreResult<i64> {
    db.one(
        "INSERT INTO web_hook_logs (hook_id, hook_name, url, request_headers, request_data, response_headers,
             response_body, response_status, execution_duration, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
        &[
            &log.hook_id,
            &log.hook_name,
            &log.url,
            &log.request_headers,
            &log.request_data,
            &log.response_headers,
            &log.response_body,
            &log.response_status,
            &log.execution_duration,
            &log.created_at,
        ],
        |r| r.i64(0),
    )
}

/// The hook's logs made since `since` (seconds), newest first.
pub fn logs(db: &mut Db, hook_id: i64, since: i64) -> StoreResult<Vec<Log>> {
    db.rows(
        &format!("SELECT {LOG_COLUMNS} FROM web_hook_logs WHERE hook_id = $1 AND created_at >= $2 ORDER BY id DESC"),
        &[&hook_id, &since],
        log_from_row,
    )
}

pub fn find_log(db: &mut Db, hook_id: i64, id: i64) -> StoreResult<Option<Log>> {
    db.row(
        &format!("SELECT {LOG_COLUMNS} FROM web_hook_logs WHERE hook_id = $1 AND id = $2"),
        &[&hook_id, &id],
        log_from_row,
    )
}
