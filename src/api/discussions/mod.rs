//! Discussions (threads) of issues, merge requests and commits, as GitLab's
//! `lib/api/discussions.rb` has them: list, get, create (a merge request's or a commit's with a
//! diff `position`: a `DiffNote`, else a `DiscussionNote`), reply, the notes of a discussion,
//! get, update (`body`, or `resolved`) and delete a note, resolve a whole discussion (issues and
//! merge requests: GitLab's `Noteable.resolvable_types`). One file per operation; the notes
//! themselves are the notes family's (`api::notes`: finding the noteable, permissions, the Note
//! entity, the one place notes are written and announced): a discussion is the notes of one
//! noteable sharing a `discussion_id`.
//!
//! Every route needs a signed-in caller (`before { authenticate! }`). The entity is
//! `API::Entities::Discussion` (`lib/api/entities/discussion.rb`): `id` (40 hex),
//! `individual_note` (a note made alone: `type` null), `notes` oldest first.

pub mod create;
pub mod delete_note;
pub mod get;
pub mod get_note;
pub mod list;
pub mod list_notes;
pub mod position;
pub mod reply;
pub mod resolve;
pub mod update_note;

use super::issues::Viewer;
use super::notes::{self, Kind, Noteable};
use super::ordered::Obj;
use super::Call;
use crate::error::{ApiError, ApiResult};
use crate::store::notes::Note;
use crate::store::projects::Project;
use crate::store::{self, Db};

/// The project and the noteable's id as the notes family takes it: for a commit, the full SHA
/// `:sha` names (404 `Commit Not Found` when none).
pub fn target(call: &Call, project_id: &str, kind: Kind, id: &str) -> ApiResult<(Project, String)> {
    let project = notes::project(call, project_id)?;
    let id = match kind {
        Kind::Commits => notes::commit_sha(call, &project, id)?,
        _ => id.to_string(),
    };
    Ok((project, id))
}

/// The notes of discussion `id` the caller may read (internal ones only for those who see
/// them), oldest first; empty when there is no such discussion.
pub fn readable_notes(db: &mut Db, noteable: &Noteable, ids: &[String], viewer: &Viewer) -> ApiResult<Vec<Note>> {
    let notes = store::notes::of_discussions(db, noteable.on(), ids)?;
    Ok(notes.into_iter().filter(|n| !n.internal || viewer.admin_issue()).collect())
}

/// The discussion `id`'s readable notes, or 404 `<what> Not Found` when it has none.
pub fn find(db: &mut Db, noteable: &Noteable, id: &str, viewer: &Viewer, what: &'static str) -> ApiResult<Vec<Note>> {
    let notes = readable_notes(db, noteable, &[id.to_string()], viewer)?;
    if notes.is_empty() {
        return Err(ApiError::NotFound(what));
    }
    Ok(notes)
}

/// The Discussion entity of `notes` (one discussion's, oldest first, not empty).
pub fn entity(call: &Call, db: &mut Db, notes: &[Note], noteable: &Noteable) -> ApiResult<Obj> {
    let mut o = Obj::new();
    o.put("id", notes.first().map(|n| n.discussion_id.clone()))
        .put("individual_note", notes.first().is_some_and(|n| n.note_type.is_none()));
    let mut shown = Vec::with_capacity(notes.len());
    for note in notes {
        shown.push(notes::entity(call, db, note, noteable)?);
    }
    o.list("notes", shown);
    Ok(o)
}
