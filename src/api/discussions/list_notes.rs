//! `GET /projects/:id/issues/:issue_iid/discussions/:discussion_id/notes`: the notes of one
//! discussion, oldest first; 404 `Notes Not Found` when there are none the caller may read.

use super::{find, target};
use crate::api::issues::Viewer;
use crate::api::notes::{entity, noteable, Kind};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;

pub fn list_notes(call: &Call, project_id: &str, kind: Kind, id: &str, discussion_id: &str) -> ApiResult<Response> {
    let (project, id) = target(call, project_id, kind, id)?;
    let shown = call.ctx.store.read(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, &id, &viewer)?;
        let mut shown = Vec::new();
        for note in find(db, &noteable, discussion_id, &viewer, "Notes")? {
            shown.push(entity(call, db, &note, &noteable)?);
        }
        Ok(shown)
    })?;
    Ok(Response::json(200, &shown))
}
