//! `DELETE /projects/:id/issues/:issue_iid`: Owners and administrators (`destroy_issue`; 403
//! for others who see the issue); the issue goes with its notes, labels' links and assignees.
//! 204; 404 `Issue Not Found` for none the caller sees (`not_found!('Issue')`).

use super::{find_visible, Viewer};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store::issues;

pub fn delete(call: &Call, project_id: &str, iid: &str) -> ApiResult<Response> {
    call.caller.require_user()?;
    let project = call.project(project_id, ProjectAbility::Read)?;
    call.ctx.store.write(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let (issue, _) = find_visible(db, &project, iid, &viewer).map_err(|e| match e {
            ApiError::RecordNotFound => ApiError::NotFound("Issue"),
            other => other,
        })?;
        if !viewer.destroy_issue() {
            return Err(ApiError::Forbidden(None));
        }
        issues::delete(db, &issue)?;
        Ok(())
    })?;
    Ok(Response::no_content())
}
