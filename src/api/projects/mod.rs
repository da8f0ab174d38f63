//! Projects as tools see them (decisions D8, `gitlab-repository-families.md` §6): GitLab's
//! project entities, built here once for `GET /projects/:id` ([`get()`]) and the lists
//! ([`list`]). Signed-in callers get `ProjectWithAccess` (with `permissions`), anonymous ones
//! `ProjectDetails`, `simple=true` `BasicProjectDetails`. `default_branch`, `readme_url` and
//! `forks_count` are absent for callers who cannot read code, `forked_from_project` is present
//! only on forks whose parent the caller can see (Backstage tests for the key itself).

pub mod archive;
pub mod create;
pub mod delete;
pub mod entity;
pub mod fork;
pub mod fork_link;
pub mod forks;
pub mod get;
pub mod list;
pub mod purge;
pub mod restore;
pub mod settings;
pub mod share;
pub mod transfer;
pub mod update;

pub use entity::Entity;
pub use get::get;

use crate::auth::permissions::{self, ProjectAbility};
use crate::auth::Caller;
use crate::context::Context;
use crate::error::ApiResult;
use crate::git;
use crate::store::projects::{self, Listed, Project};
use entity::Facts;
use serde_json::{json, Value};

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
fn repository_facts(ctx: &Context, project: &Project, want_empty: bool) -> Facts {
    let git_dir = ctx.git_dir(project).ok()?;
    let head = git::head_file::branch(&git_dir)?;
    let empty = want_empty && {
        let repo = git::open(&git_dir).ok()?;
        match repo.references() {
            Ok(refs) => refs.local_branches().map(|mut branches| branches.next().is_none()).unwrap_or(true),
            Err(_) => true,
        }
    };
    Some((head, empty))
}

/// The entity of one listed project for the caller `view` describes. `parent` is the fork
/// parent's entity when the project is a fork the caller can see the parent of.
/// `viewer` is whom `shared_with_groups` is for (`None`: the administration, which sees all).
pub fn details<'a>(
    ctx: &Context,
    base_url: &'a str,
    listed: Listed,
    view: View,
    parent: Option<Value>,
    viewer: Option<&Caller>,
) -> Entity<'a> {
    let facts = repository_facts(ctx, &listed.project, !view.simple);
    let shared = if view.simple {
        None
    } else {
        let shared = crate::store::shares::Shared::Project(listed.project.id);
        crate::api::groups::share::visible_links(ctx, viewer, shared).ok()
    };
    Entity { base_url, listed, view, facts, parent, shared }
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
        archived: None,
        group_ids: None,
        id_after: None,
        id_before: None,
        only_id: Some(project.id),
        forked_from_id: None,
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
    Ok(serde_json::to_value(details(ctx, base_url, listed, view, None, Some(caller))).ok())
}

/// The full entity of `project` for `caller` (visibility already checked), as `view` says.
pub fn entity_for<'a>(
    ctx: &Context,
    caller: &Caller,
    base_url: &'a str,
    project: &Project,
    view: View,
) -> ApiResult<Entity<'a>> {
    let Some(listed) = listed(ctx, caller, project)? else { return Err(crate::error::ApiError::NotFound("Project")) };
    let parent = if view.simple { None } else { fork_parent(ctx, caller, base_url, project)? };
    Ok(details(ctx, base_url, listed, view, parent, Some(caller)))
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
            serde_json::to_value(details(ctx, base_url, listed, view, parent, None)).unwrap_or(Value::Null)
        }
        _ => json!({"id": project.id, "path_with_namespace": project.full_path}),
    }
}
