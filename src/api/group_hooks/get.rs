//! `GET /groups/:id/hooks/:hook_id`: one hook of the group; 404 for another's.

use super::{administered, entity, find};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;

pub fn get(call: &Call, group: &str, hook_id: &str) -> ApiResult<Response> {
    let group = administered(call, group)?;
    let hook = find(call, &group, hook_id)?;
    Ok(Response::json(200, &entity(&hook, true)))
}
