//! `POST /users/:id/block`: 201 `true`; a user already blocked (banned and pending approval
//! count) 201 `null` (`break`); the caller themself 403 `The API initiating user cannot be
//! blocked by the API`. A blocked user's tokens stop working (see `access_denied`).

use super::state_action;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store::users::UserState;

pub fn block(call: &Call, id: &str) -> ApiResult<Response> {
    state_action(call, id, |me, user| {
        if me.id == user.id {
            return Err(ApiError::Forbidden(Some("The API initiating user cannot be blocked by the API".into())));
        }
        Ok(if user.state.is_blocked() { (None, None) } else { (Some(UserState::Blocked), Some(true)) })
    })
}
