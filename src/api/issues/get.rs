//! `GET /projects/:id/issues/:issue_iid` (`with_labels_details`): one issue, or 404
//! `Not found` when there is none the caller may see (a confidential issue included).

use super::{find_visible, single, Viewer};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;

pub fn get(call: &Call, project_id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project_id, ProjectAbility::Read)?;
    let entity = call.ctx.store.read(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let (issue, _) = find_visible(db, &project, iid, &viewer)?;
        single(call, db, &issue, &project, params)
    })?;
    Ok(Response::json(200, &entity))
}
