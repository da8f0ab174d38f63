//! `POST /groups/:id/transfer` (GitLab's `lib/api/groups.rb` `post ':id/transfer'` and
//! `app/services/groups/transfer_service.rb`): a group moves below another (`group_id`) or, without
//! one, to the top level; its subgroups and projects move with it, their repositories stay.
//!
//! `admin_group` (Owner) on the group: 403; the new parent missing or unseen: `404 Group Not
//! Found`. The service's refusals are 400 `Transfer failed: <text>`: `Group is already a root
//! group.`, `Group is already associated to the parent group.`, `Cannot transfer group to one of
//! its subgroup.`, `You don't have enough permissions.` (no `create_subgroup` on the new parent,
//! or no `create_group` for the top level), `The parent group already has a subgroup or a
//! project with the same path.`. 201 with the group's `GroupDetail`.

use crate::api::Call;
use crate::auth::permissions;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store;

fn failed(text: &str) -> ApiError {
    ApiError::validation(format!("Transfer failed: {text}"))
}

pub fn transfer(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let group = call.group(id)?;
    if !call.ctx.store.read(|db| permissions::is_group_owner(db, &call.caller, &group))? {
        return Err(ApiError::Forbidden(None));
    }
    let parent = match params.int("group_id")? {
        Some(parent_id) => Some(call.group(&parent_id.to_string())?),
        None => None,
    };
    call.ctx.store.write(|db| -> ApiResult<()> {
        match &parent {
            None if group.parent_id.is_none() => return Err(failed("Group is already a root group.")),
            Some(parent) if group.parent_id == Some(parent.id) => {
                return Err(failed("Group is already associated to the parent group."))
            }
            Some(parent) => {
                if parent.id == group.id || store::groups::self_and_ancestor_ids(db, parent.id)?.contains(&group.id) {
                    return Err(failed("Cannot transfer group to one of its subgroup."));
                }
                if !super::create::may_create_subgroup(db, &user, parent)? {
                    return Err(failed("You don't have enough permissions."));
                }
            }
            None => {
                if !super::create::may_create_top_level_group(&user) {
                    return Err(failed("You don't have enough permissions."));
                }
            }
        }
        let new_full_path = match &parent {
            Some(parent) => format!("{}/{}", parent.full_path, group.path),
            None => group.path.clone(),
        };
        if store::groups::find_by_full_path(db, &new_full_path)?.is_some()
            || store::projects::find_by_full_path(db, &new_full_path)?.is_some()
        {
            return Err(failed("The parent group already has a subgroup or a project with the same path."));
        }
        store::groups::transfer(db, &group, parent.as_ref())?;
        Ok(())
    })?;
    let moved =
        call.ctx.store.read(|db| store::groups::find_by_id(db, group.id))?.ok_or(ApiError::NotFound("Group"))?;
    let detailed = call.ctx.store.read(|db| super::detailed(db, &moved))?;
    super::detail(call, &detailed, false, 201)
}
