//! Who is calling, and what they may do.
//!
//! - [`identify`] turns the credentials of a request into a [`Caller`] (401 for a bad token).
//! - [`permissions`] holds the one permission function every operation uses; custom member
//!   roles take effect there.
//! - [`tokens`] makes and digests token texts.
//! - [`scopes`] holds what a token's scopes allow, the one scope check of every door.
//! - [`roles`] names access levels and the custom-role permission flags.

pub mod permissions;
pub mod protection;
pub mod roles;
pub mod scopes;
pub mod tokens;

use crate::error::{ApiError, ApiResult};
use crate::store::{self, users::User, Store};

/// How often a token's `last_used_at` is written at most, in seconds (GitLab's
/// `PersonalAccessTokens::LastUsedService` and deploy tokens: once per 10 minutes).
pub const LAST_USED_EVERY: i64 = 600;

/// Whether a use of the token with `digest`, last used at `known` as its lookup says, is to be
/// written now: not when `known` is recent, nor when this process wrote one within
/// [`LAST_USED_EVERY`] (GitLab takes an exclusive lease for the same purpose): on PostgreSQL a
/// host answers tokens from memory, and writing `last_used_at` does not make hosts forget
/// them (the notification trigger ignores that column), so `known` may be older than the row.
/// Keyed by digest, so contexts on different stores in one process never share an entry.
fn use_is_due(digest: &[u8], known: Option<i64>, now: i64) -> bool {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static WRITTEN: OnceLock<Mutex<HashMap<Vec<u8>, i64>>> = OnceLock::new();
    if known.is_some_and(|at| at > now - LAST_USED_EVERY) {
        return false;
    }
    let mut written = WRITTEN.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    if written.get(digest).is_some_and(|at| *at > now - LAST_USED_EVERY) {
        return false;
    }
    if written.len() >= 100_000 {
        written.retain(|_, at| *at > now - LAST_USED_EVERY);
    }
    written.insert(digest.to_vec(), now);
    true
}

/// The authenticated party of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    Anonymous,
    User(User),
    /// A CI job token, bound to one project.
    Job {
        project_id: i64,
    },
}

impl Caller {
    pub fn user(&self) -> Option<&User> {
        match self {
            Caller::User(user) => Some(user),
            _ => None,
        }
    }

    /// The user, or 401 for anyone else (Grape's `authenticate!`). Job tokens are accepted
    /// only where an operation says so, so they are refused here too.
    pub fn require_user(&self) -> ApiResult<&User> {
        self.user().ok_or(ApiError::Unauthorized)
    }

    pub fn is_admin(&self) -> bool {
        self.user().is_some_and(|u| u.is_admin)
    }

    /// A stable key naming the caller, for per-caller rate limits.
    pub fn rate_key(&self) -> String {
        match self {
            Caller::Anonymous => "anonymous".into(),
            Caller::User(u) => format!("user:{}", u.id),
            Caller::Job { project_id } => format!("job:{project_id}"),
        }
    }
}

/// The query parameters that carry a token, and whether it is a job token. Links never repeat
/// them (`Origin`): a URL is logged, shared and cached far more freely than a header.
pub const QUERY_CREDENTIALS: [(&str, bool); 3] =
    [("private_token", false), ("access_token", false), ("job_token", true)];

/// The token texts a request carried, by kind. Headers and query parameters both count.
#[derive(Debug, Default, Clone)]
pub struct Credentials {
    pub personal: Vec<String>,
    pub job: Vec<String>,
    /// An `Authorization` header that is not `Bearer <token>`.
    pub malformed: bool,
}

impl Credentials {
    /// From lower-case header names and query parameters, following GitLab: `PRIVATE-TOKEN`,
    /// `Authorization: Bearer`, `JOB-TOKEN`, `private_token`, `access_token`, `job_token`.
    pub fn collect<'a>(
        headers: impl Iterator<Item = (&'a str, &'a str)>,
        query: &crate::params::Params,
    ) -> Credentials {
        let mut found = Credentials::default();
        // An empty token is no token, as in GitLab: clients built without one still send the
        // header (GitLab's Go client sends `Private-Token: ` for `NewClient("")`).
        for (name, value) in headers.filter(|(_, value)| !value.is_empty()) {
            match name {
                "private-token" => found.personal.push(value.to_string()),
                "job-token" => found.job.push(value.to_string()),
                "authorization" => match value.strip_prefix("Bearer ").or_else(|| value.strip_prefix("bearer ")) {
                    Some("") => {}
                    Some(token) => found.personal.push(token.to_string()),
                    None => found.malformed = true,
                },
                _ => {}
            }
        }
        for (name, kind) in QUERY_CREDENTIALS {
            if let Ok(Some(value)) = query.string(name).map(|v| v.filter(|v| !v.is_empty())) {
                if kind {
                    found.job.push(value)
                } else {
                    found.personal.push(value)
                }
            }
        }
        found
    }
}

/// Resolves credentials to a caller: [`authenticate`] without the token's grant.
pub fn identify(store: &impl AsRef<Store>, credentials: &Credentials) -> ApiResult<Caller> {
    authenticate(store, credentials).map(|(caller, _)| caller)
}

/// Resolves credentials to a caller and, for a personal access token, what the token grants
/// (its scopes). No credentials: anonymous. A bad or malformed token, or two different tokens
/// in one request: 401, never a silent fallback to anonymous. An expired or revoked personal
/// access token: GitLab's 401 `invalid_token` (expiry is checked first, as GitLab does). The
/// tokens are looked up in `store` (the context's: a `Context` is `AsRef<Store>`), one lookup.
pub fn authenticate(
    store: &impl AsRef<Store>,
    credentials: &Credentials,
) -> ApiResult<(Caller, Option<store::tokens::Grant>)> {
    if credentials.malformed {
        return Err(ApiError::Unauthorized);
    }
    let mut distinct: Vec<(&str, bool)> = Vec::new();
    for (token, is_job) in credentials
        .personal
        .iter()
        .map(|t| (t.as_str(), false))
        .chain(credentials.job.iter().map(|t| (t.as_str(), true)))
    {
        if !distinct.contains(&(token, is_job)) {
            distinct.push((token, is_job));
        }
    }
    let (token, is_job) = match distinct.as_slice() {
        [] => return Ok((Caller::Anonymous, None)),
        [one] => *one,
        _ => return Err(ApiError::Unauthorized),
    };
    if !tokens::plausible(token) {
        return Err(ApiError::Unauthorized);
    }
    let digest = tokens::digest(token);
    match store.as_ref().principal(&digest, is_job)? {
        Some(store::tokens::Principal::User(user, grant)) => {
            if scopes::expired(grant.expires_at.as_deref(), &store::today()) {
                return Err(ApiError::InvalidToken(scopes::EXPIRED));
            }
            if grant.revoked {
                return Err(ApiError::InvalidToken(scopes::REVOKED));
            }
            let now = store::now_seconds();
            if use_is_due(&digest, grant.last_used_at, now) {
                // One statement, atomic by itself: not a `write`, whose commit makes a
                // PostgreSQL host forget every token it keeps (a use changes none of them).
                store.as_ref().read(|db| store::tokens::touch_personal(db, grant.id, now, LAST_USED_EVERY))?;
            }
            Ok((Caller::User(user), Some(grant)))
        }
        Some(store::tokens::Principal::Job { project_id }) => Ok((Caller::Job { project_id }, None)),
        None => Err(ApiError::Unauthorized),
    }
}
