//! Group webhooks (`ee/lib/api/group_hooks.rb`, GitLab Premium's `group_webhooks`; forgecore's
//! on every tier, issue #41): list, get, add, edit, delete under `/groups/:id/hooks`, one file
//! per operation. Every route needs a signed-in caller who may `admin_web_hook` the group
//! (Owner, or a custom role's `admin_web_hook`); anyone else who sees the group is 403. A group
//! hook gets the events of every project in the group and its subgroups (`crate::hooks`'s
//! outbox), with the project hooks' parameters, checks and URL rules.

pub mod create;
pub mod delete;
pub mod get;
pub mod list;
pub mod update;

use super::Call;
use crate::api::ordered::Obj;
use crate::auth::permissions::{self, GroupAbility};
use crate::error::{ApiError, ApiResult};
use crate::store::groups::Group;
use crate::store::hooks::Hook;
use serde_json::json;

/// The group `id` names, for a signed-in caller who may manage its hooks.
pub fn administered(call: &Call, id: &str) -> ApiResult<Group> {
    call.caller.require_user()?;
    let group = call.group(id)?;
    if !call.ctx.store.read(|db| permissions::group_may(db, &call.caller, &group, GroupAbility::AdminWebHook))? {
        return Err(ApiError::Forbidden(None));
    }
    Ok(group)
}

/// The group's hook `hook_id`; 404 `404 Not found` otherwise.
pub fn find(call: &Call, group: &Group, hook_id: &str) -> ApiResult<Hook> {
    let id = crate::params::parse_int_text(hook_id).ok_or_else(|| ApiError::InvalidParam("hook_id".into()))?;
    call.ctx.store.read(|db| crate::store::hooks::find_group(db, group.id, id))?.ok_or(ApiError::RecordNotFound)
}

/// GitLab's `GroupHook` entity: the project hook's fields with `group_id` where `project_id`
/// stands, and the group's own flags `subgroup_events`, `member_events`, `project_events`
/// (always false: forgecore sends no such events yet).
pub fn entity(hook: &Hook, full: bool) -> Obj {
    let mut o = super::hooks::entity(hook, full);
    if let Some(at) = o.0.iter().position(|(k, _)| *k == "project_id") {
        o.0[at] = ("group_id", crate::response::ordered::v(hook.group_id));
    }
    for flag in ["subgroup_events", "member_events", "project_events"] {
        o.put(flag, json!(false));
    }
    o
}
