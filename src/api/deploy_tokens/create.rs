//! `POST /projects/:id/deploy_tokens`, `POST /groups/:id/deploy_tokens`: `name` and `scopes`
//! required (an array or a comma-separated text, each one of [`SCOPES`]), `expires_at` (a time;
//! none never expires), `username` (default `gitlab+deploy-token-<id>`, GitLab's format rule).

use super::{entity, owner, Action, Scope, PREFIX, SCOPES};
use crate::api::personal_access_tokens::list::time_param;
use crate::api::Call;
use crate::auth::tokens;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, tokens::NewDeployToken};

/// 201 `DeployTokenWithToken`. Model errors are `render_api_error!(message, 400)`.
pub fn create(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    let owner = owner(call, scope, Action::Manage)?;
    let name = params.required_string("name")?;
    let wanted = params.string_list("scopes")?.ok_or_else(|| ApiError::MissingParam("scopes".into()))?;
    let wanted: Vec<String> =
        wanted.iter().flat_map(|s| s.split(',')).map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
    if wanted.iter().any(|s| !SCOPES.contains(&s.as_str())) {
        return Err(ApiError::InvalidValue("scopes".into()));
    }
    // Stored in GitLab's order, once each (`DeployToken#scopes` reads its boolean columns).
    let scopes: Vec<String> = SCOPES.iter().filter(|s| wanted.iter().any(|w| w == *s)).map(|s| s.to_string()).collect();
    if scopes.is_empty() {
        return Err(ApiError::validation("Scopes can't be blank"));
    }
    let expires_at = time_param(params, "expires_at")?;
    let username = params.string("username")?.filter(|u| !u.is_empty());
    if let Some(username) = &username {
        let valid = username.len() <= 255
            && username.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'_' | b'-'));
        if !valid {
            return Err(ApiError::validation("Username can contain only letters, digits, '_', '-', '+', and '.'"));
        }
    }
    if name.trim().is_empty() {
        return Err(ApiError::validation("Name can't be blank"));
    }
    let text = tokens::generate(PREFIX).map_err(ApiError::internal)?;
    let digest = tokens::digest(&text);
    let new = NewDeployToken { owner, name: &name, username: username.as_deref(), scopes: &scopes, expires_at };
    let token = call.ctx.store.write(|db| store::tokens::insert_deploy(db, &new, &digest))?;
    Ok(Response::json(201, &entity(&token, Some(&text))))
}
