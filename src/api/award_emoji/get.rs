//! `GET /projects/:id/issues/:issue_iid/award_emoji/:award_id` (merge requests', notes'): one
//! award of the awardable; 404 `Not found` when it has no such award.

use super::{awardable, entity, parse_award_id, project, Kind};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store;

pub fn get(
    call: &Call,
    project_id: &str,
    kind: Kind,
    iid: &str,
    note_id: Option<&str>,
    award_id: &str,
) -> ApiResult<Response> {
    let project = project(call, project_id)?;
    let award_id = parse_award_id(award_id)?;
    let entity = call.ctx.store.read(|db| -> ApiResult<_> {
        let awardable = awardable(db, call, &project, kind, iid, note_id)?;
        if !awardable.readable {
            return Err(ApiError::NotFound("Award Emoji"));
        }
        let award = store::award_emoji::find(db, awardable.type_name, awardable.id, award_id)?
            .ok_or(ApiError::RecordNotFound)?;
        entity(call, db, &award)
    })?;
    Ok(Response::json(200, &entity))
}
