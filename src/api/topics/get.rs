//! `GET /topics/:id`: anyone, signed in or not.

use super::{entity, find, id};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;

pub fn get(call: &Call, topic_id: &str) -> ApiResult<Response> {
    let topic_id = id(topic_id, "id")?;
    let topic = call.ctx.store.read(|db| find(db, topic_id))?;
    Ok(Response::json(200, &entity(&topic)))
}
