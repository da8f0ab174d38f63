//! `POST /groups/:id/share` and `DELETE /groups/:id/share/:group_id` (reference §7; GitLab's
//! `lib/api/groups.rb` share routes and `app/services/groups/group_links/create_service.rb`,
//! read for this), and the `shared_with_groups` both entities show.
//!
//! Sharing: `group_id` and `group_access` (one of GitLab's levels) required, `expires_at` a
//! date. The group shared with missing or unseen: `404 Group Not Found` (`find_group!`). The
//! service (`valid_to_create?`): the caller may admin the group's members (Owner) and is a
//! member of the group shared with (`read_group` through membership), else 404 `{"message":
//! "Not Found"}`; a group shared with already: 409 with the model's message. 201 with the
//! shared group's `GroupDetail`. Unsharing: Owner (`admin_group`, 403), no link `404 Not
//! Found`, 204.

use crate::api::Call;
use crate::auth::permissions;
use crate::auth::roles::ACCESS_LEVELS;
use crate::auth::Caller;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::shares::{self, Shared};
use crate::store::{self, Db};
use serde_json::Value;

/// The live links of `shared` to groups `caller` may see, as the entities show them (GitLab's
/// `visible_group_links`); `None` for the administration (no caller), which sees all.
pub fn visible_links(ctx: &Context, caller: Option<&Caller>, shared: Shared) -> ApiResult<Value> {
    ctx.store.read(|db| -> ApiResult<Value> {
        let mut out = Vec::new();
        for link in shares::list(db, shared)? {
            let visible = match caller {
                None => true,
                Some(caller) => match store::groups::find_by_id(db, link.group_id)? {
                    Some(group) => permissions::can_see_group(db, caller, &group)?,
                    None => false,
                },
            };
            if visible {
                out.push(link.entity());
            }
        }
        Ok(Value::Array(out))
    })
}

/// `shared_with_groups` of a group for the call's caller.
pub fn shared_with_groups(call: &Call, shared: Shared) -> ApiResult<Value> {
    visible_links(call.ctx, Some(&call.caller), shared)
}

/// `group_access` (required, one of GitLab's levels) and `expires_at` (a date, optional).
pub fn link_params(params: &Params) -> ApiResult<(i64, i64, Option<String>)> {
    let group_id = params.int("group_id")?.ok_or_else(|| ApiError::MissingParam("group_id".into()))?;
    let access = params.int("group_access")?.ok_or_else(|| ApiError::MissingParam("group_access".into()))?;
    if !ACCESS_LEVELS.contains(&access) {
        return Err(ApiError::InvalidValue("group_access".into()));
    }
    let expires_at = crate::api::members::read_expires_at(params)?.flatten();
    Ok((group_id, access, expires_at))
}

/// Whether `caller` reaches `group` through a membership (GitLab's `read_namespace_via_membership`),
/// or administers the instance.
pub fn member_of(db: &mut Db, caller: &Caller, group: &store::groups::Group) -> ApiResult<bool> {
    let Caller::User(user) = caller else { return Ok(false) };
    Ok(user.is_admin || !store::members::for_group(db, user.id, group.id)?.is_empty())
}

/// `POST /groups/:id/share`.
pub fn share(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    call.caller.require_user()?;
    let group = call.group(id)?;
    let (with_id, access, expires_at) = link_params(params)?;
    let with = call.group(&with_id.to_string())?;
    call.ctx.store.write(|db| -> ApiResult<()> {
        if !permissions::is_group_owner(db, &call.caller, &group)? || !member_of(db, &call.caller, &with)? {
            return Err(not_found());
        }
        if group.id == with.id {
            return Err(ApiError::validation("Shared with group can't be the same as the shared group"));
        }
        if let Some((_, expires)) = shares::find(db, Shared::Group(group.id), with.id)? {
            if expires.as_deref().is_none_or(|day| day > store::today().as_str()) {
                return Err(ApiError::Conflict(
                    "Shared group The group has already been shared with this group".into(),
                ));
            }
        }
        shares::insert(db, Shared::Group(group.id), with.id, access, expires_at.as_deref())?;
        Ok(())
    })?;
    let detailed = call.ctx.store.read(|db| crate::api::groups::detailed(db, &group))?;
    crate::api::groups::detail(call, &detailed, false, 201)
}

/// A service's 404 (`error('Not Found', 404)`): `{"message":"Not Found"}`.
pub fn not_found() -> ApiError {
    ApiError::NotFoundText("Not Found")
}

/// `DELETE /groups/:id/share/:group_id`.
pub fn unshare(call: &Call, id: &str, with_id: &str) -> ApiResult<Response> {
    call.caller.require_user()?;
    let group = call.group(id)?;
    let with_id = crate::params::parse_int_text(with_id).ok_or_else(|| ApiError::InvalidParam("group_id".into()))?;
    call.ctx.store.write(|db| -> ApiResult<()> {
        if !permissions::is_group_owner(db, &call.caller, &group)? {
            return Err(ApiError::Forbidden(None));
        }
        if !shares::delete(db, Shared::Group(group.id), with_id)? {
            return Err(ApiError::NotFound(""));
        }
        Ok(())
    })?;
    Ok(Response::no_content())
}
