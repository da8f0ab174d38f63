//! `DELETE /topics/:id`: administrators only; the topic leaves every project that had it. 204.

use super::{find, id};
use crate::api::users::require_admin;
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;
use crate::store::topics;

pub fn delete(call: &Call, topic_id: &str) -> ApiResult<Response> {
    require_admin(call)?;
    let topic_id = id(topic_id, "id")?;
    call.ctx.store.write(|db| -> ApiResult<_> {
        let topic = find(db, topic_id)?;
        Ok(topics::delete(db, &topic)?)
    })?;
    Ok(Response::no_content())
}
