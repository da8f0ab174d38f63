//! `POST /projects/:id/access_tokens/:token_id/rotate`, `POST /groups/:id/access_tokens/:token_id/rotate`:
//! as a personal access token's rotation (same name, description, scopes, bot; the old token
//! revoked at once; no `expires_at`: a week from today), answered as `ResourceAccessTokenWithToken`.
//! GitLab's `ProjectAccessTokens::RotateService` also refuses a caller whose own level does
//! not encompass the bot's: `Not eligible to rotate token with access level higher than the user`.

use super::{entity, Resource, Scope};
use crate::api::personal_access_tokens::{date_param, expiry};
use crate::api::Call;
use crate::auth::tokens;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store;

const DEFAULT_DAYS: i64 = 7;

/// Answers 200. A caller who may not manage the resource's tokens, or a token that is not one of
/// them: 401, 404 for administrators ("Only admins should be informed if the token doesn't
/// exist"); a revoked token 400 `Token already revoked`.
pub fn rotate(call: &Call, scope: Scope, token_id: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let resource = Resource::find(call, scope)?;
    let token = if resource.allowed { resource.token(call, token_id)? } else { None };
    let Some(token) = token else {
        return Err(if user.is_admin { ApiError::NotFound("") } else { ApiError::Unauthorized });
    };
    if token.revoked {
        return Err(ApiError::BadRequest("Token already revoked".into()));
    }
    let bot_level = call
        .ctx
        .store
        .read(|db| store::members::find_direct(db, resource.source(), token.user_id))?
        .map_or(0, |m| m.access_level);
    if bot_level > resource.level {
        return Err(ApiError::BadRequest("Not eligible to rotate token with access level higher than the user".into()));
    }
    let expires_at = expiry(call.ctx, date_param(params, "expires_at")?, Some(DEFAULT_DAYS)).map_err(|e| match e {
        ApiError::Validation(serde_json::Value::String(message)) => ApiError::BadRequest(message),
        other => other,
    })?;
    let text = tokens::generate(tokens::PERSONAL_PREFIX).map_err(ApiError::internal)?;
    let digest = tokens::digest(&text);
    let new = call.ctx.store.write(|db| -> ApiResult<_> {
        let id = store::tokens::rotate_personal(db, &token, &digest, expires_at.as_deref())?
            .ok_or_else(|| ApiError::BadRequest("Token already revoked".into()))?;
        store::tokens::find_personal(db, id)?.ok_or_else(|| ApiError::internal(store::StoreError::NoRow))
    })?;
    Ok(Response::json(200, &entity(call, &resource, &new, Some(&text))?))
}
