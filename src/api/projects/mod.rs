//! Projects as tools see them (decisions D8, `gitlab-repository-families.md` §6): GitLab's
//! project entities, built here once for `GET /projects/:id` ([`get()`]) and the lists
//! ([`list`]). Signed-in callers get `ProjectWithAccess` (with `permissions`), anonymous ones
//! `ProjectDetails`, `simple=true` `BasicProjectDetails`. `default_branch`, `readme_url` and
//! `forks_count` are absent for callers who cannot read code, `forked_from_project` is present
//! only on forks whose parent the caller can see (Backstage tests for the key itself).

pub mod get;
pub mod list;

pub use get::get;

use crate::auth::permissions::{self, ProjectAbility};
use crate::auth::Caller;
use crate::context::Context;
use crate::error::ApiResult;
use crate::git;
use crate::store::groups::Group;
use crate::store::projects::{self, Listed, Project};
use forgecore_date::rfc3339;
use serde_json::{json, Map, Value};

/// The branch a project without one shows, as GitLab's `default_branch_or_main`.
const INSTANCE_DEFAULT_BRANCH: &str = "main";
/// GitLab's `NotificationSetting` level `global`, what a membership shows without settings.
const NOTIFICATION_GLOBAL: i64 = 3;

/// Which entity a caller gets, and what it may show them.
#[derive(Debug, Clone, Copy)]
pub struct View {
    /// `BasicProjectDetails` only (`simple=true`).
    pub simple: bool,
    /// `ProjectWithAccess`: a signed-in caller gets `permissions`.
    pub with_access: bool,
    /// Whether the caller can read the code: `default_branch`, `readme_url`, `forks_count`.
    pub read_code: bool,
}

/// What the repository on this host says about a project: its default branch (HEAD's, even
/// unborn) and, when `want_empty` (only the full entity shows it), whether it has no branch
/// at all. `None` when this host cannot read it. The branch comes from the `HEAD` file alone:
/// a page of projects must not open every repository to show it.
fn repository_facts(ctx: &Context, project: &Project, want_empty: bool) -> Option<(Option<String>, bool)> {
    let git_dir = super::call::git_dir(ctx, project).ok()?;
    let head = git::head_file_branch(&git_dir)?;
    let empty = want_empty && {
        let repo = git::open(&git_dir).ok()?;
        match repo.references() {
            Ok(refs) => refs.local_branches().map(|mut branches| branches.next().is_none()).unwrap_or(true),
            Err(_) => true,
        }
    };
    Some((head, empty))
}

fn namespace_entity(base_url: &str, namespace: Option<&Group>) -> Value {
    match namespace {
        Some(group) => json!({
            "id": group.id,
            "name": group.name,
            "path": group.path,
            "kind": "group",
            "full_path": group.full_path,
            "parent_id": group.parent_id,
            "avatar_url": null,
            "web_url": format!("{base_url}/groups/{}", group.full_path),
        }),
        // Projects outside any group have no namespace of their own here (GitLab would put them
        // in a user's): an empty one keeps clients that read `namespace.full_path` working.
        None => json!({"id": null, "name": "", "path": "", "kind": "user", "full_path": "",
                       "parent_id": null, "avatar_url": null, "web_url": base_url}),
    }
}

fn access_entity(level: Option<i64>) -> Value {
    level.map_or(Value::Null, |level| json!({"access_level": level, "notification_level": NOTIFICATION_GLOBAL}))
}

/// The entity of one listed project for the caller `view` describes. `parent` is the fork
/// parent's entity when the project is a fork the caller can see the parent of.
pub fn details(ctx: &Context, base_url: &str, listed: &Listed, view: View, parent: Option<Value>) -> Value {
    let project = &listed.project;
    let web_url = format!("{base_url}/{}", project.full_path);
    // A repository this host cannot open (its storage is elsewhere) has no default branch to
    // show; one without a HEAD branch shows the instance's.
    let facts = repository_facts(ctx, project, !view.simple);
    let empty_repo = facts.as_ref().is_none_or(|(_, empty)| *empty);
    let default_branch = match facts {
        Some((head, _)) => json!(head.unwrap_or_else(|| INSTANCE_DEFAULT_BRANCH.to_string())),
        None => Value::Null,
    };
    let created_at = rfc3339(project.created_at, 0);
    let name_with_namespace = match &listed.namespace {
        Some(group) => format!("{} / {}", group.full_path.replace('/', " / "), project.name),
        None => project.name.clone(),
    };
    let mut entity = Map::new();
    let mut put = |key: &str, value: Value| {
        entity.insert(key.to_string(), value);
    };
    put("id", json!(project.id));
    put("description", json!(project.description));
    put("name", json!(project.name));
    put("name_with_namespace", json!(name_with_namespace));
    put("path", json!(project.path));
    put("path_with_namespace", json!(project.full_path));
    put("created_at", json!(created_at));
    if view.read_code {
        put("default_branch", default_branch);
    }
    put("tag_list", json!([]));
    put("topics", json!([]));
    put("ssh_url_to_repo", Value::Null);
    put("http_url_to_repo", json!(format!("{web_url}.git")));
    put("web_url", json!(web_url));
    if view.read_code {
        put("readme_url", Value::Null);
        put("forks_count", json!(listed.forks_count));
    }
    put("avatar_url", Value::Null);
    put("star_count", json!(0));
    put("last_activity_at", json!(created_at));
    put("namespace", namespace_entity(base_url, listed.namespace.as_ref()));
    if !view.simple {
        let api = format!("{base_url}/api/v4/projects/{}", project.id);
        put(
            "_links",
            json!({"self": api, "issues": format!("{api}/issues"), "merge_requests": format!("{api}/merge_requests"),
                   "repo_branches": format!("{api}/repository/branches"), "labels": format!("{api}/labels"),
                   "events": format!("{api}/events"), "members": format!("{api}/members"),
                   "cluster_agents": format!("{api}/cluster_agents")}),
        );
        put("empty_repo", json!(empty_repo));
        put("archived", json!(false));
        put("visibility", json!(project.visibility.as_str()));
        for feature in ["issues", "merge_requests", "wiki", "jobs", "snippets", "container_registry"] {
            put(&format!("{feature}_enabled"), json!(true));
        }
        for feature in ["issues", "repository", "merge_requests", "forking", "wiki", "builds", "snippets", "pages"] {
            put(&format!("{feature}_access_level"), json!("enabled"));
        }
        put("mirror", json!(false));
        put("merge_method", json!("merge"));
        put("squash_option", json!("default_off"));
        put("only_allow_merge_if_pipeline_succeeds", json!(false));
        put("allow_merge_on_skipped_pipeline", json!(false));
        put("only_allow_merge_if_all_discussions_are_resolved", json!(false));
        put("remove_source_branch_after_merge", json!(true));
        put("request_access_enabled", json!(true));
        put("open_issues_count", json!(0));
        if let Some(parent) = parent {
            put("forked_from_project", parent);
        }
        if view.with_access {
            put(
                "permissions",
                json!({"project_access": access_entity(listed.project_level),
                       "group_access": access_entity(listed.group_level)}),
            );
        }
    }
    Value::Object(entity)
}

/// The list entry of a project (its group, levels and fork count) seen by `caller`, whose
/// right to see it is already checked.
fn listed(call_ctx: &Context, caller: &Caller, project: &Project) -> ApiResult<Option<Listed>> {
    let query = projects::ListQuery {
        user_id: caller.user().map(|u| u.id),
        admin: true,
        membership: false,
        min_access_level: None,
        search: None,
        visibility: None,
        group_ids: None,
        id_after: None,
        id_before: None,
        only_id: Some(project.id),
        order: projects::Order::Id,
        ascending: true,
        limit: 1,
        offset: 0,
    };
    Ok(call_ctx.store.read(|db| projects::list(db, &query))?.into_iter().next())
}

/// The `BasicProjectDetails` of `project`'s fork parent when `caller` may see it.
fn fork_parent(ctx: &Context, caller: &Caller, base_url: &str, project: &Project) -> ApiResult<Option<Value>> {
    let Some(parent_id) = project.forked_from_id else { return Ok(None) };
    let Some(parent) = ctx.store.project(&projects::Name::Id(parent_id))? else { return Ok(None) };
    let visible = ctx.store.read(|db| permissions::authorize_project(db, caller, &parent, ProjectAbility::Read));
    if visible.is_err() {
        return Ok(None);
    }
    let read_code =
        ctx.store.read(|db| permissions::authorize_project(db, caller, &parent, ProjectAbility::ReadCode)).is_ok();
    let Some(listed) = listed(ctx, caller, &parent)? else { return Ok(None) };
    let view = View { simple: true, with_access: false, read_code };
    Ok(Some(details(ctx, base_url, &listed, view, None)))
}

/// The full entity of `project` for `caller` (visibility already checked), as `view` says.
pub fn entity_for(ctx: &Context, caller: &Caller, base_url: &str, project: &Project, view: View) -> ApiResult<Value> {
    let Some(listed) = listed(ctx, caller, project)? else { return Err(crate::error::ApiError::NotFound("Project")) };
    let parent = if view.simple { None } else { fork_parent(ctx, caller, base_url, project)? };
    Ok(details(ctx, base_url, &listed, view, parent))
}

/// The entity of `project` as an administrator sees it, its `web_url` under `base_url`
/// (administration answers it for a project it registers).
pub fn entity(ctx: &Context, base_url: &str, project: &Project) -> Value {
    let view = View { simple: false, with_access: false, read_code: true };
    // Administration has no caller: no memberships to show, and everything may be seen.
    match listed(ctx, &Caller::Anonymous, project) {
        Ok(Some(listed)) => {
            // The parent by id only: what the command line prints, whoever may see it.
            let parent = project.forked_from_id.map(|id| json!({"id": id}));
            details(ctx, base_url, &listed, view, parent)
        }
        _ => json!({"id": project.id, "path_with_namespace": project.full_path}),
    }
}
