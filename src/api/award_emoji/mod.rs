//! Award emoji (emoji reactions) on issues, merge requests and their notes, as GitLab's
//! `lib/api/award_emoji.rb` (with `lib/api/helpers/award_emoji.rb`) has them: list, get,
//! award, delete; one file per operation.
//!
//! No `authenticate!`: anyone who reads the awardable reads its awards. The awardable is found
//! with `find_by!` (a miss is `404 Not found`), then a caller who may not read it is answered
//! `404 Award Emoji Not Found`, and so is one who may not award (anonymous, an archived
//! project). Names are GitLab's emoji index (gemoji's shortcodes; an emoji character is taken
//! as its name); a name a user awarded there already, or no emoji's, is `404 Award Emoji
//! <errors> Not Found` (`AwardEmojis::AddService`'s errors, `to_sentence`). An award is deleted
//! by its user or an administrator (else `401 Unauthorized`). The entity is
//! `API::Entities::AwardEmoji`: `id, name, user, created_at, updated_at, awardable_id,
//! awardable_type, url` (`url` only for custom emoji: null).

pub mod create;
pub mod delete;
pub mod get;
pub mod list;

use super::issues::{self, Viewer};
use super::ordered::{self, iso_millis, Obj};
use super::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int_text;
use crate::store::award_emoji::Award;
use crate::store::projects::Project;
use crate::store::{self, Db};
use serde_json::Value;

/// What the route names: an issue's or merge request's awards, or a note's of one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Issues,
    MergeRequests,
}

/// The awardable a route names and whether the caller reads it.
#[derive(Debug, Clone)]
pub struct Awardable {
    /// `Issue`, `MergeRequest` or `Note`.
    pub type_name: &'static str,
    pub id: i64,
    pub readable: bool,
    /// A system note: no emoji (`emoji_awardable?`).
    pub system: bool,
}

/// The project of an award route, as the caller sees it (404 `Project Not Found` otherwise).
pub fn project(call: &Call, id: &str) -> ApiResult<Project> {
    call.project(id, ProjectAbility::Read)
}

/// The awardable: issue or merge request `iid` of `kind`, or its note `note_id`; 404 `Not
/// found` when there is none.
pub fn awardable(
    db: &mut Db,
    call: &Call,
    project: &Project,
    kind: Kind,
    iid: &str,
    note_id: Option<&str>,
) -> ApiResult<Awardable> {
    let viewer = Viewer::of(db, call, project)?;
    let (type_name, id, readable) = match kind {
        Kind::Issues => {
            let iid = issues::parse_iid(iid)?;
            let issue = store::issues::find_by_iid(db, project.id, iid)?.ok_or(ApiError::RecordNotFound)?;
            let assignees = store::issues::assignees_of(db, &[issue.id])?.remove(&issue.id).unwrap_or_default();
            ("Issue", issue.id, viewer.can_read(&issue, &assignees))
        }
        Kind::MergeRequests => {
            let iid = crate::api::merge_requests::parse_iid(iid)?;
            let mr = store::merge_requests::find(db, project.id, iid)?.ok_or(ApiError::RecordNotFound)?;
            let readable =
                match permissions::authorize_project(db, &call.caller, project, ProjectAbility::ReadMergeRequest) {
                    Ok(()) => true,
                    Err(ApiError::Forbidden(_)) => false,
                    Err(e) => return Err(e),
                };
            ("MergeRequest", mr.id, readable)
        }
    };
    let Some(note_id) = note_id else { return Ok(Awardable { type_name, id, readable, system: false }) };
    let note_id = crate::api::notes::parse_note_id(note_id)?;
    let on = store::notes::On::Record { noteable_type: type_name, noteable_id: id };
    let note = store::notes::find(db, on, note_id)?.ok_or(ApiError::RecordNotFound)?;
    let readable = readable && (!note.internal || viewer.admin_issue());
    Ok(Awardable { type_name: "Note", id: note.id, readable, system: note.system })
}

/// An `:award_id` of the path: an integer, else 400 `award_id is invalid`.
pub fn parse_award_id(text: &str) -> ApiResult<i64> {
    parse_int_text(text).ok_or_else(|| ApiError::InvalidParam("award_id".into()))
}

/// The AwardEmoji entity.
pub fn entity(call: &Call, db: &mut Db, award: &Award) -> ApiResult<Obj> {
    let mut o = Obj::new();
    o.put("id", award.id).put("name", award.name.as_str());
    match store::users::find_by_id(db, award.user_id)? {
        Some(user) => o.obj("user", ordered::user(call, &user)),
        None => o.put("user", Value::Null),
    };
    o.put("created_at", iso_millis(award.created_at))
        .put("updated_at", iso_millis(award.updated_at))
        .put("awardable_id", award.awardable_id)
        .put("awardable_type", award.awardable_type.as_str())
        .put("url", Value::Null);
    Ok(o)
}
