//! Project and group access tokens (GitLab's `lib/api/resource_access_tokens.rb`,
//! `app/services/resource_access_tokens/create_service.rb` and `revoke_service.rb`; issue #38):
//! list, get, create, rotate, revoke, for `/projects/:id/access_tokens` and
//! `/groups/:id/access_tokens`. One file per operation; what they share is here.
//!
//! A resource access token is a personal access token of a bot user (`user_type:
//! project_bot`) that is a member of the project or group at the token's `access_level`, so
//! everything a personal access token is (scopes, expiry, revocation, rotation, the one
//! authentication path) it is too; its row also names its resource.
//!
//! Who (the one permission function): a project's tokens need `ManageAccessTokens`
//! (Maintainer, or a custom role's `manage_project_access_tokens`), a group's
//! `GroupAbility::ManageAccessTokens` (Owner, or `manage_group_access_tokens`). A resource the
//! caller cannot see is its 404; list and get answer a refusal 401 (`unauthorized!`), create
//! 400 `User does not have permission to create <kind> access token`, revoke 400
//! `<caller> cannot delete <bot>`, rotate 401 (404 for administrators).

pub mod create;
pub mod get;
pub mod list;
pub mod revoke;
pub mod rotate;

use crate::api::personal_access_tokens::{self as pat, Shape};
use crate::api::Call;
use crate::auth::permissions::{self, GroupAbility, ProjectAbility, ProjectAccess};
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::store::{self, members::Source, tokens::PersonalToken};
use serde::Serialize;

/// Whose tokens a route is about: a project's or a group's, by id or full path.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    Project(&'a str),
    Group(&'a str),
}

/// The project or group of a call, found and visible, and the caller's standing on it.
#[derive(Debug, Clone)]
pub struct Resource {
    /// `project` or `group`, as the entity's `resource_type` spells it.
    pub kind: &'static str,
    pub id: i64,
    pub name: String,
    /// Whether the caller may manage its access tokens.
    pub allowed: bool,
    /// The caller's highest access level on it (GitLab's `max_member_access_for_user`:
    /// administrators count as Owners).
    pub level: i64,
}

impl Resource {
    pub fn find(call: &Call, scope: Scope) -> ApiResult<Resource> {
        match scope {
            Scope::Project(id) => {
                let project = call.project(id, ProjectAbility::Read)?;
                call.ctx.store.read(|db| -> ApiResult<_> {
                    let allowed =
                        permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ManageAccessTokens)
                            .is_ok();
                    let access = ProjectAccess::of(db, &call.caller, &project)?;
                    let level = if access.admin { OWNER } else { access.level };
                    Ok(Resource { kind: "project", id: project.id, name: project.name.clone(), allowed, level })
                })
            }
            Scope::Group(id) => {
                let group = call.group(id)?;
                call.ctx.store.read(|db| -> ApiResult<_> {
                    let allowed = permissions::group_may(db, &call.caller, &group, GroupAbility::ManageAccessTokens)?;
                    let access = permissions::group_access(db, &call.caller, &group)?;
                    let level = if access.admin { OWNER } else { access.level };
                    Ok(Resource { kind: "group", id: group.id, name: group.name.clone(), allowed, level })
                })
            }
        }
    }

    pub fn source(&self) -> Source {
        if self.kind == "group" {
            Source::Group(self.id)
        } else {
            Source::Project(self.id)
        }
    }

    /// The resource's token `:token_id` (GitLab's `find_token`: a token of the resource's
    /// bots); `None` when there is no such token or `token_id` is no integer.
    pub fn token(&self, call: &Call, token_id: &str) -> ApiResult<Option<PersonalToken>> {
        let Ok(id) = pat::integer_id(token_id, "token_id") else { return Ok(None) };
        let token = call.ctx.store.read(|db| store::tokens::find_personal(db, id))?;
        Ok(token.filter(|t| t.resource.as_ref().is_some_and(|(kind, rid)| kind == self.kind && *rid == self.id)))
    }

    /// GitLab's `not_found!("<kind> Access Token")`.
    pub fn token_not_found(&self) -> ApiError {
        ApiError::NotFoundNamed(format!("{} Access Token", self.kind))
    }
}

/// `ResourceAccessToken`: the `PersonalAccessTokenWithLastUsedIps` keys, then `access_level`,
/// `resource_type`, `resource_id` (`lib/api/entities/resource_access_token.rb`), and `token`
/// last in `ResourceAccessTokenWithToken`.
#[derive(Debug, Serialize)]
pub struct Entity<'t> {
    #[serde(flatten)]
    base: pat::Entity<'t>,
    access_level: Option<i64>,
    resource_type: &'t str,
    resource_id: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<&'t str>,
}

/// The entity of `token` of `resource`, `text` its secret on create and rotate.
pub fn entity<'t>(
    call: &Call,
    resource: &'t Resource,
    token: &'t PersonalToken,
    text: Option<&'t str>,
) -> ApiResult<Entity<'t>> {
    let member = call.ctx.store.read(|db| store::members::find_direct(db, resource.source(), token.user_id))?;
    Ok(Entity {
        base: pat::entity(token, Shape::WithLastUsedIps),
        access_level: member.map(|m| m.access_level),
        resource_type: resource.kind,
        resource_id: resource.id,
        token: text,
    })
}

/// The bot scopes a resource access token may have (`Gitlab::Auth.resource_bot_scopes`: the
/// API and repository scopes without `read_user`, and the registry scopes).
pub const BOT_SCOPES: &[&str] = &[
    "api",
    "read_api",
    "k8s_proxy",
    "self_rotate",
    "read_repository",
    "write_repository",
    "read_registry",
    "write_registry",
];
