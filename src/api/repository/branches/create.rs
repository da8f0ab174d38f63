//! `POST /projects/:id/repository/branches` (`branch`, `ref`): a new branch at the commit `ref`
//! names, created only where no branch of that name exists (a compare-and-swap), 201 and the
//! Branch entity. GitLab's 400 texts for an invalid name, an unknown ref, an existing branch,
//! a name that collides with a branch directory, and a protected branch the caller may not
//! create. In an empty repository an empty `README.md` is committed to the default branch
//! first, as GitLab does.

use super::{check, find, writable, Scope};
use crate::api::push_rules::enforce::{self, Change, Refusal, Via};
use crate::api::{push, users, Call};
use crate::auth::protection::RefChange;
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git::write::refs as refs_write;
use crate::git::{self, ResolveError};
use crate::params::Params;
use crate::response::Response;

pub fn create(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let (project, user) = writable(call, project)?;
    let name = params.required_text("branch")?;
    let revision = params.required_text("ref")?;
    if !refs_write::valid_branch_name(&name) {
        return Err(ApiError::validation("Branch name is invalid"));
    }
    let mut scope = Scope::new(call, project)?;
    let who = users::identity(call, &user);
    if scope.default_tip.is_none() && git::refs::branches(&scope.repo).or_broken()?.is_empty() {
        // An empty repository gets its first commit on the default branch first, as GitLab
        // makes it, so that `ref` (usually that branch) names something.
        let default = scope.default_branch.clone().unwrap_or_else(|| "main".into());
        match refs_write::initial_commit(&scope.repo, &default, &who) {
            Ok(update) => call.refs_moved(&scope.project, vec![update])?,
            Err(refs_write::Error::AlreadyExists) => {}
            Err(refs_write::Error::CheckedOut) => return Err(ApiError::validation(push::checked_out_text(&default))),
            Err(e) => return Err(ApiError::internal(e)),
        }
        scope = Scope::new(call, scope.project)?;
    }
    let target = match git::resolve_commit(&scope.repo, &revision) {
        Ok(id) => id,
        Err(ResolveError::Unknown) => {
            return Err(ApiError::validation(format!(
                "Failed to create branch '{name}': invalid reference name '{revision}'"
            )))
        }
        Err(e) => return Err(ApiError::internal(e)),
    };
    let existing = git::refs::branches(&scope.repo).or_broken()?;
    if existing.iter().any(|b| b.name == name) {
        return Err(ApiError::validation("Branch already exists"));
    }
    // git keeps `a` and `a/b` as a file and a directory: one excludes the other.
    if let Some(other) =
        existing.iter().find(|b| name.starts_with(&format!("{}/", b.name)) || b.name.starts_with(&format!("{name}/")))
    {
        return Err(ApiError::validation(format!(
            "Failed to create branch '{name}': cannot lock ref 'refs/heads/{name}': 'refs/heads/{}' exists",
            other.name
        )));
    }
    if check(call, &scope, &name, RefChange::Create)?.is_err() {
        return Err(ApiError::validation("You are not allowed to create protected branches on this project."));
    }
    // The push rule, as GitLab's pre-receive judges `UserCreateBranch`: the name, and any
    // commit `ref` reaches that no ref does (400 with GitLab's text).
    let ref_name = format!("refs/heads/{name}");
    let changes = [Change { name: &ref_name, old: None, new: Some(target) }];
    let checked = enforce::check(
        call.ctx,
        &scope.project,
        &scope.repo,
        scope.default_branch.as_deref(),
        &changes,
        Via::Web,
        Some(&user),
    );
    match checked {
        Ok(()) => {}
        Err(Refusal::Rule(text)) => return Err(ApiError::validation(text)),
        Err(Refusal::Failed(e)) => return Err(e),
    }
    let message = format!("branch: Created from {revision}");
    match refs_write::create(&scope.repo, &format!("refs/heads/{name}"), target, &who, &message) {
        Ok(update) => call.refs_moved(&scope.project, vec![update])?,
        Err(refs_write::Error::AlreadyExists) => return Err(ApiError::validation("Branch already exists")),
        Err(refs_write::Error::InvalidName) => return Err(ApiError::validation("Branch name is invalid")),
        Err(refs_write::Error::CheckedOut) => return Err(ApiError::validation(push::checked_out_text(&name))),
        Err(e) => return Err(ApiError::internal(e)),
    }
    let branch = find(&scope, &name)?;
    Ok(Response::json(201, &scope.entity(&branch)?))
}
