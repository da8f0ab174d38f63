//! Personal access tokens (GitLab's `lib/api/personal_access_tokens.rb`, `…/self_information.rb`,
//! `…/self_rotation.rb`, and the two creates of `lib/api/users.rb`; decisions D9): create for a
//! user (administrators) or for oneself (`k8s_proxy` only, as GitLab), list, get, rotate, revoke.
//! One file per operation; what they share (the entity, who may act on a token, the one create
//! path the CLI uses too, reading dates) is here.
//!
//! Who may act on a token: its owner or an administrator. GitLab answers a non-administrator
//! asking for someone else's token (or a missing one) 401 and an administrator 404 on get and
//! rotate; revoke looks the token up first (404) and answers a refusal 400.

pub mod create;
pub mod get;
pub mod list;
pub mod revoke;
pub mod rotate;

use crate::api::Call;
use crate::auth::{scopes, tokens};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_int_text, Params};
use crate::store;
use crate::store::tokens::{NewToken, PersonalToken};
use crate::store::users::User;
use forgecore_date::rfc3339;
use serde::Serialize;

/// GitLab's limit on a description (`MAX_DESCRIPTION_LENGTH`).
const MAX_DESCRIPTION_CHARS: usize = 255;

/// How much of a token an answer shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape<'t> {
    /// `PersonalAccessToken`.
    Plain,
    /// `PersonalAccessTokenWithLastUsedIps` (get): `last_used_ips`, none recorded here.
    WithLastUsedIps,
    /// `PersonalAccessTokenWithToken` (create, rotate): the token text, shown this once.
    WithToken(&'t str),
}

/// The entity, in the newest GitLab's key order (`lib/api/entities/personal_access_token.rb`):
/// a struct, whose fields serialize in order (a JSON map here would sort its keys).
#[derive(Debug, Serialize)]
pub struct Entity<'t> {
    id: i64,
    name: &'t str,
    active: bool,
    revoked: bool,
    expired: bool,
    granular: bool,
    created_at: String,
    description: Option<&'t str>,
    scopes: &'t [String],
    user_id: i64,
    last_used_at: Option<String>,
    expires_at: Option<&'t str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_used_ips: Option<[&'t str; 0]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<&'t str>,
}

/// A time as GitLab's API writes one in UTC (`2026-01-31T09:00:00.000Z`).
pub fn utc(seconds: i64) -> String {
    let text = rfc3339(seconds, 0);
    text.strip_suffix("+00:00").map_or(text.clone(), |t| format!("{t}Z"))
}

pub fn entity<'t>(token: &'t PersonalToken, shape: Shape<'t>) -> Entity<'t> {
    let expired = scopes::expired(token.expires_at.as_deref(), &store::today());
    Entity {
        id: token.id,
        name: &token.name,
        active: !token.revoked && !expired,
        revoked: token.revoked,
        expired,
        granular: false,
        created_at: utc(token.created_at),
        description: token.description.as_deref(),
        scopes: &token.scopes,
        user_id: token.user_id,
        last_used_at: token.last_used_at.map(utc),
        expires_at: token.expires_at.as_deref(),
        last_used_ips: matches!(shape, Shape::WithLastUsedIps).then_some([]),
        token: match shape {
            Shape::WithToken(text) => Some(text),
            _ => None,
        },
    }
}

/// An integer `:id` (Grape's `type: Integer`): 400 `<name> is invalid` otherwise.
pub fn integer_id(text: &str, name: &str) -> ApiResult<i64> {
    parse_int_text(text).ok_or_else(|| ApiError::InvalidParam(name.into()))
}

/// Whether the caller may see and manage `token` (its owner, or an administrator).
pub fn may_manage(call: &Call, token: &PersonalToken) -> bool {
    call.caller.user().is_some_and(|u| u.is_admin || u.id == token.user_id)
}

/// The token `:id` the signed-in caller may manage, with GitLab's refusals of get and rotate:
/// 401 for a non-administrator (someone else's token or none), 404 for an administrator.
pub fn managed(call: &Call, id: &str) -> ApiResult<PersonalToken> {
    let user = call.caller.require_user()?;
    let id = integer_id(id, "id")?;
    let token = call.ctx.store.read(|db| crate::store::tokens::find_personal(db, id))?;
    match token {
        Some(token) if may_manage(call, &token) => Ok(token),
        _ if user.is_admin => Err(ApiError::NotFound("")),
        _ => Err(ApiError::Unauthorized),
    }
}

/// The token the call was made with (the `/self` routes): 401 for callers without one.
pub fn own_token(call: &Call) -> ApiResult<PersonalToken> {
    call.caller.require_user()?;
    let grant = call.token.as_ref().ok_or(ApiError::Unauthorized)?;
    call.ctx.store.read(|db| crate::store::tokens::find_personal(db, grant.id))?.ok_or(ApiError::Unauthorized)
}

/// An optional date parameter (Grape's `type: Date`): 400 `<name> is invalid` otherwise.
pub fn date_param(params: &Params, name: &str) -> ApiResult<Option<String>> {
    match params.string(name)? {
        None => Ok(None),
        Some(text) if text.trim().is_empty() => Ok(None),
        Some(text) => scopes::parse_date(&text).map(Some).ok_or_else(|| ApiError::InvalidParam(name.into())),
    }
}

/// The expiry a new or rotated token gets: `wanted`, or `default` days from today (`None`:
/// today + the maximum lifetime, or no expiry when the maximum is 0), refused past the
/// maximum with GitLab's `Expires at must be before <today + maximum>` (400).
pub fn expiry(ctx: &Context, wanted: Option<String>, default_days: Option<i64>) -> ApiResult<Option<String>> {
    let max_days = i64::from(ctx.config.limits.token_max_lifetime_days);
    let limit = (max_days > 0).then(|| store::days_from_today(max_days));
    let date = match (wanted, default_days) {
        (Some(date), _) => Some(date),
        (None, Some(days)) => Some(store::days_from_today(match max_days {
            0 => days,
            max => days.min(max),
        })),
        (None, None) => limit.clone(),
    };
    if let (Some(date), Some(limit)) = (&date, &limit) {
        if date > limit {
            return Err(ApiError::validation(format!("Expires at must be before {limit}")));
        }
    }
    Ok(date)
}

/// What a create asks for, read and checked as GitLab's parameters and model do.
#[derive(Debug, Clone)]
pub struct Request {
    pub name: String,
    pub description: Option<String>,
    pub scopes: Vec<String>,
    /// `None`: the default expiry.
    pub expires_at: Option<String>,
}

impl Request {
    /// `name` and `scopes` required (`allowed`: the scopes the route takes), `description`,
    /// `expires_at`.
    pub fn read(params: &Params, allowed: &[&str]) -> ApiResult<Request> {
        let name = params.required_string("name")?;
        let scopes = params.string_list("scopes")?.ok_or_else(|| ApiError::MissingParam("scopes".into()))?;
        let mut unique: Vec<String> = Vec::new();
        for scope in scopes.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
            if !allowed.contains(&scope) {
                return Err(ApiError::InvalidValue("scopes".into()));
            }
            if !unique.iter().any(|s| s == scope) {
                unique.push(scope.to_string());
            }
        }
        let description = params.string("description")?;
        let expires_at = date_param(params, "expires_at")?;
        Ok(Request { name, description, scopes: unique, expires_at })
    }
}

/// Makes a token for `user` (the one create path of the API and the CLI): the model's
/// validations (`PersonalAccessToken`), then the row. Answers the token and its text.
pub fn create_token(
    ctx: &Context,
    user: &User,
    request: Request,
    default_days: Option<i64>,
) -> ApiResult<(PersonalToken, String)> {
    if request.name.trim().is_empty() {
        return Err(ApiError::validation("Name can't be blank"));
    }
    if request.description.as_ref().is_some_and(|d| d.chars().count() > MAX_DESCRIPTION_CHARS) {
        return Err(ApiError::validation("Description is too long (maximum is 255 characters)"));
    }
    if request.scopes.is_empty() {
        return Err(ApiError::validation("Scopes can't be blank"));
    }
    if !user.is_admin {
        for (scope, text) in [
            (scopes::SUDO, "Sudo can only be enabled for administrators"),
            (scopes::ADMIN_MODE, "Admin mode can only be enabled for administrators"),
        ] {
            if request.scopes.iter().any(|s| s == scope) {
                return Err(ApiError::validation(text));
            }
        }
    }
    let expires_at = expiry(ctx, request.expires_at, default_days)?;
    let text = tokens::generate(tokens::PERSONAL_PREFIX).map_err(ApiError::internal)?;
    let new = NewToken {
        user_id: user.id,
        name: &request.name,
        description: request.description.as_deref(),
        scopes: &request.scopes,
        expires_at: expires_at.as_deref(),
    };
    let digest = tokens::digest(&text);
    let token = ctx.store.write(|db| -> ApiResult<_> {
        let id = crate::store::tokens::insert_personal(db, &new, &digest)?;
        crate::store::tokens::find_personal(db, id)?.ok_or_else(|| ApiError::internal(crate::store::StoreError::NoRow))
    })?;
    Ok((token, text))
}
