//! `GET /projects/:id/releases` (`order_by` `released_at` (default) | `created_at`, `sort`
//! `desc` (default) | `asc`, `include_html_description`, offset pagination) and
//! `GET /groups/:id/releases` (`sort`, `simple`): the releases the caller may read, as
//! GitLab's `read_release` shows them.

use super::{entity, repository, Rights};
use crate::api::ordered::Node;
use crate::api::{pagination, Call};
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::releases::{self, Order};

fn order(params: &Params) -> ApiResult<(Order, bool)> {
    let order = match params.string("order_by")?.as_deref() {
        None | Some("released_at") => Order::ReleasedAt,
        Some("created_at") => Order::CreatedAt,
        Some(_) => return Err(ApiError::InvalidValue("order_by".into())),
    };
    let ascending = match params.string("sort")?.as_deref() {
        None | Some("desc") => false,
        Some("asc") => true,
        Some(_) => return Err(ApiError::InvalidValue("sort".into())),
    };
    Ok((order, ascending))
}

pub fn list(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::ReadRelease)?;
    let (order, ascending) = order(params)?;
    let html = params.bool("include_html_description")?.unwrap_or(false);
    let page = pagination::page(call, params)?;
    let all = call.ctx.store.read(|db| releases::list(db, &[project.id], order, ascending))?;
    let rights = Rights::of(call, &project)?;
    let repo = if rights.read_code { repository(call, &project) } else { None };
    let shown = all
        .iter()
        .skip(page.offset())
        .take(page.per_page)
        .map(|release| entity(call, &project, repo.as_ref(), release, rights, html))
        .collect::<ApiResult<Vec<_>>>()?;
    let mut response = Response::json(200, &Node::Arr(shown));
    response.headers.extend(pagination::offset_headers(call, page, all.len(), &[]));
    Ok(response)
}

/// The releases of the projects of a group (and its subgroups) the caller may read, newest
/// first by `released_at` unless `sort=asc`.
pub fn list_of_group(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let group = call.group(id)?;
    let ascending = match params.string("sort")?.as_deref() {
        None | Some("desc") => false,
        Some("asc") => true,
        Some(_) => return Err(ApiError::InvalidValue("sort".into())),
    };
    let page = pagination::page(call, params)?;
    let projects = call.ctx.store.read(|db| -> ApiResult<_> {
        let mut visible = Vec::new();
        let groups = crate::store::groups::group_and_descendant_ids(db, group.id)?;
        for id in crate::store::projects::ids_in_groups(db, &groups)? {
            let Some(project) = crate::store::projects::find_by_id(db, id)? else { continue };
            if project.marked_for_deletion_at.is_none()
                && permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ReadRelease).is_ok()
            {
                visible.push(project);
            }
        }
        Ok(visible)
    })?;
    let ids: Vec<i64> = projects.iter().map(|p| p.id).collect();
    let all = call.ctx.store.read(|db| releases::list(db, &ids, Order::ReleasedAt, ascending))?;
    let mut shown = Vec::new();
    for release in all.iter().skip(page.offset()).take(page.per_page) {
        let Some(project) = projects.iter().find(|p| p.id == release.project_id) else { continue };
        let rights = Rights::of(call, project)?;
        let repo = if rights.read_code { repository(call, project) } else { None };
        shown.push(entity(call, project, repo.as_ref(), release, rights, false)?);
    }
    let mut response = Response::json(200, &Node::Arr(shown));
    response.headers.extend(pagination::offset_headers(call, page, all.len(), &[]));
    Ok(response)
}
