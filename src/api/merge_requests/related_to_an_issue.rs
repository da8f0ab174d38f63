//! `GET /projects/:id/issues/:issue_iid/related_merge_requests` (an Issues route, kept with
//! the merge requests it answers, as `closing_an_issue`): the merge requests of the
//! project that the issue's description and notes refer to (`!12`, `group/project!12`, or a
//! link to `.../-/merge_requests/12`: GitLab's `Issues::ReferencedMergeRequestsService`, which
//! extracts the references of the issue and of all its notes, system notes included), those
//! the caller may read, by iid, as the full `MergeRequest` entity without `subscribed`
//! (`include_subscribed: false`), in offset pages. GitLab's persisted "related" links
//! (`explicit_mr_work_item_relations`, behind a feature flag) are not kept here.

use super::{full, Extras, People};
use crate::api::issues::{find_visible, Viewer};
use crate::api::{pagination, Call};
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::{merge_requests, notes};
use regex::Regex;
use std::sync::OnceLock;

fn reference() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(
            r"https?://[^\s]+?/(?P<lpath>[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)+)/-/merge_requests/(?P<liid>\d+)|(?:^|[^A-Za-z0-9_/!])(?P<path>[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)+)?!(?P<iid>\d+)",
        )
        .unwrap_or_else(|e| panic!("the merge request reference pattern compiles: {e}"))
    })
}

/// The iids of the merge requests of project `full_path` that `text` refers to, in order.
pub fn referenced_iids(text: &str, full_path: &str) -> Vec<i64> {
    let mut out = Vec::new();
    for found in reference().captures_iter(text) {
        let (path, iid, link) = match (found.name("liid"), found.name("iid")) {
            (Some(iid), _) => (found.name("lpath").map(|p| p.as_str()), iid.as_str(), true),
            (None, Some(iid)) => (found.name("path").map(|p| p.as_str()), iid.as_str(), false),
            (None, None) => continue,
        };
        let ours = match path {
            None => true,
            Some(path) => {
                path.eq_ignore_ascii_case(full_path)
                    || (link && path.to_ascii_lowercase().ends_with(&format!("/{}", full_path.to_ascii_lowercase())))
            }
        };
        if let (true, Ok(iid)) = (ours, iid.parse::<i64>()) {
            if iid > 0 && !out.contains(&iid) {
                out.push(iid);
            }
        }
    }
    out
}

pub fn related(call: &Call, project_id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project_id, ProjectAbility::Read)?;
    let page = pagination::page(call, params)?;
    let found = call.ctx.store.read(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let (issue, _) = find_visible(db, &project, iid, &viewer)?;
        if permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ReadMergeRequest).is_err() {
            return Ok(Vec::new());
        }
        let query = notes::ListQuery {
            on: notes::On::Record { noteable_type: "Issue", noteable_id: issue.id },
            internal: viewer.admin_issue(),
            by_updated: false,
            ascending: true,
            limit: i64::MAX,
            offset: 0,
        };
        let mut iids = referenced_iids(issue.description.as_deref().unwrap_or(""), &project.full_path);
        for note in notes::list(db, &query)? {
            for iid in referenced_iids(&note.body, &project.full_path) {
                if !iids.contains(&iid) {
                    iids.push(iid);
                }
            }
        }
        iids.sort_unstable();
        let mut found = Vec::new();
        for iid in iids {
            found.extend(merge_requests::find(db, project.id, iid)?);
        }
        Ok(found)
    })?;
    let total = found.len();
    let page_of: Vec<_> = found.iter().skip(page.offset()).take(page.per_page).collect();
    let people = call.ctx.store.read(|db| People::of(db, &page_of))?;
    let mut shown = Vec::new();
    for mr in page_of {
        let mut entity = full(call, &project, mr, &people, Extras::default())?;
        entity.remove("subscribed");
        shown.push(entity);
    }
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::referenced_iids;

    #[test]
    fn references_to_the_projects_merge_requests() {
        let text = "See !3, g/p!5 and other/q!7; https://h/g/p/-/merge_requests/9 and a!b!11, then !3 again.";
        assert_eq!(referenced_iids(text, "g/p"), vec![3, 5, 9]);
        assert_eq!(referenced_iids("!1", "g/p"), vec![1]);
        assert_eq!(referenced_iids("no refs here #4", "g/p"), Vec::<i64>::new());
    }
}
