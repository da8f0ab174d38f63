//! `PUT /projects/:id` (reference §8): Maintainers change a project's settings (GitLab's
//! `admin_project`), Owners its visibility (`change_visibility_level`), at least one setting
//! given. Keys GitLab takes that this store does not keep (feature access levels, CI
//! settings, ...) count as given and change nothing.

use super::settings::{self, Errors};
use super::{entity_for, View};
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::git;
use crate::params::Params;
use crate::response::Response;
use crate::store;

/// What `PUT /projects/:id` accepts, in GitLab's order of its `at_least_one_of` list (the
/// kept ones first, then the accepted ones).
const KEPT: [&str; 13] = [
    "name",
    "path",
    "description",
    "default_branch",
    "visibility",
    "merge_method",
    "squash_option",
    "remove_source_branch_after_merge",
    "only_allow_merge_if_pipeline_succeeds",
    "allow_merge_on_skipped_pipeline",
    "only_allow_merge_if_all_discussions_are_resolved",
    "topics",
    "tag_list",
];
const ACCEPTED: [&str; 22] = [
    "issues_enabled",
    "merge_requests_enabled",
    "wiki_enabled",
    "jobs_enabled",
    "snippets_enabled",
    "container_registry_enabled",
    "issues_access_level",
    "repository_access_level",
    "merge_requests_access_level",
    "forking_access_level",
    "wiki_access_level",
    "builds_access_level",
    "snippets_access_level",
    "pages_access_level",
    "request_access_enabled",
    "lfs_enabled",
    "shared_runners_enabled",
    "ci_config_path",
    "auto_devops_enabled",
    "printing_merge_request_link_enabled",
    "emails_enabled",
    "resolve_outdated_diff_discussions",
];

pub fn update(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let mut project = call.project(id, ProjectAbility::Read)?;
    call.caller.require_user()?;
    let authorize =
        |ability| call.ctx.store.read(|db| permissions::authorize_project(db, &call.caller, &project, ability));
    authorize(ProjectAbility::AdminProject)?;
    if !KEPT.iter().chain(ACCEPTED.iter()).any(|key| params.contains(key)) {
        let names: Vec<&str> = KEPT.iter().chain(ACCEPTED.iter()).copied().collect();
        return Err(ApiError::ParamError(format!(
            "{} are missing, at least one parameter must be provided",
            names.join(", ")
        )));
    }
    let visibility = settings::visibility(params)?;
    if visibility.is_some() {
        authorize(ProjectAbility::ChangeVisibility)?;
    }
    let mut errors = Errors::default();
    if let Some(name) = params.string("name")? {
        settings::check_name(&name, &mut errors);
        project.name = name;
    }
    let group = match project.group_id {
        Some(group_id) => call.ctx.store.read(|db| store::groups::find_by_id(db, group_id))?,
        None => None,
    };
    if let Some(path) = params.string("path")?.filter(|p| *p != project.path) {
        settings::check_path(&path, &mut errors);
        let prefix = project.full_path.rsplit_once('/').map(|(prefix, _)| prefix.to_string());
        project.full_path = match prefix {
            Some(prefix) => format!("{prefix}/{path}"),
            None => path.clone(),
        };
        project.path = path;
        let full_path = project.full_path.clone();
        let taken = call.ctx.store.read(|db| -> ApiResult<bool> {
            Ok(store::projects::find_by_full_path(db, &full_path)?.is_some_and(|other| other.id != project.id)
                || store::groups::find_by_full_path(db, &full_path)?.is_some())
        })?;
        if taken {
            errors.add("path", "has already been taken");
        }
    }
    if params.contains("description") {
        project.description = params.string("description")?;
    }
    if let Some(visibility) = visibility {
        settings::check_visibility(visibility, group.as_ref(), &mut errors);
        project.visibility = visibility;
    }
    settings::apply_settings(params, &mut project.settings)?;
    if let Some(topics) = settings::topics(params)? {
        project.topics = topics;
    }
    errors.into_result()?;
    if let Some(branch) = params.string("default_branch")?.filter(|b| !b.is_empty()) {
        set_default_branch(call, &project, &branch)?;
    }
    // Read back: the topics are stored as the topics spell them.
    let project = call.ctx.store.write(|db| -> ApiResult<_> {
        store::projects::update(db, &project)?;
        Ok(store::projects::find_by_id(db, project.id)?.unwrap_or_else(|| project.clone()))
    })?;
    let view = View { simple: false, with_access: true, read_code: true };
    Ok(Response::json(200, &entity_for(call.ctx, &call.caller, &call.base_url, &project, view)?))
}

/// Points HEAD at `branch`, which must exist unless the repository has no branch yet
/// (GitLab's `Projects::UpdateService#validate_default_branch_change`).
fn set_default_branch(call: &Call, project: &store::projects::Project, branch: &str) -> ApiResult<()> {
    let missing = || {
        ApiError::validation(format!(
            "Could not set the default branch. Do you have a branch named '{branch}' in your repository?"
        ))
    };
    if !git::write::refs::valid_branch_name(branch) {
        return Err(missing());
    }
    let repo = call.repository(project, "Project")?;
    let exists = git::refs::branch(&repo, branch).ok().flatten().is_some();
    let empty = repo.references().ok().and_then(|r| r.local_branches().ok().map(|mut b| b.next().is_none()));
    if !exists && empty != Some(true) {
        return Err(missing());
    }
    git::write::refs::set_head(&repo, branch).map_err(ApiError::internal)
}
