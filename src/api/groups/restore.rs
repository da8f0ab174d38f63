//! `POST /groups/:id/restore` (decisions D9): a group marked for deletion is kept after all;
//! `remove_group` as for deleting it; 201 with the group as `GET /groups/:id` answers it.

use crate::api::Call;
use crate::auth::permissions;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store;

pub fn restore(call: &Call, id: &str) -> ApiResult<Response> {
    let group = call.group(id)?;
    call.caller.require_user()?;
    if !call.ctx.store.read(|db| permissions::can_remove_group(db, &call.caller, &group))? {
        return Err(ApiError::Forbidden(None));
    }
    if !call.ctx.store.write(|db| store::groups::set_marked_for_deletion(db, group.id, None))? {
        return Err(ApiError::validation("Group has not been marked for deletion"));
    }
    let mut response = super::get::get(call, &group.id.to_string(), &crate::params::Params::new())?;
    response.status = 201;
    Ok(response)
}
