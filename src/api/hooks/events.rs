//! `GET /projects/:id/hooks/:hook_id/events`: the hook's logs of the last 7 days, newest first
//! (`status`: codes or `successful`, `client_failure`, `server_failure`, comma-separated;
//! `per_page` 1 to 20, 20 by default), as GitLab's `WebHookLog` entity.

use super::{administered, find};
use crate::api::ordered::Obj;
use crate::api::{pagination, Call};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::hooks::{self, Log};
use forgecore_date::rfc3339;
use serde_json::{json, Value};

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.into()))
}

/// GitLab's `WebHookLog` entity, in its order.
pub fn entity(log: &Log) -> Obj {
    Obj::from(vec![
        ("id", json!(log.id)),
        ("url", json!(log.url)),
        ("trigger", json!(log.hook_name)),
        ("request_headers", parsed(&log.request_headers)),
        ("request_data", parsed(&log.request_data)),
        ("response_headers", parsed(&log.response_headers)),
        ("response_body", json!(log.response_body)),
        ("execution_duration", json!(log.execution_duration as f64 / 1e6)),
        ("response_status", json!(log.response_status)),
        ("created_at", json!(rfc3339(log.created_at, 0).replace("+00:00", "Z"))),
    ])
}

fn status_matches(wanted: &[String], status: &str) -> bool {
    let code: Option<u16> = status.parse().ok();
    wanted.iter().any(|w| match w.as_str() {
        "successful" => code.is_some_and(|c| (200..300).contains(&c)),
        "client_failure" => code.is_some_and(|c| (400..500).contains(&c)),
        "server_failure" => code.is_none_or(|c| c >= 500),
        number => number == status,
    })
}

pub fn list(call: &Call, project: &str, hook_id: &str, params: &Params) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let hook = find(call, &project, hook_id)?;
    let per_page = params.int("per_page")?.unwrap_or(20);
    if !(1..=20).contains(&per_page) {
        return Err(ApiError::InvalidValue("per_page".into()));
    }
    let wanted: Vec<String> = match params.string("status")? {
        Some(text) if !text.is_empty() => text.split(',').map(|s| s.trim().to_string()).collect(),
        _ => Vec::new(),
    };
    let since = crate::store::now_seconds() - 7 * 86_400;
    let mut logs = call.ctx.store.read(|db| hooks::logs(db, hook.id, since))?;
    if !wanted.is_empty() {
        logs.retain(|l| status_matches(&wanted, &l.response_status));
    }
    let page = pagination::Page {
        page: params.int("page")?.unwrap_or(1).clamp(1, i64::from(u32::MAX)) as usize,
        per_page: per_page as usize,
    };
    let total = logs.len();
    let shown: Vec<Obj> = logs.iter().skip(page.offset()).take(page.per_page).map(entity).collect();
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
