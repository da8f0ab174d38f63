//! `DELETE /projects/:id/push_rule`, `DELETE /groups/:id/push_rule`: 204. Without one: 404
//! (`404 Push rule Not Found` for a project, `404 Not Found` for a group, as GitLab words them).

use super::{owner, Scope};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;

pub fn delete(call: &Call, scope: Scope) -> ApiResult<Response> {
    let owner = owner(call, scope)?;
    if call.ctx.store.write(|db| crate::store::push_rules::delete(db, owner))? {
        return Ok(Response::no_content());
    }
    Err(match scope {
        Scope::Project(_) => ApiError::NotFound("Push rule"),
        Scope::Group(_) => ApiError::NotFound(""),
    })
}
