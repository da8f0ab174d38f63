//! `GET /projects/:id/issues/:issue_iid/discussions/:discussion_id/notes/:note_id`: a note of
//! the noteable (GitLab's `get_note`: the note is looked up on the noteable, whatever
//! discussion the path names); 404 `Not found` when it has no such note.

use super::target;
use crate::api::issues::Viewer;
use crate::api::notes::{entity, find, noteable, Kind};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;

pub fn get_note(call: &Call, project_id: &str, kind: Kind, id: &str, note_id: &str) -> ApiResult<Response> {
    let (project, id) = target(call, project_id, kind, id)?;
    let entity = call.ctx.store.read(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, &id, &viewer)?;
        let note = find(db, &noteable, note_id, &viewer)?;
        entity(call, db, &note, &noteable)
    })?;
    Ok(Response::json(200, &entity))
}
