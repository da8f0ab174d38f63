//! `GET /hooks`: the system hooks, by id, in offset pages (administrators).

use super::entity;
use crate::api::{pagination, users::require_admin, Call};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::hooks;

pub fn list(call: &Call, params: &Params) -> ApiResult<Response> {
    require_admin(call)?;
    let page = pagination::page(call, params)?;
    let all = call.ctx.store.read(hooks::list_system)?;
    let shown: Vec<_> = all.iter().skip(page.offset()).take(page.per_page).map(entity).collect();
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, all.len(), &[]));
    Ok(response)
}
