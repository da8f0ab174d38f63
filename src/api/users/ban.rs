//! `POST /users/:id/ban`: an active user becomes banned (blocked, as GitLab counts it), 201
//! `true`; any other state 403 `You cannot ban <state> users.` (`BannedUserBaseService`).

use super::state_action;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store::users::UserState;

pub fn ban(call: &Call, id: &str) -> ApiResult<Response> {
    state_action(call, id, |_, user| match user.state {
        UserState::Active => Ok((Some(UserState::Banned), Some(true))),
        state => Err(ApiError::Denied(format!("You cannot ban {} users.", state.as_str()))),
    })
}
