//! Merge Request Hook (`Gitlab::DataBuilder::Issuable` over `Gitlab::HookData::MergeRequestBuilder`,
//! `MergeRequests::BaseService#hook_data`): `object_kind` and `event_type` `merge_request`, the
//! user, the project, `object_attributes` (then `action`, and `oldrev` when an update moved the
//! source head), `labels`, `changes`, the deprecated `repository`, and `assignees` and
//! `reviewers` only when there are any.
//!
//! Key order, as Ruby builds it: `attributes.slice(*safe_hook_attributes)` keeps the list's
//! order for the columns the row has, and `merge!(attrs)` appends the computed keys that are
//! not columns in `attrs`' order (V, `merge_request_builder.rb`, newest). `changes` is
//! `changes.slice(*safe_keys)`: the changed columns in the same list's order, then
//! `assignees`, `labels`, `reviewers` (V, `issuable.rb`, `data_builder/issuable.rb`), each
//! `{previous, current}`; only an update whose event carries the merge request before it has
//! any (labels' previous values are not carried, so never a `labels` change).
//!
//! forgecore checks mergeability when a status is read, never in a worker, so the stored
//! `merge_status` GitLab sends is `unchecked` for an open merge request, as GitLab's column is
//! right after it is opened or its source moved (I), and `detailed_merge_status` follows it
//! (`unchecked`; `not_open` once closed or merged). No time tracking, milestones or pipelines
//! here: their keys are GitLab's zero values.

use super::issue::user_attrs;
use super::push::commit_hook_attrs;
use super::{find_user, labels_attrs, project_attrs, repository_attrs, Node, Trigger};
use crate::events::{MergeRequestAction, MergeRequestChanged};
use crate::response::ordered::iso_millis;
use crate::response::ordered::Obj;
use crate::store::labels::{Target, TargetType};
use crate::store::merge_requests::MergeRequest;
use crate::store::projects::Project;
use crate::store::{self, Db, StoreResult};
use serde_json::{json, Value};

/// GitLab's merge request hook actions.
pub fn action(action: MergeRequestAction) -> &'static str {
    match action {
        MergeRequestAction::Opened => "open",
        MergeRequestAction::Updated => "update",
        MergeRequestAction::Closed => "close",
        MergeRequestAction::Reopened => "reopen",
        MergeRequestAction::Merged => "merge",
    }
}

fn state_id(state: &str) -> i64 {
    match state {
        "closed" => 2,
        "merged" => 3,
        "locked" => 4,
        _ => 1,
    }
}

/// Where the payload's links and commits come from.
pub struct Sources<'a> {
    pub base: &'a str,
    /// The target project's repository, when this host has it (for `last_commit`).
    pub repo: Option<&'a gix::Repository>,
    pub default_branch: Option<&'a str>,
}

fn users(db: &mut Db, ids: &[i64]) -> StoreResult<Vec<Node>> {
    let mut out = Vec::new();
    for id in ids {
        if let Some(user) = store::users::find_by_id(db, *id)? {
            out.push(user_attrs(Some(&user)));
        }
    }
    Ok(out)
}

/// `MergeRequestBuilder#build` of `mr` (the target project `project`): a payload's
/// `object_attributes` without `action`, and a note's `merge_request`.
pub fn attributes(db: &mut Db, src: &Sources, project: &Project, mr: &MergeRequest) -> StoreResult<Obj> {
    let web_url = format!("{}/{}", src.base, project.full_path);
    let open = mr.is_open();
    let merge_status = if mr.state == "merged" { "can_be_merged" } else { "unchecked" };
    let detailed = if open { "unchecked" } else { "not_open" };
    let labels = store::labels::of_target(db, Target { kind: TargetType::MergeRequest, id: mr.id })?;
    let last_commit = match (src.repo, mr.head_sha.as_deref()) {
        (Some(repo), Some(head)) => gix::ObjectId::from_hex(head.as_bytes())
            .ok()
            .and_then(|id| commit_hook_attrs(repo, src.base, &project.full_path, id).ok()),
        _ => None,
    };
    let source = match mr.source_project_id {
        Some(id) if id == project.id => Some(project_attrs(db, project, src.base, src.default_branch)?),
        Some(id) => match store::projects::find_by_id(db, id)? {
            Some(fork) => Some(project_attrs(db, &fork, src.base, None)?),
            None => None,
        },
        None => None,
    };
    let mut o = Obj::new();
    o.put("assignee_id", json!(mr.assignees.first()))
        .put("author_id", json!(mr.author_id))
        .put("created_at", iso_millis(mr.created_at))
        .put("description", json!(mr.description))
        .put("draft", mr.draft)
        .put("head_pipeline_id", Value::Null)
        .put("id", mr.id)
        .put("iid", mr.iid)
        .put("last_edited_at", Value::Null)
        .put("last_edited_by_id", Value::Null)
        .put("merge_commit_sha", json!(mr.merge_commit_sha))
        .put("merge_error", json!(mr.merge_error))
        .put("merge_params", json!({"force_remove_source_branch": mr.force_remove_source_branch}))
        .put("merge_status", merge_status)
        .put("merge_user_id", json!(mr.merged_by_id))
        .put("merge_when_pipeline_succeeds", false)
        .put("milestone_id", Value::Null)
        .put("source_branch", mr.source_branch.as_str())
        .put("source_project_id", json!(mr.source_project_id))
        .put("state_id", state_id(&mr.state))
        .put("target_branch", mr.target_branch.as_str())
        .put("target_project_id", mr.target_project_id)
        .put("time_estimate", 0)
        .put("title", mr.title.as_str())
        .put("updated_at", iso_millis(mr.updated_at))
        .put("updated_by_id", Value::Null)
        .put("prepared_at", Value::Null)
        .put("assignee_ids", json!(mr.assignees))
        .put("blocking_discussions_resolved", true)
        .put("detailed_merge_status", detailed)
        .put("first_contribution", false)
        .put("human_time_change", Value::Null)
        .put("human_time_estimate", Value::Null)
        .put("human_total_time_spent", Value::Null)
        .node("labels", labels_attrs(&labels))
        .node("last_commit", last_commit)
        .put("reviewer_ids", json!(mr.reviewers))
        .node("source", source)
        .put("state", mr.state.as_str())
        .node("target", project_attrs(db, project, src.base, src.default_branch)?)
        .put("time_change", 0)
        .put("total_time_spent", 0)
        .put("url", format!("{web_url}/-/merge_requests/{}", mr.iid))
        .put("work_in_progress", mr.draft);
    Ok(o)
}

fn change(out: &mut Obj, key: &'static str, previous: Node, current: Node) {
    let mut pair = Obj::new();
    pair.node("previous", previous).node("current", current);
    out.obj(key, pair);
}

/// `changes`: what differs between `before` and `after`, in GitLab's order.
fn changes(db: &mut Db, before: &MergeRequest, after: &MergeRequest) -> StoreResult<Obj> {
    let mut out = Obj::new();
    let plain = |out: &mut Obj, key, b: Value, a: Value| {
        if b != a {
            change(out, key, Node::V(b), Node::V(a));
        }
    };
    plain(&mut out, "description", json!(before.description), json!(after.description));
    plain(&mut out, "draft", json!(before.draft), json!(after.draft));
    plain(&mut out, "merge_commit_sha", json!(before.merge_commit_sha), json!(after.merge_commit_sha));
    plain(&mut out, "source_branch", json!(before.source_branch), json!(after.source_branch));
    plain(&mut out, "source_project_id", json!(before.source_project_id), json!(after.source_project_id));
    plain(&mut out, "state_id", json!(state_id(&before.state)), json!(state_id(&after.state)));
    plain(&mut out, "target_branch", json!(before.target_branch), json!(after.target_branch));
    plain(&mut out, "target_project_id", json!(before.target_project_id), json!(after.target_project_id));
    plain(&mut out, "title", json!(before.title), json!(after.title));
    plain(&mut out, "updated_at", json!(iso_millis(before.updated_at)), json!(iso_millis(after.updated_at)));
    if before.assignees != after.assignees {
        change(
            &mut out,
            "assignees",
            Node::Arr(users(db, &before.assignees)?),
            Node::Arr(users(db, &after.assignees)?),
        );
    }
    if before.reviewers != after.reviewers {
        change(
            &mut out,
            "reviewers",
            Node::Arr(users(db, &before.reviewers)?),
            Node::Arr(users(db, &after.reviewers)?),
        );
    }
    Ok(out)
}

/// The payload of one merge request hook event; `None` when its project is gone.
pub fn build(db: &mut Db, src: &Sources, event: &MergeRequestChanged) -> StoreResult<Option<(Trigger, Node)>> {
    let mr = &event.merge_request;
    let Some(project) = store::projects::find_by_id(db, mr.target_project_id)? else { return Ok(None) };
    let user = find_user(db, event.user_id)?;
    let mut attributes = attributes(db, src, &project, mr)?;
    attributes.put("action", action(event.action));
    let previous = event.previous.as_ref().filter(|_| event.action == MergeRequestAction::Updated);
    if let Some(old) = previous.and_then(|p| p.head_sha.as_ref()).filter(|old| mr.head_sha.as_ref() != Some(old)) {
        attributes.put("oldrev", old.as_str());
    }
    let labels = store::labels::of_target(db, Target { kind: TargetType::MergeRequest, id: mr.id })?;
    let changes = match previous {
        Some(before) => changes(db, before, mr)?,
        None => Obj::new(),
    };
    let mut payload = Obj::new();
    payload
        .put("object_kind", "merge_request")
        .put("event_type", "merge_request")
        .node("user", user_attrs(user.as_ref()))
        .node("project", project_attrs(db, &project, src.base, src.default_branch)?)
        .obj("object_attributes", attributes)
        .node("labels", labels_attrs(&labels))
        .obj("changes", changes)
        .node("repository", repository_attrs(&project, src.base));
    if !mr.assignees.is_empty() {
        payload.node("assignees", Node::Arr(users(db, &mr.assignees)?));
    }
    if !mr.reviewers.is_empty() {
        payload.node("reviewers", Node::Arr(users(db, &mr.reviewers)?));
    }
    Ok(Some((Trigger::MergeRequest, Node::Obj(payload))))
}
