//! Custom member roles, A1-A7 of the seed with decisions D3: list, create, update name and
//! description, delete; instance-wide (administrators) or per root group (group owners).

use super::Call;
use crate::auth::permissions;
use crate::auth::roles::{humanize, ACCESS_LEVELS, PERMISSION_FLAGS, REQUIREMENTS};
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_int_text, Params};
use crate::response::Response;
use crate::store::{self, groups::Group, member_roles::MemberRole, Db, StoreError};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// Whose roles: the instance's, or a group's (by id or full path).
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    Instance,
    Group(&'a str),
}

/// At most this many roles per root group (GitLab's `MAX_COUNT_PER_GROUP_HIERARCHY`).
pub const MAX_ROLES_PER_GROUP: i64 = 10;
/// GitLab's column limits for the two texts.
const MAX_NAME_CHARS: usize = 255;
const MAX_DESCRIPTION_CHARS: usize = 255;

/// The REST entity: id, group_id, name, description, base_access_level, then every flag,
/// serialized straight from the role (no intermediate JSON value).
pub struct Entity<'a>(&'a MemberRole);

pub fn entity(role: &MemberRole) -> Entity<'_> {
    Entity(role)
}

impl Serialize for Entity<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let role = self.0;
        let mut map = serializer.serialize_map(Some(5 + PERMISSION_FLAGS.len()))?;
        map.serialize_entry("id", &role.id)?;
        map.serialize_entry("group_id", &role.group_id)?;
        map.serialize_entry("name", &role.name)?;
        map.serialize_entry("description", &role.description)?;
        map.serialize_entry("base_access_level", &role.base_access_level)?;
        for flag in PERMISSION_FLAGS {
            map.serialize_entry(flag, &role.permissions.iter().any(|p| p == flag))?;
        }
        map.end()
    }
}

/// Resolves the scope to the namespace whose roles are managed, checking the caller:
/// 401 anonymous, 404 an unknown or invisible group, 403 neither owner nor administrator.
fn authorize(call: &Call, scope: Scope) -> ApiResult<Option<Group>> {
    call.caller.require_user()?;
    match scope {
        Scope::Instance if call.caller.is_admin() => Ok(None),
        Scope::Instance => Err(ApiError::Forbidden(None)),
        Scope::Group(id) => {
            let group = call.group(id)?;
            if call.ctx.store.read(|db| permissions::is_group_owner(db, &call.caller, &group))? {
                Ok(Some(group))
            } else {
                Err(ApiError::Forbidden(None))
            }
        }
    }
}

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

/// A text of at most `max` characters, without NUL: GitLab refuses any parameter holding a
/// null byte with 400 (`Gitlab::Middleware::HandleMalformedStrings`), and PostgreSQL's text
/// cannot hold one.
fn check_text(field: &str, value: &str, max: usize) -> ApiResult<()> {
    if value.contains('\0') {
        return Err(ApiError::BadRequest(format!("{field} contains a null byte")));
    }
    if value.chars().count() > max {
        return Err(ApiError::validation(format!("{} is too long (maximum is {max} characters)", humanize(field))));
    }
    Ok(())
}

/// `name`: a present, non-blank string of at most 255 characters.
fn read_name(params: &Params) -> ApiResult<Option<String>> {
    let Some(name) = params.string("name")? else { return Ok(None) };
    if name.trim().is_empty() {
        return Err(ApiError::validation("Name can't be blank"));
    }
    check_text("name", &name, MAX_NAME_CHARS)?;
    Ok(Some(name))
}

/// `description`: a string of at most 255 characters, or null.
fn read_description(params: &Params) -> ApiResult<Option<Option<String>>> {
    if params.raw("description") == Some(&Value::Null) {
        return Ok(Some(None));
    }
    let Some(description) = params.string("description")? else { return Ok(None) };
    check_text("description", &description, MAX_DESCRIPTION_CHARS)?;
    Ok(Some(Some(description)))
}

/// `base_access_level` on create: required, one of the six levels.
fn read_base_access_level(params: &Params) -> ApiResult<i64> {
    match params.raw("base_access_level") {
        None => Err(ApiError::MissingParam("base_access_level".into())),
        Some(value) => match crate::params::parse_int(value) {
            Some(level) if ACCESS_LEVELS.contains(&level) => Ok(level),
            _ => Err(ApiError::InvalidValue("base_access_level".into())),
        },
    }
}

fn read_flags(params: &Params) -> ApiResult<Vec<String>> {
    let mut enabled = Vec::new();
    for flag in PERMISSION_FLAGS {
        if params.bool(flag)? == Some(true) {
            enabled.push(flag.to_string());
        }
    }
    Ok(enabled)
}

/// Parameter validation as Grape does it: every missing required parameter, joined.
fn check_required(params: &Params) -> ApiResult<()> {
    let missing: Vec<String> = ["name", "base_access_level"]
        .iter()
        .filter(|p| !params.contains(p))
        .map(|p| format!("{p} is missing"))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(ApiError::ParamError(missing.join(", ")))
    }
}

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

/// A name taken by a writer that raced this one past `name_taken` (instance roles take no
/// lock) is the same answer as one taken before.
fn name_race(e: StoreError) -> ApiError {
    match e {
        StoreError::Conflict(_) => ApiError::validation("Name has already been taken"),
        other => other.into(),
    }
}

/// A member role id from the path: a 64-bit integer, else 400 (Grape's Integer coercion);
/// integers that name no role (0, negative) are the lookup's 404.
fn parse_role_id(text: &str) -> ApiResult<i64> {
    parse_int_text(text).ok_or_else(|| ApiError::InvalidParam("member_role_id".into()))
}

/// The role `id` of the group in the route itself (GitLab's `group.member_roles.find_by_id`),
/// or of the instance, or 404. Roles belong to root groups, so on a subgroup route every role
/// is 404: ownership of a subgroup never reaches the roles of its root.
fn find_role(db: &mut Db, group: &Option<Group>, id: i64) -> ApiResult<MemberRole> {
    store::member_roles::find_in(db, group.as_ref().map(|g| g.id), id)?.ok_or(ApiError::NotFound("Member Role"))
}

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
