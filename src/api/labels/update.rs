//! `PUT /projects/:id/labels/:label_id`, `PUT /groups/:id/labels/:label_id`: `new_name`,
//! `color`, `description`, `priority` (a project's labels; at least one; a null or empty
//! `priority` unprioritizes) of one of the parent's own labels; 200 and the label, 409 `Label
//! already exists` when the new name is another label's.

use super::{check_title, color, entity, find_own, named_in, Need, Parent, Scope};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{labels, StoreError};
use serde_json::Value;

pub fn update(call: &Call, scope: Scope, id_or_title: &str, params: &Params) -> ApiResult<Response> {
    let parent = Parent::of(call, scope, Need::Admin)?;
    if !["new_name", "color", "description", "priority", "archived"].iter().any(|k| params.contains(k)) {
        return Err(ApiError::ParamError(
            "new_name, color, description, priority, archived are missing, at least one parameter must be provided"
                .into(),
        ));
    }
    let new_name = params.string("new_name")?;
    let new_color = params.string("color")?;
    let description = params.string("description")?;
    let priority = match params.raw("priority") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(Value::String(s)) if s.is_empty() => Some(None),
        Some(_) => Some(params.int("priority")?),
    };
    let exists = || ApiError::Conflict("Label already exists".into());
    let label = call.ctx.store.write(|db| -> ApiResult<_> {
        let mut label = find_own(db, &parent, id_or_title)?;
        if let Some(name) = &new_name {
            check_title(name)?;
            let name = name.trim();
            let available = parent.available(db)?;
            if name != label.title && labels::find_by_title(db, &available, name)?.is_some() {
                return Err(exists());
            }
            label.title = name.to_string();
        }
        if let Some(text) = &new_color {
            label.color = color(text)?;
        }
        if params.contains("description") {
            label.description = description.clone();
        }
        if let (Some(priority), Parent::Project(_)) = (priority, &parent) {
            label.priority = priority;
        }
        match labels::update(db, &label) {
            Err(StoreError::Conflict(_)) => Err(exists()),
            other => Ok(other?),
        }?;
        entity(call, db, &parent, &label, None)
    })?;
    Ok(Response::json(200, &label))
}

/// `PUT /projects/:id/labels`, `PUT /groups/:id/labels` (deprecated, what python-gitlab's
/// `save()` calls): the label named by `label_id` or `name` in the parameters.
pub fn update_named(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    let name = named_in(params)?;
    update(call, scope, &name, params)
}
