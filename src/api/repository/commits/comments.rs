//! `GET /projects/:id/repository/commits/:sha/comments`: the commit's notes, oldest first,
//! offset pages, as GitLab's `Entities::CommitNote` (`note`, `path`, `line`, `line_type`,
//! `author`, `created_at`). Like the rest of the family it needs `read_code` (`download_code`)
//! and no sign-in. The notes are the notes family's (`api::notes`, noteable `Commit`), so a
//! commit's comments and its discussions are the same notes.

use crate::api::issues::Viewer;
use crate::api::notes::{self, Kind};
use crate::api::ordered::{self, iso_millis, Obj};
use crate::api::{pagination, Call};
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::notes::{ListQuery, Note};
use crate::store::{self, Db};
use serde_json::Value;

pub fn list(call: &Call, project_id: &str, sha: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project_id, ProjectAbility::ReadCode)?;
    let sha = notes::commit_sha(call, &project, sha)?;
    let page = pagination::page(call, params)?;
    let (shown, total) = call.ctx.store.read(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = notes::noteable(db, &project, Kind::Commits, &sha, &viewer)?;
        let query = ListQuery {
            on: noteable.on(),
            internal: viewer.admin_issue(),
            by_updated: false,
            ascending: true,
            limit: page.per_page as i64,
            offset: page.offset() as i64,
        };
        let mut shown = Vec::new();
        for note in store::notes::list(db, &query)? {
            shown.push(entity(call, db, &note)?);
        }
        Ok((shown, store::notes::count(db, &query)?))
    })?;
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total as usize, &[]));
    Ok(response)
}

/// The CommitNote entity; `path`, `line` and `line_type` for a comment on a line of the
/// commit's diff (a `LegacyDiffNote`), else null.
pub fn entity(call: &Call, db: &mut Db, note: &Note) -> ApiResult<Obj> {
    let at: serde_json::Map<String, Value> = match (note.note_type.as_deref(), &note.position) {
        (Some("LegacyDiffNote"), Some(text)) => serde_json::from_str(text).unwrap_or_default(),
        _ => serde_json::Map::new(),
    };
    let get = |key: &str| at.get(key).cloned().unwrap_or(Value::Null);
    let mut o = Obj::new();
    o.put("note", note.body.as_str())
        .put("path", get("path"))
        .put("line", get("line"))
        .put("line_type", get("line_type"));
    match note.author_id.map(|id| store::users::find_by_id(db, id)).transpose()?.flatten() {
        Some(user) => o.obj("author", ordered::user(call, &user)),
        None => o.put("author", Value::Null),
    };
    o.put("created_at", iso_millis(note.created_at));
    Ok(o)
}
