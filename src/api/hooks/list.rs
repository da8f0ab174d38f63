//! `GET /projects/:id/hooks`: the project's hooks, by id, in offset pages, without their URL
//! variables and custom headers.

use super::{administered, entity};
use crate::api::{pagination, Call};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::hooks;

pub fn list(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let page = pagination::page(call, params)?;
    let all = call.ctx.store.read(|db| hooks::list(db, project.id))?;
    let total = all.len();
    let shown: Vec<_> = all.iter().skip(page.offset()).take(page.per_page).map(|h| entity(h, false)).collect();
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
