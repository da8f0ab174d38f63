//! Deploy tokens (GitLab's `lib/api/deploy_tokens.rb`, `lib/api/entities/deploy_token.rb`;
//! issue #38): a project's or a group's, and the administrators' list of all. One file per
//! operation; the entity, the scopes and who may act are here.
//!
//! A deploy token is no API credential (GitLab accepts them on git and the registries only): its
//! one use here is `git fetch`/`clone` over HTTP with its username and the token as password,
//! with the `read_repository` scope, on its project or a project in its group's tree
//! (`transport::auth`). Who: a project's need `ManageDeployTokens` (Maintainer, or a custom
//! role's `manage_deploy_tokens`); a group's are read by Maintainers and made and deleted by
//! Owners (`manage_deploy_tokens` does both). Refusals are `authorize!`'s 403.

pub mod create;
pub mod delete;
pub mod get;
pub mod list;

use crate::api::personal_access_tokens::utc;
use crate::api::Call;
use crate::auth::permissions::{self, GroupAbility, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::store::tokens::{DeployOwner, DeployToken};
use serde::Serialize;

/// GitLab's `DeployToken::AVAILABLE_SCOPES`, in its order (the entity lists a token's scopes
/// in this order). There is no `write_repository`: deploy tokens never push.
pub const SCOPES: &[&str] = &[
    "read_repository",
    "read_registry",
    "write_registry",
    "read_package_registry",
    "write_package_registry",
    "read_virtual_registry",
    "write_virtual_registry",
];

/// The text prefix of a deploy token (GitLab's `DeployToken::DEPLOY_TOKEN_PREFIX`).
pub const PREFIX: &str = "gldt-";

/// Whose deploy tokens a route is about.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    Project(&'a str),
    Group(&'a str),
}

/// What a route does with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Read,
    Manage,
}

/// The owner `scope` names, found, visible (else its 404) and allowing `action` (else 403).
pub fn owner(call: &Call, scope: Scope, action: Action) -> ApiResult<DeployOwner> {
    call.caller.require_user()?;
    match scope {
        Scope::Project(id) => {
            let project = call.project(id, ProjectAbility::Read)?;
            call.ctx.store.read(|db| {
                permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ManageDeployTokens)
            })?;
            Ok(DeployOwner::Project(project.id))
        }
        Scope::Group(id) => {
            let group = call.group(id)?;
            let ability = match action {
                Action::Read => GroupAbility::ReadDeployTokens,
                Action::Manage => GroupAbility::ManageDeployTokens,
            };
            if !call.ctx.store.read(|db| permissions::group_may(db, &call.caller, &group, ability))? {
                return Err(ApiError::Forbidden(None));
            }
            Ok(DeployOwner::Group(group.id))
        }
    }
}

/// `DeployToken` (`…WithToken` adds `token`), in GitLab's key order.
#[derive(Debug, Serialize)]
pub struct Entity<'t> {
    id: i64,
    name: &'t str,
    username: &'t str,
    expires_at: Option<String>,
    scopes: &'t [String],
    revoked: bool,
    expired: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<&'t str>,
}

pub fn entity<'t>(token: &'t DeployToken, text: Option<&'t str>) -> Entity<'t> {
    Entity {
        id: token.id,
        name: &token.name,
        username: &token.username,
        expires_at: token.expires_at.map(utc),
        scopes: &token.scopes,
        revoked: token.revoked,
        expired: token.expired(crate::store::now_seconds()),
        token: text,
    }
}
