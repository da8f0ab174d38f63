//! What a hook is sent for each kind of event: one file per kind, each building GitLab's
//! payload from the event and the store: [`push`] (Push Hook and Tag Push Hook), [`issue`]
//! (Issue and Confidential Issue Hook), [`merge_request`] (Merge Request Hook), [`note`] (Note
//! and Confidential Note Hook) and [`release`] (Release Hook). What several payloads embed
//! (`Project#hook_attrs`, the deprecated `repository`, `Label#hook_attrs`) is here.

pub mod issue;
pub mod merge_request;
pub mod note;
pub mod push;
pub mod release;

use crate::response::ordered::{object, Node, Obj};
use crate::store::projects::Project;
use crate::store::{self, Db, StoreResult, Visibility};
use serde_json::{json, Value};

/// A hook's trigger: the hook flag that subscribes to it, its name as GitLab's hook logs
/// give it, and its `X-Gitlab-Event`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    Push,
    TagPush,
    Issue,
    ConfidentialIssue,
    MergeRequest,
    Note,
    ConfidentialNote,
    Release,
}

impl Trigger {
    pub fn flag(self) -> &'static str {
        match self {
            Trigger::Push => "push_events",
            Trigger::TagPush => "tag_push_events",
            Trigger::Issue => "issues_events",
            Trigger::ConfidentialIssue => "confidential_issues_events",
            Trigger::MergeRequest => "merge_requests_events",
            Trigger::Note => "note_events",
            Trigger::ConfidentialNote => "confidential_note_events",
            Trigger::Release => "releases_events",
        }
    }

    /// `push_hooks`, as `ProjectHook.triggers` names it.
    pub fn hook_name(self) -> &'static str {
        match self {
            Trigger::Push => "push_hooks",
            Trigger::TagPush => "tag_push_hooks",
            Trigger::Issue => "issue_hooks",
            Trigger::ConfidentialIssue => "confidential_issue_hooks",
            Trigger::MergeRequest => "merge_request_hooks",
            Trigger::Note => "note_hooks",
            Trigger::ConfidentialNote => "confidential_note_hooks",
            Trigger::Release => "release_hooks",
        }
    }
}

/// `X-Gitlab-Event` for a hook name: `hook_name.singularize.titleize` (`push_hooks` →
/// `Push Hook`).
pub fn event_header(hook_name: &str) -> String {
    let singular = hook_name.strip_suffix('s').unwrap_or(hook_name);
    singular
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map(|c| c.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn visibility_level(visibility: Visibility) -> i64 {
    match visibility {
        Visibility::Private => 0,
        Visibility::Internal => 10,
        Visibility::Public => 20,
    }
}

/// The project's namespace name (a group's name, or its user's), as `hook_attrs` shows it.
fn namespace_name(db: &mut Db, project: &Project) -> StoreResult<String> {
    if let Some(group) = project.group_id {
        if let Some(group) = store::groups::find_by_id(db, group)? {
            return Ok(group.name);
        }
    }
    if let Some(user) = project.namespace_user_id {
        if let Some(user) = store::users::find_by_id(db, user)? {
            return Ok(user.name);
        }
    }
    Ok(project.full_path.split('/').next().unwrap_or("").to_string())
}

/// `Project#hook_attrs`, in its order; `base` is the instance's URL.
pub fn project_attrs(db: &mut Db, project: &Project, base: &str, default_branch: Option<&str>) -> StoreResult<Node> {
    let web_url = format!("{base}/{}", project.full_path);
    let http_url = format!("{web_url}.git");
    let namespace = namespace_name(db, project)?;
    Ok(Node::Obj(Obj::from(vec![
        ("id", json!(project.id)),
        ("name", json!(project.name)),
        ("description", json!(project.description)),
        ("web_url", json!(web_url)),
        ("avatar_url", Value::Null),
        ("git_ssh_url", Value::Null),
        ("git_http_url", json!(http_url)),
        ("namespace", json!(namespace)),
        ("visibility_level", json!(visibility_level(project.visibility))),
        ("path_with_namespace", json!(project.full_path)),
        ("default_branch", json!(default_branch)),
        ("ci_config_path", Value::Null),
        ("homepage", json!(web_url)),
        ("url", Value::Null),
        ("ssh_url", Value::Null),
        ("http_url", json!(http_url)),
    ])))
}

/// The deprecated `repository` of issuable, note and release payloads:
/// `project.hook_attrs.slice(:name, :url, :description, :homepage)`.
pub fn repository_attrs(project: &Project, base: &str) -> Node {
    Node::Obj(Obj::from(vec![
        ("name", json!(project.name)),
        ("url", Value::Null),
        ("description", json!(project.description)),
        ("homepage", json!(format!("{base}/{}", project.full_path))),
    ]))
}

/// `Label#hook_attrs` (the label's columns, in the order GitLab's docs and client-go's
/// `EventLabel` list them), for each label of an issue or merge request.
pub fn labels_attrs(labels: &[store::labels::Label]) -> Node {
    use crate::response::ordered::iso_millis;
    Node::Arr(
        labels
            .iter()
            .map(|l| {
                Node::Obj(Obj::from(vec![
                    ("id", json!(l.id)),
                    ("title", json!(l.title)),
                    ("color", json!(l.color)),
                    ("project_id", json!(l.project_id)),
                    ("created_at", json!(iso_millis(l.created_at))),
                    ("updated_at", json!(iso_millis(l.updated_at))),
                    ("template", json!(false)),
                    ("description", json!(l.description)),
                    ("type", json!("ProjectLabel")),
                    ("group_id", Value::Null),
                ]))
            })
            .collect(),
    )
}

/// The user `id`, when there is one and they exist.
pub fn find_user(db: &mut Db, id: Option<i64>) -> StoreResult<Option<store::users::User>> {
    match id {
        Some(id) => store::users::find_by_id(db, id),
        None => Ok(None),
    }
}
