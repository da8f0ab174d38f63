//! `PUT /projects/:id/issues/:issue_iid/discussions/:discussion_id/notes/:note_id`: exactly one
//! of `body` (by the note's author or a Maintainer and above: `admin_note`) and `resolved`
//! (`resolve_note`: Developers and above, the note's author, the noteable's author; 400 `Note
//! is not resolvable` for a note that is not); 200 and the Note, both 403 for others.

use super::target;
use crate::api::issues::Viewer;
use crate::api::notes::{check_body, entity, find, may_change, may_resolve, noteable, resolvable, Kind};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store;

pub fn update_note(
    call: &Call,
    project_id: &str,
    kind: Kind,
    id: &str,
    note_id: &str,
    params: &Params,
) -> ApiResult<Response> {
    let body = params.string("body")?;
    let resolved = params.bool("resolved")?;
    match (&body, resolved) {
        (Some(_), Some(_)) => return Err(ApiError::ParamError("body, resolved are mutually exclusive".into())),
        (None, None) => {
            return Err(ApiError::ParamError(
                "body, resolved are missing, exactly one parameter must be provided".into(),
            ))
        }
        _ => {}
    }
    let (project, id) = target(call, project_id, kind, id)?;
    if project.archived {
        return Err(ApiError::Forbidden(None));
    }
    let user = call.caller.require_user()?.clone();
    let entity = call.ctx.store.write(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, &id, &viewer)?;
        let mut note = find(db, &noteable, note_id, &viewer)?;
        match (&body, resolved) {
            (Some(body), _) => {
                if !may_change(&note, &viewer) {
                    return Err(ApiError::Forbidden(None));
                }
                check_body(body)?;
                store::notes::update_body(db, &mut note, body)?;
            }
            (None, Some(resolved)) => {
                if !may_resolve(&note, &noteable, &viewer) {
                    return Err(ApiError::Forbidden(None));
                }
                if !resolvable(&note) {
                    return Err(ApiError::BadRequest("Note is not resolvable".into()));
                }
                store::notes::set_resolved(db, &[note.id], resolved.then_some(user.id))?;
                note = find(db, &noteable, note_id, &viewer)?;
            }
            (None, None) => {}
        }
        entity(call, db, &note, &noteable)
    })?;
    Ok(Response::json(200, &entity))
}
