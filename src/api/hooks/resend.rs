//! `POST /projects/:id/hooks/:hook_id/events/:hook_log_id/resend`: sends a logged request again
//! (its data, its trigger and its `Idempotency-Key`), now: 201 `{"response_status": <code>}`,
//! 422 when it failed. Five a minute per project and user.

use super::{administered, find};
use crate::api::Call;
use crate::config::RateLimit;
use crate::error::{ApiError, ApiResult};
use crate::hooks::{deliver, uuid};
use crate::response::Response;
use crate::store::{self, hooks};
use serde_json::{json, Value};

pub fn resend(call: &Call, project: &str, hook_id: &str, log_id: &str) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let hook = find(call, &project, hook_id)?;
    let id = crate::params::parse_int_text(log_id).ok_or_else(|| ApiError::InvalidParam("hook_log_id".into()))?;
    let log = call.ctx.store.read(|db| hooks::find_log(db, hook.id, id))?.ok_or(ApiError::RecordNotFound)?;
    let user = call.caller.user().map(|u| u.id).unwrap_or(0);
    call.ctx.throttle(
        RateLimit { limit: 5, period_seconds: 60 },
        &format!("web_hook_resend:{}:{user}", project.id),
        "This endpoint has been requested too many times. Try again later.",
    )?;
    let headers: Value = serde_json::from_str(&log.request_headers).unwrap_or(Value::Null);
    let key = headers.get("Idempotency-Key").and_then(Value::as_str).map_or_else(uuid, str::to_string);
    let event_uuid = headers.get("X-Gitlab-Event-UUID").and_then(Value::as_str).map_or_else(uuid, str::to_string);
    let outcome = deliver::execute(
        call.ctx.hooks.rules(),
        call.ctx.hooks.instance(),
        &hook,
        &log.hook_name,
        &log.request_data,
        &key,
        &event_uuid,
    );
    call.ctx.store.write(|db| -> ApiResult<()> {
        hooks::insert_log(db, &outcome.log)?;
        hooks::record_outcome(db, hook.id, outcome.success, store::now_seconds())?;
        Ok(())
    })?;
    match (outcome.success, outcome.status) {
        (true, Some(status)) => Ok(Response::json(201, &json!({"response_status": status}))),
        _ => Err(ApiError::Unprocessable(outcome.message)),
    }
}
