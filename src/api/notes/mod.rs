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
use crate::auth::roles::{DEVELOPER, MAINTAINER};
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::events::{Event, NoteCreated};
use crate::params::parse_int_text;
use crate::store::notes::{NewNote, Note, On};
use crate::store::projects::Project;
use crate::store::{self, Db};
use serde_json::Value;

/// The kinds of noteable the routes name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Issues,
    MergeRequests,
    /// Commits (`repository/commits/:sha`): discussions and commit comments only.
    Commits,
}

/// The noteable a route names, as the caller may see it.
#[derive(Debug, Clone)]
pub struct Noteable {
    /// GitLab's `noteable_type`.
    pub type_name: &'static str,
    /// The global id; `None` for a commit.
    pub id: Option<i64>,
    /// `None` for a commit.
    pub iid: Option<i64>,
    /// A commit's full SHA.
    pub commit_id: Option<String>,
    pub project_id: i64,
    /// The issue's or merge request's author (who may resolve its threads).
    pub author_id: Option<i64>,
    /// A confidential issue: its notes are confidential too (for events).
    pub confidential: bool,
}

impl Noteable {
    /// The store's name of the noteable's notes.
    pub fn on(&self) -> On<'_> {
        match (&self.commit_id, self.id) {
            (Some(sha), _) => On::Commit { project_id: self.project_id, commit_id: sha },
            (None, id) => On::Record { noteable_type: self.type_name, noteable_id: id.unwrap_or_default() },
        }
    }

    /// Whether its notes may be resolvable (GitLab's `Noteable.resolvable_types`: issues and
    /// merge requests, not commits).
    pub fn resolvable(&self) -> bool {
        self.commit_id.is_none()
    }
}

/// The project of a notes route, for a signed-in caller who sees it.
pub fn project(call: &Call, id: &str) -> ApiResult<Project> {
    call.caller.require_user()?;
    call.project(id, ProjectAbility::Read)
}

/// The commit a `:sha` names in the project's repository, as a full SHA: 404 `Commit Not
/// Found` when it names none. Resolved before the store is asked (git is not read inside a
/// store transaction).
pub fn commit_sha(call: &Call, project: &Project, sha: &str) -> ApiResult<String> {
    let repo = call.repository(project, "Commit")?;
    Ok(crate::api::repository::commits::find(&repo, sha)?.id.to_string())
}

/// The noteable `id` (an iid, or for commits a full SHA from [`commit_sha`]) of `kind` in the
/// project, or 404 `<Type> Not Found` when the caller may not see it.
pub fn noteable(db: &mut Db, project: &Project, kind: Kind, id: &str, viewer: &Viewer) -> ApiResult<Noteable> {
    let not_readable = |e: ApiError, missing: ApiError| match e {
        ApiError::Forbidden(_) => Err(missing),
        other => Err(other),
    };
    match kind {
        Kind::Issues => {
            let (issue, _) = issues::find_visible(db, project, id, viewer).map_err(|e| match e {
                ApiError::RecordNotFound => ApiError::NotFound("Issue"),
                other => other,
            })?;
            Ok(Noteable {
                type_name: "Issue",
                id: Some(issue.id),
                iid: Some(issue.iid),
                commit_id: None,
                project_id: project.id,
                author_id: issue.author_id,
                confidential: issue.confidential,
            })
        }
        Kind::MergeRequests => {
            // `not_found!(noteable_type)` for a merge request the caller may not read, or none.
            let missing = || ApiError::NotFound("MergeRequest");
            if let Err(e) =
                permissions::authorize_project(db, call_caller(viewer), project, ProjectAbility::ReadMergeRequest)
            {
                return not_readable(e, missing());
            }
            let iid = crate::api::merge_requests::parse_iid(id)?;
            let mr = store::merge_requests::find(db, project.id, iid)?.ok_or_else(missing)?;
            Ok(Noteable {
                type_name: "MergeRequest",
                id: Some(mr.id),
                iid: Some(mr.iid),
                commit_id: None,
                project_id: project.id,
                author_id: mr.author_id,
                confidential: false,
            })
        }
        Kind::Commits => {
            if let Err(e) = permissions::authorize_project(db, call_caller(viewer), project, ProjectAbility::ReadCode) {
                return not_readable(e, ApiError::NotFound("Commit"));
            }
            Ok(Noteable {
                type_name: "Commit",
                id: None,
                iid: None,
                commit_id: Some(id.to_string()),
                project_id: project.id,
                author_id: None,
                confidential: false,
            })
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
    let note = store::notes::find(db, noteable.on(), id)?.ok_or(ApiError::RecordNotFound)?;
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

/// GitLab's `resolvable?`: a user `DiscussionNote` or `DiffNote` of a noteable whose notes
/// may be resolved.
pub fn resolvable(note: &Note) -> bool {
    !note.system
        && matches!(note.note_type.as_deref(), Some("DiscussionNote" | "DiffNote"))
        && matches!(note.noteable_type.as_str(), "Issue" | "MergeRequest")
}

/// GitLab's `resolve_note` on a note: Developers and above, the note's author, the
/// noteable's author.
pub fn may_resolve(note: &Note, noteable: &Noteable, viewer: &Viewer) -> bool {
    let me = viewer.user_id;
    me.is_some()
        && (viewer.admin
            || viewer.level >= DEVELOPER
            || note.author_id == me
            || (noteable.author_id.is_some() && noteable.author_id == me))
}

/// A user's note on the noteable, written and announced (the one place notes, discussion
/// notes and commit comments are made): `new` with the noteable filled in.
pub fn write(call: &Call, db: &mut Db, noteable: &Noteable, new: NewNote) -> ApiResult<(Note, Event)> {
    let commit = noteable.commit_id.as_deref();
    let note = store::notes::insert(
        db,
        &NewNote {
            project_id: noteable.project_id,
            noteable_type: noteable.type_name,
            noteable_id: noteable.id,
            commit_id: commit.or(new.commit_id),
            ..new
        },
    )?;
    if let (Some(id), "Issue") = (noteable.id, noteable.type_name) {
        store::issues::touch(db, id)?;
    }
    let event = Event::NoteCreated(NoteCreated {
        project_id: noteable.project_id,
        note_id: note.id,
        noteable_type: noteable.type_name.to_string(),
        noteable_id: noteable.id,
        commit_id: noteable.commit_id.clone(),
        user_id: note.author_id,
        confidential: note.internal || noteable.confidential,
    });
    call.ctx.events.record(db, &event)?;
    Ok((note, event))
}

/// A note's body as GitLab validates it: blank is `Note {:note=>["can't be blank"]}`, and
/// past `Gitlab::Database::MAX_TEXT_SIZE_LIMIT` (1,000,000) too long.
pub fn check_body(body: &str) -> ApiResult<()> {
    const MAX_BODY: usize = 1_000_000;
    if body.trim().is_empty() {
        return Err(ApiError::BadRequest("Note {:note=>[\"can't be blank\"]}".into()));
    }
    if body.chars().count() > MAX_BODY {
        return Err(ApiError::BadRequest("Note {:note=>[\"is too long (maximum is 1000000 characters)\"]}".into()));
    }
    Ok(())
}

/// A stored position as GitLab shows it (`Position#to_h` without `ignore_whitespace_change`),
/// in its key order.
pub fn position(text: &str) -> Obj {
    let stored: serde_json::Map<String, Value> = serde_json::from_str(text).unwrap_or_default();
    let mut o = Obj::new();
    let get = |key: &str| stored.get(key).cloned().unwrap_or(Value::Null);
    for key in ["base_sha", "start_sha", "head_sha", "old_path", "new_path", "position_type"] {
        o.put(key, get(key));
    }
    let keys: &[&'static str] = match stored.get("position_type").and_then(Value::as_str) {
        Some("image") => &["width", "height", "x", "y"],
        Some("file") => &[],
        _ => &["old_line", "new_line", "line_range"],
    };
    for key in keys {
        o.put(key, get(key));
    }
    o
}

/// The Note entity.
pub fn entity(call: &Call, db: &mut Db, note: &Note, noteable: &Noteable) -> ApiResult<Obj> {
    let user = |db: &mut Db, id: Option<i64>| -> ApiResult<Option<Obj>> {
        Ok(match id {
            Some(id) => store::users::find_by_id(db, id)?.map(|u| ordered::user(call, &u)),
            None => None,
        })
    };
    let diff_note = note.note_type.as_deref() == Some("DiffNote");
    let on_mr = note.noteable_type == "MergeRequest";
    let mut o = Obj::new();
    o.put("id", note.id)
        .put("type", note.note_type.clone())
        .put("body", note.body.as_str())
        .put("attachment", Value::Null);
    match user(db, note.author_id)? {
        Some(author) => o.obj("author", author),
        None => o.put("author", Value::Null),
    };
    o.put("created_at", iso_millis(note.created_at))
        .put("updated_at", iso_millis(note.updated_at))
        .put("system", note.system)
        .put("noteable_id", note.noteable_id)
        .put("noteable_type", note.noteable_type.as_str())
        .put("project_id", note.project_id);
    if diff_note && on_mr {
        o.put("commit_id", Value::Null);
    }
    if diff_note {
        o.obj("position", position(note.position.as_deref().unwrap_or("{}")));
    }
    let resolvable = resolvable(note);
    o.put("resolvable", resolvable);
    if resolvable {
        o.put("resolved", note.resolved_at.is_some());
        match user(db, note.resolved_by_id)? {
            Some(by) => o.obj("resolved_by", by),
            None => o.put("resolved_by", Value::Null),
        };
        o.put("resolved_at", note.resolved_at.map(iso_millis));
    }
    if diff_note && on_mr {
        o.put("suggestions", Value::Array(Vec::new()));
    }
    o.put("confidential", note.internal)
        .put("internal", note.internal)
        .put("imported", false)
        .put("imported_from", "none")
        .put("noteable_iid", noteable.iid)
        .obj("commands_changes", Obj::new());
    Ok(o)
}
