//! `GET /projects/:id/push_rule`, `GET /groups/:id/push_rule`: the rule. A project without
//! one answers 200 `null` (GitLab's `present nil`); a group without one 404 `404 Not Found`
//! (`not_found!`).

use super::{entity, find, owner, Scope};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;

pub fn get(call: &Call, scope: Scope) -> ApiResult<Response> {
    let owner = owner(call, scope)?;
    match (find(call, owner)?, scope) {
        (Some(rule), _) => Ok(Response::json(200, &entity(&rule))),
        (None, Scope::Project(_)) => Ok(Response::json(200, &serde_json::Value::Null)),
        (None, Scope::Group(_)) => Err(ApiError::NotFound("")),
    }
}
