//! `DELETE /projects/:id/hooks/:hook_id`: removes the hook, its pending deliveries and its
//! logs; 204.

use super::{administered, find};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;
use crate::store::hooks;

pub fn delete(call: &Call, project: &str, hook_id: &str) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let hook = find(call, &project, hook_id)?;
    call.ctx.store.write(|db| hooks::delete(db, hook.id))?;
    Ok(Response::no_content())
}
