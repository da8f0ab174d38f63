//! Push rules (issue #42, decisions D12): a project's or group's rules over the refs and new
//! commits of a write, with GitLab's texts (`ee/lib/api/project_push_rule.rb`,
//! `ee/lib/api/group_push_rule.rb`, `ee/app/models/push_rule.rb`,
//! `ee/lib/gitlab/checks/push_rules/*`; reference `gitlab-hooks-releases-statuses.md` §4).
//! One file per operation ([`get`], [`create`], [`update`], [`delete`]); [`rules`] holds the
//! rule set and its checks, [`enforce`] applies them to what a write changes.
//!
//! Who: a project's rule needs `admin_push_rules` (Maintainer, or a custom role's
//! `admin_push_rules`; GitLab's `authorize!`, 403); a group's `change_push_rules` (the same),
//! else GitLab's `not_found!` (404 `404 Not Found`). Push rules are a licensed feature in
//! GitLab; here every tier has them (D12), so every field is always answered.

pub mod create;
pub mod delete;
pub mod enforce;
pub mod get;
pub mod rules;
pub mod update;

use crate::api::ordered::{iso_millis, Obj};
use crate::api::Call;
use crate::auth::permissions::{self, GroupAbility, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::store::push_rules::{Owner, PushRule as Stored, Settings};
use serde_json::{json, Map, Value};

/// Whose push rule a route is about.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    Project(&'a str),
    Group(&'a str),
}

/// The owner `scope` names, found and visible (else its 404), for a caller who may manage its
/// push rule (a project: 403; a group: 404 `404 Not Found`, as GitLab hides it).
pub fn owner(call: &Call, scope: Scope) -> ApiResult<Owner> {
    call.caller.require_user()?;
    match scope {
        Scope::Project(id) => {
            let project = call.project(id, ProjectAbility::Read)?;
            call.ctx.store.read(|db| {
                permissions::authorize_project(db, &call.caller, &project, ProjectAbility::AdminPushRules)
            })?;
            Ok(Owner::Project(project.id))
        }
        Scope::Group(id) => {
            let group = call.group(id)?;
            if !call
                .ctx
                .store
                .read(|db| permissions::group_may(db, &call.caller, &group, GroupAbility::ChangePushRules))?
            {
                return Err(ApiError::NotFound(""));
            }
            Ok(Owner::Group(group.id))
        }
    }
}

/// The rule of `owner`, if any.
pub fn find(call: &Call, owner: Owner) -> ApiResult<Option<Stored>> {
    Ok(call.ctx.store.read(|db| crate::store::push_rules::find(db, owner))?)
}

/// The patterns, in the order GitLab's validations report them.
const PATTERNS: [&str; 5] = [
    "commit_message_regex",
    "commit_message_negative_regex",
    "branch_name_regex",
    "author_email_regex",
    "file_name_regex",
];
const FLAGS: [&str; 8] = [
    "deny_delete_tag",
    "member_check",
    "prevent_secrets",
    "commit_committer_check",
    "commit_committer_name_check",
    "reject_unsigned_commits",
    "reject_non_dco_commits",
    "max_file_size",
];

/// Every parameter of GitLab's `push_rule_params`, in its `at_least_one_of` order.
const PARAMETERS: [&str; 13] = [
    "deny_delete_tag",
    "member_check",
    "prevent_secrets",
    "commit_message_regex",
    "commit_message_negative_regex",
    "branch_name_regex",
    "author_email_regex",
    "file_name_regex",
    "max_file_size",
    "commit_committer_check",
    "commit_committer_name_check",
    "reject_unsigned_commits",
    "reject_non_dco_commits",
];

fn pattern_slot<'s>(settings: &'s mut Settings, name: &str) -> Option<&'s mut Option<String>> {
    Some(match name {
        "commit_message_regex" => &mut settings.commit_message_regex,
        "commit_message_negative_regex" => &mut settings.commit_message_negative_regex,
        "branch_name_regex" => &mut settings.branch_name_regex,
        "author_email_regex" => &mut settings.author_email_regex,
        "file_name_regex" => &mut settings.file_name_regex,
        _ => return None,
    })
}

fn flag_slot<'s>(settings: &'s mut Settings, name: &str) -> Option<&'s mut bool> {
    Some(match name {
        "deny_delete_tag" => &mut settings.deny_delete_tag,
        "member_check" => &mut settings.member_check,
        "prevent_secrets" => &mut settings.prevent_secrets,
        "commit_committer_check" => &mut settings.commit_committer_check,
        "commit_committer_name_check" => &mut settings.commit_committer_name_check,
        "reject_unsigned_commits" => &mut settings.reject_unsigned_commits,
        "reject_non_dco_commits" => &mut settings.reject_non_dco_commits,
        _ => return None,
    })
}

/// `settings` with the declared, present parameters applied (Grape's `at_least_one_of`: none
/// is a 400), then validated as `PushRule`'s model does (400 `{"message": {field: [errors]}}`).
pub fn apply(params: &Params, mut settings: Settings) -> ApiResult<Settings> {
    if !PARAMETERS.iter().any(|name| params.contains(name)) {
        return Err(ApiError::ParamError(format!(
            "{} are missing, at least one parameter must be provided",
            PARAMETERS.join(", ")
        )));
    }
    for name in PATTERNS {
        if params.contains(name) {
            let value = params.string(name)?;
            if let Some(slot) = pattern_slot(&mut settings, name) {
                *slot = value;
            }
        }
    }
    for name in FLAGS {
        if name == "max_file_size" {
            if params.contains(name) {
                settings.max_file_size = params.int(name)?.unwrap_or(0);
            }
            continue;
        }
        if let Some(value) = params.bool(name)? {
            if let Some(slot) = flag_slot(&mut settings, name) {
                *slot = value;
            }
        }
    }
    let errors = rules::validate(&rules::PushRule::from(&settings));
    if !errors.is_empty() {
        let mut by_field = Map::new();
        for (field, message) in errors {
            let entry = by_field.entry(field.to_string()).or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = entry {
                list.push(Value::String(message));
            }
        }
        return Err(ApiError::Validation(Value::Object(by_field)));
    }
    Ok(settings)
}

/// `ProjectPushRule` or `GroupPushRule`, each in GitLab's key order (the group's lists the
/// patterns together and has no `project_id`).
pub fn entity(rule: &Stored) -> Obj {
    let s = &rule.settings;
    let mut o = Obj::new();
    o.put("id", rule.id);
    match rule.project_id {
        Some(project_id) => {
            o.put("project_id", project_id)
                .put("created_at", iso_millis(rule.created_at))
                .put("commit_message_regex", json!(s.commit_message_regex))
                .put("commit_message_negative_regex", json!(s.commit_message_negative_regex))
                .put("branch_name_regex", json!(s.branch_name_regex))
                .put("deny_delete_tag", s.deny_delete_tag)
                .put("member_check", s.member_check)
                .put("prevent_secrets", s.prevent_secrets)
                .put("author_email_regex", json!(s.author_email_regex))
                .put("file_name_regex", json!(s.file_name_regex))
                .put("max_file_size", s.max_file_size);
        }
        None => {
            o.put("created_at", iso_millis(rule.created_at))
                .put("commit_message_regex", json!(s.commit_message_regex))
                .put("commit_message_negative_regex", json!(s.commit_message_negative_regex))
                .put("branch_name_regex", json!(s.branch_name_regex))
                .put("author_email_regex", json!(s.author_email_regex))
                .put("file_name_regex", json!(s.file_name_regex))
                .put("deny_delete_tag", s.deny_delete_tag)
                .put("member_check", s.member_check)
                .put("prevent_secrets", s.prevent_secrets)
                .put("max_file_size", s.max_file_size);
        }
    }
    o.put("commit_committer_check", s.commit_committer_check)
        .put("commit_committer_name_check", s.commit_committer_name_check)
        .put("reject_unsigned_commits", s.reject_unsigned_commits)
        .put("reject_non_dco_commits", s.reject_non_dco_commits);
    o
}
