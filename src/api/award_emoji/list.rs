//! `GET /projects/:id/issues/:issue_iid/award_emoji` (merge requests', and
//! `.../notes/:note_id/award_emoji`): the awardable's awards, oldest first, offset pages.

use super::{awardable, entity, project, Kind};
use crate::api::{pagination, Call};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store;

pub fn list(
    call: &Call,
    project_id: &str,
    kind: Kind,
    iid: &str,
    note_id: Option<&str>,
    params: &Params,
) -> ApiResult<Response> {
    let project = project(call, project_id)?;
    let page = pagination::page(call, params)?;
    let (shown, total) = call.ctx.store.read(|db| -> ApiResult<_> {
        let awardable = awardable(db, call, &project, kind, iid, note_id)?;
        if !awardable.readable {
            return Err(ApiError::NotFound("Award Emoji"));
        }
        let awards = store::award_emoji::list(
            db,
            awardable.type_name,
            awardable.id,
            page.per_page as i64,
            page.offset() as i64,
        )?;
        let mut shown = Vec::with_capacity(awards.len());
        for award in &awards {
            shown.push(entity(call, db, award)?);
        }
        Ok((shown, store::award_emoji::count(db, awardable.type_name, awardable.id)?))
    })?;
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total as usize, &[]));
    Ok(response)
}
