//! `POST /projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds`
//! (newest `lib/api/merge_requests.rb`, V): `unauthorized!` (401) unless the caller may merge
//! it or wrote it (`can_cancel_auto_merge?`), then the endpoint answers what
//! `AutoMergeService#cancel` returns, which Grape renders with a POST's 201: `{"status":
//! "success"}` once the auto-merge is cleared, with GitLab's system note `canceled the
//! automatic merge`; `{"status": "error", "message": "Can't cancel the automatic merge",
//! "http_status": 406}` when none was set (the service's 406 stays inside the body; the route
//! never renders it as the status).

use super::find;
use crate::api::Call;
use crate::auth::protection;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store::{self, auto_merges};
use serde_json::json;

/// GitLab's system note when an auto-merge is cancelled (`SystemNoteService.cancel_auto_merge`).
pub const CANCELED: &str = "canceled the automatic merge";

pub fn cancel(call: &Call, id: &str, iid: &str) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let (project, mr) = find(call, id, iid)?;
    let default_branch = crate::git::default_branch(call.git_dir(&project)?);
    let may_merge = call
        .ctx
        .store
        .read(|db| protection::can_merge(db, &call.caller, &project, default_branch.as_deref(), &mr.target_branch))?;
    if !may_merge && mr.author_id != Some(user.id) {
        return Err(ApiError::Unauthorized);
    }
    let canceled = call.ctx.store.write(|db| -> ApiResult<bool> {
        if auto_merges::take(db, mr.id)?.is_none() {
            return Ok(false);
        }
        store::notes::insert_system(db, project.id, "MergeRequest", mr.id, Some(user.id), CANCELED)?;
        Ok(true)
    })?;
    let body = if canceled {
        json!({"status": "success"})
    } else {
        json!({"status": "error", "message": "Can't cancel the automatic merge", "http_status": 406})
    };
    Ok(Response::json(201, &body))
}
