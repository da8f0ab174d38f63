//! `GET /projects/:id/merge_requests/:merge_request_iid/merge_ref` (GitLab's API:
//! `MergeabilityCheckService#execute(recheck: true)`): the merge of the head into the target's
//! tip written to `refs/merge-requests/:iid/merge`, answered as `{"commit_id": ...}`; a merge
//! request that cannot be merged is 400 `Merge request is not mergeable`.

use super::find;
use super::status::{current_verdict, Verdict};
use crate::api::users::identity;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::git::merge::{self as git_merge, MergeError};
use crate::response::Response;
use crate::store;
use gix::ObjectId;
use serde_json::json;

pub fn merge_ref(call: &Call, id: &str, iid: &str) -> ApiResult<Response> {
    let (project, mr) = find(call, id, iid)?;
    let refuse = || Err(ApiError::Validation(json!("Merge request is not mergeable")));
    if !mr.is_open() || !matches!(current_verdict(call, &project, &mr), Some(Verdict::Clean { .. })) {
        return refuse();
    }
    let repo = call.repository(&project, "Project")?;
    let head = mr.head_sha.as_deref().and_then(|h| ObjectId::from_hex(h.as_bytes()).ok());
    let target = crate::git::refs::branch(&repo, &mr.target_branch).map_err(ApiError::internal)?;
    let (Some(head), Some(target)) = (head, target) else { return refuse() };
    // GitLab merges to the ref as the merge request's author.
    let author = match mr.author_id {
        Some(author) => call.ctx.store.read(|db| store::users::find_by_id(db, author))?,
        None => None,
    };
    let who = match (&author, call.caller.user()) {
        (Some(author), _) => identity(call, author),
        (None, Some(user)) => identity(call, user),
        (None, None) => return refuse(),
    };
    let reference = format!("{}!{}", project.full_path, mr.iid);
    let message = git_merge::default_message(&mr.source_branch, &mr.target_branch, &mr.title, None, &reference);
    let ref_name = format!("refs/merge-requests/{}/merge", mr.iid);
    match call.git("merge_to_ref", || git_merge::merge_to_ref(&repo, &ref_name, target, head, &message, &who)) {
        Ok(merged) => Ok(Response::json(200, &json!({"commit_id": merged.commit.to_string()}))),
        Err(e @ MergeError::Git(_)) => Err(ApiError::internal(e)),
        Err(MergeError::Race(_)) => Err(ApiError::Validation(json!("Merge ref cannot be updated"))),
        Err(_) => refuse(),
    }
}
