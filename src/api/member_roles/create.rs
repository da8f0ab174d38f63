//! `POST /member_roles`, `POST /groups/:id/member_roles`.

use super::{
    authorize, check_required, entity, name_race, read_base_access_level, read_description, read_flags, read_name,
    Scope, MAX_ROLES_PER_GROUP,
};
use crate::api::Call;
use crate::auth::roles::{humanize, REQUIREMENTS};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, member_roles::MemberRole};

/// A2, A5: 201 and the new role.
pub fn create(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    let group = authorize(call, scope)?;
    check_required(params)?;
    let base_access_level = read_base_access_level(params)?;
    let name = read_name(params)?.ok_or_else(|| ApiError::MissingParam("name".into()))?;
    let description = read_description(params)?.flatten();
    let permissions = read_flags(params)?;
    for (flag, requirement, included_from) in REQUIREMENTS {
        let has = |f: &str| permissions.iter().any(|p| p == f);
        if has(flag) && !has(requirement) && base_access_level < included_from {
            return Err(ApiError::validation(format!(
                "{} has to be enabled in order to enable {}",
                humanize(requirement),
                humanize(flag)
            )));
        }
    }
    if group.as_ref().is_some_and(|g| g.parent_id.is_some()) {
        return Err(ApiError::validation("Creation of member role is allowed only for root groups"));
    }
    let group_id = group.map(|g| g.id);
    let role = MemberRole { id: 0, group_id, name, description, base_access_level, permissions };
    let created = call.ctx.store.write(|db| -> ApiResult<_> {
        if let Some(group_id) = group_id {
            // Creates for one group wait for each other here, on every host: the count and the
            // insert it guards are one step.
            store::groups::lock(db, group_id)?;
            if store::member_roles::count_in(db, group_id)? >= MAX_ROLES_PER_GROUP {
                return Err(ApiError::validation(
                    "Namespace maximum number of Member Roles are already in use by the group hierarchy. Please delete an existing Member Role.",
                ));
            }
        }
        if store::member_roles::name_taken(db, group_id, &role.name, None)? {
            return Err(ApiError::validation("Name has already been taken"));
        }
        store::member_roles::insert(db, &role).map_err(name_race)
    })?;
    Ok(Response::json(201, &entity(&created)))
}
