//! `GET /projects/:id/issues/:eventable_id/resource_label_events` and
//! `GET /projects/:id/merge_requests/:eventable_id/resource_label_events`: the label events
//! of one issue or merge request, oldest first, in offset pages.

use super::{entity, target, Eventable};
use crate::api::{pagination, Call};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::labels;

pub fn list(call: &Call, id: &str, kind: Eventable, iid: &str, params: &Params) -> ApiResult<Response> {
    let target = target(call, id, kind, iid)?;
    let page = pagination::page(call, params)?;
    let (shown, total) = call.ctx.store.read(|db| -> ApiResult<_> {
        let all = labels::events(db, target)?;
        let total = all.len();
        let mut shown = Vec::new();
        for event in all.iter().skip(page.offset()).take(page.per_page) {
            shown.push(entity(call, db, event)?);
        }
        Ok((shown, total))
    })?;
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
