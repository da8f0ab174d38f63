//! `POST /projects/:id/variables`, `POST /groups/:id/variables`, `POST /admin/ci/variables`:
//! `key` and `value` required; `protected`, `masked`, `raw` (false by default),
//! `variable_type` (`env_var` by default, or `file`), `description`; for projects and groups
//! `environment_scope` (`*` by default) and `masked_and_hidden` (masked, and the value never
//! shown again: `Ci::ChangeVariableService`). 201 and the entity; a model rule broken is 400
//! `{"message": {...}}`, a key taken in that scope `(KEY) has already been taken`.

use super::{authorize, check_unique, entity, taken_error, text, validate, variable_type, Errors, Scope};
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::ci_variables::{self, Owner, Variable};
use crate::store::StoreError;

pub fn create(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    let owner = authorize(call, scope)?;
    let key = text(params, "key")?.ok_or_else(|| crate::error::ApiError::MissingParam("key".into()))?;
    let value = text(params, "value")?.ok_or_else(|| crate::error::ApiError::MissingParam("value".into()))?;
    let scoped = owner != Owner::Instance;
    let hidden = scoped && params.bool("masked_and_hidden")?.unwrap_or(false);
    let variable = Variable {
        id: 0,
        // GitLab's `key=` strips the key.
        key: key.trim().to_string(),
        value,
        variable_type: variable_type(params)?.unwrap_or_else(|| "env_var".into()),
        protected: params.bool("protected")?.unwrap_or(false),
        masked: hidden || params.bool("masked")?.unwrap_or(false),
        hidden,
        raw: params.bool("raw")?.unwrap_or(false),
        environment_scope: if scoped {
            text(params, "environment_scope")?.unwrap_or_else(|| "*".into())
        } else {
            "*".into()
        },
        description: text(params, "description")?,
    };
    let created = call.ctx.store.write(|db| -> ApiResult<_> {
        let mut errors = Errors::default();
        validate(owner, &variable, &mut errors);
        check_unique(db, owner, &variable, &mut errors)?;
        errors.check()?;
        match ci_variables::insert(db, owner, &variable) {
            Err(StoreError::Conflict(_)) => Err(taken_error(&variable.key)),
            other => Ok(other?),
        }
    })?;
    Ok(Response::json(201, &entity(&created, owner)))
}
