//! `PUT /projects/:id/issues/:issue_iid/notes/:note_id`: a new `body` (required), by the note's
//! author or a Maintainer and above (`admin_note`, 403 otherwise); 200 and the note.

use super::{entity, find, may_change, noteable, project, Kind};
use crate::api::issues::Viewer;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::notes;

pub fn update(
    call: &Call,
    project_id: &str,
    kind: Kind,
    iid: &str,
    note_id: &str,
    params: &Params,
) -> ApiResult<Response> {
    let project = project(call, project_id)?;
    let body = params.required_string("body")?;
    if body.trim().is_empty() {
        return Err(ApiError::BadRequest("Note {:note=>[\"can't be blank\"]}".into()));
    }
    if project.archived {
        return Err(ApiError::Forbidden(None));
    }
    let entity = call.ctx.store.write(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, iid, &viewer)?;
        let mut note = find(db, &noteable, note_id, &viewer)?;
        if !may_change(&note, &viewer) {
            return Err(ApiError::Forbidden(None));
        }
        notes::update_body(db, &mut note, &body)?;
        entity(call, db, &note, &noteable)
    })?;
    Ok(Response::json(200, &entity))
}
