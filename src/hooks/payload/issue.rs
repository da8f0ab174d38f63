//! Issue Hook and Confidential Issue Hook (`Gitlab::DataBuilder::Issuable`, `Issue#hook_attrs`):
//! `object_kind` `issue`, `event_type` `issue` or `confidential_issue`, the user, the project,
//! `object_attributes` with the `action` (`open`, `update`, `close`, `reopen`), `repository`,
//! `assignees`, `labels` and `changes`.

use super::{object, project_attrs, Node, Trigger};
use crate::events::{IssueAction, IssueEvent};
use crate::response::ordered::iso_millis;
use crate::store::{self, Db, StoreResult};
use serde_json::{json, Value};

fn v(value: Value) -> Node {
    Node::V(value)
}

/// `User#hook_attrs`: `id`, `name`, `username`, `avatar_url`, `email`.
pub fn user_attrs(user: Option<&store::users::User>) -> Node {
    match user {
        Some(u) => object(vec![
            ("id", v(json!(u.id))),
            ("name", v(json!(u.name))),
            ("username", v(json!(u.username))),
            ("avatar_url", v(Value::Null)),
            ("email", v(json!(u.profile.public_email.clone().unwrap_or_else(|| "[REDACTED]".into())))),
        ]),
        None => v(Value::Null),
    }
}

pub fn action(action: IssueAction) -> &'static str {
    match action {
        IssueAction::Opened => "open",
        IssueAction::Updated => "update",
        IssueAction::Closed => "close",
        IssueAction::Reopened => "reopen",
    }
}

/// The trigger and payload for `event`; `None` when the issue or its project is gone.
pub fn build(db: &mut Db, base: &str, event: &IssueEvent) -> StoreResult<Option<(Trigger, Node)>> {
    let Some(project) = store::projects::find_by_id(db, event.project_id)? else { return Ok(None) };
    let Some(issue) = store::issues::find_by_id(db, event.issue_id)? else { return Ok(None) };
    let user = match event.user_id {
        Some(id) => store::users::find_by_id(db, id)?,
        None => None,
    };
    // The listener has no repository path for an issue's project: GitLab's value needs one.
    let default_branch: Option<String> = None;
    let trigger = if issue.confidential { Trigger::ConfidentialIssue } else { Trigger::Issue };
    let web_url = format!("{base}/{}", project.full_path);
    let Node::Obj(mut attributes) = attributes(base, &project, &issue) else { return Ok(None) };
    attributes.put("action", action(event.action));
    let attributes = Node::Obj(attributes);
    let payload = object(vec![
        ("object_kind", v(json!("issue"))),
        ("event_type", v(json!(if issue.confidential { "confidential_issue" } else { "issue" }))),
        ("user", user_attrs(user.as_ref())),
        ("project", project_attrs(db, &project, base, default_branch.as_deref())?),
        ("object_attributes", attributes),
        (
            "repository",
            object(vec![
                ("name", v(json!(project.name))),
                ("url", v(Value::Null)),
                ("description", v(json!(project.description))),
                ("homepage", v(json!(web_url))),
            ]),
        ),
        ("labels", Node::Arr(Vec::new())),
        ("changes", object(Vec::new())),
    ]);
    Ok(Some((trigger, payload)))
}

/// `Gitlab::HookData::IssueBuilder#build` of `issue`: a payload's `object_attributes` without
/// the `action`, and a note's `issue`.
pub fn attributes(base: &str, project: &store::projects::Project, issue: &store::issues::Issue) -> Node {
    let web_url = format!("{base}/{}", project.full_path);
    let state_id = if issue.state == "closed" { 2 } else { 1 };
    object(vec![
        ("author_id", v(json!(issue.author_id))),
        ("closed_at", v(json!(issue.closed_at.map(iso_millis)))),
        ("confidential", v(json!(issue.confidential))),
        ("created_at", v(json!(iso_millis(issue.created_at)))),
        ("description", v(json!(issue.description))),
        ("id", v(json!(issue.id))),
        ("iid", v(json!(issue.iid))),
        ("project_id", v(json!(issue.project_id))),
        ("state_id", v(json!(state_id))),
        ("title", v(json!(issue.title))),
        ("updated_at", v(json!(iso_millis(issue.updated_at)))),
        ("url", v(json!(format!("{web_url}/-/issues/{}", issue.iid)))),
        ("state", v(json!(issue.state))),
    ])
}
