//! The minimal pipeline surface tools read (`lib/api/ci/pipelines.rb`): list, latest, get and
//! a pipeline's jobs, one file each. Pipelines here are the external ones commit statuses
//! make; reading them is `read_pipeline` (whoever reads the code).

pub mod get;
pub mod jobs;
pub mod list;

pub use get::{get, latest};
pub use jobs::jobs;
pub use list::list;

use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::store::projects::Project;
use crate::store::statuses::{self, Pipeline};

/// The project, for a caller who may read its pipelines.
fn readable(call: &Call, id: &str) -> ApiResult<Project> {
    let project = call.project(id, ProjectAbility::Read)?;
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ReadCommitStatus))?;
    Ok(project)
}

/// The pipeline `:pipeline_id` of the project, else `404 Pipeline Not Found`.
fn find(call: &Call, project: &Project, pipeline_id: &str) -> ApiResult<Pipeline> {
    let id: i64 = pipeline_id.parse().map_err(|_| ApiError::InvalidParam("pipeline_id".into()))?;
    call.ctx.store.read(|db| statuses::pipeline(db, project.id, id))?.ok_or(ApiError::NotFound("Pipeline"))
}
