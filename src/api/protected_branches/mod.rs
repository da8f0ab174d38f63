//! Protected branches, as GitLab's API has them (decisions D8): list, get, protect,
//! unprotect; one file per operation. Maintainers (and administrators) manage them, as
//! GitLab's `admin_project`; what a protection means for a write is `auth::protection`'s.
//! A project whose protections were never stored shows its implicit default-branch rule (with
//! a null `id`), and is given stored rows (the default branch's first) on its first change.

pub mod create;
pub mod delete;
pub mod get;
pub mod list;

use super::Call;
use crate::auth::permissions::{ProjectAbility, ProjectAccess};
use crate::auth::protection::{Protection, ADMIN, NO_ACCESS};
use crate::auth::roles::{DEVELOPER, MAINTAINER};
use crate::error::{ApiError, ApiResult};
use crate::git;
use crate::store::projects::Project;
use serde_json::{json, Value};

/// The access levels a protection may name: no one, Developers, Maintainers, administrators.
pub const LEVELS: [i64; 4] = [NO_ACCESS, DEVELOPER, MAINTAINER, ADMIN];

fn description(level: i64) -> &'static str {
    match level {
        NO_ACCESS => "No one",
        DEVELOPER => "Developers + Maintainers",
        MAINTAINER => "Maintainers",
        _ => "Admins",
    }
}

fn access_levels(level: i64) -> Value {
    json!([{"id": null, "access_level": level, "access_level_description": description(level),
            "deploy_key_id": null, "user_id": null, "group_id": null}])
}

/// GitLab's ProtectedBranch entity (`id` null for the implicit rule of an unmigrated project).
pub fn entity(id: Option<i64>, protection: &Protection) -> Value {
    json!({
        "id": id,
        "name": protection.name,
        "push_access_levels": access_levels(protection.push_access_level),
        "merge_access_levels": access_levels(protection.merge_access_level),
        "unprotect_access_levels": [],
        "allow_force_push": protection.allow_force_push,
        "code_owner_approval_required": false,
        "inherited": false,
    })
}

/// The project named by `id` for a caller who administers it: 404 for a project they may not
/// see, 401 for anyone not signed in, 403 below Maintainer.
pub fn administered(call: &Call, id: &str) -> ApiResult<Project> {
    let project = call.project(id, ProjectAbility::Read)?;
    call.caller.require_user()?;
    let access = call.ctx.store.read(|db| ProjectAccess::of(db, &call.caller, &project))?;
    if !(access.admin || access.level >= MAINTAINER) {
        return Err(ApiError::Forbidden(None));
    }
    Ok(project)
}

/// As [`administered`], for a change: an archived project's protections are read-only too
/// (decisions D9), 403.
pub fn administered_for_change(call: &Call, id: &str) -> ApiResult<Project> {
    let project = administered(call, id)?;
    if project.archived {
        return Err(ApiError::Forbidden(None));
    }
    Ok(project)
}

/// The project's default branch, where this host can see its repository.
pub fn default_branch(call: &Call, project: &Project) -> ApiResult<Option<String>> {
    Ok(git::default_branch(call.git_dir(project)?))
}
