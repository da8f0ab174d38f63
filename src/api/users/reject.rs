//! `POST /users/:id/reject`: a user pending approval is deleted (GitLab's `RejectService`
//! hard-deletes them), 201 `{"message":"Success"}`; anyone else 409 `This user does not have a
//! pending request`; a caller who is not an administrator 403 `You are not allowed to reject a
//! user`. The statuses of the refusals and the success body follow GitLab's documentation
//! (the service's own statuses were not read).

use super::{find, parse_id, require_signed_in};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store::{self, users::UserState};
use serde_json::json;

pub fn reject(call: &Call, id: &str) -> ApiResult<Response> {
    require_signed_in(call)?;
    let id = parse_id(id)?;
    let admin = call.caller.is_admin();
    call.ctx.store.write(|db| -> ApiResult<_> {
        let user = find(db, id)?;
        if !admin {
            return Err(ApiError::Denied("You are not allowed to reject a user".into()));
        }
        if user.state != UserState::BlockedPendingApproval {
            return Err(ApiError::Conflict("This user does not have a pending request".into()));
        }
        Ok(store::users::delete(db, user.id)?)
    })?;
    Ok(Response::json(201, &json!({"message": "Success"})))
}
