//! Token scopes, GitLab's (`lib/gitlab/auth.rb`), and the one check that serves REST, the typed
//! exports and git over HTTP (decisions D9).
//!
//! - A route declares what it needs in the router table ([`Need`]): by default `api` or
//!   `read_api` for GET and HEAD, `api` for other methods (GitLab's `API::API` registrations);
//!   a route may add one scope (`read_user` on users GETs, `read_repository` on files GETs,
//!   `self_rotate` on self-rotation) or take any scope (`/personal_access_tokens/self`). A token
//!   passes when any of its scopes is among the route's ([`check`]); otherwise GitLab's 403
//!   `insufficient_scope` naming the route's scopes.
//! - git over HTTP follows `Gitlab::Auth.abilities_for_scopes`: `api`, `read_api`,
//!   `read_repository` and `write_repository` may fetch; `api` and `write_repository` may push
//!   ([`may_fetch`], [`may_push`]).
//! - Expiry: a token whose `expires_at` date has come (`expires_at <= today`, UTC: GitLab's
//!   `expires_at <= Time.current` with a date, which is its midnight) is expired ([`expired`]).
//!
//! Only personal access tokens have scopes; job tokens are bound to their project and keep
//! what they could do, and anonymous callers have no token to check.

use crate::error::{ApiError, ApiResult};
use crate::store::tokens::Grant;

pub const API: &str = "api";
pub const READ_API: &str = "read_api";
pub const READ_USER: &str = "read_user";
pub const READ_REPOSITORY: &str = "read_repository";
pub const WRITE_REPOSITORY: &str = "write_repository";
pub const SUDO: &str = "sudo";
pub const SELF_ROTATE: &str = "self_rotate";
pub const K8S_PROXY: &str = "k8s_proxy";
pub const ADMIN_MODE: &str = "admin_mode";

/// The scopes a personal access token may have here, in GitLab's order (`API_SCOPES`,
/// `REPOSITORY_SCOPES`, `ADMIN_SCOPES`). `k8s_proxy` and `admin_mode` are accepted and stored
/// (the first is all `POST /user/personal_access_tokens` may make); they open no route here.
pub const AVAILABLE: &[&str] =
    &[API, READ_API, READ_USER, K8S_PROXY, SELF_ROTATE, READ_REPOSITORY, WRITE_REPOSITORY, SUDO, ADMIN_MODE];

/// The scopes only an administrator's token may have (`Sudo can only be enabled for
/// administrators`).
pub const ADMIN_ONLY: &[&str] = &[SUDO, ADMIN_MODE];

/// What a token without scopes gets (`Gitlab::Auth::DEFAULT_SCOPES`).
pub const DEFAULT: &[&str] = &[API];

/// The texts of GitLab's `invalid_token` answers (`lib/gitlab/auth/auth_finders.rb`).
pub const EXPIRED: &str = "Token is expired. You can either do re-authorization or token refresh.";
pub const REVOKED: &str = "Token was revoked. You have to re-authorize from the user.";

/// What a route needs of a token, declared in the router table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// `api`, and `read_api` too for GET and HEAD.
    Default,
    /// The default and one more scope.
    Also(&'static str),
    /// Any scope at all.
    Any,
}

impl Need {
    /// The scopes that let a token through, for `method` (`None`: any scope does).
    pub fn scopes(&self, method: &str) -> Option<Vec<&'static str>> {
        let mut scopes = vec![API];
        if matches!(method, "GET" | "HEAD") {
            scopes.push(READ_API);
        }
        match self {
            Need::Default => {}
            Need::Also(scope) => scopes.push(scope),
            Need::Any => return None,
        }
        Some(scopes)
    }
}

/// Whether `grant` (the token of a call, `None` for callers without one) passes `need` on a
/// `method` route; 403 `insufficient_scope` naming the route's scopes when it does not.
pub fn check(grant: Option<&Grant>, need: Need, method: &str) -> ApiResult<()> {
    let Some(grant) = grant else { return Ok(()) };
    match need.scopes(method) {
        None => Ok(()),
        Some(scopes) if grant.scopes.iter().any(|s| scopes.contains(&s.as_str())) => Ok(()),
        Some(scopes) => Err(ApiError::InsufficientScope(scopes.join(" "))),
    }
}

/// Whether `grant` has `scope` (callers without a token: no).
pub fn has(grant: Option<&Grant>, scope: &str) -> bool {
    grant.is_some_and(|g| g.scopes.iter().any(|s| s == scope))
}

/// Whether a token with these scopes may fetch or clone (`download_code`).
pub fn may_fetch(scopes: &[String]) -> bool {
    scopes.iter().any(|s| [API, READ_API, READ_REPOSITORY, WRITE_REPOSITORY].contains(&s.as_str()))
}

/// Whether a token with these scopes may push (`push_code`).
pub fn may_push(scopes: &[String]) -> bool {
    scopes.iter().any(|s| [API, WRITE_REPOSITORY].contains(&s.as_str()))
}

/// Whether a token with this expiry date is expired on `today` (both `YYYY-MM-DD`).
pub fn expired(expires_at: Option<&str>, today: &str) -> bool {
    expires_at.is_some_and(|date| date <= today)
}

/// A `YYYY-MM-DD` date (Grape's `Date` coercion takes ISO 8601 dates; a time after the date is
/// dropped, as `Date.parse` does), normalised; `None` when it is not a real date.
pub fn parse_date(text: &str) -> Option<String> {
    let date = text.trim().get(..10)?;
    let rest = &text.trim()[10..];
    if !(rest.is_empty() || rest.starts_with(['T', ' '])) {
        return None;
    }
    let bytes = date.as_bytes();
    if bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let number = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = &date[range];
        part.bytes().all(|b| b.is_ascii_digit()).then(|| part.parse().ok()).flatten()
    };
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    if !(1..=12).contains(&month) || day < 1 || day > i64::from(forgecore_date::days_in_month(year, month as u32)) {
        return None;
    }
    Some(crate::store::date_text(forgecore_date::days_from_civil(year, month as u32, day as u32)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(scopes: &[&str]) -> Grant {
        Grant {
            id: 1,
            scopes: scopes.iter().map(|s| s.to_string()).collect(),
            expires_at: None,
            revoked: false,
            last_used_at: None,
        }
    }

    #[test]
    fn routes_take_any_of_their_scopes() {
        assert_eq!(check(Some(&grant(&["read_api"])), Need::Default, "GET"), Ok(()));
        assert_eq!(
            check(Some(&grant(&["read_api"])), Need::Default, "POST"),
            Err(ApiError::InsufficientScope("api".into()))
        );
        assert_eq!(
            check(Some(&grant(&["read_repository"])), Need::Also(READ_USER), "GET"),
            Err(ApiError::InsufficientScope("api read_api read_user".into()))
        );
        assert_eq!(check(Some(&grant(&["read_user"])), Need::Also(READ_USER), "GET"), Ok(()));
        assert_eq!(check(Some(&grant(&["k8s_proxy"])), Need::Any, "DELETE"), Ok(()));
        assert_eq!(check(None, Need::Default, "POST"), Ok(()));
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date("2026-02-28"), Some("2026-02-28".into()));
        assert_eq!(parse_date("2026-02-29"), None);
        assert_eq!(parse_date("2028-02-29T10:00:00Z"), Some("2028-02-29".into()));
        assert_eq!(parse_date("2026-2-1"), None);
        assert_eq!(parse_date("tomorrow"), None);
        assert!(expired(Some("2026-01-01"), "2026-01-01"), "a token stops at midnight of its date");
        assert!(!expired(Some("2026-01-02"), "2026-01-01"));
        assert!(!expired(None, "2026-01-01"));
        assert!(crate::store::days_from_today(365) > crate::store::today());
    }
}
