//! `POST /projects/:id/issues/:issue_iid/discussions` (and merge requests', commits'): a new
//! discussion of one note, `body` required, `created_at` for Owners and administrators; on a
//! merge request or a commit an optional `position` makes it a `DiffNote` (checked as
//! `position.rs` says), else it is a `DiscussionNote`. 201 and the Discussion; the note is
//! announced.

use super::{entity, position, target};
use crate::api::issues::{time_param, Viewer};
use crate::api::notes::{check_body, noteable, write, Kind};
use crate::api::Call;
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::notes::NewNote;

pub fn create(call: &Call, project_id: &str, kind: Kind, id: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let (project, id) = target(call, project_id, kind, id)?;
    let body = params.required_string("body")?;
    let created_at = time_param(params, "created_at")?;
    let position = match kind {
        Kind::MergeRequests | Kind::Commits => position::read(params)?,
        Kind::Issues => None,
    };
    if project.archived {
        return Err(ApiError::Forbidden(None));
    }
    // Read first: the caller must see the noteable before its repository is asked about a
    // position.
    call.ctx.store.read(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        noteable(db, &project, kind, &id, &viewer).map(|_| ())
    })?;
    check_body(&body)?;
    let checked = position.as_ref().map(|p| position::check(call, &project, p)).transpose()?;
    let (entity, event) = call.ctx.store.write(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, &id, &viewer)?;
        let owner = viewer.admin || viewer.level >= OWNER;
        let new = NewNote {
            author_id: Some(user.id),
            body: &body,
            created_at: created_at.filter(|_| owner),
            note_type: Some(if checked.is_some() { "DiffNote" } else { "DiscussionNote" }),
            position: checked.as_ref().map(|c| c.json.as_str()),
            ..NewNote::default()
        };
        let (note, event) = write(call, db, &noteable, new)?;
        Ok((entity(call, db, &[note], &noteable)?, event))
    })?;
    call.ctx.events.heard(&event);
    Ok(Response::json(201, &entity))
}
