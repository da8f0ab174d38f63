//! `GET /topics` (`search`, `without_projects`, offset pages): anyone, signed in or not.

use super::entity;
use crate::api::{pagination, Call};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::topics::{self, ListQuery};

pub fn list(call: &Call, params: &Params) -> ApiResult<Response> {
    let page = pagination::page(call, params)?;
    let query = ListQuery {
        search: params.string("search")?,
        without_projects: params.bool("without_projects")?.unwrap_or(false),
        limit: page.per_page as i64,
        offset: page.offset() as i64,
    };
    let (found, total) =
        call.ctx.store.read(|db| -> ApiResult<_> { Ok((topics::list(db, &query)?, topics::count(db, &query)?)) })?;
    let shown: Vec<_> = found.iter().map(entity).collect();
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total as usize, &[]));
    Ok(response)
}
