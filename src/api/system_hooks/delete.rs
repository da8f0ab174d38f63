//! `DELETE /hooks/:hook_id`: removes a system hook (administrators); 204.

use super::find;
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;
use crate::store::hooks;

pub fn delete(call: &Call, hook_id: &str) -> ApiResult<Response> {
    let hook = find(call, hook_id)?;
    call.ctx.store.write(|db| hooks::delete(db, hook.id))?;
    Ok(Response::no_content())
}
