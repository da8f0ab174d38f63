//! `POST /topics/merge`: `source_topic_id` and `target_topic_id` required; administrators only.
//! The source's projects move to the target, then the source is deleted (`Topics::MergeService`);
//! the same topic twice is a 400 with the service's words. 201 and the target.

use super::{entity, find};
use crate::api::users::require_admin;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::topics;

pub fn merge(call: &Call, params: &Params) -> ApiResult<Response> {
    require_admin(call)?;
    let source_id = params.int("source_topic_id")?.ok_or_else(|| ApiError::MissingParam("source_topic_id".into()))?;
    let target_id = params.int("target_topic_id")?.ok_or_else(|| ApiError::MissingParam("target_topic_id".into()))?;
    let target = call.ctx.store.write(|db| -> ApiResult<_> {
        let source = find(db, source_id)?;
        let target = find(db, target_id)?;
        if source.id == target.id {
            return Err(ApiError::validation("The source topic and the target topic are identical."));
        }
        topics::merge(db, &source, &target)?;
        find(db, target_id)
    })?;
    Ok(Response::json(201, &entity(&target)))
}
