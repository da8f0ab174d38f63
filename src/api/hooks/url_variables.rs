//! `PUT` and `DELETE /projects/:id/hooks/:hook_id/url_variables/:key`
//! (`lib/api/hooks/url_variables.rb`): sets one URL variable (`value` required; a key or value
//! the schema refuses is 422 `Illegal key or value`) or removes one (none by that key: 404
//! `404 URL variable Not Found`); 204 both.

use super::{administered, find};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::hooks;

pub fn valid(key: &str, value: &str) -> bool {
    key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !value.is_empty()
        && value.chars().count() <= 100
}

pub fn set(call: &Call, project: &str, hook_id: &str, key: &str, params: &Params) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let mut hook = find(call, &project, hook_id)?;
    let value = params.required_text("value")?;
    hook.url_variables.insert(key.to_string(), value.clone());
    if !valid(key, &value) || hook.url_variables.len() > 20 {
        return Err(ApiError::UnprocessableError("Illegal key or value".into()));
    }
    call.ctx.store.write(|db| hooks::update(db, &hook))?;
    Ok(Response::no_content())
}

pub fn unset(call: &Call, project: &str, hook_id: &str, key: &str) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let mut hook = find(call, &project, hook_id)?;
    if hook.url_variables.remove(key).is_none() {
        return Err(ApiError::NotFound("URL variable"));
    }
    call.ctx.store.write(|db| hooks::update(db, &hook))?;
    Ok(Response::no_content())
}
