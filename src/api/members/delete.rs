//! `DELETE /groups/:id/members/:user_id`, `DELETE /projects/:id/members/:user_id`: 204.
//! Anyone may leave (remove their own membership); removing others needs the right to manage
//! members and reach (not above the caller; a project's Owner only by an Owner). The last Owner
//! of a group stays (403). Leaving a group also leaves its subgroups and their projects, as
//! GitLab's `Members::DestroyService` does, unless `skip_subresources=true` (a subgroup's last
//! Owner stays there).

use super::{member_not_found, parse_user_id, visible, Actor, Scope, Standing, Target};
use crate::api::Call;
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store;

pub fn delete(call: &Call, scope: Scope, user_id: &str, params: &Params) -> ApiResult<Response> {
    let user_id = parse_user_id(user_id)?;
    let skip_subresources = params.bool("skip_subresources")?.unwrap_or(false);
    params.bool("unassign_issuables")?;
    let target = visible(call, scope)?;
    let actor = Actor::of(call)?;
    let source = target.source();
    call.ctx.store.write(|db| -> ApiResult<_> {
        let member = store::members::find_direct(db, source, user_id)?.ok_or_else(member_not_found)?;
        let standing = Standing::of(db, &actor, &target)?;
        if !standing.is_self(member.user_id) {
            standing.require_manage()?;
            standing.require_reach(member.access_level)?;
        }
        if let Target::Group(group) = &target {
            if member.access_level >= OWNER && !store::members::has_other_owner(db, group.id, member.user_id)? {
                return Err(ApiError::Forbidden(None));
            }
        }
        store::members::delete(db, member.id)?;
        if let (Target::Group(group), false) = (&target, skip_subresources) {
            for below in store::members::below(db, group.id, member.user_id)? {
                let last_owner = match below.group_id {
                    Some(group_id) if below.access_level >= OWNER => {
                        !store::members::has_other_owner(db, group_id, below.user_id)?
                    }
                    _ => false,
                };
                if !last_owner {
                    store::members::delete(db, below.id)?;
                }
            }
        }
        Ok(())
    })?;
    Ok(Response::no_content())
}
