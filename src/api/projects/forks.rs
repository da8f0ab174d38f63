//! `GET /projects/:id/forks` (GitLab's `get ':id/forks'`, `ForkProjectsFinder`): the direct
//! forks of a project the caller may see, as `GET /projects` filters, orders and pages them.

use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;

pub fn list(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::Read)?;
    super::list::list_forks(call, project.id, params)
}
