//! `GET /projects/:id/merge_requests/:merge_request_iid/commits`: the commits of the latest
//! diff version, `git log base..head` (newest first), in offset pages with totals (GitLab's
//! `total_count: commits_count`). A merge request without a version has none.

use super::{commit_entities, find, Shas};
use crate::api::{pagination, Call};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;

pub fn commits(call: &Call, id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let (project, mr) = find(call, id, iid)?;
    let page = pagination::page(call, params)?;
    let (ids, entities) = match Shas::latest(&mr)? {
        None => (Vec::new(), Vec::new()),
        Some(shas) => {
            let repo = call.repository(&project, "Project")?;
            let ids = call.git("merge_request_commits", || shas.commits(&repo))?;
            let shown: Vec<_> = ids.iter().skip(page.offset()).take(page.per_page).copied().collect();
            let entities = commit_entities(call, &project, &repo, &shown)?;
            (ids, entities)
        }
    };
    let mut response = Response::json(200, &entities);
    for (name, value) in pagination::offset_headers(call, page, ids.len(), &[]) {
        response = response.with_header(&name, value);
    }
    Ok(response)
}
