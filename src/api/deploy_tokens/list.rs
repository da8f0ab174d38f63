//! `GET /deploy_tokens` (administrators), `GET /projects/:id/deploy_tokens`,
//! `GET /groups/:id/deploy_tokens`: by id, offset-paginated; `active=true` only live ones.

use super::{entity, owner, Action, Scope};
use crate::api::{pagination, Call};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, tokens::DeployOwner};

/// Every deploy token: anonymous 401, non-administrators 403 (`authenticated_as_admin!`).
pub fn list_all(call: &Call, params: &Params) -> ApiResult<Response> {
    if !call.caller.require_user()?.is_admin {
        return Err(ApiError::Forbidden(None));
    }
    listed(call, None, params)
}

pub fn list(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    let owner = owner(call, scope, Action::Read)?;
    listed(call, Some(owner), params)
}

fn listed(call: &Call, owner: Option<DeployOwner>, params: &Params) -> ApiResult<Response> {
    // GitLab's `TokensFinder`: `active: true` keeps live ones; `false` or none, all of them.
    let active = params.bool("active")?.filter(|a| *a).map(|a| (a, store::now_seconds()));
    let page = pagination::page(call, params)?;
    let tokens = call
        .ctx
        .store
        .read(|db| store::tokens::list_deploy(db, owner, active, page.per_page as i64, page.offset() as i64))?;
    let body: Vec<_> = tokens.iter().map(|t| entity(t, None)).collect();
    let mut response = Response::json(200, &body);
    response.headers.extend(pagination::headers_without_total(call, page, tokens.len()));
    Ok(response)
}
