//! `GET /personal_access_tokens`: an administrator's are everyone's (`user_id` narrows them),
//! anyone else's their own (another `user_id` is 401, GitLab's `restrict_non_admins!`).
//! Filters as GitLab's `access_token_params`: `revoked`, `state` (`active`, `inactive`),
//! `search` (in names), `created_after`/`created_before`, `last_used_after`/`last_used_before`
//! (times), `expires_after`/`expires_before` (dates). Ordered by id, offset-paginated.

use super::{date_param, entity, Shape};
use crate::api::{pagination, Call};
use crate::auth::scopes;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, tokens::Filter};

pub fn list(call: &Call, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?;
    let wanted = params.int("user_id")?;
    let user_id = match wanted {
        Some(id) if !user.is_admin && id != user.id => return Err(ApiError::Unauthorized),
        Some(id) => Some(id),
        None if user.is_admin => None,
        None => Some(user.id),
    };
    let state = match params.string("state")?.as_deref() {
        None => None,
        Some("active") => Some((true, store::today())),
        Some("inactive") => Some((false, store::today())),
        Some(_) => return Err(ApiError::InvalidValue("state".into())),
    };
    let filter = Filter {
        user_id,
        revoked: params.bool("revoked")?,
        search: params.string("search")?.filter(|s| !s.is_empty()),
        created_after: time_param(params, "created_after")?,
        created_before: time_param(params, "created_before")?,
        last_used_after: time_param(params, "last_used_after")?,
        last_used_before: time_param(params, "last_used_before")?,
        expires_after: date_param(params, "expires_after")?,
        expires_before: date_param(params, "expires_before")?,
        active_on: state,
        resource: None,
    };
    let page = pagination::page(call, params)?;
    let tokens = call
        .ctx
        .store
        .read(|db| store::tokens::list_personal(db, &filter, page.per_page as i64, page.offset() as i64))?;
    let body: Vec<_> = tokens.iter().map(|t| entity(t, Shape::Plain)).collect();
    let mut response = Response::json(200, &body);
    response.headers.extend(pagination::headers_without_total(call, page, tokens.len()));
    Ok(response)
}

/// A time parameter (Grape's `DateTime`): `YYYY-MM-DD`, optionally `THH:MM[:SS[.fff]]` and `Z`
/// or an offset; seconds since the epoch. 400 `<name> is invalid` otherwise.
pub fn time_param(params: &Params, name: &str) -> ApiResult<Option<i64>> {
    let Some(text) = params.string(name)?.filter(|t| !t.trim().is_empty()) else { return Ok(None) };
    let invalid = || ApiError::InvalidParam(name.into());
    let text = text.trim();
    let date = scopes::parse_date(text).ok_or_else(invalid)?;
    let days = forgecore_date::days_from_civil(
        date[0..4].parse().map_err(|_| invalid())?,
        date[5..7].parse().map_err(|_| invalid())?,
        date[8..10].parse().map_err(|_| invalid())?,
    );
    let mut seconds = days * 86_400;
    let rest = &text[10..];
    if let Some(time) = rest.strip_prefix(['T', ' ']) {
        let (clock, offset) = match time.find(['Z', 'z', '+', '-']) {
            Some(at) => (&time[..at], &time[at..]),
            None => (time, ""),
        };
        let clock = clock.split('.').next().unwrap_or("");
        let parts: Vec<&str> = clock.split(':').collect();
        if !(2..=3).contains(&parts.len()) {
            return Err(invalid());
        }
        let number = |p: &str, max: i64| -> ApiResult<i64> {
            let n: i64 = if p.len() == 2 { p.parse().map_err(|_| invalid())? } else { return Err(invalid()) };
            if n > max {
                return Err(invalid());
            }
            Ok(n)
        };
        seconds += number(parts[0], 23)? * 3600 + number(parts[1], 59)? * 60;
        if let Some(s) = parts.get(2) {
            seconds += number(s, 60)?;
        }
        match offset {
            "" | "Z" | "z" => {}
            signed => {
                let sign = if signed.starts_with('-') { -1 } else { 1 };
                let digits: String = signed[1..].chars().filter(|c| *c != ':').collect();
                if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(invalid());
                }
                let minutes = digits[..2].parse::<i64>().map_err(|_| invalid())? * 60
                    + digits[2..].parse::<i64>().map_err(|_| invalid())?;
                seconds -= sign * minutes * 60;
            }
        }
    } else if !rest.is_empty() {
        return Err(invalid());
    }
    Ok(Some(seconds))
}
