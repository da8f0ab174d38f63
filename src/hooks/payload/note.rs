//! Note Hook and Confidential Note Hook (`Gitlab::DataBuilder::Note`, `Note#hook_attrs` =
//! `Gitlab::HookData::NoteBuilder`, V): `object_kind` `note`, `event_type` `note` or
//! `confidential_note` (an internal note, or one on a confidential issue:
//! `note.confidential?(include_noteable: true)`), the user, `project_id`, the project,
//! `object_attributes` (the note's columns in `SAFE_HOOK_ATTRIBUTES` order, then `description`,
//! `url`, `action`), the deprecated `repository`, and the noteable under `issue`
//! (`IssueBuilder#build`) or `merge_request` (`MergeRequestBuilder#build`).
//!
//! forgecore's notes have no diff positions, resolution or discussion rows of their own: those
//! columns are null (`resolved_by_push` false), as GitLab's are for a plain comment, except
//! `discussion_id`, which GitLab always fills.

use super::issue::user_attrs;
use super::merge_request::{self, Sources};
use super::{find_user, project_attrs, repository_attrs, Node, Trigger};
use crate::events::NoteCreated;
use crate::response::ordered::iso_millis;
use crate::response::ordered::Obj;
use crate::store::{self, Db, StoreResult};
use serde_json::Value;

/// The payload of a note's hook event (`action` `create`); `None` when the note, its noteable
/// or its project is gone.
pub fn build(db: &mut Db, src: &Sources, event: &NoteCreated) -> StoreResult<Option<(Trigger, Node)>> {
    let Some(project) = store::projects::find_by_id(db, event.project_id)? else { return Ok(None) };
    // Notes on commits have no payload here yet: only issues' and merge requests' notes.
    let Some(noteable_id) = event.noteable_id else { return Ok(None) };
    let on = store::notes::On::Record { noteable_type: &event.noteable_type, noteable_id };
    let Some(note) = store::notes::find(db, on, event.note_id)? else {
        return Ok(None);
    };
    let user = find_user(db, event.user_id)?;
    let web_url = format!("{}/{}", src.base, project.full_path);
    let (key, noteable, path): (&'static str, Node, String) = match note.noteable_type.as_str() {
        "Issue" => {
            let Some(issue) = store::issues::find_by_id(db, noteable_id)? else { return Ok(None) };
            ("issue", super::issue::attributes(src.base, &project, &issue), format!("issues/{}", issue.iid))
        }
        "MergeRequest" => {
            let Some(mr) = store::merge_requests::find_by_id(db, noteable_id)? else { return Ok(None) };
            let attrs = merge_request::attributes(db, src, &project, &mr)?;
            ("merge_request", Node::Obj(attrs), format!("merge_requests/{}", mr.iid))
        }
        _ => return Ok(None),
    };
    let url = format!("{web_url}/-/{path}#note_{}", note.id);
    let mut attributes = Obj::new();
    attributes
        .put("attachment", Value::Null)
        .put("author_id", serde_json::json!(note.author_id))
        .put("change_position", Value::Null)
        .put("commit_id", Value::Null)
        .put("created_at", iso_millis(note.created_at))
        .put("discussion_id", Value::Null)
        .put("id", note.id)
        .put("line_code", Value::Null)
        .put("note", note.body.as_str())
        .put("noteable_id", note.noteable_id)
        .put("noteable_type", note.noteable_type.as_str())
        .put("original_position", Value::Null)
        .put("position", Value::Null)
        .put("project_id", note.project_id)
        .put("resolved_at", Value::Null)
        .put("resolved_by_id", Value::Null)
        .put("resolved_by_push", false)
        .put("st_diff", Value::Null)
        .put("system", note.system)
        .put("type", Value::Null)
        .put("updated_at", iso_millis(note.updated_at))
        .put("updated_by_id", Value::Null)
        .put("description", note.body.as_str())
        .put("url", url)
        .put("action", "create");
    let trigger = if event.confidential { Trigger::ConfidentialNote } else { Trigger::Note };
    let mut payload = Obj::new();
    payload
        .put("object_kind", "note")
        .put("event_type", if event.confidential { "confidential_note" } else { "note" })
        .node("user", user_attrs(user.as_ref()))
        .put("project_id", project.id)
        .node("project", project_attrs(db, &project, src.base, src.default_branch)?)
        .obj("object_attributes", attributes)
        .node("repository", repository_attrs(&project, src.base))
        .node(key, noteable);
    Ok(Some((trigger, Node::Obj(payload))))
}
