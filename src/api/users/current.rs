//! `GET /user`: the signed-in caller (401 for anyone else, job tokens included): GitLab's
//! `UserPublic`, `UserWithAdmin` for administrators.

use super::{entity, Detail};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;

pub fn current(call: &Call) -> ApiResult<Response> {
    let user = call.caller.require_user()?;
    let detail = if user.is_admin { Detail::Admin } else { Detail::Public };
    Ok(Response::json(200, &entity(call, user, detail)?))
}
