//! `GET /projects/:id/merge_requests/:merge_request_iid/pipelines`: GitLab's
//! `Ci::PipelinesForMergeRequestFinder` (`MergeRequest#all_pipelines`): the source project's
//! pipelines of the source branch whose commit is one of the merge request's (every diff
//! version's head and the latest version's commits), newest first, as PipelineBasic entities
//! in offset pages. Here they are the external pipelines commit statuses made (D12).

use super::{find, Shas};
use crate::api::ordered::{object, Node};
use crate::api::statuses::pipeline_basic;
use crate::api::{pagination, Call};
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::statuses::{self, PipelineFilter};
use crate::store::{self, merge_requests};
use std::collections::HashSet;

pub fn pipelines(call: &Call, id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let (project, mr) = find(call, id, iid)?;
    // `authorize! :read_pipeline`.
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ReadCommitStatus))?;
    let page = pagination::page(call, params)?;
    let mut shas: HashSet<String> = HashSet::new();
    let versions = call.ctx.store.read(|db| merge_requests::versions(db, mr.id))?;
    shas.extend(versions.into_iter().map(|v| v.head_sha));
    if let Some(latest) = Shas::latest(&mr)? {
        let repo = call.repository(&project, "Project")?;
        let ids = call.git("merge_request_commits", || latest.commits(&repo))?;
        shas.extend(ids.iter().map(|id| id.to_string()));
    }
    // A fork's merge request: the source project's pipelines.
    let source = match mr.source_project_id {
        Some(id) if id != project.id => call.ctx.store.read(|db| store::projects::find_by_id(db, id))?,
        Some(_) => Some(project.clone()),
        None => None,
    };
    let Some(source) = source else {
        let mut response = Response::json(200, &Node::Arr(Vec::new()));
        response.headers.extend(pagination::offset_headers(call, page, 0, &[]));
        return Ok(response);
    };
    let filter = PipelineFilter { ref_name: Some(&mr.source_branch), ..Default::default() };
    let mut all = call.ctx.store.read(|db| statuses::pipelines(db, source.id, &filter, false))?;
    all.retain(|p| shas.contains(&p.sha));
    let shown: Vec<Node> =
        all.iter().skip(page.offset()).take(page.per_page).map(|p| object(pipeline_basic(call, &source, p))).collect();
    let mut response = Response::json(200, &Node::Arr(shown));
    response.headers.extend(pagination::offset_headers(call, page, all.len(), &[]));
    Ok(response)
}
