//! Groups (issue #38, `gitlab-administration.md` §7): list ([`list`]: `GET /groups`, a group's
//! subgroups and descendants), create ([`create`]), get ([`get`]) and update ([`update`]), with
//! GitLab's `Group` and `GroupDetail` entities in GitLab's key order, built here once. A
//! group's projects are `projects::list`'s and its custom roles `member_roles`'s; deletion is
//! the projects-lifecycle family's. One file per operation.

pub mod create;
pub mod delete;
pub mod get;
pub mod list;
pub mod of_project;
pub mod restore;
pub mod share;
pub mod transfer;
pub mod update;

use crate::api::ordered::Obj;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::{Body, Response};
use crate::store::groups::{Detailed, Group, Settings};
use crate::store::{Db, Visibility};
use forgecore_date::rfc3339;
use serde_json::{json, Value};

/// A group's `web_url`.
pub fn web_url(base_url: &str, group: &Group) -> String {
    format!("{base_url}/groups/{}", group.full_path)
}

/// GitLab's `Group` entity (the newest one read: `lib/api/entities/group.rb`), in its order.
/// What this forge does not keep answers GitLab's default for it: no avatar, Auto DevOps and
/// shared runners as the instance says, the default branch protection forgecore applies
/// (`Fully protected`: Maintainers push and merge, no force push).
pub fn entity(base_url: &str, detailed: &Detailed) -> Vec<(&'static str, Value)> {
    let (g, s) = (&detailed.group, &detailed.settings);
    vec![
        ("id", json!(g.id)),
        ("web_url", json!(web_url(base_url, g))),
        ("name", json!(g.name)),
        ("path", json!(g.path)),
        ("description", json!(s.description)),
        ("visibility", json!(g.visibility.as_str())),
        ("share_with_group_lock", json!(s.share_with_group_lock)),
        ("require_two_factor_authentication", json!(s.require_two_factor_authentication)),
        ("two_factor_grace_period", json!(s.two_factor_grace_period)),
        ("project_creation_level", json!(s.project_creation_level)),
        ("auto_devops_enabled", Value::Null),
        ("subgroup_creation_level", json!(s.subgroup_creation_level)),
        ("emails_disabled", json!(!s.emails_enabled)),
        ("emails_enabled", json!(s.emails_enabled)),
        ("show_diff_preview_in_email", json!(true)),
        ("mentions_disabled", json!(s.mentions_disabled)),
        ("lfs_enabled", json!(s.lfs_enabled)),
        ("archived", json!(false)),
        ("math_rendering_limits_enabled", json!(true)),
        ("lock_math_rendering_limits_enabled", json!(false)),
        ("default_branch", json!(s.default_branch)),
        ("default_branch_protection", json!(2)),
        (
            "default_branch_protection_defaults",
            json!({"allowed_to_push": [{"access_level": 40}], "allow_force_push": false,
                   "allowed_to_merge": [{"access_level": 40}], "developer_can_initial_push": false}),
        ),
        ("avatar_url", Value::Null),
        ("request_access_enabled", json!(s.request_access_enabled)),
        ("full_name", json!(detailed.full_name)),
        ("full_path", json!(g.full_path)),
        ("created_at", json!(rfc3339(s.created_at, 0))),
        ("parent_id", json!(g.parent_id)),
        ("organization_id", json!(1)),
        ("shared_runners_setting", json!("enabled")),
        ("max_artifacts_size", Value::Null),
        // EE's delayed deletion: the day the group was marked, null when it is not.
        ("marked_for_deletion_on", json!(detailed.marked_for_deletion_at.map(|at| rfc3339(at, 0)[..10].to_string()))),
    ]
}

/// The group's entity with its settings, read now.
pub fn detailed(db: &mut Db, group: &Group) -> ApiResult<Detailed> {
    crate::store::groups::detailed(db, group)?.ok_or(ApiError::NotFound("Group"))
}

/// GitLab's `GroupDetail`: the `Group` entity, `shared_with_groups` (the live links to groups
/// the caller may see, `shared_with_group_links_visible_to_user`),
/// `prevent_sharing_groups_outside_hierarchy` on root groups and, with `with_projects`, the
/// group's own projects the caller may see (at most 100, GitLab's limit; the projects family's
/// entities as `GET /groups/:id/projects` answers them) and `shared_projects`. A JSON answer
/// with `status`.
pub fn detail(call: &Call, detailed: &Detailed, with_projects: bool, status: u16) -> ApiResult<Response> {
    let mut fields = entity(&call.base_url, detailed);
    fields.push((
        "shared_with_groups",
        share::shared_with_groups(call, crate::store::shares::Shared::Group(detailed.group.id))?,
    ));
    if detailed.group.parent_id.is_none() {
        fields.push(("prevent_sharing_groups_outside_hierarchy", json!(false)));
    }
    let mut response = Response::json(status, &Obj::from(fields));
    if with_projects {
        let mut params = Params::new();
        params.set("per_page", json!(100));
        let listed = crate::api::projects::list::list_of_group(call, &detailed.group.id.to_string(), &params)?;
        let projects = match listed.body {
            Body::Bytes(bytes) => bytes,
            Body::Stream(_) => b"[]".to_vec(),
        };
        // The projects' own bytes, spliced in: their entities keep their key order.
        if let Body::Bytes(body) = &mut response.body {
            if body.last() == Some(&b'}') {
                body.pop();
                body.extend_from_slice(b",\"projects\":");
                body.extend_from_slice(&projects);
                body.extend_from_slice(b",\"shared_projects\":[]}");
            }
        }
    }
    Ok(response)
}

/// `Failed to save group {...}` with the model's errors as Ruby prints them
/// (`render_api_error!("Failed to save group #{group.errors.messages}", 400)`).
pub fn failed_to_save(errors: &[(&str, String)]) -> ApiError {
    ApiError::validation(format!("Failed to save group {}", ruby_errors(errors)))
}

/// `{:path=>["has already been taken"], ...}`: a Rails error hash as Ruby's `inspect` shows it.
fn ruby_errors(errors: &[(&str, String)]) -> String {
    let mut by_key: Vec<(&str, Vec<&str>)> = Vec::new();
    for (key, message) in errors {
        match by_key.iter_mut().find(|(k, _)| k == key) {
            Some((_, messages)) => messages.push(message),
            None => by_key.push((key, vec![message])),
        }
    }
    let entries: Vec<String> = by_key
        .iter()
        .map(|(key, messages)| {
            let quoted: Vec<String> =
                messages.iter().map(|m| format!("\"{}\"", m.replace('\\', "\\\\").replace('"', "\\\""))).collect();
            format!(":{key}=>[{}]", quoted.join(", "))
        })
        .collect();
    format!("{{{}}}", entries.join(", "))
}

/// The message of a path GitLab's `NamespacePathValidator` refuses.
pub const PATH_FORMAT: &str =
    "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";
/// The message of a name `Gitlab::Regex.group_name_regex` refuses.
pub const NAME_FORMAT: &str = "can contain only letters, digits, emoji, '_', '.', dash, space, parenthesis. \
                               It must start with letter, digit, emoji or '_'.";

/// Top-level paths GitLab reserves for its own routes (`Gitlab::PathRegex::TOP_LEVEL_ROUTES`,
/// the ones a forge serving `/api`, `/-/` and git over HTTP at `/<path>.git` must keep).
const RESERVED_TOP_LEVEL: &[&str] = &[
    "-",
    ".well-known",
    "404.html",
    "422.html",
    "500.html",
    "502.html",
    "503.html",
    "admin",
    "api",
    "apple-touch-icon.png",
    "assets",
    "dashboard",
    "explore",
    "favicon.ico",
    "favicon.png",
    "files",
    "groups",
    "health_check",
    "help",
    "import",
    "jwt",
    "login",
    "oauth",
    "profile",
    "projects",
    "public",
    "robots.txt",
    "s",
    "search",
    "sitemap",
    "sitemap.xml",
    "sitemap.xml.gz",
    "snippets",
    "unsubscribes",
    "uploads",
    "users",
    "v2",
];

/// The errors of a group path (one segment), as GitLab's validators give them.
pub fn path_errors(path: &str, top_level: bool) -> Vec<(&'static str, String)> {
    if path.is_empty() {
        return vec![("path", "can't be blank".into())];
    }
    let mut errors = Vec::new();
    let first_ok = path.chars().next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    let chars_ok = path.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    let lower = path.to_ascii_lowercase();
    let end_ok = !path.ends_with('.') && !lower.ends_with(".git") && !lower.ends_with(".atom");
    if !(first_ok && chars_ok && end_ok) {
        errors.push(("path", PATH_FORMAT.to_string()));
    }
    if path.chars().count() > 255 {
        errors.push(("path", "is too long (maximum is 255 characters)".into()));
    }
    if top_level && RESERVED_TOP_LEVEL.contains(&lower.as_str()) {
        errors.push(("path", format!("{path} is a reserved name")));
    }
    errors
}

/// The errors of a group name.
pub fn name_errors(name: &str) -> Vec<(&'static str, String)> {
    if name.trim().is_empty() {
        return vec![("name", "can't be blank".into())];
    }
    let emoji = |c: char| ('\u{00A9}'..='\u{1F9FF}').contains(&c);
    let first_ok = name.chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_' || emoji(c));
    let rest_ok =
        name.chars().all(|c| c.is_alphanumeric() || emoji(c) || matches!(c, '_' | '.' | '-' | ' ' | '(' | ')' | '+'));
    let mut errors = Vec::new();
    if !(first_ok && rest_ok) {
        errors.push(("name", NAME_FORMAT.to_string()));
    }
    if name.chars().count() > 255 {
        errors.push(("name", "is too long (maximum is 255 characters)".into()));
    }
    errors
}

/// GitLab's rule that a subgroup is never more visible than its parent (`Group` model,
/// `visibility_level_allowed_by_parent`).
pub fn parent_visibility_error(visibility: Visibility, parent: &Group) -> Option<(&'static str, String)> {
    (visibility > parent.visibility).then(|| {
        (
            "visibility_level",
            format!(
                "{} is not allowed since the parent group has a {} visibility.",
                visibility.as_str(),
                parent.visibility.as_str()
            ),
        )
    })
}

/// `visibility` as Grape's `values:` checks it.
pub fn visibility_param(params: &Params) -> ApiResult<Option<Visibility>> {
    match params.string("visibility")? {
        None => Ok(None),
        Some(text) => Visibility::parse(&text).map(Some).ok_or(ApiError::InvalidValue("visibility".into())),
    }
}

/// A text parameter without NUL (GitLab refuses null bytes in any parameter, and no database
/// column takes them): 400 `<name> is invalid`.
pub fn text_param(params: &Params, name: &str) -> ApiResult<Option<String>> {
    match params.string(name)? {
        Some(text) if text.contains('\0') => Err(ApiError::InvalidParam(name.to_string())),
        other => Ok(other),
    }
}

/// The optional settings of create and update (`optional_params` of GitLab's groups
/// helpers) applied over `settings`; values outside Grape's `values:` are 400.
pub fn apply_settings(params: &Params, settings: &mut Settings) -> ApiResult<()> {
    for name in ["description", "default_branch"] {
        text_param(params, name)?;
    }
    if let Some(description) = params.string("description")? {
        settings.description = description;
    }
    if params.contains("default_branch") {
        settings.default_branch = params.string("default_branch")?.filter(|b| !b.is_empty());
    }
    if let Some(level) = params.string("project_creation_level")? {
        if !["noone", "owner", "maintainer", "developer", "administrator"].contains(&level.as_str()) {
            return Err(ApiError::InvalidValue("project_creation_level".into()));
        }
        settings.project_creation_level = level;
    }
    if let Some(level) = params.string("subgroup_creation_level")? {
        if !["owner", "maintainer"].contains(&level.as_str()) {
            return Err(ApiError::InvalidValue("subgroup_creation_level".into()));
        }
        settings.subgroup_creation_level = level;
    }
    let flags: [(&str, &mut bool); 6] = [
        ("request_access_enabled", &mut settings.request_access_enabled),
        ("share_with_group_lock", &mut settings.share_with_group_lock),
        ("require_two_factor_authentication", &mut settings.require_two_factor_authentication),
        ("lfs_enabled", &mut settings.lfs_enabled),
        ("emails_enabled", &mut settings.emails_enabled),
        ("mentions_disabled", &mut settings.mentions_disabled),
    ];
    for (name, slot) in flags {
        if let Some(value) = params.bool(name)? {
            *slot = value;
        }
    }
    // The older spelling: `emails_disabled` is `emails_enabled` inverted.
    if !params.contains("emails_enabled") {
        if let Some(disabled) = params.bool("emails_disabled")? {
            settings.emails_enabled = !disabled;
        }
    }
    if let Some(period) = params.int("two_factor_grace_period")? {
        settings.two_factor_grace_period = period;
    }
    Ok(())
}
