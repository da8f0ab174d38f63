//! `GET /projects/:id/hooks/:hook_id`: one hook; 404 `404 Not found` for another project's or
//! a missing one.

use super::{administered, entity, find};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;

pub fn get(call: &Call, project: &str, hook_id: &str) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let hook = find(call, &project, hook_id)?;
    Ok(Response::json(200, &entity(&hook, true)))
}
