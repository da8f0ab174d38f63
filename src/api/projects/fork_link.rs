//! `POST /projects/:id/fork/:forked_from_id` and `DELETE /projects/:id/fork` (GitLab's
//! `lib/api/projects.rb` and `Projects::ForkService#link_existing_project`,
//! `Projects::UnlinkForkService`, read for this).
//!
//! Linking: the project's Owner (`link_forked_project`; administrators), the source found and
//! forkable by the caller (`404 Source Project Not Found` / the bare 404 of `fork_project`),
//! the project's namespace one the caller may fork into (else 401 `Target Namespace`, as
//! GitLab's `unauthorized!`); a project already a fork is 409 `Project already forked`, the
//! project itself as source 400 `Target project cannot be equal to source project`. 201 with
//! the project. Unlinking: Owner (`remove_fork_project`); 204, or 304 when it was no fork.
//! Its forks become forks of its parent; the repository is not touched.

use super::{entity_for, View};
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store;

/// `POST /projects/:id/fork/:forked_from_id`.
pub fn link(call: &Call, id: &str, forked_from_id: &str) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let project = call.project(id, ProjectAbility::ManageFork)?;
    let source = match call.project(forked_from_id, ProjectAbility::Read) {
        Ok(source) => source,
        Err(ApiError::NotFound(_)) => return Err(ApiError::NotFound("Source Project")),
        Err(other) => return Err(other),
    };
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &source, ProjectAbility::ForkProject))
        .map_err(|_| ApiError::Forbidden(None))?;
    let target_ok = call.ctx.store.read(|db| -> ApiResult<bool> {
        if user.is_admin {
            return Ok(true);
        }
        let namespace = match (project.group_id, project.namespace_user_id) {
            (Some(group), _) => store::groups::find_by_id(db, group)?.map(store::namespaces::Namespace::Group),
            (None, Some(owner)) => store::users::find_by_id(db, owner)?.map(store::namespaces::Namespace::User),
            (None, None) => None,
        };
        match namespace {
            Some(namespace) => crate::api::namespaces::can_create_projects(db, &user, &namespace),
            None => Ok(false),
        }
    })?;
    if !target_ok {
        return Err(ApiError::Unauthorized);
    }
    if project.forked_from_id.is_some() {
        return Err(ApiError::Conflict("Project already forked".into()));
    }
    if project.id == source.id {
        return Err(ApiError::validation("Target project cannot be equal to source project"));
    }
    let project = call.ctx.store.write(|db| -> ApiResult<_> {
        store::projects::link_fork(db, project.id, &source, project.mr_default_target_self)?;
        store::projects::find_by_id(db, project.id)?.ok_or(ApiError::NotFound("Project"))
    })?;
    let view = View { simple: false, with_access: true, read_code: true };
    Ok(Response::json(201, &entity_for(call.ctx, &call.caller, &call.base_url, &project, view)?))
}

/// `DELETE /projects/:id/fork`.
pub fn unlink(call: &Call, id: &str) -> ApiResult<Response> {
    call.caller.require_user()?;
    let project = call.project(id, ProjectAbility::ManageFork)?;
    if project.forked_from_id.is_none() {
        return Ok(Response::empty(304));
    }
    let unlinked = call.ctx.store.write(|db| store::projects::unlink_fork(db, &project))?;
    Ok(Response::empty(if unlinked { 204 } else { 304 }))
}
