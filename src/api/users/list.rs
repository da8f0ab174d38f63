//! `GET /users`: GitLab's `UsersFinder` over the instance's users, in offset pages with
//! GitLab's headers. Anyone signed in may list (`read_users_list`); anonymous callers only
//! with `username` (one user or none), else 403 `Not authorized to access /api/v4/users`.
//! Entities are `UserBasic`, `UserWithAdmin` for administrators. Only administrators order
//! (`order_by`, `sort`: GitLab drops them for others), filter on `admins` and search emails.
//! `humans` and `without_project_bots` leave out access tokens' bots; `exclude_internal`: no
//! user here is internal.

use super::{entity, Detail};
use crate::api::{pagination, Call};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::users::{self, ListQuery, Order};

pub fn list(call: &Call, params: &Params) -> ApiResult<Response> {
    let me = call.caller.user();
    let admin = me.is_some_and(|u| u.is_admin);
    let text = |name: &str| -> ApiResult<Option<String>> {
        match params.string(name)?.filter(|v| !v.is_empty()) {
            Some(value) if value.contains('\0') => Err(ApiError::InvalidParam(name.to_string())),
            other => Ok(other),
        }
    };
    let username = text("username")?;
    let search = text("search")?;
    // Grape validates `order_by` and `sort` for everybody before the endpoint drops them.
    let order = match params.string("order_by")?.as_deref() {
        None | Some("id") => Order::Id,
        Some("name") => Order::Name,
        Some("username") => Order::Username,
        Some("created_at") => Order::CreatedAt,
        Some("updated_at") => Order::UpdatedAt,
        Some(_) => return Err(ApiError::InvalidValue("order_by".into())),
    };
    let ascending = match params.string("sort")?.as_deref() {
        None | Some("desc") => false,
        Some("asc") => true,
        Some(_) => return Err(ApiError::InvalidValue("sort".into())),
    };
    let flag = |name: &str| -> ApiResult<bool> { Ok(params.bool(name)?.unwrap_or(false)) };
    let (active, blocked, external, non_external, admins) =
        (flag("active")?, flag("blocked")?, flag("external")?, flag("exclude_external")?, flag("admins")?);
    let humans = flag("humans")? || flag("without_project_bots")?;
    for accepted in ["exclude_internal", "without_projects"] {
        flag(accepted)?;
    }
    // `extern_uid` with `provider` is for administrators (GitLab's `authenticated_as_admin!`);
    // no user here has an external identity, so it finds nobody.
    let (extern_uid, provider) = (text("extern_uid")?, text("provider")?);
    if extern_uid.is_some() != provider.is_some() {
        return Err(ApiError::ParamError("extern_uid, provider provide all or none of parameters".into()));
    }
    let by_identity = extern_uid.is_some();
    if by_identity {
        super::require_admin(call)?;
    }
    if me.is_none() && username.is_none() {
        return Err(ApiError::Forbidden(Some("Not authorized to access /api/v4/users".into())));
    }
    let page = pagination::page(call, params)?;
    let query = ListQuery {
        username,
        search,
        nobody: by_identity,
        search_private_emails: admin,
        active,
        blocked,
        external,
        non_external,
        admins: admins && admin,
        humans,
        order: if admin { order } else { Order::Id },
        ascending: admin && ascending,
        limit: page.per_page as i64,
        offset: page.offset() as i64,
    };
    let (rows, total) = call
        .ctx
        .store
        .read(|db| -> ApiResult<_> { Ok((users::list(db, &query)?, users::count_listed(db, &query)?)) })?;
    let detail = if admin { Detail::Admin } else { Detail::Basic };
    let mut entities = Vec::with_capacity(rows.len());
    for user in &rows {
        entities.push(entity(call, user, detail)?);
    }
    let mut response = Response::json(200, &entities);
    response.headers.extend(pagination::offset_headers(call, page, total as usize, &[]));
    Ok(response)
}
