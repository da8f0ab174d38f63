//! `PUT /projects/:id/variables/:key`, `PUT /groups/:id/variables/:key`,
//! `PUT /admin/ci/variables/:key`: changes `value`, `protected`, `masked`, `raw`,
//! `variable_type`, `description` and (projects, groups) `environment_scope`; the key stays.
//! `filter[environment_scope]` picks among a key's scopes: a project without it answers 409
//! when the key has several, a group takes the first (GitLab keeps that for compatibility,
//! `lib/api/group_variables.rb`). A hidden variable's visibility is fixed: changing its
//! `masked` is 400 (`Ci::HidableVariable`). A `null` value, as python-gitlab resends a hidden
//! variable's, leaves the value as it is.

use super::{
    authorize, check_unique, entity, filter_scope, find_one, has_filter, not_found, taken_error, text, validate,
    variable_type, Errors, Scope,
};
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::ci_variables::{self, Owner};
use crate::store::StoreError;

pub fn update(call: &Call, scope: Scope, key: &str, params: &Params) -> ApiResult<Response> {
    let owner = authorize(call, scope)?;
    let filter = filter_scope(owner, params)?;
    let value = text(params, "value")?;
    let kind = variable_type(params)?;
    let protected = params.bool("protected")?;
    let masked = params.bool("masked")?;
    let raw = params.bool("raw")?;
    let environment_scope = if owner == Owner::Instance { None } else { text(params, "environment_scope")? };
    let description = text(params, "description")?;
    let updated = call.ctx.store.write(|db| -> ApiResult<_> {
        let found = match owner {
            Owner::Group(_) if !has_filter(params) => ci_variables::find(db, owner, key, None)?.into_iter().next(),
            _ => find_one(db, owner, key, filter.as_deref())?,
        };
        let mut variable = found.ok_or_else(|| not_found(owner))?;
        let mut errors = Errors::default();
        if let Some(masked) = masked {
            if variable.hidden && masked != variable.masked {
                errors.add("base", "The visibility setting cannot be changed for masked and hidden variables.");
            }
            variable.masked = masked;
        }
        if let Some(value) = value {
            variable.value = value;
        }
        if let Some(kind) = kind {
            variable.variable_type = kind;
        }
        if let Some(protected) = protected {
            variable.protected = protected;
        }
        if let Some(raw) = raw {
            variable.raw = raw;
        }
        if let Some(scope) = environment_scope {
            variable.environment_scope = scope;
        }
        if let Some(description) = description {
            variable.description = Some(description);
        }
        validate(owner, &variable, &mut errors);
        check_unique(db, owner, &variable, &mut errors)?;
        errors.check()?;
        match ci_variables::update(db, &variable) {
            Err(StoreError::Conflict(_)) => Err(taken_error(&variable.key)),
            other => Ok(other.map(|()| variable)?),
        }
    })?;
    Ok(Response::json(200, &entity(&updated, owner)))
}
