//! `PUT /projects/:id/transfer` (reference §8; GitLab's `lib/api/projects.rb` `put
//! ':id/transfer'` and `app/services/projects/transfer_service.rb`, read for this): the
//! project moves to another namespace, named by id or full path in `namespace`.
//!
//! `change_namespace` (Owner, administrators) first: 403. The namespace missing: 404 `Namespace
//! Not Found` (`find_namespace!`). Then the service's refusals, each answered 400 `Failed to
//! transfer project {:new_namespace=>["<text>"]}` (Ruby's inspection of `errors.messages`):
//! `Project is already in this namespace.`, `You don't have permission to transfer projects
//! into that namespace.` (the caller may not create projects there), `Project with same name
//! or path in target namespace already exists`. A project more visible than its new group
//! takes the group's visibility (`update_namespace_and_visibility`). Its path with namespace
//! and web URL change; its repository stays where it is (hashed storage names it by id), and
//! the old path finds nothing. Moved into a user's namespace, that user is its Owner.

use super::{entity_for, View};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::namespaces::Namespace;
use crate::store::{self, members::Source};

fn refused(text: &str) -> ApiError {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    ApiError::validation(format!("Failed to transfer project {{:new_namespace=>[{quoted}]}}"))
}

/// `PUT /projects/:id/transfer`.
pub fn transfer(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let project = call.project(id, ProjectAbility::ChangeNamespace)?;
    let text = params.required_string("namespace")?;
    let project = call.ctx.store.write(|db| -> ApiResult<_> {
        let found = match crate::params::parse_int_text(&text) {
            Some(id) if text.bytes().all(|b| b.is_ascii_digit()) => store::namespaces::find_by_id(db, id)?,
            _ => store::namespaces::find_by_full_path(db, &text)?,
        };
        let namespace = found.ok_or(ApiError::NotFound("Namespace"))?;
        let same = match &namespace {
            Namespace::Group(group) => project.group_id == Some(group.id),
            Namespace::User(owner) => project.group_id.is_none() && project.namespace_user_id == Some(owner.id),
        };
        if same {
            return Err(refused("Project is already in this namespace."));
        }
        if !crate::api::namespaces::can_create_projects(db, &user, &namespace)? {
            return Err(refused("You don't have permission to transfer projects into that namespace."));
        }
        let (group, owner, prefix) = match &namespace {
            Namespace::Group(group) => (Some(group), None, group.full_path.clone()),
            Namespace::User(owner) => (None, Some(owner), owner.username.clone()),
        };
        let siblings = store::projects::names_in_namespace(db, group.map(|g| g.id), owner.map(|o| o.id))?;
        let full_path = format!("{prefix}/{}", project.path);
        if siblings.iter().any(|(name, _)| name.eq_ignore_ascii_case(&project.name))
            || store::projects::find_by_full_path(db, &full_path)?.is_some()
            || store::groups::find_by_full_path(db, &full_path)?.is_some()
        {
            return Err(refused("Project with same name or path in target namespace already exists"));
        }
        store::projects::transfer(db, project.id, group.map(|g| g.id), owner.map(|o| o.id), &full_path)?;
        if let Some(group) = group {
            if project.visibility > group.visibility {
                let lowered = store::projects::Project { visibility: group.visibility, ..project.clone() };
                let lowered = store::projects::Project { full_path: full_path.clone(), ..lowered };
                store::projects::update(db, &lowered)?;
            }
        }
        if let Some(owner) = owner {
            store::members::upsert(db, &Source::Project(project.id), owner.id, OWNER, None)?;
        }
        store::projects::find_by_id(db, project.id)?.ok_or(ApiError::NotFound("Project"))
    })?;
    let view = View { simple: false, with_access: true, read_code: true };
    Ok(Response::json(200, &entity_for(call.ctx, &call.caller, &call.base_url, &project, view)?))
}
