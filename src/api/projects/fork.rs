//! `POST /projects/:id/fork` (reference §8; GitLab's `lib/api/projects.rb` `post ':id/fork'`
//! and `app/services/projects/fork_service.rb`, read for this): a new project in a namespace
//! the caller may create projects in, its repository a copy of the source's
//! ([`crate::git::fork_copy`]), in the source's fork network.
//!
//! GitLab's order, kept: `authenticate_non_get!` (401), the source seen (404 `Project Not
//! Found`) and forkable (`fork_project`, else the bare `404 Not Found`); the namespace from
//! `namespace_id`, else `namespace_path`, else the deprecated `namespace` (id or path), missing
//! → `404 Namespace Not Found`; `branches` naming no branch → `404 Source Branch Not Found`;
//! a namespace the caller may not create projects in → `404 Target Namespace Not Found`; the
//! project's own validation (name or path taken, invalid) → 409 with the full messages.
//! Name, path and description default to the source's. Visibility is the lowest of the
//! source's, the namespace's and the one asked for (`target_visibility_level`): a fork never
//! shows more than its source.

use super::create::{hashed_path, storage};
use super::settings::{self, Errors};
use super::{entity_for, View};
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::auth::protection;
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::git;
use crate::params::Params;
use crate::response::Response;
use crate::store::namespaces::Namespace;
use crate::store::projects::{Created, NewProject, Project};
use crate::store::{self, members::Source, Db, Visibility};
use serde_json::Value;

/// The namespace `text` names: an integer id or a full path (GitLab's `find_namespace!`).
fn find_namespace(db: &mut Db, text: &str) -> ApiResult<Namespace> {
    let found = match crate::params::parse_int_text(text) {
        Some(id) if text.bytes().all(|b| b.is_ascii_digit()) => store::namespaces::find_by_id(db, id)?,
        _ => store::namespaces::find_by_full_path(db, text)?,
    };
    found.ok_or(ApiError::NotFound("Namespace"))
}

/// The namespace the request names, if any (`namespace_id`, `namespace_path`, `namespace`, in
/// GitLab's order of precedence). Shared with the transfer.
pub(super) fn requested_namespace(db: &mut Db, params: &Params) -> ApiResult<Option<Namespace>> {
    if let Some(id) = params.int("namespace_id")? {
        return find_namespace(db, &id.to_string()).map(Some);
    }
    for name in ["namespace_path", "namespace"] {
        if let Some(text) = params.string(name)?.filter(|t| !t.is_empty()) {
            return find_namespace(db, &text).map(Some);
        }
    }
    Ok(None)
}

/// A namespace's visibility: a group's own; a user's namespace is public.
fn namespace_visibility(namespace: &Namespace) -> Visibility {
    match namespace {
        Namespace::Group(group) => group.visibility,
        Namespace::User(_) => Visibility::Public,
    }
}

/// The model's messages (`errors.full_messages`): `Name has already been taken`.
fn full_messages(errors: ApiResult<()>) -> ApiResult<()> {
    match errors {
        Err(ApiError::Validation(Value::Object(map))) => {
            let mut messages = Vec::new();
            for (attribute, list) in map {
                let label = match attribute.as_str() {
                    "visibility_level" => "Visibility level".to_string(),
                    other => {
                        let mut chars = other.chars();
                        chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
                    }
                };
                for message in list.as_array().into_iter().flatten() {
                    messages.push(format!("{label} {}", message.as_str().unwrap_or_default()));
                }
            }
            Err(ApiError::ConflictMessages(messages))
        }
        other => other,
    }
}

/// `POST /projects/:id/fork`.
pub fn fork(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let source = call.project(id, ProjectAbility::Read)?;
    call.ctx
        .store
        .read(|db| permissions::authorize_project(db, &call.caller, &source, ProjectAbility::ForkProject))
        .map_err(|_| ApiError::NotFound(""))?;
    let requested_visibility = settings::visibility(params)?;
    let mr_default_target_self = params.bool("mr_default_target_self")?;
    let branch = params.string("branches")?.filter(|b| !b.is_empty());
    let given = |name: &str| -> ApiResult<Option<String>> { Ok(params.string(name)?.filter(|v| !v.is_empty())) };
    let name = given("name")?.unwrap_or_else(|| source.name.clone());
    let path = given("path")?.unwrap_or_else(|| source.path.clone());
    let description = match params.string("description")? {
        Some(text) => Some(text),
        None => source.description.clone(),
    };
    let namespace = call.ctx.store.read(|db| requested_namespace(db, params))?;
    let source_dir = call.git_dir(&source)?;
    let source_repo = git::open(&source_dir).map_err(|_| ApiError::NotFound("Project"))?;
    if let Some(branch) = &branch {
        if source_repo.try_find_reference(format!("refs/heads/{branch}").as_str()).ok().flatten().is_none() {
            return Err(ApiError::NotFound("Source Branch"));
        }
    }
    let source_head = git::head_file::branch(&source_dir).flatten();
    let default_branch = branch.clone().or(source_head).unwrap_or_else(|| "main".to_string());
    let namespace = namespace.unwrap_or_else(|| Namespace::User(user.clone()));
    let allowed = call.ctx.store.read(|db| crate::api::namespaces::can_create_projects(db, &user, &namespace))?;
    if !allowed {
        return Err(ApiError::NotFound("Target Namespace"));
    }
    let visibility = [Some(source.visibility), Some(namespace_visibility(&namespace)), requested_visibility]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(Visibility::Private);
    // The source's storage, so that the copy can hard-link its objects.
    let same = source
        .storage
        .as_ref()
        .and_then(|name| call.ctx.config.storages.get(name).map(|root| (name.clone(), root.clone())));
    let storage = match same {
        Some(found) => Some(found),
        None => storage(call, &Params::new())?,
    };
    let created = Created {
        name: name.clone(),
        description,
        creator_id: Some(user.id),
        topics: Vec::new(),
        ..Created::default()
    };
    let (project, dir) = call.ctx.store.write(|db| -> ApiResult<(Project, std::path::PathBuf)> {
        let (group, prefix) = match &namespace {
            Namespace::Group(group) => (Some(group), group.full_path.clone()),
            Namespace::User(owner) => (None, owner.username.clone()),
        };
        let mut errors = Errors::default();
        settings::check_name(&name, &mut errors);
        settings::check_path(&path, &mut errors);
        let full_path = format!("{prefix}/{path}");
        let siblings = store::projects::names_in_namespace(
            db,
            group.map(|g| g.id),
            match &namespace {
                Namespace::User(owner) => Some(owner.id),
                Namespace::Group(_) => None,
            },
        )?;
        if siblings.iter().any(|(n, _)| n.eq_ignore_ascii_case(&name)) {
            errors.add("name", "has already been taken");
        }
        if store::projects::find_by_full_path(db, &full_path)?.is_some()
            || store::groups::find_by_full_path(db, &full_path)?.is_some()
        {
            errors.add("path", "has already been taken");
        }
        full_messages(errors.into_result())?;
        let mut created = created.clone();
        created.namespace_user_id = match &namespace {
            Namespace::User(owner) => Some(owner.id),
            Namespace::Group(_) => None,
        };
        let new = NewProject {
            group_id: group.map(|g| g.id),
            path: &path,
            full_path: &full_path,
            repo_dir: "",
            visibility,
            forked_from_id: Some(source.id),
            storage: storage.as_ref().map(|(name, _)| name.as_str()),
        };
        let project = store::projects::insert_created(db, &new, &created)?;
        let relative = hashed_path(project.id);
        let (repo_dir, dir) = match &storage {
            Some((_, root)) => (relative.clone(), root.join(&relative)),
            None => {
                let dir = call.ctx.config.data_dir.join("repositories").join(&relative);
                (dir.to_string_lossy().into_owned(), dir)
            }
        };
        store::projects::set_repo_dir(db, project.id, &repo_dir)?;
        store::projects::link_fork(db, project.id, &source, mr_default_target_self.unwrap_or(false))?;
        if let Namespace::User(owner) = &namespace {
            store::members::upsert(db, &Source::Project(project.id), owner.id, OWNER, None)?;
        }
        protection::protect_default_branch(db, project.id, &default_branch)?;
        // A fork is made by GitLab's `Projects::CreateService` too: it starts with the rule
        // its new group passes on.
        if let Some(group) = group {
            store::push_rules::copy_to_new_project(db, group.id, project.id, store::merge_requests::now_millis())?;
        }
        let project = store::projects::find_by_id(db, project.id)?.ok_or(ApiError::NotFound("Project"))?;
        Ok((project, dir))
    })?;
    // The copy after the row (the store is not held while git runs); a fork whose repository
    // cannot be made is no fork: its row goes again.
    if let Err(error) = git::fork_copy::copy(&call.ctx.git, &source_dir, &dir, branch.as_deref()) {
        call.ctx.store.write(|db| store::projects::remove(db, project.id))?;
        return Err(ApiError::internal(error));
    }
    let view = View { simple: false, with_access: true, read_code: true };
    Ok(Response::json(201, &entity_for(call.ctx, &call.caller, &call.base_url, &project, view)?))
}
