//! `POST`, `PUT` and `DELETE /projects/:id/repository/files/:file_path`: one commit each, on
//! the one write path (`git::write::commit`), as GitLab's `Files::{Create,Update,Delete}Service`.
//!
//! - Parameters: `branch` and `commit_message` (required, not blank), `start_branch`
//!   (optional; `null` is absent), `author_name`, `author_email`; for create and update
//!   `content` (required) with `encoding` `text` (default) or `base64` (decoded leniently, as
//!   Ruby's `Base64.decode64`) and `execute_filemode`; for update `last_commit_id` (a file
//!   changed since is refused). DELETE takes its parameters from the query as clients send them.
//! - Pushing code needs Developer (403); the branch's protection is asked by the write path, and
//!   a refusal is 400 `You are not allowed to push into this branch`, as GitLab's service says.
//! - Answers: 201 and 200 `{"file_path", "branch"}`; 204 for a delete. Every refusal of the
//!   write path is GitLab's 400 text (`crate::api::push::refused`).

use super::file_path;
use crate::api::push::{self, BranchRule, Wording};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult};
use crate::git::write::{self, Action, Request, Start};
use crate::params::Params;
use crate::response::Response;
use base64::Engine;
use serde_json::json;

/// Base64 as Ruby's `Base64.decode64` reads it: characters outside the alphabet are skipped,
/// padding is optional, and a dangling last character is dropped.
pub fn decode_base64_leniently(text: &str) -> Vec<u8> {
    let mut clean: String = text
        .chars()
        .take_while(|c| *c != '=')
        .filter(|c| c.is_ascii_alphanumeric() || *c == '+' || *c == '/')
        .collect();
    if clean.len() % 4 == 1 {
        clean.pop();
    }
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    engine.decode(clean.as_bytes()).unwrap_or_default()
}

/// `content` decoded as `encoding` says.
pub fn content(params: &Params, name: &str) -> ApiResult<Vec<u8>> {
    let text = params.required_string(name)?;
    match params.string("encoding")?.as_deref() {
        None | Some("text") => Ok(text.into_bytes()),
        Some("base64") => Ok(decode_base64_leniently(&text)),
        Some(_) => Err(ApiError::InvalidValue("encoding".into())),
    }
}

/// What the three writes share: the branch, the start branch, the message and the author.
struct Write {
    branch: String,
    start_branch: Option<String>,
    message: String,
    author_name: Option<String>,
    author_email: Option<String>,
}

impl Write {
    fn from_params(params: &Params) -> ApiResult<Write> {
        let branch = params.required_text("branch")?;
        let message = params.required_text("commit_message")?;
        Ok(Write {
            branch,
            start_branch: params.string("start_branch")?.filter(|s| !s.is_empty()),
            message,
            author_name: params.string("author_name")?,
            author_email: params.string("author_email")?,
        })
    }

    /// Commits `action` for the caller, or GitLab's refusal.
    fn commit(self, call: &Call, project: &str, action: Action) -> ApiResult<()> {
        let project = call.project(project, ProjectAbility::PushCode)?;
        let committer = push::committer(call)?;
        let author = push::author(&committer, self.author_name, self.author_email);
        let repo = call.repository(&project, "Project")?;
        let request = Request {
            branch: &self.branch,
            start: self.start_branch.clone().map(Start::Branch),
            force: false,
            message: &self.message,
            author: &author,
            committer: &committer,
        };
        let mut rule = BranchRule::new(call, &project, &self.branch)?;
        match write::commit(&repo, &request, &[action], |moved, commit| rule.allows(moved, commit)) {
            Ok(committed) => call.refs_moved(&project, vec![committed.update]),
            Err(e) => Err(push::refused(e, &self.branch, Wording::Files, rule)),
        }
    }
}

fn answer(status: u16, path: &str, branch: &str) -> Response {
    Response::json(status, &json!({"file_path": path, "branch": branch}))
}

/// POST: a new file; 201.
pub fn create(call: &Call, project: &str, path: &str, params: &Params) -> ApiResult<Response> {
    let path = file_path(path, false)?;
    let write = Write::from_params(params)?;
    let content = content(params, "content")?;
    let executable = params.bool("execute_filemode")?.unwrap_or(false);
    let branch = write.branch.clone();
    write.commit(call, project, Action::Create { path: path.clone(), content, executable })?;
    Ok(answer(201, &path, &branch))
}

/// PUT: new content for an existing file; 200.
pub fn update(call: &Call, project: &str, path: &str, params: &Params) -> ApiResult<Response> {
    let path = file_path(path, false)?;
    let write = Write::from_params(params)?;
    let content = content(params, "content")?;
    let action = Action::Update {
        path: path.clone(),
        content,
        executable: params.bool("execute_filemode")?,
        last_commit_id: params.string("last_commit_id")?,
    };
    let branch = write.branch.clone();
    write.commit(call, project, action)?;
    Ok(answer(200, &path, &branch))
}

/// DELETE: the file removed; 204. GitLab does not declare `last_commit_id` here, so it is
/// not read.
pub fn delete(call: &Call, project: &str, path: &str, params: &Params) -> ApiResult<Response> {
    let path = file_path(path, false)?;
    let write = Write::from_params(params)?;
    write.commit(call, project, Action::Delete { path, last_commit_id: None })?;
    Ok(Response::no_content())
}
