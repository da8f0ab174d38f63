//! GitLab's `PipelineBasic` (`id`, `iid`, `project_id`, `sha`, `ref`, `status`, `source`,
//! `created_at`, `updated_at`, `web_url`): the fields the pipelines' entities start with, and
//! the value a commit's `last_pipeline` shows. Apart from the family's entities so that the
//! commits family can show it without depending on them.

use crate::api::Call;
use crate::store::projects::Project;
use crate::store::statuses::Pipeline;
use forgecore_date::rfc3339;
use serde_json::{Map, Value};

/// The fields, in GitLab's order.
pub fn fields(call: &Call, project: &Project, pipeline: &Pipeline) -> Vec<(&'static str, Value)> {
    vec![
        ("id", pipeline.id.into()),
        ("iid", pipeline.iid.into()),
        ("project_id", pipeline.project_id.into()),
        ("sha", pipeline.sha.clone().into()),
        ("ref", pipeline.ref_name.clone().into()),
        ("status", pipeline.status.clone().into()),
        ("source", pipeline.source.clone().into()),
        ("created_at", rfc3339(pipeline.created_at, 0).into()),
        ("updated_at", rfc3339(pipeline.updated_at, 0).into()),
        ("web_url", format!("{}/-/pipelines/{}", call.web_url(&project.full_path), pipeline.id).into()),
    ]
}

/// The same as one value (a commit's `last_pipeline`).
pub fn value(call: &Call, project: &Project, pipeline: &Pipeline) -> Value {
    Value::Object(fields(call, project, pipeline).into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Map<_, _>>())
}
