//! `GET /groups/:id/members`, `GET /projects/:id/members` (direct members) and
//! `GET /groups/:id/members/all`, `GET /projects/:id/members/all` (with those inherited from
//! ancestor groups, one row per user at their highest level).

use super::{entity, visible, Scope};
use crate::api::{pagination, Call};
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_int_text, Params};
use crate::response::Response;
use crate::store::members::{self, Filter};

/// 200 and one page of the direct members, in the order they were added.
pub fn list(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    page_of(call, scope, params, false)
}

/// 200 and one page of every member reaching the source, ordered by user id.
pub fn list_all(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    page_of(call, scope, params, true)
}

fn page_of(call: &Call, scope: Scope, params: &Params, all: bool) -> ApiResult<Response> {
    let filter = Filter {
        query: params.string("query")?.filter(|q| !q.is_empty()),
        user_ids: ids(params, "user_ids")?,
        skip_users: if all { Vec::new() } else { ids(params, "skip_users")?.unwrap_or_default() },
    };
    let page = pagination::page(call, params)?;
    let target = visible(call, scope)?;
    let source = target.source();
    let (limit, offset) = (page.per_page as i64, page.offset() as i64);
    let entities = call.ctx.store.read(|db| -> ApiResult<_> {
        let (rows, total) = if all {
            members::list_all(db, source, &filter, limit, offset)?
        } else {
            members::list_direct(db, source, &filter, limit, offset)?
        };
        let mut entities = Vec::with_capacity(rows.len());
        for member in rows {
            entities.push(entity(db, &call.base_url, member)?);
        }
        Ok((entities, total))
    })?;
    let (entities, total) = entities;
    let mut response = Response::json(200, &entities);
    response.headers.extend(pagination::offset_headers(call, page, total.max(0) as usize, &[]));
    Ok(response)
}

/// An `Array[Integer]` parameter (`user_ids[]=1&user_ids[]=2`, a JSON array, or `1,2`).
fn ids(params: &Params, name: &str) -> ApiResult<Option<Vec<i64>>> {
    let Some(items) = params.string_list(name)? else { return Ok(None) };
    items
        .iter()
        .filter(|item| !item.is_empty())
        .map(|item| parse_int_text(item.trim()).ok_or_else(|| ApiError::InvalidParam(name.into())))
        .collect::<ApiResult<Vec<_>>>()
        .map(Some)
}
