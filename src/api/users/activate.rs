//! `POST /users/:id/activate`: a deactivated user becomes active, 201 `true` (`false` for an
//! active one, GitLab's `user.activate`); a blocked user 403 `A blocked user must be
//! unblocked to be activated`.

use super::{activate_transition, state_action};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;

pub fn activate(call: &Call, id: &str) -> ApiResult<Response> {
    state_action(call, id, |_, user| {
        if user.state.is_blocked() {
            return Err(ApiError::Forbidden(Some("A blocked user must be unblocked to be activated".into())));
        }
        Ok(activate_transition(user))
    })
}
