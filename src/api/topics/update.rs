//! `PUT /topics/:id`: `name`, `title`, `description`, each optional; administrators only. A new
//! name is the topic's projects' too. 200 and the topic.

use super::{entity, find, id, validate};
use crate::api::users::require_admin;
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::topics;

pub fn update(call: &Call, topic_id: &str, params: &Params) -> ApiResult<Response> {
    require_admin(call)?;
    let topic_id = id(topic_id, "id")?;
    let (name, title, description) = (params.string("name")?, params.string("title")?, params.string("description")?);
    let topic = call.ctx.store.write(|db| -> ApiResult<_> {
        let mut topic = find(db, topic_id)?;
        if let Some(name) = &name {
            let taken = topics::find_by_name(db, name)?.is_some_and(|other| other.id != topic.id);
            // The model checks the title only on create: an update may leave it as it is.
            validate(name, None, description.as_deref(), taken)?;
            topic.name = name.clone();
        } else {
            validate(&topic.name, None, description.as_deref(), false)?;
        }
        if let Some(title) = &title {
            topic.title = title.clone();
        }
        if description.is_some() {
            topic.description = description.clone();
        }
        topics::update(db, &topic)?;
        find(db, topic_id)
    })?;
    Ok(Response::json(200, &entity(&topic)))
}
