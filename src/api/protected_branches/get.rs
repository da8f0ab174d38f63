//! `GET /projects/:id/protected_branches/:name`: one protection by its exact name (a branch
//! or a wildcard pattern), or 404.

use super::{administered, default_branch, entity};
use crate::api::Call;
use crate::auth::protection;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store::protected_branches;

pub fn get(call: &Call, project: &str, name: &str) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let default = default_branch(call, &project)?;
    let found = call.ctx.store.read(|db| -> ApiResult<_> {
        if project.protections_stored {
            Ok(protected_branches::find(db, project.id, name)?.map(|row| entity(Some(row.id), &row.into())))
        } else {
            let rules = protection::rules(db, &project, default.as_deref())?;
            Ok(rules.iter().find(|rule| rule.name == name).map(|rule| entity(None, rule)))
        }
    })?;
    Ok(Response::json(200, &found.ok_or(ApiError::NotFound("Protected Branch"))?))
}
