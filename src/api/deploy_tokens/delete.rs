//! `DELETE /projects/:id/deploy_tokens/:token_id`, `DELETE /groups/:id/deploy_tokens/:token_id`:
//! the token is deleted (GitLab's `DeployTokens::DestroyService` destroys the row), so git
//! refuses it at once.

use super::{owner, Action, Scope};
use crate::api::personal_access_tokens::integer_id;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store;

/// Answers 204; another owner's or a missing token is 404 `404 Not found`.
pub fn delete(call: &Call, scope: Scope, token_id: &str) -> ApiResult<Response> {
    let owner = owner(call, scope, Action::Manage)?;
    let id = integer_id(token_id, "token_id")?;
    call.ctx.store.write(|db| -> ApiResult<_> {
        store::tokens::find_deploy(db, Some(owner), id)?.ok_or(ApiError::RecordNotFound)?;
        store::tokens::delete_deploy(db, id)?;
        Ok(())
    })?;
    Ok(Response::no_content())
}
