//! `DELETE /projects/:id/protected_branches/:name`: unprotects the exact name; 204, or 404
//! when it is not protected.

use super::{administered_for_change, default_branch};
use crate::api::Call;
use crate::auth::protection;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store::protected_branches;

pub fn delete(call: &Call, project: &str, name: &str) -> ApiResult<Response> {
    let project = administered_for_change(call, project)?;
    let default = default_branch(call, &project)?;
    call.ctx.store.write(|db| -> ApiResult<_> {
        protection::materialize(db, &project, default.as_deref())?;
        if protected_branches::delete(db, project.id, name)? {
            Ok(())
        } else {
            Err(ApiError::NotFound("Protected Branch"))
        }
    })?;
    Ok(Response::no_content())
}
