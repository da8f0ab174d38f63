//! `DELETE /groups/:id` (decisions D9, reference §7, §9): Owners, administrators, or a custom
//! role's `remove_group` on a subgroup. The group is marked for deletion and answers 202; it
//! is purged with its subgroups and projects after `limits.deletion_delay_days` (0: at once).
//! `permanently_remove=true` with the group's `full_path` purges a marked subgroup at once,
//! with GitLab's 400 texts otherwise.

use crate::api::projects::delete::{accepted, flag};
use crate::api::projects::purge;
use crate::api::Call;
use crate::auth::permissions;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, now_seconds};

pub fn delete(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let group = call.group(id)?;
    let user = call.caller.require_user()?;
    if !call.ctx.store.read(|db| permissions::can_remove_group(db, &call.caller, &group))? {
        return Err(ApiError::Forbidden(None));
    }
    let marked = call.ctx.store.read(|db| store::groups::marked_for_deletion_at(db, group.id))?;
    if flag(params, "permanently_remove")? {
        if group.parent_id.is_none() {
            return Err(ApiError::validation("`permanently_remove` option is only available for subgroups."));
        }
        if marked.is_none() {
            return Err(ApiError::validation("Group must be marked for deletion first."));
        }
        if params.string("full_path")?.unwrap_or_default() != group.full_path {
            return Err(ApiError::validation(
                "`full_path` is incorrect. You must enter the complete path for the subgroup.",
            ));
        }
        purge::purge_group(call.ctx, group.id)?;
        return Ok(accepted());
    }
    if marked.is_some() {
        return Err(ApiError::validation("Group has been already marked for deletion"));
    }
    let mark = Some((now_seconds(), Some(user.id)));
    call.ctx.store.write(|db| store::groups::set_marked_for_deletion(db, group.id, mark))?;
    if call.ctx.config.limits.deletion_delay_days == 0 {
        purge::purge_group(call.ctx, group.id)?;
    }
    Ok(accepted())
}
