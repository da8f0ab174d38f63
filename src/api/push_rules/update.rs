//! `PUT /projects/:id/push_rule`, `PUT /groups/:id/push_rule`: the parameters given replace
//! the rule's; 200 and the rule. Without one: 404 `404 Push rule Not Found`.

use super::{apply, entity, find, owner, Scope};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store;

pub fn update(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    let owner = owner(call, scope)?;
    let Some(mut rule) = find(call, owner)? else { return Err(ApiError::NotFound("Push rule")) };
    let settings = apply(params, rule.settings.clone())?;
    let now = store::merge_requests::now_millis();
    call.ctx.store.write(|db| store::push_rules::update(db, rule.id, &settings, now))?;
    rule.settings = settings;
    rule.updated_at = now;
    Ok(Response::json(200, &entity(&rule)))
}
