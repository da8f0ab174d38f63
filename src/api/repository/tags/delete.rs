//! `DELETE /projects/:id/repository/tags/:tag_name`: 204, the tag deleted only while it still
//! names the object that was read (a compare-and-swap); 404 `Tag Not Found` when missing.
//! Developers may (protected tags, which need Maintainers in GitLab, are not kept here).

use super::find;
use crate::api::repository::branches::writable;
use crate::api::{users, Call};
use crate::error::{ApiError, ApiResult};
use crate::git::write::refs as refs_write;
use crate::response::Response;

pub fn delete(call: &Call, project: &str, name: &str) -> ApiResult<Response> {
    let (project, user) = writable(call, project)?;
    let repo = call.repository(&project, "Tag")?;
    let tag = find(&repo, name)?;
    let who = users::identity(call, &user);
    match refs_write::delete(&repo, &format!("refs/tags/{}", tag.name), tag.target, &who) {
        Ok(update) => {
            call.refs_moved(&project, vec![update])?;
            Ok(Response::no_content())
        }
        Err(refs_write::Error::Changed) => Err(ApiError::validation(format!(
            "Failed to delete tag '{}': it moved while it was being deleted",
            tag.name
        ))),
        Err(e) => Err(ApiError::internal(e)),
    }
}
