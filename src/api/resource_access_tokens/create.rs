//! `POST /projects/:id/access_tokens`, `POST /groups/:id/access_tokens`, as GitLab's
//! `ResourceAccessTokens::CreateService`: a bot user (`user_type: project_bot`, username
//! `<kind>_<id>_bot_<32 hex>` from `Gitlab::Utils::UsernameAndEmailGenerator`, email
//! `<username>@noreply.<host>`, name the token's name, external when the creator is), made a
//! member of the resource at `access_level` (default Maintainer), and a personal access token
//! of the bot with the scopes. A failure after the bot exists deletes the bot.

use super::{entity, Resource, Scope, BOT_SCOPES};
use crate::api::personal_access_tokens as pat;
use crate::api::Call;
use crate::auth::roles::MAINTAINER;
use crate::auth::{roles, tokens};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, members::NewMember};

/// 201 `ResourceAccessTokenWithToken`. Refusals are GitLab's `bad_request!(message)`: 400
/// `{"message":"400 Bad request - <message>"}`.
pub fn create(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let resource = Resource::find(call, scope)?;
    let request = pat::Request::read(params, BOT_SCOPES)?;
    let access_level = match params.int("access_level")? {
        None => MAINTAINER,
        // `Gitlab::Access.options_with_owner`: Guest to Owner, Planner included.
        Some(level) if roles::ACCESS_LEVELS.contains(&level) => level,
        Some(_) => return Err(ApiError::InvalidValue("access_level".into())),
    };
    let creator_is_bot = call.ctx.store.read(|db| store::tokens::is_bot(db, user.id))?;
    if !resource.allowed || creator_is_bot {
        return Err(ApiError::BadRequest(format!(
            "User does not have permission to create {} access token",
            resource.kind
        )));
    }
    // `validate_access_level`: the creator's own level must encompass the token's.
    if access_level > resource.level {
        return Err(ApiError::BadRequest(
            "Access level of the token contains permissions not held by the creating user".into(),
        ));
    }
    let username =
        format!("{}_{}_bot_{}", resource.kind, resource.id, tokens::random_hex(16).map_err(ApiError::internal)?);
    let email = format!("{username}@noreply.{}", host(&call.base_url));
    let name = if request.name.trim().is_empty() { format!("{} bot", resource.name) } else { request.name.clone() };
    let bot = call.ctx.store.write(|db| -> ApiResult<_> {
        let bot = store::tokens::insert_bot(db, &username, &name, &email, user.external)?;
        store::members::insert(
            db,
            &NewMember {
                source: resource.source(),
                user_id: bot.id,
                access_level,
                member_role_id: None,
                expires_at: None,
                created_by: Some(user.id),
            },
        )?;
        Ok(bot)
    })?;
    let made = pat::create_token(call.ctx, &bot, request, None).and_then(|(token, text)| {
        call.ctx.store.write(|db| store::tokens::set_resource(db, token.id, resource.kind, resource.id))?;
        let token = call
            .ctx
            .store
            .read(|db| store::tokens::find_personal(db, token.id))?
            .ok_or_else(|| ApiError::internal(store::StoreError::NoRow))?;
        Ok((token, text))
    });
    let (token, text) = match made {
        Ok(made) => made,
        Err(error) => {
            call.ctx.store.write(|db| store::users::delete(db, bot.id))?;
            return Err(match error {
                ApiError::Validation(serde_json::Value::String(message)) => ApiError::BadRequest(message),
                other => other,
            });
        }
    };
    Ok(Response::json(201, &entity(call, &resource, &token, Some(&text))?))
}

/// The host of a base URL (`https://forge.example:8443/x` -> `forge.example`).
fn host(base_url: &str) -> &str {
    let rest = base_url.split_once("://").map_or(base_url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    if authority.starts_with('[') {
        return authority.split(']').next().map_or("localhost", |h| h.trim_start_matches('['));
    }
    match authority.split(':').next() {
        Some("") | None => "localhost",
        Some(host) => host,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hosts_of_base_urls() {
        assert_eq!(super::host("https://forge.example:8443/api"), "forge.example");
        assert_eq!(super::host("http://127.0.0.1:3000"), "127.0.0.1");
        assert_eq!(super::host(""), "localhost");
    }
}
