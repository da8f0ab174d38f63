//! `POST /projects/:id/share` and `DELETE /projects/:id/share/:group_id` (reference §8;
//! GitLab's `lib/api/projects.rb` share routes and `app/services/projects/group_links/
//! create_service.rb`, read for this).
//!
//! Sharing: `admin_project` (Maintainer, 403); a project whose group locks sharing
//! (`share_with_group_lock`) is 400 `The project sharing with group is disabled`; `group_id`,
//! `group_access` (one of GitLab's levels) required, `expires_at` a date; an Owner link needs
//! `manage_owners` (the project's Owner): 403 `403 Forbidden`; the group missing or not one the
//! caller is a member of (`read_namespace_via_membership`): 404 `Not Found`; shared already:
//! 409 `Group already shared with this group`. 201 with GitLab's `ProjectGroupLink`. The
//! group's members then reach the project at the lower of the link's level and their own (the
//! permission function; git over HTTP follows). Unsharing: Maintainer, 404 `Group Link Not
//! Found`, 204.

use crate::api::groups::share::{link_params, member_of, not_found};
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::shares::{self, Shared};
use crate::store::{self};
use serde_json::json;

/// `POST /projects/:id/share`.
pub fn share(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    call.caller.require_user()?;
    let project = call.project(id, ProjectAbility::AdminProject)?;
    let locked = match project.group_id {
        Some(group_id) => call.ctx.store.read(|db| -> ApiResult<bool> {
            let Some(group) = store::groups::find_by_id(db, group_id)? else { return Ok(false) };
            Ok(crate::api::groups::detailed(db, &group)?.settings.share_with_group_lock)
        })?,
        None => false,
    };
    if locked {
        return Err(ApiError::validation("The project sharing with group is disabled"));
    }
    let (group_id, access, expires_at) = link_params(params)?;
    if access == OWNER {
        call.ctx
            .store
            .read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ChangeNamespace))
            .map_err(|_| ApiError::Denied("403 Forbidden".into()))?;
    }
    let (link_id, expires_at) = call.ctx.store.write(|db| -> ApiResult<_> {
        let Some(group) = store::groups::find_by_id(db, group_id)? else { return Err(not_found()) };
        if !member_of(db, &call.caller, &group)? {
            return Err(not_found());
        }
        if let Some((_, expires)) = shares::find(db, Shared::Project(project.id), group.id)? {
            if expires.as_deref().is_none_or(|day| day > store::today().as_str()) {
                return Err(ApiError::Conflict("Group already shared with this group".into()));
            }
        }
        let id = shares::insert(db, Shared::Project(project.id), group.id, access, expires_at.as_deref())?;
        Ok((id, expires_at))
    })?;
    Ok(Response::json(
        201,
        &json!({"id": link_id, "project_id": project.id, "group_id": group_id, "group_access": access,
                "expires_at": expires_at}),
    ))
}

/// `DELETE /projects/:id/share/:group_id`.
pub fn unshare(call: &Call, id: &str, group_id: &str) -> ApiResult<Response> {
    call.caller.require_user()?;
    let project = call.project(id, ProjectAbility::AdminProject)?;
    let group_id = crate::params::parse_int_text(group_id).ok_or_else(|| ApiError::InvalidParam("group_id".into()))?;
    if !call.ctx.store.write(|db| shares::delete(db, Shared::Project(project.id), group_id))? {
        return Err(ApiError::NotFound("Group Link"));
    }
    Ok(Response::no_content())
}
