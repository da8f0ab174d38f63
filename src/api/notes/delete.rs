//! `DELETE /projects/:id/issues/:issue_iid/notes/:note_id`: by the note's author or a
//! Maintainer and above (`admin_note`, 403 otherwise); 204.

use super::{find, may_change, noteable, project, Kind};
use crate::api::issues::Viewer;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store::notes;

pub fn delete(call: &Call, project_id: &str, kind: Kind, iid: &str, note_id: &str) -> ApiResult<Response> {
    let project = project(call, project_id)?;
    if project.archived {
        return Err(ApiError::Forbidden(None));
    }
    call.ctx.store.write(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, iid, &viewer)?;
        let note = find(db, &noteable, note_id, &viewer)?;
        if !may_change(&note, &viewer) {
            return Err(ApiError::Forbidden(None));
        }
        notes::delete(db, note.id)?;
        Ok(())
    })?;
    Ok(Response::no_content())
}
