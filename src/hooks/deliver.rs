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

/// The body a custom webhook template makes of `payload`: each `{{a.b}}` replaced by the
/// payload's value there (a string's JSON text without its quotes, anything else as JSON;
/// nothing for a missing path), and the whole must be JSON (`WebHookService`'s
/// `CustomWebhookTemplate`). `None`: it is not.
pub fn render(template: &str, payload: &str) -> Option<String> {
    let data: Value = serde_json::from_str(payload).ok()?;
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let mut value = &data;
        let mut found = true;
        for key in after[..end].trim().split('.') {
            match value {
                Value::Object(map) if map.contains_key(key) => value = &map[key],
                Value::Array(items) if key.parse::<usize>().is_ok_and(|i| i < items.len()) => {
                    value = &items[key.parse::<usize>().unwrap_or(0)]
                }
                _ => {
                    found = false;
                    break;
                }
            }
        }
        if found {
            let text = value.to_string();
            match value {
                Value::String(_) => out.push_str(&text[1..text.len() - 1]),
                _ => out.push_str(&text),
            }
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    serde_json::from_str::<Value>(&out).ok().map(|_| out)
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
    // System hooks: always `System Hook`, and local addresses allowed (GitLab's
    // `allow_local_requests_from_system_hooks`, on by default).
    let system = hook.is_system();
    let system_rules;
    let rules = if system {
        system_rules = Rules { allow_local_requests: true, ..rules.clone() };
        &system_rules
    } else {
        rules
    };
    let mut headers: Vec<(String, String)> = vec![
        ("Content-Type".into(), "application/json".into()),
        ("User-Agent".into(), format!("GitLab/{}", crate::config::GITLAB_VERSION)),
        ("Idempotency-Key".into(), idempotency_key.into()),
        ("X-Gitlab-Event".into(), if system { "System Hook".into() } else { event_header(hook_name) }),
        ("X-Gitlab-Webhook-UUID".into(), super::uuid::uuid()),
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
    let body = match &hook.custom_webhook_template {
        Some(template) => render(template, payload),
        None => Some(payload.to_string()),
    };
    let started = Instant::now();
    let result = match &body {
        Some(body) => rules.post(&url, &headers, body.as_bytes(), hook.enable_ssl_verification),
        None => Err(Failure::Failed("Error while parsing rendered custom webhook template".into())),
    };
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

#[cfg(test)]
mod tests {
    #[test]
    fn templates_are_filled_from_the_payload() {
        let payload = r#"{"ref":"refs/heads/main","user":{"name":"A \"q\""},"total":3,"commits":[{"id":"c1"}]}"#;
        let body =
            super::render(r#"{"r":"{{ref}}","n":"{{user.name}}","t":{{total}},"c":"{{commits.0.id}}"}"#, payload);
        let body: serde_json::Value = serde_json::from_str(&body.unwrap()).unwrap();
        assert_eq!(body, serde_json::json!({"r": "refs/heads/main", "n": "A \"q\"", "t": 3, "c": "c1"}));
        assert_eq!(super::render("{not json {{ref}}", payload), None);
    }
}
