//! `PUT /hooks/:hook_id`: changes the parameters given (administrators); none is 400 `No
//! parameters provided`.

use super::{entity, find};
use crate::api::{hooks::apply, Call};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::hooks;

pub fn update(call: &Call, hook_id: &str, params: &Params) -> ApiResult<Response> {
    let mut hook = find(call, hook_id)?;
    if params.iter().next().is_none() {
        return Err(ApiError::ParamError("No parameters provided".into()));
    }
    apply(call, &mut hook, params, false)?;
    call.ctx.store.write(|db| hooks::update(db, &hook))?;
    Ok(Response::json(200, &entity(&hook)))
}
