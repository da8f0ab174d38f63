//! `GET /hooks/:hook_id`: one system hook (administrators).

use super::{entity, find};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;

pub fn get(call: &Call, hook_id: &str) -> ApiResult<Response> {
    Ok(Response::json(200, &entity(&find(call, hook_id)?)))
}
