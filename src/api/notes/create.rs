//! `POST /projects/:id/issues/:issue_iid/notes`: `body` required, `internal` (or the older
//! `confidential`), `created_at` for Owners and administrators; 201 and the note. Anyone signed
//! in who sees the noteable comments (`create_note`); internal notes only Planners, Reporters
//! and above (403). A blank body is GitLab's 400 `Note {:note=>["can't be blank"]}`. The
//! noteable's `updated_at` moves (`touch: true`), and the note is announced.

use super::{check_body, entity, noteable, project, write, Kind};
use crate::api::issues::{time_param, Viewer};
use crate::api::Call;
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::notes::NewNote;

pub fn create(call: &Call, project_id: &str, kind: Kind, iid: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let project = project(call, project_id)?;
    let body = params.required_string("body")?;
    check_body(&body)?;
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
        let new = NewNote {
            author_id: Some(user.id),
            body: &body,
            internal,
            created_at: created_at.filter(|_| owner),
            ..NewNote::default()
        };
        let (note, event) = write(call, db, &noteable, new)?;
        Ok((entity(call, db, &note, &noteable)?, event))
    })?;
    call.ctx.events.heard(&event);
    Ok(Response::json(201, &entity))
}
