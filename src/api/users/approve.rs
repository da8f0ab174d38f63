//! `POST /users/:id/approve`: a user pending approval becomes active, 201 with the service's
//! result (`{"message":"Success","http_status":"created","status":"success"}`,
//! `Users::ApproveService`); anyone else 409 `The user you are trying to approve is not
//! pending approval`; a caller who is not an administrator 403 `You are not allowed to
//! approve a user` (GitLab checks the user exists first). forgecore has no sign-up, so no
//! user is pending approval unless a store says so.

use super::{find, parse_id, require_signed_in};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store::{self, users::UserState};
use serde_json::json;

pub fn approve(call: &Call, id: &str) -> ApiResult<Response> {
    require_signed_in(call)?;
    let id = parse_id(id)?;
    let admin = call.caller.is_admin();
    call.ctx.store.write(|db| -> ApiResult<_> {
        let user = find(db, id)?;
        if !admin {
            return Err(ApiError::Denied("You are not allowed to approve a user".into()));
        }
        if user.state != UserState::BlockedPendingApproval {
            return Err(ApiError::Conflict("The user you are trying to approve is not pending approval".into()));
        }
        Ok(store::users::set_state(db, user.id, UserState::Active)?)
    })?;
    Ok(Response::json(201, &json!({"message": "Success", "http_status": "created", "status": "success"})))
}
