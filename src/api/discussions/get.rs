//! `GET /projects/:id/issues/:issue_iid/discussions/:discussion_id`: one discussion; 404
//! `Discussion Not Found` when the noteable has none of that id the caller may read.

use super::{entity, find, target};
use crate::api::issues::Viewer;
use crate::api::notes::{noteable, Kind};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;

pub fn get(call: &Call, project_id: &str, kind: Kind, id: &str, discussion_id: &str) -> ApiResult<Response> {
    let (project, id) = target(call, project_id, kind, id)?;
    let entity = call.ctx.store.read(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, &id, &viewer)?;
        let notes = find(db, &noteable, discussion_id, &viewer, "Discussion")?;
        entity(call, db, &notes, &noteable)
    })?;
    Ok(Response::json(200, &entity))
}
