//! `GET /groups/:id/hooks`: the group's hooks, offset-paginated, without `url_variables` and
//! `custom_headers` (as the project list).

use super::{administered, entity};
use crate::api::{pagination, Call};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::hooks;

pub fn list(call: &Call, group: &str, params: &Params) -> ApiResult<Response> {
    let group = administered(call, group)?;
    let page = pagination::page(call, params)?;
    let all = call.ctx.store.read(|db| hooks::list_group(db, group.id))?;
    let total = all.len();
    let shown: Vec<_> = all.iter().skip(page.offset()).take(page.per_page).map(|h| entity(h, false)).collect();
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
