//! `GET /projects/:id/labels/:label_id`: one label by id or title, or 404 `Label Not Found`.

use super::{entity, find, project};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::response::Response;

pub fn get(call: &Call, project_id: &str, id_or_title: &str) -> ApiResult<Response> {
    let project = project(call, project_id, ProjectAbility::Read)?;
    let label = call.ctx.store.read(|db| find(db, &project, id_or_title))?;
    Ok(Response::json(200, &entity(&label, None)))
}
