//! `DELETE /users/:id` (administrators): 204; the user's memberships and tokens go with them.
//! 409 `User cannot be removed while is the sole-owner of a group` unless `hard_delete`
//! (GitLab's `can_be_removed?`). GitLab deletes asynchronously and moves contributions to its
//! ghost user; forgecore keeps no contributions, so the user is gone when this answers, and so
//! are the projects of their personal namespace (purged as a deleted project is: a repository
//! forgecore created is removed, one registered in place only unregistered).

use super::{find, parse_id, require_admin, require_signed_in};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store;

pub fn delete(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    require_signed_in(call)?;
    let id = parse_id(id)?;
    let hard_delete = params.bool("hard_delete")?.unwrap_or(false);
    require_admin(call)?;
    let personal = call.ctx.store.write(|db| -> ApiResult<_> {
        let user = find(db, id)?;
        if !hard_delete && !store::users::solo_owned_groups(db, user.id)?.is_empty() {
            return Err(ApiError::Conflict("User cannot be removed while is the sole-owner of a group".into()));
        }
        let personal = store::projects::ids_of_personal(db, user.id)?;
        store::users::delete(db, user.id)?;
        Ok(personal)
    })?;
    for project in personal {
        crate::api::projects::purge::purge_project(call.ctx, project)?;
    }
    Ok(Response::no_content())
}
