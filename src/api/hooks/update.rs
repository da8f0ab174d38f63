//! `PUT /projects/:id/hooks/:hook_id`: changes the parameters given (`url` optional; URL
//! variables and custom headers merged into the stored ones); no known parameter is 400
//! `No parameters provided`. A new URL without a new token drops the token.

use super::{administered, apply, entity, find, FLAGS};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::hooks;

pub const OTHERS: [&str; 10] = [
    "url",
    "name",
    "description",
    "enable_ssl_verification",
    "token",
    "push_events_branch_filter",
    "branch_filter_strategy",
    "custom_webhook_template",
    "url_variables",
    "custom_headers",
];

pub fn update(call: &Call, project: &str, hook_id: &str, params: &Params) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let mut hook = find(call, &project, hook_id)?;
    if !OTHERS.iter().chain(FLAGS.iter().map(|(f, _)| f)).any(|name| params.contains(name)) {
        return Err(ApiError::ParamError("No parameters provided".into()));
    }
    apply(call, &mut hook, params, false)?;
    call.ctx.store.write(|db| hooks::update(db, &hook))?;
    Ok(Response::json(200, &entity(&hook, true)))
}
