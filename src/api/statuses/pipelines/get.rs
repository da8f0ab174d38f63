//! `GET /projects/:id/pipelines/:pipeline_id` and `GET /projects/:id/pipelines/latest?ref=`
//! (the default branch when absent): the Pipeline entity; `404 Pipeline Not Found` when
//! there is none.

use super::{find, readable};
use crate::api::statuses::pipeline_entity;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::projects::Project;
use crate::store::statuses::{self, Pipeline, PipelineFilter};

fn answer(call: &Call, project: &Project, pipeline: &Pipeline) -> ApiResult<Response> {
    let tag = call
        .repository(project, "Pipeline")
        .ok()
        .and_then(|repo| crate::git::refs::tag(&repo, &pipeline.ref_name).ok().flatten())
        .is_some();
    Ok(Response::json(200, &pipeline_entity(call, project, pipeline, tag)?))
}

pub fn get(call: &Call, id: &str, pipeline_id: &str) -> ApiResult<Response> {
    let project = readable(call, id)?;
    let pipeline = find(call, &project, pipeline_id)?;
    answer(call, &project, &pipeline)
}

pub fn latest(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let project = readable(call, id)?;
    let ref_name = match params.string("ref")? {
        Some(r) => r,
        None => {
            let dir = call.git_dir(&project)?;
            crate::git::default_branch(&dir).ok_or(ApiError::NotFound("Pipeline"))?
        }
    };
    let filter = PipelineFilter { ref_name: Some(&ref_name), ..Default::default() };
    let all = call.ctx.store.read(|db| statuses::pipelines(db, project.id, &filter, false))?;
    let pipeline = all.first().ok_or(ApiError::NotFound("Pipeline"))?;
    answer(call, &project, pipeline)
}
