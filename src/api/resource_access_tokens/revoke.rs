//! `DELETE /projects/:id/access_tokens/:token_id`, `DELETE /groups/:id/access_tokens/:token_id`,
//! as GitLab's `ResourceAccessTokens::RevokeService`: the token is revoked and its bot user
//! deleted (GitLab schedules `DeleteUserWorker`; here at once: its memberships and tokens go
//! with it, so the token no longer authenticates anywhere).

use super::{Resource, Scope};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store;

/// Answers 204. A token that is not one of the resource's: 404 `<kind> Access Token Not Found` (looked
/// up first, as GitLab's route does); a caller who may not manage them: 400
/// `400 Bad request - <caller's name> cannot delete <bot's name>`.
pub fn revoke(call: &Call, scope: Scope, token_id: &str) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let resource = Resource::find(call, scope)?;
    let token = resource.token(call, token_id)?.ok_or_else(|| resource.token_not_found())?;
    let bot = call.ctx.store.read(|db| store::users::find_by_id(db, token.user_id))?;
    if !resource.allowed {
        let bot_name = bot.map(|b| b.name).unwrap_or_default();
        return Err(ApiError::BadRequest(format!("{} cannot delete {bot_name}", user.name)));
    }
    call.ctx.store.write(|db| -> ApiResult<_> {
        store::tokens::revoke_personal_by_id(db, token.id)?;
        store::users::delete(db, token.user_id)?;
        Ok(())
    })?;
    Ok(Response::no_content())
}
