//! `DELETE /groups/:id/hooks/:hook_id`: 204; its pending deliveries and logs go with it.

use super::{administered, find};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;
use crate::store::hooks;

pub fn delete(call: &Call, group: &str, hook_id: &str) -> ApiResult<Response> {
    let group = administered(call, group)?;
    let hook = find(call, &group, hook_id)?;
    call.ctx.store.write(|db| hooks::delete(db, hook.id))?;
    Ok(Response::no_content())
}
