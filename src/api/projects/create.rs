//! `POST /projects` and `POST /projects/user/:user_id` (decisions D9, reference §8): a new
//! project with a new bare repository on a storage, its default branch protected as a new
//! project's, optionally GitLab's one-commit `README.md`.
//!
//! Namespaces: without `namespace_id`, the caller's personal namespace (`<username>/<path>`,
//! the creator its Owner through a membership row). A `namespace_id` is a group's or a user's
//! namespace id (`store::namespaces`): a group takes those whose level reaches its
//! `project_creation_level` (Developers by default) and administrators, the creator keeping the
//! access the group gives; a user's namespace only that user (or an administrator); anything
//! else is GitLab's `namespace is not valid`.

use super::purge;
use super::settings::{self, Errors};
use super::{entity_for, View};
use crate::api::Call;
use crate::auth::protection;
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::git;
use crate::git::write::{Action, Request};
use crate::params::Params;
use crate::response::Response;
use crate::store::projects::{Created, NewProject, Project};
use crate::store::users::User;
use crate::store::{self, groups::Group, members::Source, Db, Visibility};
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// The branch a new project's repository starts on without `default_branch` (GitLab's
/// instance default).
const DEFAULT_BRANCH: &str = "main";
/// GitLab's default storage name.
const DEFAULT_STORAGE: &str = "default";
/// GitLab's default template (`app/views/projects/readme_templates/default.md.tt`).
const README_TEMPLATE: &str = include_str!("readme_template.md");

/// Where a new project goes.
enum Namespace {
    Group(Group),
    User(User),
}

/// The namespace `namespace_id` names for `caller`, or GitLab's `namespace is not valid`: one
/// `owner` may create projects in (`namespaces::can_create_projects`, the rule `GET
/// /namespaces` lists by; administrators anywhere) and not marked for deletion.
fn namespace(db: &mut Db, call: &Call, owner: &User, namespace_id: Option<i64>) -> ApiResult<Namespace> {
    let invalid = || {
        let mut errors = Errors::default();
        errors.add("namespace", "is not valid");
        errors.into_result().map(|()| unreachable!())
    };
    let Some(id) = namespace_id else { return Ok(Namespace::User(owner.clone())) };
    let Some(found) = store::namespaces::find_by_id(db, id)? else { return invalid() };
    if !(call.caller.is_admin() || crate::api::namespaces::can_create_projects(db, owner, &found)?) {
        return invalid();
    }
    match found {
        store::namespaces::Namespace::Group(group) => {
            if store::groups::marked_for_deletion_at(db, group.id)?.is_some() {
                return invalid();
            }
            Ok(Namespace::Group(group))
        }
        store::namespaces::Namespace::User(user) => Ok(Namespace::User(user)),
    }
}

/// GitLab's hashed-storage relative path of a project: `@hashed/ab/cd/<sha256 of id>.git`.
pub(super) fn hashed_path(id: i64) -> String {
    let hash = hex(&Sha256::digest(id.to_string().as_bytes()));
    format!("@hashed/{}/{}/{hash}.git", &hash[..2], &hash[2..4])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The storage a new repository goes on: the named one (administrators only, as GitLab's
/// `repository_storage`), else `default`, else the first configured, else none (the data
/// directory's `repositories/`).
pub(super) fn storage(call: &Call, params: &Params) -> ApiResult<Option<(String, PathBuf)>> {
    let storages = &call.ctx.config.storages;
    if let Some(name) = params.string("repository_storage")?.filter(|_| call.caller.is_admin()) {
        return match storages.get(&name) {
            Some(root) => Ok(Some((name, root.clone()))),
            None => {
                let mut errors = Errors::default();
                errors.add("repository_storage", "is not included in the list");
                errors.into_result().map(|()| None)
            }
        };
    }
    Ok(storages
        .get(DEFAULT_STORAGE)
        .map(|root| (DEFAULT_STORAGE.to_string(), root.clone()))
        .or_else(|| storages.iter().next().map(|(name, root)| (name.clone(), root.clone()))))
}

/// Makes the bare repository at `dir` with HEAD at `branch`, as `git init --bare
/// --initial-branch=<branch>` does; a directory already there is GitLab's refusal.
fn init_repository(dir: &std::path::Path, branch: &str) -> ApiResult<()> {
    if dir.exists() {
        return Err(ApiError::validation("There is already a repository with that name on disk"));
    }
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).map_err(ApiError::internal)?;
    }
    let repo = gix::init_bare(dir).map_err(ApiError::internal)?;
    git::write::refs::set_head(&repo, branch).map_err(ApiError::internal)?;
    Ok(())
}

/// `POST /projects`.
pub fn create(call: &Call, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    create_for(call, &user, params)
}

/// `POST /projects/user/:user_id`: administrators create in a user's personal namespace.
pub fn create_for_user(call: &Call, user_id: &str, params: &Params) -> ApiResult<Response> {
    call.caller.require_user()?;
    if !call.caller.is_admin() {
        return Err(ApiError::Forbidden(None));
    }
    let id = crate::params::parse_int_text(user_id).ok_or(ApiError::NotFound("User"))?;
    let user = call.ctx.store.read(|db| store::users::find_by_id(db, id))?.ok_or(ApiError::NotFound("User"))?;
    params.required_string("name")?;
    create_for(call, &user, params)
}

fn create_for(call: &Call, owner: &User, params: &Params) -> ApiResult<Response> {
    purge::purge_due(call.ctx)?;
    let given = |name: &str| -> ApiResult<Option<String>> { Ok(params.string(name)?.filter(|v| !v.is_empty())) };
    let (name, path) = match (given("name")?, given("path")?) {
        (None, None) => {
            return Err(ApiError::ParamError("name, path are missing, at least one parameter must be provided".into()))
        }
        (Some(name), Some(path)) => (name, path),
        (None, Some(path)) => (path.clone(), path),
        (Some(name), None) => {
            let path = if settings::valid_path(&name) { name.clone() } else { settings::parameterize(&name) };
            (name, path)
        }
    };
    let namespace_id = params.int("namespace_id")?;
    let requested_visibility = settings::visibility(params)?;
    let default_branch = given("default_branch")?.unwrap_or_else(|| DEFAULT_BRANCH.to_string());
    let mut created = Created {
        name: name.clone(),
        description: params.string("description")?,
        creator_id: call.caller.user().map(|u| u.id),
        topics: settings::topics(params)?.unwrap_or_default(),
        ..Created::default()
    };
    settings::apply_settings(params, &mut created.settings)?;
    let readme = params.bool("initialize_with_readme")?.unwrap_or(false);
    let storage = storage(call, params)?;
    let project = call.ctx.store.write(|db| -> ApiResult<Project> {
        let namespace = namespace(db, call, owner, namespace_id)?;
        let (group, prefix) = match &namespace {
            Namespace::Group(group) => (Some(group), group.full_path.clone()),
            Namespace::User(user) => (None, user.username.clone()),
        };
        let visibility = requested_visibility.unwrap_or(Visibility::Private);
        let mut errors = Errors::default();
        settings::check_name(&name, &mut errors);
        settings::check_path(&path, &mut errors);
        if !git::write::refs::valid_branch_name(&default_branch) {
            errors.add("default_branch", "is invalid");
        }
        settings::check_visibility(visibility, group, &mut errors);
        let full_path = format!("{prefix}/{path}");
        if store::projects::find_by_full_path(db, &full_path)?.is_some()
            || store::groups::find_by_full_path(db, &full_path)?.is_some()
        {
            errors.add("path", "has already been taken");
        }
        errors.into_result()?;
        created.namespace_user_id = match &namespace {
            Namespace::User(user) => Some(user.id),
            Namespace::Group(_) => None,
        };
        let new = NewProject {
            group_id: group.map(|g| g.id),
            path: &path,
            full_path: &full_path,
            repo_dir: "",
            visibility,
            forked_from_id: None,
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
        if let Namespace::User(user) = &namespace {
            store::members::upsert(db, &Source::Project(project.id), user.id, OWNER, None)?;
        }
        protection::protect_default_branch(db, project.id, &default_branch)?;
        if let Some(group) = group {
            store::push_rules::copy_to_new_project(db, group.id, project.id, store::merge_requests::now_millis())?;
        }
        init_repository(&dir, &default_branch)?;
        Ok(Project { repo_dir, ..project })
    })?;
    if readme {
        initialize_readme(call, &project, &default_branch)?;
    }
    let view = View { simple: false, with_access: true, read_code: true };
    Ok(Response::json(201, &entity_for(call.ctx, &call.caller, &call.base_url, &project, view)?))
}

/// GitLab's README of a new project, rendered for it.
pub fn readme(call: &Call, project: &Project, branch: &str) -> String {
    let web_url = call.web_url(&project.full_path);
    README_TEMPLATE
        .replace("<%= project.name %>", &project.name)
        .replace("<%= project.description %>", project.description.as_deref().unwrap_or(""))
        .replace("<%= project.http_url_to_repo %>", &format!("{web_url}.git"))
        .replace("<%= params[:default_branch] %>", branch)
        .replace("<%= project_settings_integrations_url(project) %>", &format!("{web_url}/-/settings/integrations"))
}

/// The one commit of `README.md` on `branch`, message `Initial commit`, by the caller, through
/// the write path, announced as every write's ref change is.
fn initialize_readme(call: &Call, project: &Project, branch: &str) -> ApiResult<()> {
    let repo = call.repository(project, "Project")?;
    let who = crate::api::push::committer(call)?;
    let content = readme(call, project, branch).into_bytes();
    let request =
        Request { branch, start: None, force: false, message: "Initial commit", author: &who, committer: &who };
    let action = Action::Create { path: "README.md".into(), content, executable: false };
    let committed = git::write::commit(&repo, &request, &[action], |_, _| true).map_err(ApiError::internal)?;
    call.refs_moved(project, vec![committed.update])
}
