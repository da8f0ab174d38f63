//! `POST /projects/:id/push_rule`, `POST /groups/:id/push_rule`: at least one of the rule's
//! parameters; 201 and the rule. One already there is 422 `Project push rule exists` (a
//! group's: `Group push rule exists, try updating`), GitLab's `unprocessable_entity!`.

use super::{apply, entity, find, owner, Scope};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, StoreError};

pub fn create(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    let owner = owner(call, scope)?;
    let exists = || {
        ApiError::Unprocessable(
            match scope {
                Scope::Project(_) => "Project push rule exists",
                Scope::Group(_) => "Group push rule exists, try updating",
            }
            .into(),
        )
    };
    if find(call, owner)?.is_some() {
        return Err(exists());
    }
    let settings = apply(params, Default::default())?;
    let now = store::merge_requests::now_millis();
    match call.ctx.store.write(|db| store::push_rules::insert(db, owner, &settings, now)) {
        Ok(rule) => Ok(Response::json(201, &entity(&rule))),
        // A racing writer made one first.
        Err(StoreError::Conflict(_)) => Err(exists()),
        Err(e) => Err(e.into()),
    }
}
