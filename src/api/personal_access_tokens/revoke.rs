//! `DELETE /personal_access_tokens/:id` and `DELETE /personal_access_tokens/self`: revoke.
//! A revoked token is refused at once on every door (REST, typed exports, git) and, on
//! PostgreSQL, on every host as soon as the update's notification arrives.

use super::{integer_id, may_manage, own_token};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store;

/// Answers 204. A missing token is 404 (`find_token`); one the caller may not manage is GitLab's
/// answer to a refusal of its revoke service (`bad_request!(nil)`), 400
/// `{"message":"400 Bad request"}`. Revoking a revoked token succeeds, as GitLab's `revoke!`
/// does.
pub fn revoke(call: &Call, id: &str) -> ApiResult<Response> {
    call.caller.require_user()?;
    let id = integer_id(id, "id")?;
    let token = call.ctx.store.read(|db| store::tokens::find_personal(db, id))?.ok_or(ApiError::NotFound(""))?;
    if !may_manage(call, &token) {
        return Err(ApiError::validation("400 Bad request"));
    }
    call.ctx.store.write(|db| store::tokens::revoke_personal_by_id(db, token.id))?;
    Ok(Response::no_content())
}

/// 204: the caller's own token, whatever its scopes.
pub fn revoke_self(call: &Call) -> ApiResult<Response> {
    let token = own_token(call)?;
    call.ctx.store.write(|db| store::tokens::revoke_personal_by_id(db, token.id))?;
    Ok(Response::no_content())
}
