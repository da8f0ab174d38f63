//! `GET /member_roles`, `GET /groups/:id/member_roles`.

use super::{authorize, entity, Scope};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;
use crate::store;

/// A1, A4. A subgroup lists the roles of its root group, as GitLab does.
pub fn list(call: &Call, scope: Scope) -> ApiResult<Response> {
    let group = authorize(call, scope)?;
    let namespace = match &group {
        Some(g) => Some(call.ctx.store.read(|db| store::groups::root_id(db, g.id))?),
        None => None,
    };
    let roles = call.ctx.store.member_roles(namespace)?;
    Ok(Response::json(200, &roles.iter().map(entity).collect::<Vec<_>>()))
}
