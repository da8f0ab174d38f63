//! `GET /namespaces`: the caller's own namespace and the groups they may create projects in
//! (their level, on the group or an ancestor, reaches the group's `project_creation_level`),
//! by id; `owned_only`: the groups they own; administrators: every namespace. `search` (name or
//! path), `top_level_only`; offset pages with totals.

use super::{entity, signed_in};
use crate::api::{pagination, Call};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::namespaces::{self, ListQuery};

pub fn list(call: &Call, params: &Params) -> ApiResult<Response> {
    let viewer = signed_in(call)?;
    let page = pagination::page(call, params)?;
    let query = ListQuery {
        user_id: viewer.id,
        all: viewer.is_admin,
        owned_only: params.bool("owned_only")?.unwrap_or(false),
        top_level_only: params.bool("top_level_only")?.unwrap_or(false),
        search: crate::api::groups::text_param(params, "search")?.filter(|s| !s.is_empty()),
        limit: page.per_page as i64,
        offset: page.offset() as i64,
    };
    let (entities, total) = call.ctx.store.read(|db| -> ApiResult<_> {
        let rows = namespaces::list(db, &query)?;
        let mut entities = Vec::with_capacity(rows.len());
        for row in &rows {
            entities.push(entity(call, db, viewer, row)?);
        }
        Ok((entities, namespaces::count(db, &query)?))
    })?;
    let mut response = Response::json(200, &entities);
    response.headers.extend(pagination::offset_headers(call, page, total.max(0) as usize, &[]));
    Ok(response)
}
