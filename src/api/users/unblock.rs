//! `POST /users/:id/unblock`: GitLab's `UnblockService` (`user.activate`): 201 `true`, or
//! `false` for a user with nothing to unblock; a deactivated user 403 `Deactivated users
//! cannot be unblocked by the API`.

use super::{activate_transition, state_action};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store::users::UserState;

pub fn unblock(call: &Call, id: &str) -> ApiResult<Response> {
    state_action(call, id, |_, user| {
        if user.state == UserState::Deactivated {
            return Err(ApiError::Forbidden(Some("Deactivated users cannot be unblocked by the API".into())));
        }
        Ok(activate_transition(user))
    })
}
