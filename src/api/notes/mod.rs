//! Notes on issues (and merge requests, through the same operations once their model is
//! stored), as GitLab's `lib/api/notes.rb` and `lib/api/helpers/notes_helpers.rb` have them:
//! list, get, create, update, delete; one file per operation, each taking the kind of noteable.
//!
//! Every route needs a signed-in caller (`before { authenticate! }`: 401 even for reads). The
//! noteable is found as the caller may see it (`find_noteable`: a confidential issue one may not
//! see is `404 Issue Not Found`, and so are its notes). Internal notes (`internal`, formerly
//! `confidential`) are seen and written by Planners, Reporters and above only; a note is
//! changed or deleted by its author or a Maintainer and above (`admin_note`); system notes by
//! no one. The entity is `API::Entities::Note` (`lib/api/entities/note.rb`), keys in GitLab's
//! order.

pub mod create;
pub mod delete;
pub mod get;
pub mod list;
pub mod update;

use super::issues::{self, Viewer};
use super::ordered::{self, iso_millis, Obj};
use super::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::auth::roles::MAINTAINER;
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int_text;
use crate::store::notes::Note;
use crate::store::projects::Project;
use crate::store::{self, Db};
use serde_json::Value;

/// The kinds of noteable the routes name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Issues,
    MergeRequests,
}

/// The noteable a route names, as the caller may see it.
#[derive(Debug, Clone)]
pub struct Noteable {
    /// GitLab's `noteable_type`.
    pub type_name: &'static str,
    pub id: i64,
    pub iid: i64,
    /// A confidential issue: its notes are confidential too (for events).
    pub confidential: bool,
}

/// The project of a notes route, for a signed-in caller who sees it.
pub fn project(call: &Call, id: &str) -> ApiResult<Project> {
    call.caller.require_user()?;
    call.project(id, ProjectAbility::Read)
}

/// The noteable `iid` of `kind` in the project, or 404 `<Type> Not Found` when the caller may
/// not see it.
pub fn noteable(db: &mut Db, project: &Project, kind: Kind, iid: &str, viewer: &Viewer) -> ApiResult<Noteable> {
    match kind {
        Kind::Issues => {
            let (issue, _) = issues::find_visible(db, project, iid, viewer).map_err(|e| match e {
                ApiError::RecordNotFound => ApiError::NotFound("Issue"),
                other => other,
            })?;
            Ok(Noteable { type_name: "Issue", id: issue.id, iid: issue.iid, confidential: issue.confidential })
        }
        Kind::MergeRequests => {
            // `not_found!(noteable_type)` for a merge request the caller may not read, or none.
            let missing = || ApiError::NotFound("MergeRequest");
            match permissions::authorize_project(db, call_caller(viewer), project, ProjectAbility::ReadMergeRequest) {
                Ok(()) => {}
                Err(ApiError::Forbidden(_)) => return Err(missing()),
                Err(e) => return Err(e),
            }
            let iid = crate::api::merge_requests::parse_iid(iid)?;
            let mr = store::merge_requests::find(db, project.id, iid)?.ok_or_else(missing)?;
            Ok(Noteable { type_name: "MergeRequest", id: mr.id, iid: mr.iid, confidential: false })
        }
    }
}

/// The caller a viewer stands for (the permission function asks of a caller).
fn call_caller(viewer: &Viewer) -> &Caller {
    &viewer.caller
}

/// A `:note_id` of the path: an integer, else 400 `note_id is invalid`.
pub fn parse_note_id(text: &str) -> ApiResult<i64> {
    parse_int_text(text).ok_or_else(|| ApiError::InvalidParam("note_id".into()))
}

/// The note `id` of the noteable the caller may read: 404 `Not found` when it is not one of
/// its notes, 404 `Note Not Found` when it is internal and the caller may not see it.
pub fn find(db: &mut Db, noteable: &Noteable, id: &str, viewer: &Viewer) -> ApiResult<Note> {
    let id = parse_note_id(id)?;
    let note = store::notes::find(db, noteable.type_name, noteable.id, id)?.ok_or(ApiError::RecordNotFound)?;
    if note.internal && !viewer.admin_issue() {
        return Err(ApiError::NotFound("Note"));
    }
    Ok(note)
}

/// GitLab's `admin_note`: the note's author or a Maintainer and above; never a system note.
pub fn may_change(note: &Note, viewer: &Viewer) -> bool {
    !note.system
        && (viewer.admin
            || viewer.level >= MAINTAINER
            || (viewer.user_id.is_some() && note.author_id == viewer.user_id))
}

/// The Note entity.
pub fn entity(call: &Call, db: &mut Db, note: &Note, noteable: &Noteable) -> ApiResult<Obj> {
    let author = match note.author_id {
        Some(id) => store::users::find_by_id(db, id)?,
        None => None,
    };
    let mut o = Obj::new();
    o.put("id", note.id).put("type", Value::Null).put("body", note.body.as_str()).put("attachment", Value::Null);
    match author {
        Some(user) => o.obj("author", ordered::user(call, &user)),
        None => o.put("author", Value::Null),
    };
    o.put("created_at", iso_millis(note.created_at))
        .put("updated_at", iso_millis(note.updated_at))
        .put("system", note.system)
        .put("noteable_id", note.noteable_id)
        .put("noteable_type", note.noteable_type.as_str())
        .put("project_id", note.project_id)
        .put("resolvable", false)
        .put("confidential", note.internal)
        .put("internal", note.internal)
        .put("imported", false)
        .put("imported_from", "none")
        .put("noteable_iid", noteable.iid)
        .obj("commands_changes", Obj::new());
    Ok(o)
}
