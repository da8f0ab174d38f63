//! `GET /projects/:id` (decisions D7): a minimal project object, enough for clients that load
//! a project before using it.

use super::Call;
use crate::auth::permissions::ProjectAbility;
use crate::context::Context;
use crate::error::ApiResult;
use crate::git;
use crate::response::Response;
use crate::store::projects::Project;
use serde_json::{json, Value};

/// The entity of `project`, its `web_url` under `base_url` (the default branch is `null` where
/// this host cannot see the repository).
pub fn entity(ctx: &Context, base_url: &str, project: &Project) -> Value {
    let namespace = project.full_path.rsplit_once('/').map(|(ns, _)| ns).unwrap_or("");
    json!({
        "id": project.id,
        "name": project.name,
        "path": project.path,
        "path_with_namespace": project.full_path,
        "name_with_namespace": project.full_path.replace('/', " / "),
        "namespace": {"full_path": namespace},
        "default_branch": super::call::git_dir(ctx, project).ok().and_then(git::default_branch),
        "visibility": project.visibility.as_str(),
        "forked_from_project": project.forked_from_id.map(|id| json!({"id": id})),
        "web_url": format!("{base_url}/{}", project.full_path),
    })
}

pub fn get(call: &Call, id: &str) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::Read)?;
    Ok(Response::json(200, &entity(call.ctx, &call.base_url, &project)))
}
