//! `GET /projects/:id/issues/:eventable_id/resource_label_events/:event_id` and the same for
//! merge requests: one label event of that issue or merge request, or 404 `Not found`
//! (GitLab's `resource_label_events.find`).

use super::{entity, target, Eventable};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int_text;
use crate::response::Response;
use crate::store::labels;

pub fn get(call: &Call, id: &str, kind: Eventable, iid: &str, event_id: &str) -> ApiResult<Response> {
    let target = target(call, id, kind, iid)?;
    let event_id = parse_int_text(event_id).ok_or(ApiError::RecordNotFound)?;
    let event = call.ctx.store.read(|db| -> ApiResult<_> {
        let event = labels::event(db, target, event_id)?.ok_or(ApiError::RecordNotFound)?;
        entity(call, db, &event)
    })?;
    Ok(Response::json(200, &event))
}
