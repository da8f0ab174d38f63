//! One request to one hook (`WebHookService#execute`): GitLab's headers in GitLab's order, the
//! hook's custom headers (a built header of the same name wins), the URL's variables filled in,
//! the body sent through the outbound door; the request and its answer logged with the token and
//! custom header values redacted. 2xx and 3xx are successes, anything else a failure.

use super::payload::event_header;
use crate::outbound::{Failure, Rules};
use crate::store::hooks::{Hook, Log};
use serde_json::{Map, Value};
use std::time::Instant;

/// What one request came to.
pub struct Outcome {
    pub success: bool,
    pub log: Log,
    /// The status, when there was an answer.
    pub status: Option<u16>,
    /// The answer's body or the failure, for the test and resend routes.
    pub message: String,
}

/// The hook's URL with its `{name}` variables filled in.
pub fn interpolate(url: &str, variables: &std::collections::BTreeMap<String, String>) -> String {
    let mut out = url.to_string();
    for (key, value) in variables {
        out = out.replace(&format!("{{{key}}}"), value);
    }
    out
}

/// Sends `payload` (JSON text) for `hook_name` to `hook`.
pub fn execute(
    rules: &Rules,
    instance: &str,
    hook: &Hook,
    hook_name: &str,
    payload: &str,
    idempotency_key: &str,
    event_uuid: &str,
) -> Outcome {
    let url = interpolate(&hook.url, &hook.url_variables);
    let mut headers: Vec<(String, String)> = vec![
        ("Content-Type".into(), "application/json".into()),
        ("User-Agent".into(), format!("GitLab/{}", crate::api::version::GITLAB_VERSION)),
        ("Idempotency-Key".into(), idempotency_key.into()),
        ("X-Gitlab-Event".into(), event_header(hook_name)),
        ("X-Gitlab-Webhook-UUID".into(), super::uuid()),
        ("X-Gitlab-Instance".into(), instance.into()),
    ];
    let token: String = hook.token.chars().filter(|c| *c != '\n' && *c != '\r').collect();
    if !token.is_empty() {
        headers.push(("X-Gitlab-Token".into(), token));
    }
    headers.push(("X-Gitlab-Event-UUID".into(), event_uuid.into()));
    for (name, value) in &hook.custom_headers {
        if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
            headers.push((name.clone(), value.clone()));
        }
    }
    let started = Instant::now();
    let result = rules.post(&url, &headers, payload.as_bytes(), hook.enable_ssl_verification);
    let duration = started.elapsed().as_micros() as i64;
    let mut logged = Map::new();
    for (name, value) in &headers {
        let redacted = name == "X-Gitlab-Token" || hook.custom_headers.contains_key(name);
        logged.insert(name.clone(), Value::String(if redacted { "[REDACTED]".into() } else { value.clone() }));
    }
    let (success, status, response_status, response_headers, body) = match &result {
        Ok(answer) => {
            let headers: Map<String, Value> = answer
                .headers
                .iter()
                .take(50)
                .map(|(n, v)| (n.clone(), Value::String(v.chars().take(1024).collect())))
                .collect();
            let body = String::from_utf8_lossy(&answer.body).into_owned();
            (
                (200..400).contains(&answer.status),
                Some(answer.status),
                answer.status.to_string(),
                Value::Object(headers),
                body,
            )
        }
        Err(failure) => {
            let text = match failure {
                Failure::Blocked(_) => failure.to_string(),
                Failure::Failed(reason) => reason.clone(),
            };
            (false, None, "internal error".to_string(), Value::Object(Map::new()), text)
        }
    };
    // The log shows the URL without its variables' values, as GitLab masks them.
    let log = Log {
        id: 0,
        hook_id: hook.id,
        hook_name: hook_name.into(),
        url: hook.url.clone(),
        request_headers: Value::Object(logged).to_string(),
        request_data: payload.into(),
        response_headers: response_headers.to_string(),
        response_body: body.clone(),
        response_status,
        execution_duration: duration,
        created_at: crate::store::now_seconds(),
    };
    Outcome { success, log, status, message: body }
}
