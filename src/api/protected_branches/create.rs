//! `POST /projects/:id/protected_branches`: protects `name` (a branch, or a pattern with `*`)
//! with `push_access_level` and `merge_access_level` (0, 30, 40 or 60; Maintainers by
//! default) and `allow_force_push` (false by default); 201 and the entity, 409 when that name
//! is protected already.

use super::{administered_for_change, default_branch, entity, LEVELS};
use crate::api::Call;
use crate::auth::protection;
use crate::auth::roles::MAINTAINER;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{protected_branches, StoreError};

fn level(params: &Params, name: &str) -> ApiResult<i64> {
    match params.int(name)? {
        None => Ok(MAINTAINER),
        Some(level) if LEVELS.contains(&level) => Ok(level),
        Some(_) => Err(ApiError::InvalidValue(name.into())),
    }
}

pub fn create(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let project = administered_for_change(call, project)?;
    let name = params.required_string("name")?;
    if name.trim().is_empty() {
        return Err(ApiError::ParamError("name is empty".into()));
    }
    let push = level(params, "push_access_level")?;
    let merge = level(params, "merge_access_level")?;
    let force = params.bool("allow_force_push")?.unwrap_or(false);
    let default = default_branch(call, &project)?;
    let exists = || ApiError::Conflict(format!("Protected branch '{name}' already exists"));
    let row = call.ctx.store.write(|db| -> ApiResult<_> {
        protection::materialize(db, &project, default.as_deref())?;
        if protected_branches::find(db, project.id, &name)?.is_some() {
            return Err(exists());
        }
        match protected_branches::insert(db, project.id, &name, push, merge, force) {
            Err(StoreError::Conflict(_)) => Err(exists()),
            other => Ok(other?),
        }
    })?;
    let id = row.id;
    Ok(Response::json(201, &entity(Some(id), &row.into())))
}
