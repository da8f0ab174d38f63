//! `DELETE /projects/:id/variables/:key`, `DELETE /groups/:id/variables/:key` (both with
//! `filter[environment_scope]`), `DELETE /admin/ci/variables/:key`: 204, 404 when missing, 409
//! for a key held in several scopes without a filter.

use super::{authorize, filter_scope, find_one, not_found, Scope};
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::ci_variables;

pub fn delete(call: &Call, scope: Scope, key: &str, params: &Params) -> ApiResult<Response> {
    let owner = authorize(call, scope)?;
    let filter = filter_scope(owner, params)?;
    call.ctx.store.write(|db| -> ApiResult<_> {
        let variable = find_one(db, owner, key, filter.as_deref())?.ok_or_else(|| not_found(owner))?;
        ci_variables::delete(db, variable.id)?;
        Ok(())
    })?;
    Ok(Response::no_content())
}
