//! `GET /projects/:id/repository/commits/:sha`: `Entities::CommitDetail` of the commit a SHA,
//! branch, tag or revision names (`stats` default true; `status` and `last_pipeline` of the
//! newest pipeline commit statuses made, else null; `project_id`). Unknown: `404 Commit Not Found`. Trailers are `{}`,
//! as GitLab's `FindCommit` reads none.

use super::{detail, find};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;

pub fn get(call: &Call, id: &str, sha: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::ReadCode)?;
    let stats = params.bool("stats")?.unwrap_or(true);
    let repo = call.repository(&project, "Commit")?;
    let info = find(&repo, sha)?;
    Ok(Response::json(200, &detail(call, &project, &repo, &info, stats)?))
}
