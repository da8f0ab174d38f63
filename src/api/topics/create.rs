//! `POST /topics`: `name` and `title` required, `description`; administrators only. 201 and
//! the topic; a name taken (ignoring case) or out of the model's rules is a 400.

use super::{entity, taken, validate};
use crate::api::users::require_admin;
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::{topics, StoreError};

pub fn create(call: &Call, params: &Params) -> ApiResult<Response> {
    require_admin(call)?;
    let name = params.required_string("name")?;
    let title = params.required_string("title")?;
    let description = params.string("description")?;
    let topic = call.ctx.store.write(|db| -> ApiResult<_> {
        let exists = topics::find_by_name(db, &name)?.is_some();
        validate(&name, Some(&title), description.as_deref(), exists)?;
        match topics::insert(db, &name, &title, description.as_deref()) {
            Err(StoreError::Conflict(_)) => Err(taken()),
            other => Ok(other?),
        }
    })?;
    Ok(Response::json(201, &entity(&topic)))
}
