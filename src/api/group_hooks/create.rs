//! `POST /groups/:id/hooks`: adds a group hook (`url` required; the project hooks' flags and
//! defaults, checks and URL rules, `hooks::apply`); 201 and the hook.

use super::{administered, entity};
use crate::api::hooks::{apply, FLAGS};
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::hooks::{self, Hook};
use serde_json::Value;

pub fn create(call: &Call, group: &str, params: &Params) -> ApiResult<Response> {
    let group = administered(call, group)?;
    params.required_string("url")?;
    let mut hook = Hook {
        id: 0,
        project_id: None,
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
        group_id: Some(group.id),
    };
    apply(call, &mut hook, params, true)?;
    hook.id = call.ctx.store.write(|db| hooks::insert(db, &hook))?;
    Ok(Response::json(201, &entity(&hook, true)))
}
