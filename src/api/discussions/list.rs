//! `GET /projects/:id/issues/:issue_iid/discussions` (and merge requests', commits'): the
//! noteable's discussions, paged by discussion (offset pages, totals), in the order of their
//! first notes; notes alone and system notes are discussions too (`individual_note`).

use super::{entity, readable_notes, target};
use crate::api::issues::Viewer;
use crate::api::notes::{noteable, Kind};
use crate::api::{pagination, Call};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store;

pub fn list(call: &Call, project_id: &str, kind: Kind, id: &str, params: &Params) -> ApiResult<Response> {
    let (project, id) = target(call, project_id, kind, id)?;
    let page = pagination::page(call, params)?;
    let (shown, total) = call.ctx.store.read(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, &id, &viewer)?;
        let internal = viewer.admin_issue();
        let ids =
            store::notes::discussion_ids(db, noteable.on(), internal, page.per_page as i64, page.offset() as i64)?;
        let notes = readable_notes(db, &noteable, &ids, &viewer)?;
        let mut shown = Vec::with_capacity(ids.len());
        for id in &ids {
            let of: Vec<_> = notes.iter().filter(|n| &n.discussion_id == id).cloned().collect();
            if !of.is_empty() {
                shown.push(entity(call, db, &of, &noteable)?);
            }
        }
        Ok((shown, store::notes::count_discussions(db, noteable.on(), internal)?))
    })?;
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total as usize, &[]));
    Ok(response)
}
