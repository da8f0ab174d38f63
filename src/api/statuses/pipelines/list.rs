//! `GET /projects/:id/pipelines` (`scope` `running` | `pending` | `finished` | `branches` |
//! `tags`, `status`, `ref`, `sha`, `source`, `order_by` `id` (the only order kept), `sort`
//! `desc` (default) | `asc`, pagination): PipelineBasic entities.

use super::readable;
use crate::api::ordered::{object, Node};
use crate::api::statuses::{finished, pipeline_basic};
use crate::api::{pagination, Call};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::statuses::{self, PipelineFilter};

pub fn list(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let project = readable(call, id)?;
    let ref_name = params.string("ref")?;
    let sha = params.string("sha")?;
    let status = params.string("status")?;
    let source = params.string("source")?;
    let scope = params.string("scope")?;
    if scope.as_deref().is_some_and(|s| !["running", "pending", "finished", "branches", "tags"].contains(&s)) {
        return Err(ApiError::InvalidValue("scope".into()));
    }
    if params
        .string("order_by")?
        .as_deref()
        .is_some_and(|o| !["id", "status", "ref", "updated_at", "user_id"].contains(&o))
    {
        return Err(ApiError::InvalidValue("order_by".into()));
    }
    let ascending = match params.string("sort")?.as_deref() {
        None | Some("desc") => false,
        Some("asc") => true,
        Some(_) => return Err(ApiError::InvalidValue("sort".into())),
    };
    let page = pagination::page(call, params)?;
    let filter = PipelineFilter {
        ref_name: ref_name.as_deref(),
        sha: sha.as_deref(),
        status: status.as_deref(),
        source: source.as_deref(),
    };
    let mut all = call.ctx.store.read(|db| statuses::pipelines(db, project.id, &filter, ascending))?;
    match scope.as_deref() {
        Some("running") => all.retain(|p| p.status == "running"),
        Some("pending") => all.retain(|p| p.status == "pending"),
        Some("finished") => all.retain(|p| finished(&p.status)),
        Some("tags") => {
            let repo = call.repository(&project, "Pipeline")?;
            all.retain(|p| crate::git::refs::tag(&repo, &p.ref_name).ok().flatten().is_some());
        }
        Some("branches") => {
            let repo = call.repository(&project, "Pipeline")?;
            all.retain(|p| crate::git::refs::tag(&repo, &p.ref_name).ok().flatten().is_none());
        }
        _ => {}
    }
    let shown: Vec<Node> =
        all.iter().skip(page.offset()).take(page.per_page).map(|p| object(pipeline_basic(call, &project, p))).collect();
    let mut response = Response::json(200, &Node::Arr(shown));
    response.headers.extend(pagination::offset_headers(call, page, all.len(), &[]));
    Ok(response)
}
