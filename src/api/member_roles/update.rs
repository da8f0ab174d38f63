//! `PUT /member_roles/:member_role_id`, `PUT /groups/:id/member_roles/:member_role_id`.

use super::{authorize, entity, find_role, name_race, parse_role_id, read_description, read_name, Scope};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store;

/// A6 (ours, decisions D3): `PUT` with `name` and/or `description`; 200 and the whole role.
/// The base access level and the namespace are fixed for the life of a role.
pub fn update(call: &Call, scope: Scope, role_id: &str, params: &Params) -> ApiResult<Response> {
    let group = authorize(call, scope)?;
    let id = parse_role_id(role_id)?;
    let name = read_name(params)?;
    let description = read_description(params)?;
    let updated = call.ctx.store.write(|db| -> ApiResult<_> {
        let mut role = find_role(db, &group, id)?;
        if let Some(level) = params.raw("base_access_level") {
            if crate::params::parse_int(level) != Some(role.base_access_level) {
                return Err(ApiError::validation(
                    "Base access level cannot be changed. Please create a new Member Role instead.",
                ));
            }
        }
        if let Some(group_id) = params.raw("group_id") {
            if crate::params::parse_int(group_id) != role.group_id {
                return Err(ApiError::validation("Namespace cannot be changed"));
            }
        }
        if name.is_none() && description.is_none() {
            return Err(ApiError::ParamError(
                "name, description are missing, at least one parameter must be provided".into(),
            ));
        }
        if let Some(name) = name {
            if store::member_roles::name_taken(db, role.group_id, &name, Some(role.id))? {
                return Err(ApiError::validation("Name has already been taken"));
            }
            role.name = name;
        }
        if let Some(description) = description {
            role.description = description;
        }
        store::member_roles::update_text(db, role.id, &role.name, role.description.as_deref()).map_err(name_race)?;
        Ok(role)
    })?;
    Ok(Response::json(200, &entity(&updated)))
}
