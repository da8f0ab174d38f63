//! `DELETE /member_roles/:member_role_id`, `DELETE /groups/:id/member_roles/:member_role_id`.

use super::{authorize, find_role, parse_role_id, Scope};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store;

/// A3, A7: 204; refused while any member holds the role.
pub fn delete(call: &Call, scope: Scope, role_id: &str) -> ApiResult<Response> {
    let group = authorize(call, scope)?;
    let id = parse_role_id(role_id)?;
    call.ctx.store.write(|db| -> ApiResult<_> {
        let role = find_role(db, &group, id)?;
        if store::members::count_with_role(db, role.id)? > 0 {
            return Err(ApiError::validation(
                "Role is assigned to one or more group members. Remove role from all group members, then delete role.",
            ));
        }
        Ok(store::member_roles::delete(db, role.id)?)
    })?;
    Ok(Response::no_content())
}
