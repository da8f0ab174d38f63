//! `POST /personal_access_tokens/:id/rotate` and `POST /personal_access_tokens/self/rotate`:
//! a new token with the old one's name, description and scopes, and the old one revoked at
//! once, in one write (GitLab's `PersonalAccessTokens::RotateService`).

use super::{date_param, entity, expiry, managed, own_token, Shape};
use crate::api::Call;
use crate::auth::tokens;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, tokens::PersonalToken};

/// A rotated token without `expires_at` expires a week from today (GitLab's documented
/// default), never past the maximum lifetime.
const DEFAULT_DAYS: i64 = 7;

/// 200 `PersonalAccessTokenWithToken`; refusals as get's (401 non-administrators, 404
/// administrators); a revoked token is 400 `Token already revoked`.
pub fn rotate(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let token = managed(call, id)?;
    rotated(call, &token, params)
}

/// 200 `PersonalAccessTokenWithToken` for the caller's own token (`api` or `self_rotate`
/// scope, declared in the router); a caller without a personal access token is 405, as GitLab's
/// "not a personal access token".
pub fn rotate_self(call: &Call, params: &Params) -> ApiResult<Response> {
    call.caller.require_user()?;
    if call.token.is_none() {
        return Err(ApiError::MethodNotAllowed);
    }
    let token = own_token(call)?;
    rotated(call, &token, params)
}

fn rotated(call: &Call, token: &PersonalToken, params: &Params) -> ApiResult<Response> {
    if token.revoked {
        return Err(ApiError::BadRequest("Token already revoked".into()));
    }
    let expires_at = expiry(call.ctx, date_param(params, "expires_at")?, Some(DEFAULT_DAYS))?;
    let text = tokens::generate(tokens::PERSONAL_PREFIX).map_err(ApiError::internal)?;
    let digest = tokens::digest(&text);
    let new = call.ctx.store.write(|db| -> ApiResult<_> {
        let id = store::tokens::rotate_personal(db, token, &digest, expires_at.as_deref())?
            .ok_or_else(|| ApiError::BadRequest("Token already revoked".into()))?;
        store::tokens::find_personal(db, id)?.ok_or_else(|| ApiError::internal(store::StoreError::NoRow))
    })?;
    Ok(Response::json(200, &entity(&new, Shape::WithToken(&text))))
}
