//! `PUT` and `DELETE /projects/:id/hooks/:hook_id/custom_headers/:key`
//! (`lib/api/hooks/custom_headers.rb`): sets one custom header (`value` required; a name or
//! value the schema refuses is 422 `Illegal key or value`) or removes one (none by that name:
//! 404 `404 Custom header Not Found`); 204 both. Values are never answered.

use super::{administered, find};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::hooks;

pub fn valid(key: &str, value: &str) -> bool {
    !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        && !value.is_empty()
        && value.chars().count() <= 2048
        && !value.contains(['\r', '\n', '\0'])
}

pub fn set(call: &Call, project: &str, hook_id: &str, key: &str, params: &Params) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let mut hook = find(call, &project, hook_id)?;
    let value = params.required_text("value")?;
    hook.custom_headers.insert(key.to_string(), value.clone());
    if !valid(key, &value) || hook.custom_headers.len() > 20 {
        return Err(ApiError::UnprocessableError("Illegal key or value".into()));
    }
    call.ctx.store.write(|db| hooks::update(db, &hook))?;
    Ok(Response::no_content())
}

pub fn unset(call: &Call, project: &str, hook_id: &str, key: &str) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let mut hook = find(call, &project, hook_id)?;
    if hook.custom_headers.remove(key).is_none() {
        return Err(ApiError::NotFound("Custom header"));
    }
    call.ctx.store.write(|db| hooks::update(db, &hook))?;
    Ok(Response::no_content())
}
