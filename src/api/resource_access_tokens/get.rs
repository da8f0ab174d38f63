//! `GET /projects/:id/access_tokens/:token_id`, `GET /groups/:id/access_tokens/:token_id`.

use super::{entity, Resource, Scope};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;

/// 200 `ResourceAccessToken`; 401 for a caller who may not manage the resource's tokens, 404
/// `<kind> Access Token Not Found` for a token that is not one of the resource's.
pub fn get(call: &Call, scope: Scope, token_id: &str) -> ApiResult<Response> {
    call.caller.require_user()?;
    let resource = Resource::find(call, scope)?;
    if !resource.allowed {
        return Err(ApiError::Unauthorized);
    }
    let token = resource.token(call, token_id)?.ok_or_else(|| resource.token_not_found())?;
    Ok(Response::json(200, &entity(call, &resource, &token, None)?))
}
