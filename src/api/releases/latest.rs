//! `GET /projects/:id/releases/permalink/latest[/*suffix]`: 302 to
//! `/api/v4/projects/<id>/releases/<url-encoded tag>[/suffix]` of the latest release by
//! `released_at`, the query kept except `order_by` (V `lib/api/releases.rb`); 404 `404 Not
//! Found` when the project has none.

use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store::releases::{self, Order};

pub fn latest(call: &Call, id: &str, suffix: Option<&str>) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::ReadRelease)?;
    call.ctx
        .store
        .read(|db| crate::auth::permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ReadCode))?;
    let all = call.ctx.store.read(|db| releases::list(db, &[project.id], Order::ReleasedAt, false))?;
    let latest = all.first().ok_or(ApiError::NotFound(""))?;
    let mut location =
        format!("{}/api/v4/projects/{}/releases/{}", call.base_url, project.id, super::segment(&latest.tag_name));
    if let Some(suffix) = suffix {
        location.push('/');
        location.push_str(&suffix.split('/').map(super::segment).collect::<Vec<_>>().join("/"));
    }
    let query: Vec<String> = call
        .origin
        .query
        .iter()
        .filter(|(name, _)| name != "order_by")
        .map(|(name, value)| format!("{}={}", super::segment(name), super::segment(value)))
        .collect();
    if !query.is_empty() {
        location.push('?');
        location.push_str(&query.join("&"));
    }
    Ok(Response::empty(302).with_header("Location", location))
}
