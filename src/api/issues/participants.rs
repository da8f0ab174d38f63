//! `GET /projects/:id/issues/:issue_iid/participants`: GitLab's `UserBasic` of everyone
//! taking part in the issue (`Participable`: its author, its assignees, then the authors of
//! the notes the caller sees, system notes aside), once each, in that order, in offset pages;
//! 404 for an issue the caller may not see.

use super::{find_visible, Viewer};
use crate::api::ordered::Obj;
use crate::api::{ordered, pagination, Call};
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, notes};

pub fn participants(call: &Call, project_id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project_id, ProjectAbility::Read)?;
    let page = pagination::page(call, params)?;
    let users: Vec<Obj> = call.ctx.store.read(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let (issue, assignees) = find_visible(db, &project, iid, &viewer)?;
        let query = notes::ListQuery {
            on: notes::On::Record { noteable_type: "Issue", noteable_id: issue.id },
            internal: viewer.admin_issue(),
            by_updated: false,
            ascending: true,
            limit: i64::MAX,
            offset: 0,
        };
        let note_authors = notes::list(db, &query)?.into_iter().filter(|n| !n.system).filter_map(|n| n.author_id);
        let mut ids: Vec<i64> = Vec::new();
        for id in issue.author_id.into_iter().chain(assignees).chain(note_authors) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        let mut users = Vec::new();
        for id in ids {
            if let Some(user) = store::users::find_by_id(db, id)? {
                users.push(ordered::user(call, &user));
            }
        }
        Ok(users)
    })?;
    let total = users.len();
    let shown: Vec<Obj> = users.into_iter().skip(page.offset()).take(page.per_page).collect();
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
