//! `GET /projects/:id/pipelines/:pipeline_id/jobs`: `[]`. External statuses are not jobs in
//! GitLab (`Ci::Build` only), so an external pipeline lists none; glab then reads the commit's
//! statuses instead.

use super::{find, readable};
use crate::api::{pagination, Call};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;

pub fn jobs(call: &Call, id: &str, pipeline_id: &str, params: &Params) -> ApiResult<Response> {
    let project = readable(call, id)?;
    find(call, &project, pipeline_id)?;
    let page = pagination::page(call, params)?;
    let mut response = Response::json(200, &serde_json::json!([]));
    response.headers.extend(pagination::offset_headers(call, page, 0, &[]));
    Ok(response)
}
