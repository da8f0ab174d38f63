//! `GET /projects/:id/variables`, `GET /groups/:id/variables`, `GET /admin/ci/variables`:
//! every variable of the owner, in the order they were made, in offset pages.

use super::{authorize, entity, Scope};
use crate::api::{pagination, Call};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::ci_variables;

pub fn list(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    let owner = authorize(call, scope)?;
    let page = pagination::page(call, params)?;
    let all = call.ctx.store.read(|db| ci_variables::list(db, owner))?;
    let shown: Vec<_> = all.iter().skip(page.offset()).take(page.per_page).map(|v| entity(v, owner)).collect();
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, all.len(), &[]));
    Ok(response)
}
