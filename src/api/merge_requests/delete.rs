//! `DELETE /projects/:id/merge_requests/:merge_request_iid`: Owners and administrators only
//! (GitLab's `destroy_merge_request`; 403 for a Developer), 204. Its versions, assignees and
//! reviewers go with it, and so does `refs/merge-requests/:iid/head`.

use super::find;
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::ApiResult;
use crate::events::refresh::head_ref;
use crate::git;
use crate::response::Response;
use crate::store::merge_requests;

pub fn delete(call: &Call, id: &str, iid: &str) -> ApiResult<Response> {
    let who = crate::api::push::committer(call)?;
    let (project, mr) = find(call, id, iid)?;
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::DestroyMergeRequest))?;
    call.ctx.store.write(|db| -> ApiResult<_> {
        crate::store::labels::unlink_all(db, super::label_target(&mr))?;
        Ok(merge_requests::delete(db, mr.id)?)
    })?;
    // The internal ref is the forge's; one that cannot be removed now names a commit nobody
    // lists, and is rewritten if the iid were ever used again (it never is).
    if let Ok(repo) = call.repository(&project, "Project") {
        if let Ok(Some(target)) = git::refs::target(&repo, &head_ref(mr.iid)) {
            let _ = git::write::refs::delete(&repo, &head_ref(mr.iid), target, &who);
        }
    }
    Ok(Response::no_content())
}
