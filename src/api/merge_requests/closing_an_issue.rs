//! `GET /projects/:id/issues/:issue_iid/closed_by` (an Issues route, kept with the merge
//! requests it answers so that imports run one way: merge requests use issues): the merge requests of the project that
//! close the issue when merged (GitLab's `MergeRequestIssue.link_type_closes`, which it keeps
//! from each merge request's description: here read from the descriptions themselves with
//! the closing pattern `closes_issues` uses, `events::closing_issues`), whatever their state,
//! by id, as `MergeRequestBasic` in offset pages; `[]` for a caller who may not read the
//! project's merge requests (GitLab's `MergeRequestsFinder` finds none for them).

use super::{basic, People, Within};
use crate::api::issues::{find_visible, Viewer};
use crate::api::{pagination, Call};
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::ApiResult;
use crate::events::closing_issues::closed_issue_iids;
use crate::params::Params;
use crate::response::Response;
use crate::store::merge_requests::{self, ListQuery, MergeRequest};
use crate::store::projects::Project;
use crate::store::Db;

/// The merge requests of `project` whose description closes its issue `iid`, by id.
pub fn closing(db: &mut Db, project: &Project, iid: i64) -> ApiResult<Vec<MergeRequest>> {
    // Every closing reference names the iid's digits; the pattern decides among those.
    let query = ListQuery {
        projects: Some(vec![project.id]),
        search: Some(iid.to_string()),
        search_description: true,
        ascending: true,
        limit: i64::MAX,
        ..ListQuery::default()
    };
    let mut found: Vec<MergeRequest> = merge_requests::list(db, &query)?
        .into_iter()
        .filter(|mr| closed_issue_iids(mr.description.as_deref().unwrap_or(""), &project.full_path).contains(&iid))
        .collect();
    found.sort_by_key(|mr| mr.id);
    Ok(found)
}

pub fn closed_by(call: &Call, project_id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project_id, ProjectAbility::Read)?;
    let page = pagination::page(call, params)?;
    let (shown, total) = call.ctx.store.read(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let (issue, _) = find_visible(db, &project, iid, &viewer)?;
        if permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ReadMergeRequest).is_err() {
            return Ok((Vec::new(), 0));
        }
        let all = closing(db, &project, issue.iid)?;
        let page_of: Vec<&MergeRequest> = all.iter().skip(page.offset()).take(page.per_page).collect();
        let people = People::of(db, &page_of)?;
        let mut shown = Vec::new();
        for mr in page_of {
            shown.push(basic(call, &project, mr, &people, &Within::Project(project.id))?);
        }
        Ok((shown, all.len()))
    })?;
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
