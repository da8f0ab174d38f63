//! `POST /projects/:id/labels`: `name` and `color` required, `description`, `priority`;
//! 201 and the label, 409 `Label already exists` for a title the project has
//! (`create_label` in `lib/api/helpers/label_helpers.rb`), 400 for a bad color or title.

use super::{check_title, color, entity, project};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{labels, StoreError};

pub fn create(call: &Call, project_id: &str, params: &Params) -> ApiResult<Response> {
    let project = project(call, project_id, ProjectAbility::AdminLabel)?;
    let name = params.required_string("name")?;
    let color_text = params.required_string("color")?;
    let description = params.string("description")?;
    let priority = params.int("priority")?;
    let exists = || ApiError::Conflict("Label already exists".into());
    let label = call.ctx.store.write(|db| -> ApiResult<_> {
        if labels::find_by_title(db, project.id, name.trim())?.is_some() {
            return Err(exists());
        }
        check_title(&name)?;
        let color = color(&color_text)?;
        match labels::insert(db, project.id, name.trim(), &color, description.as_deref(), priority) {
            Err(StoreError::Conflict(_)) => Err(exists()),
            other => Ok(other?),
        }
    })?;
    Ok(Response::json(201, &entity(&label, None)))
}
