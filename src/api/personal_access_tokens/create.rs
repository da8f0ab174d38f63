//! `POST /users/:user_id/personal_access_tokens` (administrators, any available scope) and
//! `POST /user/personal_access_tokens` (oneself; only `k8s_proxy`, as GitLab allows there:
//! `lib/api/users.rb`, "for security reasons only the k8s_proxy scope is allowed").

use super::{create_token, entity, integer_id, Request, Shape};
use crate::api::Call;
use crate::auth::scopes;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store;

/// 201 `PersonalAccessTokenWithToken`. Anonymous 401, non-administrators 403 (GitLab's
/// `authenticated_as_admin!`), an unknown user 404. No `expires_at`: today + the maximum
/// lifetime (`limits.token_max_lifetime_days`; decisions D9).
pub fn create_for_user(call: &Call, user_id: &str, params: &Params) -> ApiResult<Response> {
    let caller = call.caller.require_user()?;
    if !caller.is_admin {
        return Err(ApiError::Forbidden(None));
    }
    let user_id = integer_id(user_id, "user_id")?;
    let request = Request::read(params, scopes::AVAILABLE)?;
    let user = call.ctx.store.read(|db| store::users::find_by_id(db, user_id))?.ok_or(ApiError::NotFound("User"))?;
    let (token, text) = create_token(call.ctx, &user, request, None)?;
    Ok(Response::json(201, &entity(&token, Shape::WithToken(&text))))
}

/// 201 `PersonalAccessTokenWithToken` for the caller; `expires_at` defaults to tomorrow, as
/// GitLab's (`1.day.from_now.to_date`).
pub fn create_own(call: &Call, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let request = Request::read(params, &[scopes::K8S_PROXY])?;
    let (token, text) = create_token(call.ctx, &user, request, Some(1))?;
    Ok(Response::json(201, &entity(&token, Shape::WithToken(&text))))
}
