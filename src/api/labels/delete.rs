//! `DELETE /projects/:id/labels/:label_id`: removes the label from the project and from every
//! issue and merge request carrying it; 204.

use super::{find, project};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::response::Response;
use crate::store::labels;

pub fn delete(call: &Call, project_id: &str, id_or_title: &str) -> ApiResult<Response> {
    let project = project(call, project_id, ProjectAbility::AdminLabel)?;
    call.ctx.store.write(|db| -> ApiResult<_> {
        let label = find(db, &project, id_or_title)?;
        labels::delete(db, label.id)?;
        Ok(())
    })?;
    Ok(Response::no_content())
}
