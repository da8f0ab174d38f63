//! Project webhooks (`lib/api/project_hooks.rb`, issue #41): list, get, add, edit, delete,
//! test, their events (logs) and resending one; one file per operation. Every route needs a
//! signed-in caller who may `admin_web_hook` the project (Maintainer and above, or a custom
//! role's `admin_web_hook`). The entity never answers the token. Delivery is `crate::hooks`'.

pub mod create;
pub mod delete;
pub mod events;
pub mod get;
pub mod keyed_values;
pub mod list;
pub mod resend;
pub mod test;
pub mod update;

use super::Call;
use crate::api::ordered::Obj;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult};
use crate::hooks::filter;
use crate::params::Params;
use crate::store::hooks::Hook;
use crate::store::projects::Project;
use forgecore_date::rfc3339;
use serde_json::{json, Value};

/// The Boolean event flags of `ProjectHook`, in the entity's order, with their defaults.
pub const FLAGS: [(&str, bool); 17] = [
    ("push_events", true),
    ("tag_push_events", false),
    ("merge_requests_events", false),
    ("issues_events", false),
    ("confidential_issues_events", false),
    ("note_events", false),
    ("confidential_note_events", false),
    ("pipeline_events", false),
    ("wiki_page_events", false),
    ("deployment_events", false),
    ("feature_flag_events", false),
    ("job_events", false),
    ("releases_events", false),
    ("milestone_events", false),
    ("emoji_events", false),
    ("resource_access_token_events", false),
    ("vulnerability_events", false),
];

/// The project `id` names, for a signed-in caller who may manage its hooks.
pub fn administered(call: &Call, id: &str) -> ApiResult<Project> {
    call.caller.require_user()?;
    call.project(id, ProjectAbility::AdminWebHook)
}

/// The project's hook `hook_id`; 404 `404 Not found` otherwise (`hooks.find` raising).
pub fn find(call: &Call, project: &Project, hook_id: &str) -> ApiResult<Hook> {
    let id = crate::params::parse_int_text(hook_id).ok_or_else(|| ApiError::InvalidParam("hook_id".into()))?;
    call.ctx.store.read(|db| crate::store::hooks::find(db, project.id, id))?.ok_or(ApiError::RecordNotFound)
}

fn alert_status(hook: &Hook) -> &'static str {
    if hook.disabled {
        "disabled"
    } else if hook.disabled_until.is_some_and(|u| u > crate::store::now_seconds()) {
        "temporarily_disabled"
    } else {
        "executable"
    }
}

fn masked(map: &std::collections::BTreeMap<String, String>) -> Value {
    Value::Array(map.keys().map(|k| json!({"key": k})).collect())
}

/// GitLab's `ProjectHook` entity, in its order; the list leaves out `url_variables` and
/// `custom_headers`.
pub fn entity(hook: &Hook, full: bool) -> Obj {
    let flag = |name: &str| json!(hook.event(name));
    let mut fields: Vec<(&'static str, Value)> = vec![
        ("id", json!(hook.id)),
        ("url", json!(hook.url)),
        ("name", json!(hook.name)),
        ("description", json!(hook.description)),
        ("created_at", json!(rfc3339(hook.created_at, 0).replace("+00:00", "Z"))),
        ("push_events", flag("push_events")),
        ("tag_push_events", flag("tag_push_events")),
        ("merge_requests_events", flag("merge_requests_events")),
        ("repository_update_events", flag("repository_update_events")),
        ("enable_ssl_verification", json!(hook.enable_ssl_verification)),
        ("alert_status", json!(alert_status(hook))),
        ("disabled_until", json!(hook.disabled_until.map(|u| rfc3339(u, 0).replace("+00:00", "Z")))),
    ];
    if full {
        fields.push(("url_variables", masked(&hook.url_variables)));
    }
    fields.push(("push_events_branch_filter", json!(hook.push_events_branch_filter)));
    fields.push(("branch_filter_strategy", json!(hook.branch_filter_strategy)));
    fields.push(("custom_webhook_template", json!(hook.custom_webhook_template)));
    if full {
        fields.push(("custom_headers", masked(&hook.custom_headers)));
    }
    fields.push(("project_id", json!(hook.project_id)));
    for name in [
        "issues_events",
        "confidential_issues_events",
        "note_events",
        "confidential_note_events",
        "pipeline_events",
        "wiki_page_events",
        "deployment_events",
        "feature_flag_events",
        "job_events",
        "releases_events",
        "milestone_events",
        "emoji_events",
        "resource_access_token_events",
    ] {
        fields.push((name, flag(name)));
    }
    fields.push(("resource_deploy_token_events", json!(false)));
    fields.push(("vulnerability_events", flag("vulnerability_events")));
    Obj::from(fields)
}

fn unprocessable(message: &str) -> ApiError {
    ApiError::UnprocessableError(message.into())
}

/// `[{key, value}]` pairs of `name` (an array, or a JSON text of one).
fn pairs(params: &Params, name: &str) -> ApiResult<Option<Vec<(String, String)>>> {
    let Some(raw) = params.raw(name) else { return Ok(None) };
    let value = match raw {
        Value::String(text) => serde_json::from_str(text).map_err(|_| ApiError::InvalidParam(name.into()))?,
        other => other.clone(),
    };
    let Value::Array(items) = value else { return Err(ApiError::InvalidParam(name.into())) };
    items
        .iter()
        .map(|item| match (item.get("key").and_then(Value::as_str), item.get("value").and_then(Value::as_str)) {
            (Some(k), Some(v)) => Ok((k.to_string(), v.to_string())),
            _ => Err(ApiError::InvalidParam(name.into())),
        })
        .collect::<ApiResult<Vec<_>>>()
        .map(Some)
}

/// Applies the declared, present parameters of `params` to `hook` (GitLab's
/// `common_hook_parameters`), checking as `WebHooks::CreateService` does.
pub fn apply(call: &Call, hook: &mut Hook, params: &Params, creating: bool) -> ApiResult<()> {
    let old_url = hook.url.clone();
    if let Some(url) = params.string("url")? {
        hook.url = url.trim().to_string();
    }
    for (field, target) in [("name", &mut hook.name), ("description", &mut hook.description)] {
        if let Some(value) = params.string(field)? {
            *target = value;
        }
    }
    for flag in FLAGS.iter().map(|(f, _)| *f).chain(["repository_update_events"]) {
        if let Some(value) = params.bool(flag)? {
            hook.events.insert(flag.into(), Value::Bool(value));
        }
    }
    if let Some(verify) = params.bool("enable_ssl_verification")? {
        hook.enable_ssl_verification = verify;
    }
    let token = params.string("token")?;
    if let Some(token) = &token {
        if token.contains('\n') {
            return Err(unprocessable("Token must not contain newlines"));
        }
        hook.token = token.clone();
    } else if !creating && hook.url != old_url {
        // `WebHooks::Hook#reset_token`: a new URL without a new token drops the old token.
        hook.token.clear();
    }
    if let Some(template) = params.string("custom_webhook_template")? {
        if template.chars().count() > 4096 {
            return Err(unprocessable("Custom webhook template is too long (maximum is 4096 characters)"));
        }
        hook.custom_webhook_template = Some(template).filter(|t| !t.is_empty());
    }
    if let Some(variables) = pairs(params, "url_variables")? {
        for (key, value) in variables {
            if !(keyed_values::URL_VARIABLES.valid)(&key, &value) {
                return Err(unprocessable("Url variables must be a valid json schema"));
            }
            hook.url_variables.insert(key, value);
        }
        if hook.url_variables.len() > keyed_values::MAX_KEYS {
            return Err(unprocessable("Url variables must be a valid json schema"));
        }
    }
    if let Some(headers) = pairs(params, "custom_headers")? {
        let refused = || {
            unprocessable(if creating {
                "Custom headers must be a valid json schema"
            } else {
                "Custom headers validation failed"
            })
        };
        for (key, value) in headers {
            if !(keyed_values::CUSTOM_HEADERS.valid)(&key, &value) {
                return Err(refused());
            }
            hook.custom_headers.insert(key, value);
        }
        if hook.custom_headers.len() > keyed_values::MAX_KEYS {
            return Err(refused());
        }
    }
    if let Some(strategy) = params.string("branch_filter_strategy")? {
        if !["wildcard", "regex", "all_branches"].contains(&strategy.as_str()) {
            return Err(ApiError::InvalidValue("branch_filter_strategy".into()));
        }
        hook.branch_filter_strategy = strategy;
    }
    if let Some(filter) = params.string("push_events_branch_filter")? {
        let squished = filter.split_whitespace().collect::<Vec<_>>().join(" ");
        hook.push_events_branch_filter = Some(squished).filter(|f| !f.is_empty());
    }
    if hook.branch_filter_strategy == "all_branches" {
        hook.push_events_branch_filter = None;
    }
    if let Some(filter) = &hook.push_events_branch_filter {
        if hook.branch_filter_strategy == "wildcard" && !filter::valid_wildcard(filter) {
            return Err(unprocessable("Invalid branch filter given"));
        }
    }
    // Every `{name}` of the URL needs a variable.
    let interpolated = crate::hooks::deliver::interpolate(&hook.url, &hook.url_variables);
    let missing: Vec<String> = placeholders(&interpolated);
    if !missing.is_empty() {
        let keys = missing.iter().map(|k| format!("\"{k}\"")).collect::<Vec<_>>().join(", ");
        return Err(unprocessable(&format!("Invalid URL template. Missing keys: [{keys}]")));
    }
    let local_allowed;
    let rules = if hook.is_system() {
        local_allowed = crate::outbound::Rules { allow_local_requests: true, ..call.ctx.hooks.rules().clone() };
        &local_allowed
    } else {
        call.ctx.hooks.rules()
    };
    if rules.validate(&interpolated).is_err() {
        return Err(unprocessable("Invalid url given"));
    }
    Ok(())
}

fn placeholders(url: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = url;
    while let Some(start) = rest.find('{') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('}') else { break };
        let name = &after[..end];
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) {
            out.push(name.to_string());
        }
        rest = &after[end + 1..];
    }
    out
}
