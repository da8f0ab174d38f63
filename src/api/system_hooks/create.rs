//! `POST /hooks`: adds a system hook (`url` required; `push_events`, `tag_push_events` and
//! `merge_requests_events` off and `repository_update_events` on by default, as GitLab's
//! system hook parameters); 201 and the hook.

use super::entity;
use crate::api::{hooks::apply, users::require_admin, Call};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::hooks::{self, Hook};
use serde_json::{json, Map};

pub fn create(call: &Call, params: &Params) -> ApiResult<Response> {
    require_admin(call)?;
    params.required_string("url")?;
    let mut events = Map::new();
    for (flag, default) in [
        ("push_events", false),
        ("tag_push_events", false),
        ("merge_requests_events", false),
        ("repository_update_events", true),
    ] {
        events.insert(flag.into(), json!(default));
    }
    let mut hook = Hook {
        id: 0,
        project_id: None,
        url: String::new(),
        name: String::new(),
        description: String::new(),
        token: String::new(),
        events,
        enable_ssl_verification: true,
        push_events_branch_filter: None,
        branch_filter_strategy: "wildcard".into(),
        custom_webhook_template: None,
        custom_headers: Default::default(),
        url_variables: Default::default(),
        recent_failures: 0,
        disabled_until: None,
        disabled: false,
        created_at: crate::store::now_seconds(),
        group_id: None,
    };
    apply(call, &mut hook, params, true)?;
    hook.events.retain(|k, _| {
        ["push_events", "tag_push_events", "merge_requests_events", "repository_update_events"].contains(&k.as_str())
    });
    hook.id = call.ctx.store.write(|db| hooks::insert(db, &hook))?;
    Ok(Response::json(201, &entity(&hook)))
}
