//! `GET /personal_access_tokens/:id` (its owner, administrators) and
//! `GET /personal_access_tokens/self` (the token the call is made with, whatever its scopes).

use super::{entity, managed, own_token, Shape};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;

/// 200 `PersonalAccessTokenWithLastUsedIps`; a non-administrator's refusal is 401, an
/// administrator's 404 (`lib/api/personal_access_tokens.rb`).
pub fn get(call: &Call, id: &str) -> ApiResult<Response> {
    let token = managed(call, id)?;
    Ok(Response::json(200, &entity(&token, Shape::WithLastUsedIps)))
}

/// 200 `PersonalAccessTokenWithLastUsedIps` of the caller's own token.
pub fn get_self(call: &Call) -> ApiResult<Response> {
    let token = own_token(call)?;
    Ok(Response::json(200, &entity(&token, Shape::WithLastUsedIps)))
}
