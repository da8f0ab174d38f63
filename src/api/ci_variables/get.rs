//! `GET /projects/:id/variables/:key`, `GET /groups/:id/variables/:key` (both with
//! `filter[environment_scope]`), `GET /admin/ci/variables/:key`: one variable, or 404; a key
//! held in several scopes without a filter is 409.

use super::{authorize, entity, filter_scope, find_one, not_found, Scope};
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;

pub fn get(call: &Call, scope: Scope, key: &str, params: &Params) -> ApiResult<Response> {
    let owner = authorize(call, scope)?;
    let filter = filter_scope(owner, params)?;
    let found = call.ctx.store.read(|db| find_one(db, owner, key, filter.as_deref()))?;
    let variable = found.ok_or_else(|| not_found(owner))?;
    Ok(Response::json(200, &entity(&variable, owner)))
}
