//! `POST /projects/:id/labels`, `POST /groups/:id/labels`: `name` and `color` required,
//! `description`, `priority` (a project's labels only); 201 and the label, 409 `Label already
//! exists` for a title the parent already sees (its own or an ancestor group's, as
//! `create_label` in `lib/api/helpers/label_helpers.rb` looks among `available_labels_for`),
//! 400 for a bad color or title.

use super::{check_title, color, entity, Need, Parent, Scope};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{labels, StoreError};

pub fn create(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    let parent = Parent::of(call, scope, Need::Admin)?;
    let name = params.required_string("name")?;
    let color_text = params.required_string("color")?;
    let description = params.string("description")?;
    let priority = params.int("priority")?.filter(|_| matches!(parent, Parent::Project(_)));
    let exists = || ApiError::Conflict("Label already exists".into());
    let label = call.ctx.store.write(|db| -> ApiResult<_> {
        let available = parent.available(db)?;
        if labels::find_by_title(db, &available, name.trim())?.is_some() {
            return Err(exists());
        }
        check_title(&name)?;
        let color = color(&color_text)?;
        let label = match labels::insert(db, parent.owner(), name.trim(), &color, description.as_deref(), priority) {
            Err(StoreError::Conflict(_)) => return Err(exists()),
            other => other?,
        };
        entity(call, db, &parent, &label, None)
    })?;
    Ok(Response::json(201, &label))
}
