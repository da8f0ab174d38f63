//! `POST /projects/:id/repository/commits/:sha/comments`: `note` required; with `path`, also
//! `line` and `line_type` (`new` or `old`, default `new`). When the commit's diff (against
//! its first parent) has that line of that file (an added line for `new`, a removed one for
//! `old`, matched by its position in the new file, as GitLab matches `new_pos`), the comment is
//! on it (GitLab's `LegacyDiffNote`); otherwise it is on the commit. 201 and the CommitNote;
//! the note is announced. Signed-in callers who read the code comment.

use super::comments::entity;
use crate::api::issues::Viewer;
use crate::api::notes::{self, Kind};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::notes::NewNote;
use crate::store::projects::Project;
use serde_json::json;

pub fn create(call: &Call, project_id: &str, sha: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let project = call.project(project_id, ProjectAbility::ReadCode)?;
    let body = params.required_string("note")?;
    let path = params.string("path")?;
    let at = match &path {
        None => None,
        Some(path) => {
            let line = params.int("line")?.ok_or_else(|| ApiError::MissingParam("line".into()))?;
            let line_type = params.string("line_type")?.unwrap_or_else(|| "new".into());
            if !matches!(line_type.as_str(), "new" | "old") {
                return Err(ApiError::InvalidValue("line_type".into()));
            }
            Some((path.clone(), line, line_type))
        }
    };
    let sha = notes::commit_sha(call, &project, sha)?;
    if project.archived {
        return Err(ApiError::Forbidden(None));
    }
    notes::check_body(&body)?;
    let on_line = match &at {
        Some((path, line, line_type)) if commit_has_line(call, &project, &sha, path, *line, line_type)? => {
            Some(json!({"path": path, "line": line, "line_type": line_type}).to_string())
        }
        _ => None,
    };
    let (entity, event) = call.ctx.store.write(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = notes::noteable(db, &project, Kind::Commits, &sha, &viewer)?;
        let new = NewNote {
            author_id: Some(user.id),
            body: &body,
            note_type: on_line.as_ref().map(|_| "LegacyDiffNote"),
            position: on_line.as_deref(),
            ..NewNote::default()
        };
        let (note, event) = notes::write(call, db, &noteable, new)?;
        Ok((entity(call, db, &note)?, event))
    })?;
    call.ctx.events.heard(&event);
    Ok(Response::json(201, &entity))
}

/// Whether the diff of commit `sha` against its first parent has, in the file whose new path
/// is `path`, a `line_type` line (`+` for `new`, `-` for `old`) at new position `line`.
fn commit_has_line(
    call: &Call,
    project: &Project,
    sha: &str,
    path: &str,
    line: i64,
    line_type: &str,
) -> ApiResult<bool> {
    let repo = call.repository(project, "Commit")?;
    let info = super::find(&repo, sha)?;
    let shas = crate::api::merge_requests::Shas { head: info.id, base: info.parent_ids.first().copied() };
    let deadline = super::deadline(call);
    let changes = shas.changes(&repo, deadline)?;
    let Some(change) = changes.iter().find(|c| c.new_path.as_slice() == path.as_bytes()) else { return Ok(false) };
    let blob = |id: Option<gix::ObjectId>| -> Vec<u8> {
        id.and_then(|id| repo.find_object(id).ok()).map(|o| o.data.clone()).unwrap_or_default()
    };
    let patch = crate::git::diff::text_patch(&blob(change.old_id), &blob(change.new_id));
    let wanted = if line_type == "new" { b'+' } else { b'-' };
    let mut new_pos = 0i64;
    for text in String::from_utf8_lossy(&patch.text).lines() {
        if let Some(header) = text.strip_prefix("@@ -") {
            let rest = header.split_once('+').map(|(_, r)| r).unwrap_or("");
            new_pos = rest.split([',', ' ']).next().and_then(|p| p.parse().ok()).unwrap_or(0);
            continue;
        }
        let kind = text.as_bytes().first().copied();
        if kind == Some(wanted) && new_pos == line {
            return Ok(true);
        }
        if matches!(kind, Some(b'+' | b' ')) {
            new_pos += 1;
        }
    }
    Ok(false)
}
