//! `POST /projects/:id/issues/:issue_iid/notes`: `body` required, `internal` (or the older
//! `confidential`), `created_at` for Owners and administrators; 201 and the note. Anyone signed
//! in who sees the noteable comments (`create_note`); internal notes only Planners, Reporters
//! and above (403). A blank body is GitLab's 400 `Note {:note=>["can't be blank"]}`. The
//! noteable's `updated_at` moves (`touch: true`), and the note is announced.

use super::{entity, noteable, project, Kind};
use crate::api::issues::{time_param, Viewer};
use crate::api::Call;
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::events::{Event, NoteCreated};
use crate::params::Params;
use crate::response::Response;
use crate::store::issues;
use crate::store::notes::{self, NewNote};

/// GitLab's limit on a note's length (`Gitlab::Database::MAX_TEXT_SIZE_LIMIT`, 1,000,000).
const MAX_BODY: usize = 1_000_000;

pub fn create(call: &Call, project_id: &str, kind: Kind, iid: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let project = project(call, project_id)?;
    let body = params.required_string("body")?;
    if body.trim().is_empty() {
        return Err(ApiError::BadRequest("Note {:note=>[\"can't be blank\"]}".into()));
    }
    if body.chars().count() > MAX_BODY {
        return Err(ApiError::BadRequest("Note {:note=>[\"is too long (maximum is 1000000 characters)\"]}".into()));
    }
    let internal = params.bool("internal")?.or(params.bool("confidential")?).unwrap_or(false);
    let created_at = time_param(params, "created_at")?;
    if project.archived {
        return Err(ApiError::Forbidden(None));
    }
    let (entity, event) = call.ctx.store.write(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, iid, &viewer)?;
        if internal && !viewer.admin_issue() {
            return Err(ApiError::Forbidden(None));
        }
        let owner = viewer.admin || viewer.level >= OWNER;
        let note = notes::insert(
            db,
            &NewNote {
                project_id: project.id,
                noteable_type: noteable.type_name,
                noteable_id: noteable.id,
                author_id: Some(user.id),
                body: &body,
                system: false,
                internal,
                created_at: created_at.filter(|_| owner),
            },
        )?;
        if kind == Kind::Issues {
            issues::touch(db, noteable.id)?;
        }
        let event = Event::NoteCreated(NoteCreated {
            project_id: project.id,
            note_id: note.id,
            noteable_type: noteable.type_name.to_string(),
            noteable_id: noteable.id,
            user_id: Some(user.id),
            confidential: internal || noteable.confidential,
        });
        call.ctx.events.record(db, &event)?;
        Ok((entity(call, db, &note, &noteable)?, event))
    })?;
    call.ctx.events.heard(&event);
    Ok(Response::json(201, &entity))
}
