//! `GET /projects/:id/issues/:issue_iid/notes`: the noteable's notes, system notes included,
//! `order_by` `created_at` (default) or `updated_at`, `sort` `desc` (default) or `asc`, offset
//! pages; internal notes only for those who may see them.

use super::{entity, noteable, project, Kind};
use crate::api::issues::Viewer;
use crate::api::{pagination, Call};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::notes::{self, ListQuery};

pub fn list(call: &Call, project_id: &str, kind: Kind, iid: &str, params: &Params) -> ApiResult<Response> {
    let project = project(call, project_id)?;
    let by_updated = match params.string("order_by")?.as_deref() {
        None | Some("created_at") => false,
        Some("updated_at") => true,
        Some(_) => return Err(ApiError::InvalidValue("order_by".into())),
    };
    let ascending = match params.string("sort")?.as_deref() {
        None | Some("desc") => false,
        Some("asc") => true,
        Some(_) => return Err(ApiError::InvalidValue("sort".into())),
    };
    let page = pagination::page(call, params)?;
    let (shown, total) = call.ctx.store.read(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, iid, &viewer)?;
        let query = ListQuery {
            on: noteable.on(),
            internal: viewer.admin_issue(),
            by_updated,
            ascending,
            limit: page.per_page as i64,
            offset: page.offset() as i64,
        };
        let mut shown = Vec::new();
        for note in notes::list(db, &query)? {
            shown.push(entity(call, db, &note, &noteable)?);
        }
        Ok((shown, notes::count(db, &query)?))
    })?;
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total as usize, &[]));
    Ok(response)
}
