//! `PUT /groups/:id/hooks/:hook_id`: edits the declared, present parameters (400 `No parameters
//! provided` without any), as the project route.

use super::{administered, entity, find};
use crate::api::hooks::{apply, update::OTHERS, FLAGS};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::hooks;

pub fn update(call: &Call, group: &str, hook_id: &str, params: &Params) -> ApiResult<Response> {
    let group = administered(call, group)?;
    let mut hook = find(call, &group, hook_id)?;
    if !OTHERS.iter().chain(FLAGS.iter().map(|(f, _)| f)).any(|name| params.contains(name)) {
        return Err(ApiError::ParamError("No parameters provided".into()));
    }
    apply(call, &mut hook, params, false)?;
    call.ctx.store.write(|db| hooks::update(db, &hook))?;
    Ok(Response::json(200, &entity(&hook, true)))
}
