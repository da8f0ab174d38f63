//! `GET /projects/:id/repository/commits/:sha/sequence[?first_parent=]`: `{"count": n}`, the
//! commits reachable from the commit (`git rev-list --count [--first-parent] <sha>`).
//! Unknown: `404 Commit Not Found`.

use super::find;
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiResult, GitResultExt};
use crate::git::log;
use crate::params::Params;
use crate::response::Response;
use serde_json::json;

pub fn sequence(call: &Call, id: &str, sha: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::ReadCode)?;
    let first_parent = params.bool("first_parent")?.unwrap_or(false);
    let repo = call.repository(&project, "Commit")?;
    let target = find(&repo, sha)?.id;
    let count = log::count(&repo, target, first_parent).or_broken()?;
    Ok(Response::json(200, &json!({"count": count})))
}
