//! `DELETE /projects/:id/repository/branches/:branch`: 204, the branch deleted only while it
//! still names the tip that was checked (a compare-and-swap). 404 for a missing branch; 400
//! with GitLab's texts for the default branch (never deleted) and for a protected branch the
//! caller may not delete (Maintainers may).

use super::{check, find, writable, Scope};
use crate::api::{users, Call};
use crate::auth::protection::{RefChange, Refusal};
use crate::error::{ApiError, ApiResult};
use crate::git::write::refs as refs_write;
use crate::response::Response;

pub const DEFAULT_BRANCH: &str = "The default branch of a project cannot be deleted.";
pub const PROTECTED_BRANCH: &str = "You are not allowed to delete protected branches from this project. \
                                    Only a project maintainer or owner can delete a protected branch.";

pub fn delete(call: &Call, project: &str, branch: &str) -> ApiResult<Response> {
    let (project, user) = writable(call, project)?;
    let scope = Scope::new(call, project)?;
    let branch = find(&scope, branch)?;
    match check(call, &scope, &branch.name, RefChange::Delete)? {
        Ok(()) => {}
        Err(Refusal::DeleteDefault) => return Err(ApiError::validation(DEFAULT_BRANCH)),
        Err(Refusal::DeleteProtected) => return Err(ApiError::validation(PROTECTED_BRANCH)),
        Err(_) => return Err(ApiError::Forbidden(None)),
    }
    let who = users::identity(call, &user);
    match refs_write::delete(&scope.repo, &format!("refs/heads/{}", branch.name), branch.tip, &who) {
        Ok(update) => {
            call.refs_moved(&scope.project, vec![update])?;
            Ok(Response::no_content())
        }
        Err(refs_write::Error::Changed) => Err(ApiError::validation(format!(
            "Failed to delete branch '{}': it moved while it was being deleted",
            branch.name
        ))),
        Err(e) => Err(ApiError::internal(e)),
    }
}
