//! `DELETE /projects/:id/issues/:issue_iid/discussions/:discussion_id/notes/:note_id`: by the
//! note's author or a Maintainer and above (`admin_note`, 403 otherwise); 204. The discussion
//! ends with its last note.

use super::target;
use crate::api::issues::Viewer;
use crate::api::notes::{find, may_change, noteable, Kind};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store;

pub fn delete_note(call: &Call, project_id: &str, kind: Kind, id: &str, note_id: &str) -> ApiResult<Response> {
    let (project, id) = target(call, project_id, kind, id)?;
    if project.archived {
        return Err(ApiError::Forbidden(None));
    }
    call.ctx.store.write(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, &id, &viewer)?;
        let note = find(db, &noteable, note_id, &viewer)?;
        if !may_change(&note, &viewer) {
            return Err(ApiError::Forbidden(None));
        }
        store::notes::delete(db, note.id)?;
        Ok(())
    })?;
    Ok(Response::no_content())
}
