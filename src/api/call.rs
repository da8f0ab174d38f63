//! `Call`: one call into an operation, made the same way by both doors (`src/http` for the
//! hosts, the typed exports of `src/ffi` for embedders). [`Call::new`] is the seam: it
//! identifies the caller, counts the call against `rate_limits.api_requests` (every call, by
//! either door), and takes the two things links need, explicitly: the public base URL that
//! absolute links and `web_url`s start with, and the [`Origin`] that pagination `Link`s repeat.
//! Operations then find their subject through the call: [`Call::project`], [`Call::group`],
//! [`Call::repository`].

use crate::auth::permissions::{self, ProjectAbility};
use crate::auth::{self, Caller, Credentials};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::events::{Event, RefsMoved, Through};
use crate::git;
use crate::git::write::RefUpdate;
use crate::params::{parse_int_text, Params};
use crate::store::Db;
use crate::store::{self, groups::Group, projects::Project, StoreResult};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde_json::Value;
use std::net::IpAddr;
use std::path::PathBuf;

/// The message of a throttled call (429).
const THROTTLED: &str = "This endpoint has been requested too many times. Try again later.";

pub struct Call<'a> {
    pub ctx: &'a Context,
    pub caller: Caller,
    /// What the caller's personal access token grants (its scopes); `None` for anonymous
    /// callers and job tokens. Under `Sudo`, still the administrator's token.
    pub token: Option<store::tokens::Grant>,
    /// `scheme://host[:port]` without a trailing slash and without `/api/v4`.
    pub base_url: String,
    pub origin: Origin,
    /// The request's `If-None-Match` (the HTTP door only; see `conditional`).
    pub if_none_match: Option<String>,
}

/// The route a paginated answer links back to: its raw path after `/api/v4` and its
/// parameters in order, which `Link` URLs repeat with the page changed. Credentials
/// (`private_token`, `access_token`, `job_token`) are never among them: a link is no place for
/// a token, and the client that follows it sends its credentials as it did the first time.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    pub path: String,
    pub query: Vec<(String, String)>,
}

/// Whether a query parameter may be repeated in a link (it carries no token).
fn repeatable(name: &str) -> bool {
    !auth::QUERY_CREDENTIALS.iter().any(|(credential, _)| *credential == name)
}

impl Origin {
    /// A request as it came over HTTP.
    pub fn request(raw_path: &str, query: &[(String, String)]) -> Origin {
        let query = query.iter().filter(|(name, _)| repeatable(name)).cloned().collect();
        Origin { path: raw_path.to_string(), query }
    }

    /// The HTTP route `GET /projects/:id/repository/<route>` equivalent to a typed call on
    /// `project` with `params` (scalars only; `project` itself is in the path).
    pub fn repository_route(project: &str, route: &str, params: &Params) -> Origin {
        let query = params
            .iter()
            .filter(|(name, _)| repeatable(name))
            .filter_map(|(name, value)| match value {
                Value::String(s) => Some((name.clone(), s.clone())),
                Value::Number(_) | Value::Bool(_) => Some((name.clone(), value.to_string())),
                _ => None,
            })
            .collect();
        let project = utf8_percent_encode(project, NON_ALPHANUMERIC);
        Origin { path: format!("/projects/{project}/repository/{route}"), query }
    }
}

/// The public base URL of a call: the configured `external_url`, else the request's `Host`
/// when it is a plain host name, else `http://localhost`.
pub fn base_url(ctx: &Context, host: Option<&str>) -> String {
    if let Some(base) = ctx.config.external_base() {
        return base.to_string();
    }
    match host {
        Some(host) if !host.is_empty() && host.bytes().all(|b| b.is_ascii_alphanumeric() || b"-.:[]_".contains(&b)) => {
            format!("http://{host}")
        }
        _ => "http://localhost".into(),
    }
}

/// An `:id` of the API: an integer id, or a full path (`top/sub`) for anything else.
enum IdOrPath<'t> {
    Id(i64),
    Path(&'t str),
}

impl<'t> IdOrPath<'t> {
    fn parse(text: &'t str) -> IdOrPath<'t> {
        match parse_int_text(text) {
            Some(id) if !text.starts_with(['+', '-']) => IdOrPath::Id(id),
            _ => IdOrPath::Path(text),
        }
    }

    /// The record it names, by one of the two lookups of a table.
    fn find<T>(
        &self,
        db: &mut Db,
        by_id: fn(&mut Db, i64) -> StoreResult<Option<T>>,
        by_path: fn(&mut Db, &str) -> StoreResult<Option<T>>,
    ) -> StoreResult<Option<T>> {
        match *self {
            IdOrPath::Id(id) => by_id(db, id),
            IdOrPath::Path(path) => by_path(db, path),
        }
    }
}

impl<'a> Call<'a> {
    /// A call by whoever `credentials` name (401 for a bad token), counted against the API
    /// rate limit (429 past it).
    pub fn new(ctx: &'a Context, credentials: &Credentials, base_url: String, origin: Origin) -> ApiResult<Call<'a>> {
        Call::from_client(ctx, credentials, base_url, origin, None)
    }

    /// A call from `client` (the client's address, when the door knows it): as [`Call::new`],
    /// and an anonymous caller is also counted against `rate_limits.unauthenticated_api` for
    /// that address (GitLab's `throttle_unauthenticated_api`).
    pub fn from_client(
        ctx: &'a Context,
        credentials: &Credentials,
        base_url: String,
        origin: Origin,
        client: Option<IpAddr>,
    ) -> ApiResult<Call<'a>> {
        let (caller, token) = auth::authenticate(ctx, credentials)?;
        // A blocked, banned or deactivated account's tokens are refused as GitLab refuses them
        // (`api_access_allowed?`): 403 with the reason.
        if let Some(reason) = caller.user().and_then(|user| crate::api::users::access_denied(user, &base_url)) {
            return Err(ApiError::Forbidden(Some(reason)));
        }
        if let (Caller::Anonymous, Some(address)) = (&caller, client) {
            ctx.throttle(ctx.config.rate_limits.unauthenticated_api, &format!("unauthenticated:{address}"), THROTTLED)?;
        }
        ctx.throttle(ctx.config.rate_limits.api_requests, &format!("api:{}", caller.rate_key()), THROTTLED)?;
        Ok(Call { ctx, caller, token, base_url, origin, if_none_match: None })
    }

    /// Whether the call's token passes `need` on a `method` route (the router's check; the
    /// typed exports make it through `router::check_scopes`).
    pub fn check_scopes(&self, need: auth::scopes::Need, method: &str) -> ApiResult<()> {
        auth::scopes::check(self.token.as_ref(), need, method)
    }

    /// Acts as the user `identifier` names (an id, or a username ignoring case), GitLab's
    /// `sudo!` (`lib/api/helpers.rb`): only an administrator (403 `Must be admin to use sudo`)
    /// with a personal access token (403 `Must be authenticated using an OAuth or personal
    /// access token to use sudo`) that has the `sudo` scope (403 `insufficient_scope`); an
    /// unknown user is 404 `User with ID or username '<identifier>' Not Found`.
    pub fn sudo(&mut self, identifier: &str) -> ApiResult<()> {
        let admin = match &self.caller {
            Caller::Anonymous => return Err(ApiError::Unauthorized),
            Caller::User(user) => user.is_admin,
            Caller::Job { .. } => false,
        };
        if !admin {
            return Err(ApiError::Forbidden(Some("Must be admin to use sudo".into())));
        }
        if self.token.is_none() {
            return Err(ApiError::Forbidden(Some(
                "Must be authenticated using an OAuth or personal access token to use sudo".into(),
            )));
        }
        if !auth::scopes::has(self.token.as_ref(), auth::scopes::SUDO) {
            return Err(ApiError::InsufficientScope(auth::scopes::SUDO.into()));
        }
        let found = self.ctx.store.read(|db| -> StoreResult<_> {
            match parse_int_text(identifier) {
                Some(id) if identifier.bytes().all(|b| b.is_ascii_digit()) => store::users::find_by_id(db, id),
                _ => store::users::find_by_username(db, identifier),
            }
        })?;
        let user = found.ok_or_else(|| ApiError::NotFoundNamed(format!("User with ID or username '{identifier}'")))?;
        self.caller = Caller::User(user);
        Ok(())
    }

    /// The project named by `id` (an integer id or a full path), checked for `ability`.
    /// Missing and invisible projects are the same 404.
    pub fn project(&self, id: &str, ability: ProjectAbility) -> ApiResult<Project> {
        let name = match IdOrPath::parse(id) {
            IdOrPath::Id(id) => store::projects::Name::Id(id),
            IdOrPath::Path(path) => store::projects::Name::FullPath(path.to_string()),
        };
        let project = self.ctx.store.project(&name)?.ok_or(ApiError::NotFound("Project"))?;
        // A project past its deletion delay is purged by the lookup that finds it (D9).
        if project.marked_for_deletion_at.is_some_and(|at| crate::api::projects::purge::due(self.ctx, at)) {
            crate::api::projects::purge::purge_project(self.ctx, project.id)?;
            return Err(ApiError::NotFound("Project"));
        }
        self.ctx.store.read(|db| permissions::authorize_project(db, &self.caller, &project, ability))?;
        Ok(project)
    }

    /// The group named by `id` (an integer id or a full path) that the caller may see.
    pub fn group(&self, id: &str) -> ApiResult<Group> {
        self.ctx.store.read(|db| -> ApiResult<_> {
            let group = IdOrPath::parse(id)
                .find(db, store::groups::find_by_id, store::groups::find_by_full_path)?
                .ok_or(ApiError::NotFound("Group"))?;
            if permissions::can_see_group(db, &self.caller, &group)? {
                Ok(group)
            } else {
                Err(ApiError::NotFound("Group"))
            }
        })
    }

    /// The project's repository; one that cannot be opened is GitLab's `not_found` (`"Tree"`,
    /// `"Ref"`, ...: what the endpoint says is missing).
    /// Opening it tells maintenance it is served (a look at whether it needs any, queued at
    /// most once every `maintenance.check_interval_seconds`).
    pub fn repository(&self, project: &Project, not_found: &'static str) -> ApiResult<gix::Repository> {
        let dir = self.ctx.git_dir(project)?;
        let repo = git::open(&dir).map_err(|_| ApiError::NotFound(not_found))?;
        self.ctx.maintenance.served(&dir);
        Ok(repo)
    }

    /// Where the project's repository is on this host: see [`Context::git_dir`].
    pub fn git_dir(&self, project: &Project) -> ApiResult<PathBuf> {
        self.ctx.git_dir(project)
    }

    /// Runs one git operation (`op` names it in `/-/metrics`), timing it for the metrics and
    /// for the request's record.
    pub fn git<T>(&self, op: &'static str, work: impl FnOnce() -> T) -> T {
        let started = std::time::Instant::now();
        let result = work();
        self.git_spent(op, started.elapsed());
        result
    }

    /// One git operation (`op`) took `spent`: counted for the metrics and the request's record
    /// ([`Call::git`], for work timed elsewhere).
    pub fn git_spent(&self, op: &'static str, spent: std::time::Duration) {
        crate::observe::stats::add_git(spent);
        if self.ctx.config.monitoring.metrics {
            self.ctx.metrics.git_operation(op, spent);
        }
    }

    /// This call moved the project's references (`updates`, as the write path reported each
    /// move): announced once, through the context's events (maintenance queues the repository,
    /// which never delays the answer). No update, no announcement.
    pub fn refs_moved(&self, project: &Project, updates: Vec<RefUpdate>) -> ApiResult<()> {
        if updates.is_empty() {
            return Ok(());
        }
        let Ok(dir) = self.ctx.git_dir(project) else { return Ok(()) };
        let moved = RefsMoved {
            project_id: project.id,
            repository: dir.clone(),
            git_dir: dir,
            updates,
            user_id: self.caller.user().map(|u| u.id),
            through: Through::Api,
        };
        self.ctx.events.announce(&self.ctx.store, Event::RefsMoved(moved))
    }

    pub fn web_url(&self, full_path: &str) -> String {
        format!("{}/{}", self.base_url, full_path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_never_hold_credentials() {
        let pairs = |names: &[&str]| names.iter().map(|n| (n.to_string(), "x".to_string())).collect::<Vec<_>>();
        let query = pairs(&["private_token", "page", "job_token", "access_token", "ref"]);
        let names = |origin: Origin| origin.query.into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        assert_eq!(names(Origin::request("/x", &query)), ["page", "ref"]);
        let mut params = Params::new();
        for (name, value) in &query {
            params.push_pair(name, value.clone());
        }
        assert_eq!(names(Origin::repository_route("p", "tree", &params)).len(), 2);
    }
}
