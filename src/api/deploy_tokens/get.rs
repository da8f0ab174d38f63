//! `GET /projects/:id/deploy_tokens/:token_id`, `GET /groups/:id/deploy_tokens/:token_id`.

use super::{entity, owner, Action, Scope};
use crate::api::personal_access_tokens::integer_id;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store;

/// 200 `DeployToken`; another owner's or a missing token is `find`'s 404 `404 Not found`.
pub fn get(call: &Call, scope: Scope, token_id: &str) -> ApiResult<Response> {
    let owner = owner(call, scope, Action::Read)?;
    let id = integer_id(token_id, "token_id")?;
    let token =
        call.ctx.store.read(|db| store::tokens::find_deploy(db, Some(owner), id))?.ok_or(ApiError::RecordNotFound)?;
    Ok(Response::json(200, &entity(&token, None)))
}
