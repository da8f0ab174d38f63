//! `POST /users/:id/deactivate`: 201 `true`; already deactivated 201 `null`; a blocked user
//! 403 `Error occurred. A blocked user cannot be deactivated` (GitLab's `DeactivateService`).
//! GitLab also refuses users active in the last 90 days; forgecore keeps no activity, so
//! every active user may be deactivated.

use super::state_action;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store::users::UserState;

pub fn deactivate(call: &Call, id: &str) -> ApiResult<Response> {
    state_action(call, id, |_, user| match user.state {
        UserState::Deactivated => Ok((None, None)),
        state if state.is_blocked() => {
            Err(ApiError::Denied("Error occurred. A blocked user cannot be deactivated".into()))
        }
        _ => Ok((Some(UserState::Deactivated), Some(true))),
    })
}
