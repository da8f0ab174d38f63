//! `GET /projects/:id/repository/commits/:sha/statuses` (`ref`, `stage`, `name`,
//! `pipeline_id`, `all` (default false: only the latest status of each name), `order_by` `id`
//! (default) | `pipeline_id`, `sort` `asc` (default) | `desc`, pagination): the CommitStatus
//! entities. Signed-in callers only (401), who read the code (`read_commit_status`: 403 for a
//! guest of a private project); an unknown commit is `404 Commit Not Found`, a commit without
//! statuses `[]`. External statuses are all in the stage `external`.

use super::status_entity;
use crate::api::ordered::Node;
use crate::api::repository::commits;
use crate::api::{pagination, Call};
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::statuses;

pub fn list(call: &Call, id: &str, sha: &str, params: &Params) -> ApiResult<Response> {
    if matches!(call.caller, crate::auth::Caller::Anonymous) {
        return Err(ApiError::Unauthorized);
    }
    let project = call.project(id, ProjectAbility::Read)?;
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ReadCommitStatus))?;
    let ref_name = params.string("ref")?;
    let stage = params.string("stage")?;
    let name = params.string("name")?;
    let pipeline_id = params.int("pipeline_id")?;
    let all = params.bool("all")?.unwrap_or(false);
    let by_pipeline = match params.string("order_by")?.as_deref() {
        None | Some("id") => false,
        Some("pipeline_id") => true,
        Some(_) => return Err(ApiError::InvalidValue("order_by".into())),
    };
    let descending = match params.string("sort")?.as_deref() {
        None | Some("asc") => false,
        Some("desc") => true,
        Some(_) => return Err(ApiError::InvalidValue("sort".into())),
    };
    let page = pagination::page(call, params)?;
    let repo = call.repository(&project, "Commit")?;
    let sha = commits::find(&repo, sha)?.id.to_string();
    let mut found = call.ctx.store.read(|db| statuses::for_sha(db, project.id, &sha))?;
    found.retain(|s| {
        (all || !s.retried)
            && ref_name.as_ref().is_none_or(|r| &s.ref_name == r)
            && stage.as_ref().is_none_or(|st| st == "external")
            && name.as_ref().is_none_or(|n| &s.name == n)
            && pipeline_id.is_none_or(|p| s.pipeline_id == p)
    });
    if by_pipeline {
        found.sort_by_key(|s| (s.pipeline_id, s.id));
    }
    if descending {
        found.reverse();
    }
    let shown = found
        .iter()
        .skip(page.offset())
        .take(page.per_page)
        .map(|s| status_entity(call, s))
        .collect::<Result<Vec<_>, _>>()?;
    let mut response = Response::json(200, &Node::Arr(shown));
    response.headers.extend(pagination::offset_headers(call, page, found.len(), &[]));
    Ok(response)
}
