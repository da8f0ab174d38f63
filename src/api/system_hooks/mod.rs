//! System hooks (`lib/api/system_hooks.rb`): the instance's hooks, for administrators only:
//! list, get, add, edit, delete; one file per operation. They get every project's push and
//! tag push events (with the same payloads), always as `X-Gitlab-Event: System Hook`, may point
//! at local addresses (GitLab's `allow_local_requests_from_system_hooks`, on by default) and
//! are never auto-disabled. The parameters and checks are the project hooks' (`api::hooks`).

pub mod create;
pub mod delete;
pub mod get;
pub mod list;
pub mod update;

use crate::api::ordered::Obj;
use crate::api::{users::require_admin, Call};
use crate::error::{ApiError, ApiResult};
use crate::store::hooks::Hook;

/// GitLab's `Hook` entity (`lib/api/entities/hook.rb`), in its order.
pub fn entity(hook: &Hook) -> Obj {
    let full = crate::api::hooks::entity(hook, true).0;
    let mut fields = Obj::new();
    for (key, value) in full {
        if key == "project_id" {
            break;
        }
        if key == "alert_status" {
            fields.put("organization_id", 1);
        }
        fields.node(key, value);
    }
    fields
}

/// The system hook `hook_id`, for an administrator; 404 `404 Not found` otherwise.
pub fn find(call: &Call, hook_id: &str) -> ApiResult<Hook> {
    require_admin(call)?;
    let id = crate::params::parse_int_text(hook_id).ok_or_else(|| ApiError::InvalidParam("hook_id".into()))?;
    call.ctx
        .store
        .read(|db| crate::store::hooks::find_by_id(db, id))?
        .filter(|h| h.is_system())
        .ok_or(ApiError::RecordNotFound)
}
