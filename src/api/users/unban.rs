//! `POST /users/:id/unban`: a banned user becomes active, 201 `true`; any other state 403
//! `You cannot unban <state> users.` (`BannedUserBaseService`).

use super::state_action;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store::users::UserState;

pub fn unban(call: &Call, id: &str) -> ApiResult<Response> {
    state_action(call, id, |_, user| match user.state {
        UserState::Banned => Ok((Some(UserState::Active), Some(true))),
        state => Err(ApiError::Denied(format!("You cannot unban {} users.", state.as_str()))),
    })
}
