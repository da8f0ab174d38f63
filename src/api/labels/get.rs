//! `GET /projects/:id/labels/:label_id`, `GET /groups/:id/labels/:label_id`: one label the
//! parent sees (its own or an ancestor group's) by id or title, or 404 `Label Not Found`.

use super::{entity, find, Need, Parent, Scope};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;

pub fn get(call: &Call, scope: Scope, id_or_title: &str) -> ApiResult<Response> {
    let parent = Parent::of(call, scope, Need::Read)?;
    let label = call.ctx.store.read(|db| -> ApiResult<_> {
        let label = find(db, &parent, id_or_title)?;
        entity(call, db, &parent, &label, None)
    })?;
    Ok(Response::json(200, &label))
}
