//! `GET /projects/:id/issues/:issue_iid/notes/:note_id`: one note.

use super::{entity, find, noteable, project, Kind};
use crate::api::issues::Viewer;
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;

pub fn get(call: &Call, project_id: &str, kind: Kind, iid: &str, note_id: &str) -> ApiResult<Response> {
    let project = project(call, project_id)?;
    let entity = call.ctx.store.read(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, iid, &viewer)?;
        let note = find(db, &noteable, note_id, &viewer)?;
        entity(call, db, &note, &noteable)
    })?;
    Ok(Response::json(200, &entity))
}
