//! `PUT /groups/:id/members/:user_id`, `PUT /projects/:id/members/:user_id`: a direct
//! member's `access_level` (required), `expires_at` and `member_role_id` (null clears it).
//! [`change`] is the one way a membership changes: the route and the administration commands
//! both call it.

use super::{
    checked_role, entity, invalid, member_not_found, parse_user_id, read_access_level, read_expires_at,
    read_member_role_id, visible, Actor, Scope, Standing, Target,
};
use crate::api::Call;
use crate::auth::roles::OWNER;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, members::Member};

/// What changes; `None` keeps the current value.
#[derive(Debug, Clone)]
pub struct Change {
    pub access_level: i64,
    pub expires_at: Option<Option<String>>,
    pub member_role_id: Option<Option<i64>>,
}

/// Changes the direct membership of `user_id` in `target` for `actor`: 403 when the actor may
/// not manage members, or the member is above the actor, or the change would give more than the
/// actor has, or it would leave a group without an Owner; `404 Not found` for no such member;
/// the custom-role validations (400).
pub fn change(ctx: &Context, actor: &Actor, target: &Target, user_id: i64, change: &Change) -> ApiResult<Member> {
    let source = target.source();
    ctx.store.write(|db| -> ApiResult<_> {
        let standing = Standing::of(db, actor, target)?;
        standing.require_manage()?;
        let mut member = store::members::find_direct(db, source, user_id)?.ok_or_else(member_not_found)?;
        standing.require_reach(member.access_level)?;
        standing.require_owner_assignment(change.access_level)?;
        let role_id = change.member_role_id.unwrap_or(member.member_role_id);
        let given_role = match role_id {
            Some(id) if role_id != member.member_role_id => Some(checked_role(db, target, id, change.access_level)?),
            Some(_) if change.access_level != member.access_level => {
                return Err(invalid(
                    "access_level",
                    "cannot be changed because of an existing association with a custom role",
                ))
            }
            _ => None,
        };
        if standing.prevents(change.access_level, given_role.as_ref()) {
            return Err(ApiError::Forbidden(None));
        }
        if let Target::Group(group) = target {
            if member.access_level >= OWNER
                && change.access_level < OWNER
                && !store::members::has_other_owner(db, group.id, member.user_id)?
            {
                return Err(ApiError::Forbidden(None));
            }
        }
        member.access_level = change.access_level;
        member.member_role_id = role_id;
        if let Some(expires_at) = &change.expires_at {
            member.expires_at = expires_at.clone();
        }
        store::members::update(db, &member)?;
        Ok(member)
    })
}

pub fn update(call: &Call, scope: Scope, user_id: &str, params: &Params) -> ApiResult<Response> {
    let user_id = parse_user_id(user_id)?;
    let access_level = read_access_level(params)?;
    let expires_at = read_expires_at(params)?;
    let member_role_id = read_member_role_id(params)?;
    let target = visible(call, scope)?;
    let actor = Actor::of(call)?;
    let member = change(call.ctx, &actor, &target, user_id, &Change { access_level, expires_at, member_role_id })?;
    let shown = call.ctx.store.read(|db| entity(db, &call.base_url, member))?;
    Ok(Response::json(200, &shown))
}
