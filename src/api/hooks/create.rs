//! `POST /projects/:id/hooks`: adds a hook (`url` required; the flags default as GitLab's
//! table: `push_events` and `enable_ssl_verification` on, the rest off); 201 and the hook. A URL
//! the outbound door refuses (loopback, private, the host's own addresses, unless allowed) is
//! 422 `Invalid url given`.

use super::{administered, apply, entity, FLAGS};
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::hooks::{self, Hook};
use serde_json::Value;

pub fn create(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let project = administered(call, project)?;
    params.required_string("url")?;
    let mut hook = Hook {
        id: 0,
        project_id: Some(project.id),
        url: String::new(),
        name: String::new(),
        description: String::new(),
        token: String::new(),
        events: FLAGS.iter().map(|(flag, default)| (flag.to_string(), Value::Bool(*default))).collect(),
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
    hook.id = call.ctx.store.write(|db| hooks::insert(db, &hook))?;
    Ok(Response::json(201, &entity(&hook, true)))
}
