//! `POST /projects/:id/repository/commits`: several file actions as one commit, or none, on the
//! one write path (`git::write::commit`), as GitLab's `Commits::CreateService` and Gitaly's
//! `UserCommitFiles`.
//!
//! - Parameters: `branch`, `commit_message` and `actions` (required); `start_branch` or
//!   `start_sha` (not both; `start_sha` a full SHA that exists), `force` (the branch is reset to
//!   the start), `author_name`, `author_email`, `stats` (default true). Each action: `action`
//!   (`create`, `update`, `move`, `delete`, `chmod`), `file_path` (a leading `/` is dropped),
//!   `previous_path` (move), `content` with `encoding` `text` or `base64` (update needs it; a
//!   move without it keeps the old content), `last_commit_id`, `execute_filemode` (chmod needs it).
//! - Anonymous callers are 401 (invisible projects stay 404); a caller who may not push to the
//!   branch, by role or by its protection, is 403 `You are not allowed to push into this branch`.
//! - 201 with the new commit's `CommitDetail`; every refusal of the write path is GitLab's 400.

use super::detail;
use crate::api::push::{self, BranchRule, Wording};
use crate::api::repository::files::write::decode_base64_leniently;
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git::write::{self, Action, Request, Start};
use crate::git::{self, commit};
use crate::params::Params;
use crate::response::Response;
use gix::ObjectId;
use serde_json::{Map, Value};

const NOT_ALLOWED: &str = "You are not allowed to push into this branch";

/// One field of action `index`: absent, `null`, a string (numbers as their text), or a 400.
fn field(action: &Map<String, Value>, index: usize, name: &str) -> ApiResult<Option<String>> {
    match action.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(_) => Err(ApiError::InvalidParam(format!("actions[{index}][{name}]"))),
    }
}

fn required(action: &Map<String, Value>, index: usize, name: &str) -> ApiResult<String> {
    field(action, index, name)?.ok_or_else(|| ApiError::MissingParam(format!("actions[{index}][{name}]")))
}

fn path_field(action: &Map<String, Value>, index: usize, name: &str) -> ApiResult<String> {
    let path = required(action, index, name)?;
    Ok(path.strip_prefix('/').map(str::to_string).unwrap_or(path))
}

/// The decoded `content` of action `index`, `None` when absent.
fn content(action: &Map<String, Value>, index: usize) -> ApiResult<Option<Vec<u8>>> {
    let Some(text) = field(action, index, "content")? else { return Ok(None) };
    match field(action, index, "encoding")?.as_deref() {
        None | Some("text") => Ok(Some(text.into_bytes())),
        Some("base64") => Ok(Some(decode_base64_leniently(&text))),
        Some(_) => Err(ApiError::InvalidValue(format!("actions[{index}][encoding]"))),
    }
}

fn executable(action: &Map<String, Value>, index: usize) -> ApiResult<Option<bool>> {
    let name = format!("actions[{index}][execute_filemode]");
    match action.get("execute_filemode") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(Value::String(s)) => crate::params::parse_bool_word(s).map(Some).ok_or(ApiError::InvalidParam(name)),
        Some(_) => Err(ApiError::InvalidParam(name)),
    }
}

/// Action `index` as the write path takes it.
fn action(value: &Value, index: usize) -> ApiResult<Action> {
    let Value::Object(action) = value else { return Err(ApiError::InvalidParam(format!("actions[{index}]"))) };
    let kind = required(action, index, "action")?;
    let path = path_field(action, index, "file_path")?;
    let last_commit_id = field(action, index, "last_commit_id")?;
    Ok(match kind.as_str() {
        "create" => Action::Create {
            path,
            content: content(action, index)?.unwrap_or_default(),
            executable: executable(action, index)?.unwrap_or(false),
        },
        "update" => Action::Update {
            path,
            content: content(action, index)?
                .ok_or_else(|| ApiError::MissingParam(format!("actions[{index}][content]")))?,
            executable: executable(action, index)?,
            last_commit_id,
        },
        "move" => Action::Move {
            previous_path: path_field(action, index, "previous_path")?,
            path,
            content: content(action, index)?,
            last_commit_id,
        },
        "delete" => Action::Delete { path, last_commit_id },
        "chmod" => Action::Chmod {
            path,
            executable: executable(action, index)?
                .ok_or_else(|| ApiError::MissingParam(format!("actions[{index}][execute_filemode]")))?,
            last_commit_id,
        },
        "" => return Err(ApiError::ParamError(format!("actions[{index}][action] is empty"))),
        _ => return Err(ApiError::InvalidValue(format!("actions[{index}][action]"))),
    })
}

fn actions(params: &Params) -> ApiResult<Vec<Action>> {
    match params.raw("actions") {
        None | Some(Value::Null) => Err(ApiError::MissingParam("actions".into())),
        Some(Value::Array(items)) if items.is_empty() => Err(ApiError::ParamError("actions is empty".into())),
        Some(Value::Array(items)) => items.iter().enumerate().map(|(i, item)| action(item, i)).collect(),
        Some(_) => Err(ApiError::InvalidParam("actions".into())),
    }
}

/// `start_sha` as GitLab takes it: a full SHA (`Invalid start_sha`) of a commit the repository
/// has (`Cannot find start_sha`).
fn start_sha(repo: &gix::Repository, text: &str) -> ApiResult<ObjectId> {
    let id =
        ObjectId::from_hex(text.as_bytes()).map_err(|_| ApiError::validation(format!("Invalid start_sha '{text}'")))?;
    match commit::read(repo, id) {
        Ok(_) => Ok(id),
        Err(_) => Err(ApiError::validation(format!("Cannot find start_sha '{text}'"))),
    }
}

pub fn create(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let branch = params.required_text("branch")?;
    let message = params.required_text("commit_message")?;
    let actions = actions(params)?;
    let start_branch = params.string("start_branch")?.filter(|s| !s.is_empty());
    let start_sha_text = params.string("start_sha")?.filter(|s| !s.is_empty());
    if start_branch.is_some() && start_sha_text.is_some() {
        return Err(ApiError::ParamError("start_branch, start_sha are mutually exclusive".into()));
    }
    let force = params.bool("force")?.unwrap_or(false);
    let with_stats = params.bool("stats")?.unwrap_or(true);
    let project = call.project(id, ProjectAbility::ReadCode)?;
    call.caller.require_user()?;
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::PushCode))
        .map_err(|e| match e {
            ApiError::Forbidden(None) => ApiError::Forbidden(Some(NOT_ALLOWED.into())),
            other => other,
        })?;
    let repo = call.repository(&project, "Project")?;
    let start = match (start_branch, start_sha_text) {
        (Some(name), _) => Some(Start::Branch(name)),
        (None, Some(sha)) => Some(Start::Commit(start_sha(&repo, &sha)?)),
        (None, None) => None,
    };
    let committer = push::committer(call)?;
    let author = push::author(&committer, params.string("author_name")?, params.string("author_email")?);
    let request = Request { branch: &branch, start, force, message: &message, author: &author, committer: &committer };
    let mut rule = BranchRule::new(call, &project, &branch)?;
    let committed = match write::commit(&repo, &request, &actions, |moved, commit| rule.allows(moved, commit)) {
        Ok(committed) => committed,
        Err(e) => return Err(push::refused(e, &branch, Wording::Commits, rule)),
    };
    call.refs_moved(&project, vec![committed.update])?;
    let info = git::commit::read(&repo, committed.id).or_broken()?;
    Ok(Response::json(201, &detail(call, &project, &repo, &info, with_stats)?))
}
