//! `GET /projects/:id/access_tokens`, `GET /groups/:id/access_tokens`: the resource's tokens,
//! by id, offset-paginated; `state` `active` or `inactive` as the personal access tokens'
//! list. A caller who may not manage them: 401.

use super::{entity, Resource, Scope};
use crate::api::{pagination, Call};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, tokens::Filter};

pub fn list(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    call.caller.require_user()?;
    let resource = Resource::find(call, scope)?;
    if !resource.allowed {
        return Err(ApiError::Unauthorized);
    }
    let state = match params.string("state")?.as_deref() {
        None => None,
        Some("active") => Some((true, store::today())),
        Some("inactive") => Some((false, store::today())),
        Some(_) => return Err(ApiError::InvalidValue("state".into())),
    };
    let filter = Filter { resource: Some((resource.kind, resource.id)), active_on: state, ..Filter::default() };
    let page = pagination::page(call, params)?;
    let tokens = call
        .ctx
        .store
        .read(|db| store::tokens::list_personal(db, &filter, page.per_page as i64, page.offset() as i64))?;
    let body = tokens.iter().map(|t| entity(call, &resource, t, None)).collect::<ApiResult<Vec<_>>>()?;
    let mut response = Response::json(200, &body);
    response.headers.extend(pagination::headers_without_total(call, page, tokens.len()));
    Ok(response)
}
