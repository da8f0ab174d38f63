//! `POST /projects/:id/issues/:issue_iid/discussions/:discussion_id/notes`: a reply, `body`
//! required, `created_at` for Owners and administrators; 201 and the Note. The reply takes the
//! discussion's type, position and internality (GitLab's `reply_attributes`). A note made alone
//! on an issue or a merge request becomes a discussion (`convert_to_discussion!`); one on a
//! commit cannot be replied to (400 `Discussion can not be replied to.`, GitLab's
//! `replyable_types`). 404 `Discussion Not Found` when there is no such discussion.

use super::{find, target};
use crate::api::issues::{time_param, Viewer};
use crate::api::notes::{check_body, entity, noteable, write, Kind};
use crate::api::Call;
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, notes::NewNote};

pub fn reply(
    call: &Call,
    project_id: &str,
    kind: Kind,
    id: &str,
    discussion_id: &str,
    params: &Params,
) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let (project, id) = target(call, project_id, kind, id)?;
    let body = params.required_string("body")?;
    let created_at = time_param(params, "created_at")?;
    if project.archived {
        return Err(ApiError::Forbidden(None));
    }
    let (entity, event) = call.ctx.store.write(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, &id, &viewer)?;
        let mut first = find(db, &noteable, discussion_id, &viewer, "Discussion")?.remove(0);
        if first.note_type.is_none() {
            if kind == Kind::Commits {
                return Err(ApiError::BadRequest("Discussion can not be replied to.".into()));
            }
            store::notes::convert_to_discussion(db, &mut first)?;
        }
        check_body(&body)?;
        let owner = viewer.admin || viewer.level >= OWNER;
        let new = NewNote {
            author_id: Some(user.id),
            body: &body,
            internal: first.internal,
            created_at: created_at.filter(|_| owner),
            note_type: first.note_type.as_deref(),
            discussion_id: Some(&first.discussion_id),
            position: first.position.as_deref(),
            ..NewNote::default()
        };
        let (note, event) = write(call, db, &noteable, new)?;
        Ok((entity(call, db, &note, &noteable)?, event))
    })?;
    call.ctx.events.heard(&event);
    Ok(Response::json(201, &entity))
}
