//! `DELETE /groups/:id/members/:user_id`, `DELETE /projects/:id/members/:user_id`: 204.
//! Anyone may leave (remove their own membership); removing others needs the right to manage
//! members and reach (not above the caller; a project's Owner only by an Owner). The last Owner
//! of a group stays (403).

use super::{member_not_found, parse_user_id, visible, Actor, Scope, Standing, Target};
use crate::api::Call;
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store;

pub fn delete(call: &Call, scope: Scope, user_id: &str) -> ApiResult<Response> {
    let user_id = parse_user_id(user_id)?;
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
        Ok(())
    })?;
    Ok(Response::no_content())
}
