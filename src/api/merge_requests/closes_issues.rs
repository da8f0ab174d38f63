//! `GET /projects/:id/merge_requests/:merge_request_iid/closes_issues`: the issues of the
//! target project that the merge request's description closes (`Closes #1`, `Fixes #2`:
//! GitLab's default closing pattern, `events::closing_issues`), in the order named, as GitLab's
//! `IssueBasic` in offset pages; only those the caller may see (a confidential issue is left out
//! for the others), open or closed (semantic-release reads them once the merge closed them),
//! `[]` when there are none.

use super::find;
use crate::api::issues::{entity, Loaded, Shape, Viewer};
use crate::api::{pagination, Call};
use crate::error::ApiResult;
use crate::events::closing_issues::closed_issue_iids;
use crate::params::Params;
use crate::response::Response;
use crate::store::issues;

pub fn closes_issues(call: &Call, id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let (project, mr) = find(call, id, iid)?;
    let page = pagination::page(call, params)?;
    let iids = closed_issue_iids(mr.description.as_deref().unwrap_or(""), &project.full_path);
    let (total, entities) = call.ctx.store.read(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let mut named = Vec::new();
        for iid in iids {
            named.extend(issues::find_by_iid(db, project.id, iid)?);
        }
        let ids: Vec<i64> = named.iter().map(|issue| issue.id).collect();
        let assignees = issues::assignees_of(db, &ids)?;
        let none = Vec::new();
        let visible: Vec<_> = named
            .into_iter()
            .filter(|issue| viewer.can_read(issue, assignees.get(&issue.id).unwrap_or(&none)))
            .collect();
        let shown: Vec<_> = visible.iter().skip(page.offset()).take(page.per_page).cloned().collect();
        let loaded = Loaded::read(db, &shown)?;
        let shape = Shape { single: false, with_labels_details: false, project_id: Some(project.id) };
        Ok((visible.len(), shown.iter().map(|issue| entity(call, issue, &loaded, shape)).collect::<Vec<_>>()))
    })?;
    let mut response = Response::json(200, &entities);
    for (name, value) in pagination::offset_headers(call, page, total, &[]) {
        response = response.with_header(&name, value);
    }
    Ok(response)
}
