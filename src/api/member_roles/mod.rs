//! Custom member roles, A1-A7 of the seed with decisions D3: list, create, update name and
//! description, delete; instance-wide (administrators) or per root group (group owners). One
//! file per operation; what they share (the entity, who may manage roles, reading the
//! parameters) is here.

use crate::api::Call;
use crate::auth::permissions;
use crate::auth::roles::{humanize, ACCESS_LEVELS, PERMISSION_FLAGS};
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_int_text, Params};
use crate::store::{self, groups::Group, member_roles::MemberRole, Db, StoreError};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

pub mod create;
pub mod delete;
pub mod list;
pub mod update;

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
pub(super) fn authorize(call: &Call, scope: Scope) -> ApiResult<Option<Group>> {
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

/// A text of at most `max` characters, without NUL: GitLab refuses any parameter holding a
/// null byte with 400 (`Gitlab::Middleware::HandleMalformedStrings`), and PostgreSQL's text
/// cannot hold one.
pub(super) fn check_text(field: &str, value: &str, max: usize) -> ApiResult<()> {
    if value.contains('\0') {
        return Err(ApiError::BadRequest(format!("{field} contains a null byte")));
    }
    if value.chars().count() > max {
        return Err(ApiError::validation(format!("{} is too long (maximum is {max} characters)", humanize(field))));
    }
    Ok(())
}

/// `name`: a present, non-blank string of at most 255 characters.
pub(super) fn read_name(params: &Params) -> ApiResult<Option<String>> {
    let Some(name) = params.string("name")? else { return Ok(None) };
    if name.trim().is_empty() {
        return Err(ApiError::validation("Name can't be blank"));
    }
    check_text("name", &name, MAX_NAME_CHARS)?;
    Ok(Some(name))
}

/// `description`: a string of at most 255 characters, or null.
pub(super) fn read_description(params: &Params) -> ApiResult<Option<Option<String>>> {
    if params.raw("description") == Some(&Value::Null) {
        return Ok(Some(None));
    }
    let Some(description) = params.string("description")? else { return Ok(None) };
    check_text("description", &description, MAX_DESCRIPTION_CHARS)?;
    Ok(Some(Some(description)))
}

/// `base_access_level` on create: required, one of the six levels.
pub(super) fn read_base_access_level(params: &Params) -> ApiResult<i64> {
    match params.raw("base_access_level") {
        None => Err(ApiError::MissingParam("base_access_level".into())),
        Some(value) => match crate::params::parse_int(value) {
            Some(level) if ACCESS_LEVELS.contains(&level) => Ok(level),
            _ => Err(ApiError::InvalidValue("base_access_level".into())),
        },
    }
}

pub(super) fn read_flags(params: &Params) -> ApiResult<Vec<String>> {
    let mut enabled = Vec::new();
    for flag in PERMISSION_FLAGS {
        if params.bool(flag)? == Some(true) {
            enabled.push(flag.to_string());
        }
    }
    Ok(enabled)
}

/// Parameter validation as Grape does it: every missing required parameter, joined.
pub(super) fn check_required(params: &Params) -> ApiResult<()> {
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

/// A name taken by a writer that raced this one past `name_taken` (instance roles take no
/// lock) is the same answer as one taken before.
pub(super) fn name_race(e: StoreError) -> ApiError {
    match e {
        StoreError::Conflict(_) => ApiError::validation("Name has already been taken"),
        other => other.into(),
    }
}

/// A member role id from the path: a 64-bit integer, else 400 (Grape's Integer coercion);
/// integers that name no role (0, negative) are the lookup's 404.
pub(super) fn parse_role_id(text: &str) -> ApiResult<i64> {
    parse_int_text(text).ok_or_else(|| ApiError::InvalidParam("member_role_id".into()))
}

/// The role `id` of the group in the route itself (GitLab's `group.member_roles.find_by_id`),
/// or of the instance, or 404. Roles belong to root groups, so on a subgroup route every role
/// is 404: ownership of a subgroup never reaches the roles of its root.
pub(super) fn find_role(db: &mut Db, group: &Option<Group>, id: i64) -> ApiResult<MemberRole> {
    store::member_roles::find_in(db, group.as_ref().map(|g| g.id), id)?.ok_or(ApiError::NotFound("Member Role"))
}
