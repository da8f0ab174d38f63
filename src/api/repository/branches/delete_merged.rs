//! `DELETE /projects/:id/repository/merged_branches`: deletes every branch merged into the
//! default branch, except the default branch and protected branches (as GitLab's
//! `DeleteMergedBranchesService`), each only while it still names the tip that was checked.
//! GitLab answers 202 and works in the background; here the work is done before the answer.

use super::{check, writable, Scope};
use crate::api::{users, Call};
use crate::auth::protection::{self, RefChange};
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git;
use crate::git::write::refs as refs_write;
use crate::response::Response;
use serde_json::json;

pub fn delete_merged(call: &Call, project: &str) -> ApiResult<Response> {
    let (project, user) = writable(call, project)?;
    let scope = Scope::new(call, project)?;
    let who = users::identity(call, &user);
    let mut deleted = Vec::new();
    let mut failed = None;
    if let Some(default_tip) = scope.default_tip {
        // One walk of the default branch's history answers `merged` for every branch.
        let merged = git::refs::reachable(&scope.repo, default_tip).or_broken()?;
        for branch in git::refs::branches(&scope.repo).or_broken()? {
            if scope.is_default(&branch.name) || protection::effective(&scope.rules, &branch.name).is_some() {
                continue;
            }
            if !merged.contains(&branch.tip) {
                continue;
            }
            if check(call, &scope, &branch.name, RefChange::Delete)?.is_err() {
                continue;
            }
            match refs_write::delete(&scope.repo, &format!("refs/heads/{}", branch.name), branch.tip, &who) {
                Ok(update) => deleted.push(update),
                // Moved by another writer since: no longer known to be merged, left alone.
                Err(refs_write::Error::Changed) => {}
                Err(e) => {
                    failed = Some(ApiError::internal(e));
                    break;
                }
            }
        }
    }
    // What was deleted before a failure is announced all the same.
    call.refs_moved(&scope.project, deleted)?;
    if let Some(e) = failed {
        return Err(e);
    }
    Ok(Response::json(202, &json!({"message": "202 Accepted"})))
}
