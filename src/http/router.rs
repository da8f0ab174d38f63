//! The route table: (method, path pattern) to one operation, and the matcher. Nothing else.
//!
//! Patterns are matched against the decoded path segments after `/api/v4`: a literal segment,
//! `:name` (any one segment, handed to the operation in order), or `literal.:name` (a segment
//! starting with `literal.`, the rest handed on, as in `archive.tar.gz`). A known path with
//! another method is a 405; an unknown path a 404. `openapi.yaml` documents the same table
//! (tests/openapi.rs checks that they agree).

use super::request::Request;
use crate::api::ci_variables::{self as variables, Scope as Variables};
use crate::api::deploy_tokens::{self, Scope as Deploy};
use crate::api::labels::Scope as Labels;
use crate::api::member_roles::{self, Scope};
use crate::api::members::{self, Scope as Members};
use crate::api::merge_requests::{self as mrs, list::From as MrList};
use crate::api::push_rules::{self, Scope as PushRules};
use crate::api::releases::{self, links};
use crate::api::repository::{
    archive, blobs, branches, changelog, commits, compare, contributors, files, health, merge_base, tags, tree,
};
use crate::api::resource_access_tokens::{self as access_tokens, Scope as Tokens};
use crate::api::resource_label_events::{self as label_events, Eventable};
use crate::api::{
    award_emoji, discussions, group_hooks, groups, hooks, issues, labels, namespaces, notes,
    personal_access_tokens as tokens, projects, protected_branches, statuses, system_hooks, topics, users, version,
    Call,
};
use crate::auth::scopes::Need;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;

/// An operation called with the request and the values of the pattern's `:name` segments.
type Handler = fn(&Call, &Request, &[&str]) -> ApiResult<Response>;

pub struct Route {
    pub method: &'static str,
    /// The pattern after `/api/v4`.
    pub pattern: &'static str,
    /// The route's template as records and metrics name it: `/api/v4` and the pattern
    /// (`/api/v4/projects/:id/repository/tree`), never a raw path.
    pub template: &'static str,
    /// The token scopes the route needs.
    pub need: Need,
    handler: Handler,
}

/// A route of the table, its template spelled out at compile time; a last word adds a scope
/// to the default ones (`read_user`), or `any` lets any scope through.
macro_rules! route {
    ($method:literal, $pattern:literal, $handler:expr) => {
        route!(@ $method, $pattern, $handler, Need::Default)
    };
    ($method:literal, $pattern:literal, $handler:expr, any) => {
        route!(@ $method, $pattern, $handler, Need::Any)
    };
    ($method:literal, $pattern:literal, $handler:expr, $scope:ident) => {
        route!(@ $method, $pattern, $handler, Need::Also(stringify!($scope)))
    };
    (@ $method:literal, $pattern:literal, $handler:expr, $need:expr) => {
        Route {
            method: $method,
            pattern: $pattern,
            template: concat!("/api/v4", $pattern),
            need: $need,
            handler: $handler,
        }
    };
}

/// Every route of the API, under `/api/v4`, grouped as GitLab's REST API reference is: one
/// family a block, in the reference's order, and the operation each route calls in the folder of
/// `api` named like the family.
pub static ROUTES: &[Route] = &[
    // Metadata (`/version`).
    route!("GET", "/version", |_, _, _| Ok(version::get())),
    // Users.
    route!("GET", "/users", |c, r, _| users::list::list(c, &r.params), read_user),
    route!("GET", "/users/:id", |c, _, a| users::get::get(c, a[0]), read_user),
    route!("GET", "/user", |c, _, _| users::current::current(c), read_user),
    route!("POST", "/users", |c, r, _| users::create::create(c, &r.params)),
    route!("PUT", "/users/:id", |c, r, a| users::update::update(c, a[0], &r.params)),
    route!("DELETE", "/users/:id", |c, r, a| users::delete::delete(c, a[0], &r.params)),
    route!("POST", "/users/:id/block", |c, _, a| users::block::block(c, a[0])),
    route!("POST", "/users/:id/unblock", |c, _, a| users::unblock::unblock(c, a[0])),
    route!("POST", "/users/:id/deactivate", |c, _, a| users::deactivate::deactivate(c, a[0])),
    route!("POST", "/users/:id/activate", |c, _, a| users::activate::activate(c, a[0])),
    route!("POST", "/users/:id/ban", |c, _, a| users::ban::ban(c, a[0])),
    route!("POST", "/users/:id/unban", |c, _, a| users::unban::unban(c, a[0])),
    route!("POST", "/users/:id/approve", |c, _, a| users::approve::approve(c, a[0])),
    route!("POST", "/users/:id/reject", |c, _, a| users::reject::reject(c, a[0])),
    route!("GET", "/users/:user_id/memberships", |c, r, a| users::memberships::list(c, a[0], &r.params)),
    // Personal access tokens (of a user, then the `/personal_access_tokens` family).
    route!("POST", "/user/personal_access_tokens", |c, r, _| tokens::create::create_own(c, &r.params)),
    route!("POST", "/users/:user_id/personal_access_tokens", |c, r, a| {
        tokens::create::create_for_user(c, a[0], &r.params)
    }),
    route!("GET", "/personal_access_tokens", |c, r, _| tokens::list::list(c, &r.params)),
    route!("GET", "/personal_access_tokens/self", |c, _, _| tokens::get::get_self(c), any),
    route!("GET", "/personal_access_tokens/:id", |c, _, a| tokens::get::get(c, a[0])),
    route!(
        "POST",
        "/personal_access_tokens/self/rotate",
        |c, r, _| tokens::rotate::rotate_self(c, &r.params),
        self_rotate
    ),
    route!("POST", "/personal_access_tokens/:id/rotate", |c, r, a| tokens::rotate::rotate(c, a[0], &r.params)),
    route!("DELETE", "/personal_access_tokens/self", |c, _, _| tokens::revoke::revoke_self(c), any),
    route!("DELETE", "/personal_access_tokens/:id", |c, _, a| tokens::revoke::revoke(c, a[0])),
    // Project and group access tokens.
    route!("GET", "/groups/:id/access_tokens", |c, r, a| access_tokens::list::list(c, Tokens::Group(a[0]), &r.params)),
    route!("GET", "/groups/:id/access_tokens/:token_id", |c, _, a| {
        access_tokens::get::get(c, Tokens::Group(a[0]), a[1])
    }),
    route!("POST", "/groups/:id/access_tokens", |c, r, a| {
        access_tokens::create::create(c, Tokens::Group(a[0]), &r.params)
    }),
    route!("POST", "/groups/:id/access_tokens/:token_id/rotate", |c, r, a| {
        access_tokens::rotate::rotate(c, Tokens::Group(a[0]), a[1], &r.params)
    }),
    route!("DELETE", "/groups/:id/access_tokens/:token_id", |c, _, a| {
        access_tokens::revoke::revoke(c, Tokens::Group(a[0]), a[1])
    }),
    route!("GET", "/projects/:id/access_tokens", |c, r, a| {
        access_tokens::list::list(c, Tokens::Project(a[0]), &r.params)
    }),
    route!("GET", "/projects/:id/access_tokens/:token_id", |c, _, a| {
        access_tokens::get::get(c, Tokens::Project(a[0]), a[1])
    }),
    route!("POST", "/projects/:id/access_tokens", |c, r, a| {
        access_tokens::create::create(c, Tokens::Project(a[0]), &r.params)
    }),
    route!("POST", "/projects/:id/access_tokens/:token_id/rotate", |c, r, a| {
        access_tokens::rotate::rotate(c, Tokens::Project(a[0]), a[1], &r.params)
    }),
    route!("DELETE", "/projects/:id/access_tokens/:token_id", |c, _, a| {
        access_tokens::revoke::revoke(c, Tokens::Project(a[0]), a[1])
    }),
    // Deploy tokens.
    route!("GET", "/deploy_tokens", |c, r, _| deploy_tokens::list::list_all(c, &r.params)),
    route!("GET", "/projects/:id/deploy_tokens", |c, r, a| deploy_tokens::list::list(
        c,
        Deploy::Project(a[0]),
        &r.params
    )),
    route!("POST", "/projects/:id/deploy_tokens", |c, r, a| {
        deploy_tokens::create::create(c, Deploy::Project(a[0]), &r.params)
    }),
    route!("GET", "/projects/:id/deploy_tokens/:token_id", |c, _, a| {
        deploy_tokens::get::get(c, Deploy::Project(a[0]), a[1])
    }),
    route!("DELETE", "/projects/:id/deploy_tokens/:token_id", |c, _, a| {
        deploy_tokens::delete::delete(c, Deploy::Project(a[0]), a[1])
    }),
    route!("GET", "/groups/:id/deploy_tokens", |c, r, a| deploy_tokens::list::list(c, Deploy::Group(a[0]), &r.params)),
    route!("POST", "/groups/:id/deploy_tokens", |c, r, a| {
        deploy_tokens::create::create(c, Deploy::Group(a[0]), &r.params)
    }),
    route!("GET", "/groups/:id/deploy_tokens/:token_id", |c, _, a| {
        deploy_tokens::get::get(c, Deploy::Group(a[0]), a[1])
    }),
    route!("DELETE", "/groups/:id/deploy_tokens/:token_id", |c, _, a| {
        deploy_tokens::delete::delete(c, Deploy::Group(a[0]), a[1])
    }),
    // Groups.
    route!("GET", "/groups", |c, r, _| groups::list::list(c, &r.params)),
    route!("GET", "/groups/:id/subgroups", |c, r, a| groups::list::subgroups(c, a[0], &r.params)),
    route!("GET", "/groups/:id/descendant_groups", |c, r, a| groups::list::descendant_groups(c, a[0], &r.params)),
    route!("DELETE", "/groups/:id", |c, r, a| groups::delete::delete(c, a[0], &r.params)),
    route!("POST", "/groups/:id/restore", |c, _, a| groups::restore::restore(c, a[0])),
    route!("GET", "/groups/:id/projects", |c, r, a| projects::list::list_of_group(c, a[0], &r.params)),
    route!("GET", "/groups/:id", |c, r, a| groups::get::get(c, a[0], &r.params)),
    route!("POST", "/groups", |c, r, _| groups::create::create(c, &r.params)),
    route!("PUT", "/groups/:id", |c, r, a| groups::update::update(c, a[0], &r.params)),
    // Sharing with groups (issue #38, helper B).
    route!("POST", "/groups/:id/share", |c, r, a| groups::share::share(c, a[0], &r.params)),
    route!("DELETE", "/groups/:id/share/:group_id", |c, _, a| groups::share::unshare(c, a[0], a[1])),
    route!("POST", "/groups/:id/transfer", |c, r, a| groups::transfer::transfer(c, a[0], &r.params)),
    // Namespaces.
    route!("GET", "/namespaces", |c, r, _| namespaces::list::list(c, &r.params)),
    route!("GET", "/namespaces/:id", |c, _, a| namespaces::get::get(c, a[0])),
    route!("GET", "/namespaces/:id/exists", |c, r, a| namespaces::exists::exists(c, a[0], &r.params)),
    // Projects.
    route!("GET", "/projects", |c, r, _| projects::list::list(c, &r.params)),
    route!("GET", "/projects/:id", |c, _, a| projects::get(c, a[0])),
    route!("POST", "/projects", |c, r, _| projects::create::create(c, &r.params)),
    route!("POST", "/projects/user/:user_id", |c, r, a| projects::create::create_for_user(c, a[0], &r.params)),
    route!("PUT", "/projects/:id", |c, r, a| projects::update::update(c, a[0], &r.params)),
    route!("POST", "/projects/:id/archive", |c, _, a| projects::archive::archive(c, a[0])),
    route!("POST", "/projects/:id/unarchive", |c, _, a| projects::archive::unarchive(c, a[0])),
    route!("DELETE", "/projects/:id", |c, r, a| projects::delete::delete(c, a[0], &r.params)),
    route!("POST", "/projects/:id/restore", |c, _, a| projects::restore::restore(c, a[0])),
    // Forks, transfer and sharing (issue #38, helper B).
    route!("POST", "/projects/:id/fork", |c, r, a| projects::fork::fork(c, a[0], &r.params)),
    route!("GET", "/projects/:id/forks", |c, r, a| projects::forks::list(c, a[0], &r.params)),
    route!("POST", "/projects/:id/fork/:forked_from_id", |c, _, a| projects::fork_link::link(c, a[0], a[1])),
    route!("DELETE", "/projects/:id/fork", |c, _, a| projects::fork_link::unlink(c, a[0])),
    route!("PUT", "/projects/:id/transfer", |c, r, a| projects::transfer::transfer(c, a[0], &r.params)),
    route!("POST", "/projects/:id/share", |c, r, a| projects::share::share(c, a[0], &r.params)),
    route!("DELETE", "/projects/:id/share/:group_id", |c, _, a| projects::share::unshare(c, a[0], a[1])),
    // Topics.
    route!("GET", "/topics", |c, r, _| topics::list::list(c, &r.params)),
    route!("POST", "/topics", |c, r, _| topics::create::create(c, &r.params)),
    route!("POST", "/topics/merge", |c, r, _| topics::merge::merge(c, &r.params)),
    route!("GET", "/topics/:id", |c, _, a| topics::get::get(c, a[0])),
    route!("PUT", "/topics/:id", |c, r, a| topics::update::update(c, a[0], &r.params)),
    route!("DELETE", "/topics/:id", |c, _, a| topics::delete::delete(c, a[0])),
    route!("GET", "/projects/:id/groups", |c, r, a| groups::of_project::list(c, a[0], &r.params)),
    // Member roles, of the instance and of a group.
    route!("GET", "/member_roles", |c, _, _| member_roles::list::list(c, Scope::Instance)),
    route!("POST", "/member_roles", |c, r, _| member_roles::create::create(c, Scope::Instance, &r.params)),
    route!("PUT", "/member_roles/:member_role_id", |c, r, a| {
        member_roles::update::update(c, Scope::Instance, a[0], &r.params)
    }),
    route!("DELETE", "/member_roles/:member_role_id", |c, _, a| {
        member_roles::delete::delete(c, Scope::Instance, a[0])
    }),
    route!("GET", "/groups/:id/member_roles", |c, _, a| member_roles::list::list(c, Scope::Group(a[0]))),
    route!("POST", "/groups/:id/member_roles", |c, r, a| {
        member_roles::create::create(c, Scope::Group(a[0]), &r.params)
    }),
    route!("PUT", "/groups/:id/member_roles/:member_role_id", |c, r, a| {
        member_roles::update::update(c, Scope::Group(a[0]), a[1], &r.params)
    }),
    route!("DELETE", "/groups/:id/member_roles/:member_role_id", |c, _, a| {
        member_roles::delete::delete(c, Scope::Group(a[0]), a[1])
    }),
    // Group and project members.
    route!("GET", "/groups/:id/members", |c, r, a| members::list::list(c, Members::Group(a[0]), &r.params)),
    route!("GET", "/groups/:id/members/all", |c, r, a| members::list::list_all(c, Members::Group(a[0]), &r.params)),
    route!("GET", "/groups/:id/members/all/:user_id", |c, _, a| members::get::get_all(c, Members::Group(a[0]), a[1])),
    route!("GET", "/groups/:id/members/:user_id", |c, _, a| members::get::get(c, Members::Group(a[0]), a[1])),
    route!("POST", "/groups/:id/members", |c, r, a| members::create::create(c, Members::Group(a[0]), &r.params)),
    route!("PUT", "/groups/:id/members/:user_id", |c, r, a| {
        members::update::update(c, Members::Group(a[0]), a[1], &r.params)
    }),
    route!("DELETE", "/groups/:id/members/:user_id", |c, r, a| {
        members::delete::delete(c, Members::Group(a[0]), a[1], &r.params)
    }),
    route!("GET", "/projects/:id/members", |c, r, a| members::list::list(c, Members::Project(a[0]), &r.params)),
    route!("GET", "/projects/:id/members/all", |c, r, a| members::list::list_all(c, Members::Project(a[0]), &r.params)),
    route!("GET", "/projects/:id/members/all/:user_id", |c, _, a| {
        members::get::get_all(c, Members::Project(a[0]), a[1])
    }),
    route!("GET", "/projects/:id/members/:user_id", |c, _, a| members::get::get(c, Members::Project(a[0]), a[1])),
    route!("POST", "/projects/:id/members", |c, r, a| members::create::create(c, Members::Project(a[0]), &r.params)),
    route!("PUT", "/projects/:id/members/:user_id", |c, r, a| {
        members::update::update(c, Members::Project(a[0]), a[1], &r.params)
    }),
    route!("DELETE", "/projects/:id/members/:user_id", |c, r, a| {
        members::delete::delete(c, Members::Project(a[0]), a[1], &r.params)
    }),
    // Project webhooks.
    route!("GET", "/projects/:id/hooks", |c, r, a| hooks::list::list(c, a[0], &r.params)),
    route!("GET", "/projects/:id/hooks/:hook_id", |c, _, a| hooks::get::get(c, a[0], a[1])),
    route!("POST", "/projects/:id/hooks", |c, r, a| hooks::create::create(c, a[0], &r.params)),
    route!("PUT", "/projects/:id/hooks/:hook_id", |c, r, a| hooks::update::update(c, a[0], a[1], &r.params)),
    route!("DELETE", "/projects/:id/hooks/:hook_id", |c, _, a| hooks::delete::delete(c, a[0], a[1])),
    route!("POST", "/projects/:id/hooks/:hook_id/test/:trigger", |c, _, a| hooks::test::test(c, a[0], a[1], a[2])),
    route!("GET", "/projects/:id/hooks/:hook_id/events", |c, r, a| hooks::events::list(c, a[0], a[1], &r.params)),
    route!("POST", "/projects/:id/hooks/:hook_id/events/:hook_log_id/resend", |c, _, a| {
        hooks::resend::resend(c, a[0], a[1], a[2])
    }),
    route!("PUT", "/projects/:id/hooks/:hook_id/url_variables/:key", |c, r, a| {
        hooks::keyed_values::set(c, &hooks::keyed_values::URL_VARIABLES, a[0], a[1], a[2], &r.params)
    }),
    route!("DELETE", "/projects/:id/hooks/:hook_id/url_variables/:key", |c, _, a| {
        hooks::keyed_values::unset(c, &hooks::keyed_values::URL_VARIABLES, a[0], a[1], a[2])
    }),
    route!("PUT", "/projects/:id/hooks/:hook_id/custom_headers/:key", |c, r, a| {
        hooks::keyed_values::set(c, &hooks::keyed_values::CUSTOM_HEADERS, a[0], a[1], a[2], &r.params)
    }),
    route!("DELETE", "/projects/:id/hooks/:hook_id/custom_headers/:key", |c, _, a| {
        hooks::keyed_values::unset(c, &hooks::keyed_values::CUSTOM_HEADERS, a[0], a[1], a[2])
    }),
    // Group webhooks (GitLab Premium's; on every tier here).
    route!("GET", "/groups/:id/hooks", |c, r, a| group_hooks::list::list(c, a[0], &r.params)),
    route!("GET", "/groups/:id/hooks/:hook_id", |c, _, a| group_hooks::get::get(c, a[0], a[1])),
    route!("POST", "/groups/:id/hooks", |c, r, a| group_hooks::create::create(c, a[0], &r.params)),
    route!("PUT", "/groups/:id/hooks/:hook_id", |c, r, a| group_hooks::update::update(c, a[0], a[1], &r.params)),
    route!("DELETE", "/groups/:id/hooks/:hook_id", |c, _, a| group_hooks::delete::delete(c, a[0], a[1])),
    // System hooks.
    route!("GET", "/hooks", |c, r, _| system_hooks::list::list(c, &r.params)),
    route!("GET", "/hooks/:hook_id", |c, _, a| system_hooks::get::get(c, a[0])),
    route!("POST", "/hooks", |c, r, _| system_hooks::create::create(c, &r.params)),
    route!("PUT", "/hooks/:hook_id", |c, r, a| system_hooks::update::update(c, a[0], &r.params)),
    route!("DELETE", "/hooks/:hook_id", |c, _, a| system_hooks::delete::delete(c, a[0])),
    // Issues (of the caller, of a group, of a project).
    route!("GET", "/issues", |c, r, _| issues::list::list_global(c, &r.params)),
    route!("GET", "/groups/:id/issues", |c, r, a| issues::list::list_of_group(c, a[0], &r.params)),
    route!("GET", "/projects/:id/issues", |c, r, a| issues::list::list_of_project(c, a[0], &r.params)),
    route!("GET", "/projects/:id/issues/:issue_iid", |c, r, a| issues::get::get(c, a[0], a[1], &r.params)),
    route!("POST", "/projects/:id/issues", |c, r, a| issues::create::create(c, a[0], &r.params)),
    route!("PUT", "/projects/:id/issues/:issue_iid", |c, r, a| issues::update::update(c, a[0], a[1], &r.params)),
    route!("DELETE", "/projects/:id/issues/:issue_iid", |c, _, a| issues::delete::delete(c, a[0], a[1])),
    route!("GET", "/projects/:id/issues/:issue_iid/closed_by", |c, r, a| {
        mrs::closing_an_issue::closed_by(c, a[0], a[1], &r.params)
    }),
    route!("GET", "/projects/:id/issues/:issue_iid/related_merge_requests", |c, r, a| {
        mrs::related_to_an_issue::related(c, a[0], a[1], &r.params)
    }),
    route!("GET", "/projects/:id/issues/:issue_iid/participants", |c, r, a| {
        issues::participants::participants(c, a[0], a[1], &r.params)
    }),
    // Notes (on issues).
    route!("GET", "/projects/:id/issues/:issue_iid/notes", |c, r, a| {
        notes::list::list(c, a[0], notes::Kind::Issues, a[1], &r.params)
    }),
    route!("POST", "/projects/:id/issues/:issue_iid/notes", |c, r, a| {
        notes::create::create(c, a[0], notes::Kind::Issues, a[1], &r.params)
    }),
    route!("GET", "/projects/:id/issues/:issue_iid/notes/:note_id", |c, _, a| {
        notes::get::get(c, a[0], notes::Kind::Issues, a[1], a[2])
    }),
    route!("PUT", "/projects/:id/issues/:issue_iid/notes/:note_id", |c, r, a| {
        notes::update::update(c, a[0], notes::Kind::Issues, a[1], a[2], &r.params)
    }),
    route!("DELETE", "/projects/:id/issues/:issue_iid/notes/:note_id", |c, _, a| {
        notes::delete::delete(c, a[0], notes::Kind::Issues, a[1], a[2])
    }),
    // Notes (on merge requests).
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/notes", |c, r, a| {
        notes::list::list(c, a[0], notes::Kind::MergeRequests, a[1], &r.params)
    }),
    route!("POST", "/projects/:id/merge_requests/:merge_request_iid/notes", |c, r, a| {
        notes::create::create(c, a[0], notes::Kind::MergeRequests, a[1], &r.params)
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/notes/:note_id", |c, _, a| {
        notes::get::get(c, a[0], notes::Kind::MergeRequests, a[1], a[2])
    }),
    route!("PUT", "/projects/:id/merge_requests/:merge_request_iid/notes/:note_id", |c, r, a| {
        notes::update::update(c, a[0], notes::Kind::MergeRequests, a[1], a[2], &r.params)
    }),
    route!("DELETE", "/projects/:id/merge_requests/:merge_request_iid/notes/:note_id", |c, _, a| {
        notes::delete::delete(c, a[0], notes::Kind::MergeRequests, a[1], a[2])
    }),
    // Discussions (of issues).
    route!("GET", "/projects/:id/issues/:issue_iid/discussions", |c, r, a| {
        discussions::list::list(c, a[0], notes::Kind::Issues, a[1], &r.params)
    }),
    route!("POST", "/projects/:id/issues/:issue_iid/discussions", |c, r, a| {
        discussions::create::create(c, a[0], notes::Kind::Issues, a[1], &r.params)
    }),
    route!("GET", "/projects/:id/issues/:issue_iid/discussions/:discussion_id", |c, _, a| {
        discussions::get::get(c, a[0], notes::Kind::Issues, a[1], a[2])
    }),
    route!("PUT", "/projects/:id/issues/:issue_iid/discussions/:discussion_id", |c, r, a| {
        discussions::resolve::resolve(c, a[0], notes::Kind::Issues, a[1], a[2], &r.params)
    }),
    route!("GET", "/projects/:id/issues/:issue_iid/discussions/:discussion_id/notes", |c, _, a| {
        discussions::list_notes::list_notes(c, a[0], notes::Kind::Issues, a[1], a[2])
    }),
    route!("POST", "/projects/:id/issues/:issue_iid/discussions/:discussion_id/notes", |c, r, a| {
        discussions::reply::reply(c, a[0], notes::Kind::Issues, a[1], a[2], &r.params)
    }),
    route!("GET", "/projects/:id/issues/:issue_iid/discussions/:discussion_id/notes/:note_id", |c, _, a| {
        discussions::get_note::get_note(c, a[0], notes::Kind::Issues, a[1], a[3])
    }),
    route!("PUT", "/projects/:id/issues/:issue_iid/discussions/:discussion_id/notes/:note_id", |c, r, a| {
        discussions::update_note::update_note(c, a[0], notes::Kind::Issues, a[1], a[3], &r.params)
    }),
    route!("DELETE", "/projects/:id/issues/:issue_iid/discussions/:discussion_id/notes/:note_id", |c, _, a| {
        discussions::delete_note::delete_note(c, a[0], notes::Kind::Issues, a[1], a[3])
    }),
    // Discussions (of merge requests).
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/discussions", |c, r, a| {
        discussions::list::list(c, a[0], notes::Kind::MergeRequests, a[1], &r.params)
    }),
    route!("POST", "/projects/:id/merge_requests/:merge_request_iid/discussions", |c, r, a| {
        discussions::create::create(c, a[0], notes::Kind::MergeRequests, a[1], &r.params)
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id", |c, _, a| {
        discussions::get::get(c, a[0], notes::Kind::MergeRequests, a[1], a[2])
    }),
    route!("PUT", "/projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id", |c, r, a| {
        discussions::resolve::resolve(c, a[0], notes::Kind::MergeRequests, a[1], a[2], &r.params)
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id/notes", |c, _, a| {
        discussions::list_notes::list_notes(c, a[0], notes::Kind::MergeRequests, a[1], a[2])
    }),
    route!("POST", "/projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id/notes", |c, r, a| {
        discussions::reply::reply(c, a[0], notes::Kind::MergeRequests, a[1], a[2], &r.params)
    }),
    route!(
        "GET",
        "/projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id/notes/:note_id",
        |c, _, a| { discussions::get_note::get_note(c, a[0], notes::Kind::MergeRequests, a[1], a[3]) }
    ),
    route!(
        "PUT",
        "/projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id/notes/:note_id",
        |c, r, a| { discussions::update_note::update_note(c, a[0], notes::Kind::MergeRequests, a[1], a[3], &r.params) }
    ),
    route!(
        "DELETE",
        "/projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id/notes/:note_id",
        |c, _, a| { discussions::delete_note::delete_note(c, a[0], notes::Kind::MergeRequests, a[1], a[3]) }
    ),
    // Discussions (of commits).
    route!("GET", "/projects/:id/repository/commits/:sha/discussions", |c, r, a| {
        discussions::list::list(c, a[0], notes::Kind::Commits, a[1], &r.params)
    }),
    route!("POST", "/projects/:id/repository/commits/:sha/discussions", |c, r, a| {
        discussions::create::create(c, a[0], notes::Kind::Commits, a[1], &r.params)
    }),
    route!("GET", "/projects/:id/repository/commits/:sha/discussions/:discussion_id", |c, _, a| {
        discussions::get::get(c, a[0], notes::Kind::Commits, a[1], a[2])
    }),
    route!("GET", "/projects/:id/repository/commits/:sha/discussions/:discussion_id/notes", |c, _, a| {
        discussions::list_notes::list_notes(c, a[0], notes::Kind::Commits, a[1], a[2])
    }),
    route!("POST", "/projects/:id/repository/commits/:sha/discussions/:discussion_id/notes", |c, r, a| {
        discussions::reply::reply(c, a[0], notes::Kind::Commits, a[1], a[2], &r.params)
    }),
    route!("GET", "/projects/:id/repository/commits/:sha/discussions/:discussion_id/notes/:note_id", |c, _, a| {
        discussions::get_note::get_note(c, a[0], notes::Kind::Commits, a[1], a[3])
    }),
    route!("PUT", "/projects/:id/repository/commits/:sha/discussions/:discussion_id/notes/:note_id", |c, r, a| {
        discussions::update_note::update_note(c, a[0], notes::Kind::Commits, a[1], a[3], &r.params)
    }),
    route!("DELETE", "/projects/:id/repository/commits/:sha/discussions/:discussion_id/notes/:note_id", |c, _, a| {
        discussions::delete_note::delete_note(c, a[0], notes::Kind::Commits, a[1], a[3])
    }),
    // Award emoji (of issues and their notes).
    route!("GET", "/projects/:id/issues/:issue_iid/award_emoji", |c, r, a| {
        award_emoji::list::list(c, a[0], award_emoji::Kind::Issues, a[1], None, &r.params)
    }),
    route!("POST", "/projects/:id/issues/:issue_iid/award_emoji", |c, r, a| {
        award_emoji::create::create(c, a[0], award_emoji::Kind::Issues, a[1], None, &r.params)
    }),
    route!("GET", "/projects/:id/issues/:issue_iid/award_emoji/:award_id", |c, _, a| {
        award_emoji::get::get(c, a[0], award_emoji::Kind::Issues, a[1], None, a[2])
    }),
    route!("DELETE", "/projects/:id/issues/:issue_iid/award_emoji/:award_id", |c, _, a| {
        award_emoji::delete::delete(c, a[0], award_emoji::Kind::Issues, a[1], None, a[2])
    }),
    route!("GET", "/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji", |c, r, a| {
        award_emoji::list::list(c, a[0], award_emoji::Kind::Issues, a[1], Some(a[2]), &r.params)
    }),
    route!("POST", "/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji", |c, r, a| {
        award_emoji::create::create(c, a[0], award_emoji::Kind::Issues, a[1], Some(a[2]), &r.params)
    }),
    route!("GET", "/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji/:award_id", |c, _, a| {
        award_emoji::get::get(c, a[0], award_emoji::Kind::Issues, a[1], Some(a[2]), a[3])
    }),
    route!("DELETE", "/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji/:award_id", |c, _, a| {
        award_emoji::delete::delete(c, a[0], award_emoji::Kind::Issues, a[1], Some(a[2]), a[3])
    }),
    // Award emoji (of merge requests and their notes).
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/award_emoji", |c, r, a| {
        award_emoji::list::list(c, a[0], award_emoji::Kind::MergeRequests, a[1], None, &r.params)
    }),
    route!("POST", "/projects/:id/merge_requests/:merge_request_iid/award_emoji", |c, r, a| {
        award_emoji::create::create(c, a[0], award_emoji::Kind::MergeRequests, a[1], None, &r.params)
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/award_emoji/:award_id", |c, _, a| {
        award_emoji::get::get(c, a[0], award_emoji::Kind::MergeRequests, a[1], None, a[2])
    }),
    route!("DELETE", "/projects/:id/merge_requests/:merge_request_iid/award_emoji/:award_id", |c, _, a| {
        award_emoji::delete::delete(c, a[0], award_emoji::Kind::MergeRequests, a[1], None, a[2])
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji", |c, r, a| {
        award_emoji::list::list(c, a[0], award_emoji::Kind::MergeRequests, a[1], Some(a[2]), &r.params)
    }),
    route!("POST", "/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji", |c, r, a| {
        award_emoji::create::create(c, a[0], award_emoji::Kind::MergeRequests, a[1], Some(a[2]), &r.params)
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji/:award_id", |c, _, a| {
        award_emoji::get::get(c, a[0], award_emoji::Kind::MergeRequests, a[1], Some(a[2]), a[3])
    }),
    route!(
        "DELETE",
        "/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji/:award_id",
        |c, _, a| { award_emoji::delete::delete(c, a[0], award_emoji::Kind::MergeRequests, a[1], Some(a[2]), a[3]) }
    ),
    // Resource label events (of issues, of merge requests).
    route!("GET", "/projects/:id/issues/:eventable_id/resource_label_events", |c, r, a| {
        label_events::list::list(c, a[0], Eventable::Issue, a[1], &r.params)
    }),
    route!("GET", "/projects/:id/issues/:eventable_id/resource_label_events/:event_id", |c, _, a| {
        label_events::get::get(c, a[0], Eventable::Issue, a[1], a[2])
    }),
    route!("GET", "/projects/:id/merge_requests/:eventable_id/resource_label_events", |c, r, a| {
        label_events::list::list(c, a[0], Eventable::MergeRequest, a[1], &r.params)
    }),
    route!("GET", "/projects/:id/merge_requests/:eventable_id/resource_label_events/:event_id", |c, _, a| {
        label_events::get::get(c, a[0], Eventable::MergeRequest, a[1], a[2])
    }),
    // Labels (of a project).
    route!("GET", "/projects/:id/labels", |c, r, a| labels::list::list(c, Labels::Project(a[0]), &r.params)),
    route!("POST", "/projects/:id/labels", |c, r, a| labels::create::create(c, Labels::Project(a[0]), &r.params)),
    route!("PUT", "/projects/:id/labels", |c, r, a| labels::update::update_named(c, Labels::Project(a[0]), &r.params)),
    route!("DELETE", "/projects/:id/labels", |c, r, a| {
        labels::delete::delete_named(c, Labels::Project(a[0]), &r.params)
    }),
    route!("PUT", "/projects/:id/labels/promote", |c, r, a| labels::promote::promote_named(c, a[0], &r.params)),
    route!("GET", "/projects/:id/labels/:label_id", |c, _, a| labels::get::get(c, Labels::Project(a[0]), a[1])),
    route!("PUT", "/projects/:id/labels/:label_id", |c, r, a| {
        labels::update::update(c, Labels::Project(a[0]), a[1], &r.params)
    }),
    route!("DELETE", "/projects/:id/labels/:label_id", |c, _, a| labels::delete::delete(
        c,
        Labels::Project(a[0]),
        a[1]
    )),
    route!("POST", "/projects/:id/labels/:label_id/subscribe", |c, _, a| {
        labels::subscription::subscribe(c, Labels::Project(a[0]), a[1])
    }),
    route!("POST", "/projects/:id/labels/:label_id/unsubscribe", |c, _, a| {
        labels::subscription::unsubscribe(c, Labels::Project(a[0]), a[1])
    }),
    route!("PUT", "/projects/:id/labels/:label_id/promote", |c, _, a| labels::promote::promote(c, a[0], a[1])),
    // Group labels.
    route!("GET", "/groups/:id/labels", |c, r, a| labels::list::list(c, Labels::Group(a[0]), &r.params)),
    route!("POST", "/groups/:id/labels", |c, r, a| labels::create::create(c, Labels::Group(a[0]), &r.params)),
    route!("PUT", "/groups/:id/labels", |c, r, a| labels::update::update_named(c, Labels::Group(a[0]), &r.params)),
    route!("DELETE", "/groups/:id/labels", |c, r, a| labels::delete::delete_named(c, Labels::Group(a[0]), &r.params)),
    route!("GET", "/groups/:id/labels/:label_id", |c, _, a| labels::get::get(c, Labels::Group(a[0]), a[1])),
    route!("PUT", "/groups/:id/labels/:label_id", |c, r, a| {
        labels::update::update(c, Labels::Group(a[0]), a[1], &r.params)
    }),
    route!("DELETE", "/groups/:id/labels/:label_id", |c, _, a| labels::delete::delete(c, Labels::Group(a[0]), a[1])),
    route!("POST", "/groups/:id/labels/:label_id/subscribe", |c, _, a| {
        labels::subscription::subscribe(c, Labels::Group(a[0]), a[1])
    }),
    route!("POST", "/groups/:id/labels/:label_id/unsubscribe", |c, _, a| {
        labels::subscription::unsubscribe(c, Labels::Group(a[0]), a[1])
    }),
    // Protected branches.
    route!("GET", "/projects/:id/protected_branches", |c, r, a| protected_branches::list::list(c, a[0], &r.params)),
    route!("POST", "/projects/:id/protected_branches", |c, r, a| {
        protected_branches::create::create(c, a[0], &r.params)
    }),
    route!("GET", "/projects/:id/protected_branches/:name", |c, _, a| protected_branches::get::get(c, a[0], a[1])),
    route!("DELETE", "/projects/:id/protected_branches/:name", |c, _, a| {
        protected_branches::delete::delete(c, a[0], a[1])
    }),
    // Push rules: of a project, of a group.
    route!("GET", "/projects/:id/push_rule", |c, _, a| push_rules::get::get(c, PushRules::Project(a[0]))),
    route!("POST", "/projects/:id/push_rule", |c, r, a| {
        push_rules::create::create(c, PushRules::Project(a[0]), &r.params)
    }),
    route!("PUT", "/projects/:id/push_rule", |c, r, a| {
        push_rules::update::update(c, PushRules::Project(a[0]), &r.params)
    }),
    route!("DELETE", "/projects/:id/push_rule", |c, _, a| push_rules::delete::delete(c, PushRules::Project(a[0]))),
    route!("GET", "/groups/:id/push_rule", |c, _, a| push_rules::get::get(c, PushRules::Group(a[0]))),
    route!("POST", "/groups/:id/push_rule", |c, r, a| {
        push_rules::create::create(c, PushRules::Group(a[0]), &r.params)
    }),
    route!("PUT", "/groups/:id/push_rule", |c, r, a| push_rules::update::update(c, PushRules::Group(a[0]), &r.params)),
    route!("DELETE", "/groups/:id/push_rule", |c, _, a| push_rules::delete::delete(c, PushRules::Group(a[0]))),
    // CI/CD variables: of a project, of a group, of the instance.
    route!("GET", "/projects/:id/variables", |c, r, a| variables::list::list(c, Variables::Project(a[0]), &r.params)),
    route!("POST", "/projects/:id/variables", |c, r, a| {
        variables::create::create(c, Variables::Project(a[0]), &r.params)
    }),
    route!("GET", "/projects/:id/variables/:key", |c, r, a| {
        variables::get::get(c, Variables::Project(a[0]), a[1], &r.params)
    }),
    route!("PUT", "/projects/:id/variables/:key", |c, r, a| {
        variables::update::update(c, Variables::Project(a[0]), a[1], &r.params)
    }),
    route!("DELETE", "/projects/:id/variables/:key", |c, r, a| {
        variables::delete::delete(c, Variables::Project(a[0]), a[1], &r.params)
    }),
    route!("GET", "/groups/:id/variables", |c, r, a| variables::list::list(c, Variables::Group(a[0]), &r.params)),
    route!("POST", "/groups/:id/variables", |c, r, a| variables::create::create(c, Variables::Group(a[0]), &r.params)),
    route!("GET", "/groups/:id/variables/:key", |c, r, a| {
        variables::get::get(c, Variables::Group(a[0]), a[1], &r.params)
    }),
    route!("PUT", "/groups/:id/variables/:key", |c, r, a| {
        variables::update::update(c, Variables::Group(a[0]), a[1], &r.params)
    }),
    route!("DELETE", "/groups/:id/variables/:key", |c, r, a| {
        variables::delete::delete(c, Variables::Group(a[0]), a[1], &r.params)
    }),
    route!("GET", "/admin/ci/variables", |c, r, _| variables::list::list(c, Variables::Instance, &r.params)),
    route!("POST", "/admin/ci/variables", |c, r, _| variables::create::create(c, Variables::Instance, &r.params)),
    route!("GET", "/admin/ci/variables/:key", |c, r, a| variables::get::get(c, Variables::Instance, a[0], &r.params)),
    route!("PUT", "/admin/ci/variables/:key", |c, r, a| {
        variables::update::update(c, Variables::Instance, a[0], &r.params)
    }),
    route!("DELETE", "/admin/ci/variables/:key", |c, r, a| {
        variables::delete::delete(c, Variables::Instance, a[0], &r.params)
    }),
    // Merge requests.
    route!("GET", "/merge_requests", |c, r, _| mrs::list::list(c, MrList::Instance, &r.params)),
    route!("GET", "/groups/:id/merge_requests", |c, r, a| mrs::list::list(c, MrList::Group(a[0]), &r.params)),
    route!("GET", "/projects/:id/merge_requests", |c, r, a| mrs::list::list(c, MrList::Project(a[0]), &r.params)),
    route!("POST", "/projects/:id/merge_requests", |c, r, a| mrs::create::create(c, a[0], &r.params)),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid", |c, r, a| mrs::get::get(c, a[0], a[1], &r.params)),
    route!("PUT", "/projects/:id/merge_requests/:merge_request_iid", |c, r, a| {
        mrs::update::update(c, a[0], a[1], &r.params)
    }),
    route!("DELETE", "/projects/:id/merge_requests/:merge_request_iid", |c, _, a| mrs::delete::delete(c, a[0], a[1])),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/commits", |c, r, a| {
        mrs::commits::commits(c, a[0], a[1], &r.params)
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/changes", |c, r, a| {
        mrs::changes::changes(c, a[0], a[1], &r.params)
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/diffs", |c, r, a| {
        mrs::diffs::diffs(c, a[0], a[1], &r.params)
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/raw_diffs", |c, _, a| {
        mrs::raw_diffs::raw_diffs(c, a[0], a[1])
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/versions", |c, _, a| {
        mrs::versions::list(c, a[0], a[1])
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/versions/:version_id", |c, r, a| {
        mrs::versions::get(c, a[0], a[1], a[2], &r.params)
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/participants", |c, _, a| {
        mrs::participants::participants(c, a[0], a[1])
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/reviewers", |c, _, a| {
        mrs::reviewers::reviewers(c, a[0], a[1])
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/pipelines", |c, r, a| {
        mrs::pipelines::pipelines(c, a[0], a[1], &r.params)
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/closes_issues", |c, r, a| {
        mrs::closes_issues::closes_issues(c, a[0], a[1], &r.params)
    }),
    route!("PUT", "/projects/:id/merge_requests/:merge_request_iid/merge", |c, r, a| {
        mrs::merge::merge(c, a[0], a[1], &r.params)
    }),
    route!("POST", "/projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds", |c, _, a| {
        mrs::cancel_auto_merge::cancel(c, a[0], a[1])
    }),
    route!("GET", "/projects/:id/merge_requests/:merge_request_iid/merge_ref", |c, _, a| {
        mrs::merge_ref::merge_ref(c, a[0], a[1])
    }),
    route!("PUT", "/projects/:id/merge_requests/:merge_request_iid/rebase", |c, r, a| {
        mrs::rebase::rebase(c, a[0], a[1], &r.params)
    }),
    route!("GET", "/projects/:id/repository/commits/:sha/merge_requests", |c, r, a| {
        mrs::by_commit::list(c, a[0], a[1], &r.params)
    }),
    // Repositories.
    route!("GET", "/projects/:id/repository/tree", |c, r, a| tree::list(c, a[0], &r.params)),
    route!("GET", "/projects/:id/repository/blobs/:sha", |c, _, a| blobs::get(c, a[0], a[1])),
    route!("GET", "/projects/:id/repository/blobs/:sha/raw", |c, _, a| blobs::raw(c, a[0], a[1])),
    route!("GET", "/projects/:id/repository/archive", |c, r, a| archive::get(c, a[0], None, &r.params)),
    route!("GET", "/projects/:id/repository/archive.:format", |c, r, a| archive::get(c, a[0], Some(a[1]), &r.params)),
    route!("GET", "/projects/:id/repository/compare", |c, r, a| compare::get(c, a[0], &r.params)),
    route!("GET", "/projects/:id/repository/contributors", |c, r, a| contributors::list(c, a[0], &r.params)),
    route!("GET", "/projects/:id/repository/merge_base", |c, r, a| merge_base::get(c, a[0], &r.params)),
    route!("GET", "/projects/:id/repository/changelog", |c, r, a| changelog::generate(c, a[0], &r.params)),
    route!("POST", "/projects/:id/repository/changelog", |c, r, a| changelog::commit(c, a[0], &r.params)),
    route!("GET", "/projects/:id/repository/health", |c, r, a| health::get(c, a[0], &r.params)),
    // Repository files.
    route!(
        "GET",
        "/projects/:id/repository/files/:file_path",
        |c, r, a| files::get::get(c, a[0], a[1], &r.params, r.head),
        read_repository
    ),
    route!(
        "GET",
        "/projects/:id/repository/files/:file_path/raw",
        |c, r, a| files::raw::raw(c, a[0], a[1], &r.params),
        read_repository
    ),
    route!(
        "GET",
        "/projects/:id/repository/files/:file_path/blame",
        |c, r, a| files::blame::blame(c, a[0], a[1], &r.params),
        read_repository
    ),
    route!("POST", "/projects/:id/repository/files/:file_path", |c, r, a| {
        files::write::create(c, a[0], a[1], &r.params)
    }),
    route!("PUT", "/projects/:id/repository/files/:file_path", |c, r, a| {
        files::write::update(c, a[0], a[1], &r.params)
    }),
    route!("DELETE", "/projects/:id/repository/files/:file_path", |c, r, a| {
        files::write::delete(c, a[0], a[1], &r.params)
    }),
    // Commits.
    route!("GET", "/projects/:id/repository/commits", |c, r, a| commits::list::list(c, a[0], &r.params)),
    route!("POST", "/projects/:id/repository/commits", |c, r, a| commits::create::create(c, a[0], &r.params)),
    route!("GET", "/projects/:id/repository/commits/:sha", |c, r, a| commits::get::get(c, a[0], a[1], &r.params)),
    route!("GET", "/projects/:id/repository/commits/:sha/comments", |c, r, a| {
        commits::comments::list(c, a[0], a[1], &r.params)
    }),
    route!("POST", "/projects/:id/repository/commits/:sha/comments", |c, r, a| {
        commits::comment::create(c, a[0], a[1], &r.params)
    }),
    route!("GET", "/projects/:id/repository/commits/:sha/diff", |c, r, a| {
        commits::diff::diff(c, a[0], a[1], &r.params)
    }),
    route!("GET", "/projects/:id/repository/commits/:sha/refs", |c, r, a| {
        commits::refs::refs(c, a[0], a[1], &r.params)
    }),
    route!("GET", "/projects/:id/repository/commits/:sha/sequence", |c, r, a| {
        commits::sequence::sequence(c, a[0], a[1], &r.params)
    }),
    // Branches.
    route!("GET", "/projects/:id/repository/branches", |c, r, a| branches::list::list(c, a[0], &r.params)),
    route!("POST", "/projects/:id/repository/branches", |c, r, a| branches::create::create(c, a[0], &r.params)),
    route!("GET", "/projects/:id/repository/branches/:branch", |c, r, a| branches::get::get(c, a[0], a[1], r.head)),
    route!("DELETE", "/projects/:id/repository/branches/:branch", |c, _, a| branches::delete::delete(c, a[0], a[1])),
    route!("DELETE", "/projects/:id/repository/merged_branches", |c, _, a| {
        branches::delete_merged::delete_merged(c, a[0])
    }),
    // Tags.
    route!("GET", "/projects/:id/repository/tags", |c, r, a| tags::list::list(c, a[0], &r.params)),
    route!("POST", "/projects/:id/repository/tags", |c, r, a| tags::create::create(c, a[0], &r.params)),
    route!("GET", "/projects/:id/repository/tags/:tag_name", |c, _, a| tags::get::get(c, a[0], a[1])),
    route!("DELETE", "/projects/:id/repository/tags/:tag_name", |c, _, a| tags::delete::delete(c, a[0], a[1])),
    // Releases, then their links.
    route!("GET", "/projects/:id/releases", |c, r, a| releases::list::list(c, a[0], &r.params)),
    route!("GET", "/projects/:id/releases/:tag_name", |c, r, a| releases::get::get(c, a[0], a[1], &r.params)),
    route!("POST", "/projects/:id/releases", |c, r, a| releases::create::create(c, a[0], &r.params)),
    route!("PUT", "/projects/:id/releases/:tag_name", |c, r, a| releases::update::update(c, a[0], a[1], &r.params)),
    route!("DELETE", "/projects/:id/releases/:tag_name", |c, _, a| releases::delete::delete(c, a[0], a[1])),
    route!("GET", "/projects/:id/releases/permalink/latest", |c, _, a| releases::latest::latest(c, a[0], None)),
    route!("GET", "/groups/:id/releases", |c, r, a| releases::list::list_of_group(c, a[0], &r.params)),
    route!("GET", "/projects/:id/releases/:tag_name/assets/links", |c, r, a| {
        links::list::list(c, a[0], a[1], &r.params)
    }),
    route!("POST", "/projects/:id/releases/:tag_name/assets/links", |c, r, a| {
        links::create::create(c, a[0], a[1], &r.params)
    }),
    route!("GET", "/projects/:id/releases/:tag_name/assets/links/:link_id", |c, _, a| {
        links::get::get(c, a[0], a[1], a[2])
    }),
    route!("PUT", "/projects/:id/releases/:tag_name/assets/links/:link_id", |c, r, a| {
        links::update::update(c, a[0], a[1], a[2], &r.params)
    }),
    route!("DELETE", "/projects/:id/releases/:tag_name/assets/links/:link_id", |c, _, a| {
        links::delete::delete(c, a[0], a[1], a[2])
    }),
    // Commit statuses, then the pipelines they make.
    route!("GET", "/projects/:id/repository/commits/:sha/statuses", |c, r, a| {
        statuses::list::list(c, a[0], a[1], &r.params)
    }),
    route!("POST", "/projects/:id/statuses/:sha", |c, r, a| statuses::create::create(c, a[0], a[1], &r.params)),
    route!("GET", "/projects/:id/pipelines", |c, r, a| statuses::pipelines::list(c, a[0], &r.params)),
    route!("GET", "/projects/:id/pipelines/latest", |c, r, a| statuses::pipelines::latest(c, a[0], &r.params)),
    route!("GET", "/projects/:id/pipelines/:pipeline_id", |c, _, a| statuses::pipelines::get(c, a[0], a[1])),
    route!("GET", "/projects/:id/pipelines/:pipeline_id/jobs", |c, r, a| {
        statuses::pipelines::jobs(c, a[0], a[1], &r.params)
    }),
];

/// The values of `pattern`'s `:name` segments in `segments`, or `None` when it does not match.
fn captures<'a>(pattern: &str, segments: &[&'a str]) -> Option<Vec<&'a str>> {
    let parts: Vec<&str> = pattern.split('/').skip(1).collect();
    if parts.len() != segments.len() {
        return None;
    }
    let mut values = Vec::new();
    for (part, segment) in parts.iter().zip(segments) {
        match part.split_once(':') {
            None if part == segment => {}
            None => return None,
            Some(("", _)) => values.push(*segment),
            Some((prefix, _)) => values.push(segment.strip_prefix(prefix).filter(|rest| !rest.is_empty())?),
        }
    }
    Some(values)
}

/// The route a request names, with the values of its `:name` segments: a 405 for a known path
/// with another method, a 404 for an unknown path.
pub fn find(request: &Request) -> ApiResult<(&'static Route, Vec<&str>)> {
    let segments: Vec<&str> = request.segments.iter().map(String::as_str).collect();
    let mut path_known = false;
    for route in ROUTES {
        if let Some(values) = captures(route.pattern, &segments) {
            if route.method == request.method {
                return Ok((route, values));
            }
            path_known = true;
        }
    }
    Err(if path_known { ApiError::MethodNotAllowed } else { ApiError::NotFound("") })
}

/// The template of the route a raw request names, when one does, without parsing the rest of
/// it: for the record of a request abandoned before it was served.
pub fn template_for(method: &str, target: &str) -> Option<&'static str> {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let rest = path.strip_prefix("/api/v4")?;
    let segments: Vec<String> = rest
        .split('/')
        .skip(1)
        .map(|s| percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned())
        .collect();
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    let method = if method == "HEAD" { "GET" } else { method };
    ROUTES
        .iter()
        .find(|route| route.method == method && captures(route.pattern, &segments).is_some())
        .map(|route| route.template)
}

/// Whether `call`'s token has the scopes of the route `method` `pattern` names (its pattern as
/// in the table, `:names` free: `/projects/:project` is `/projects/:id`): the check of the
/// typed exports, which mirror routes. A pattern that is no route is a bug, and needs `api`.
pub fn check_scopes(call: &Call, method: &str, pattern: &str) -> ApiResult<()> {
    let shape = |p: &str| -> Vec<String> {
        p.split('/').map(|part| if part.starts_with(':') { ":".to_string() } else { part.to_string() }).collect()
    };
    let wanted = shape(pattern);
    match ROUTES.iter().find(|route| route.method == method && shape(route.pattern) == wanted) {
        Some(route) => call.check_scopes(route.need, method),
        None => {
            debug_assert!(false, "no route {method} {pattern}");
            call.check_scopes(Need::Default, "POST")
        }
    }
}

/// Calls the operation of `found` (from [`find`]) for `request`.
pub fn dispatch(call: &Call, request: &Request, found: ApiResult<(&'static Route, Vec<&str>)>) -> ApiResult<Response> {
    if request.segments == ["__panic"] && call.ctx.config.features.test_panic_route {
        panic!("panic route requested");
    }
    let (route, values) = found?;
    call.check_scopes(route.need, &request.method)?;
    (route.handler)(call, request, &values)
}

#[cfg(test)]
mod tests {
    use super::captures;

    #[test]
    fn patterns_capture_whole_segments_and_suffixes() {
        assert_eq!(captures("/projects/:id", &["projects", "a/b"]), Some(vec!["a/b"]));
        assert_eq!(captures("/projects/:id", &["projects", "a", "b"]), None);
        assert_eq!(captures("/x/archive.:format", &["x", "archive.tar.gz"]), Some(vec!["tar.gz"]));
        assert_eq!(captures("/x/archive.:format", &["x", "archive."]), None);
        assert_eq!(captures("/x/archive.:format", &["x", "archive"]), None);
        assert_eq!(captures("/x/archive", &["x", "archive.zip"]), None);
    }

    #[test]
    fn templates_of_raw_targets() {
        use super::template_for;
        assert_eq!(template_for("POST", "/api/v4/member_roles?x=1"), Some("/api/v4/member_roles"));
        assert_eq!(template_for("HEAD", "/api/v4/projects/a%2Fb"), Some("/api/v4/projects/:id"));
        assert_eq!(template_for("PATCH", "/api/v4/projects/a%2Fb"), None);
        assert_eq!(template_for("GET", "/elsewhere"), None);
    }
}
