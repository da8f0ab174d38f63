//! The permission function: what a caller may do on a project or group.
//!
//! Decisions D3-D4: a caller's access to a project is the highest access level among their
//! memberships that reach it (the project, its group, any ancestor group), plus the union of the
//! flags of the custom roles on those memberships. Invisible subjects answer 404, never 401 or
//! 403, so that their existence does not leak; visible subjects the caller may not act on answer
//! 403. Custom flags only add the abilities they name; managing member roles is for owners and
//! administrators only.

use super::roles::{DEVELOPER, MAINTAINER, OWNER, PLANNER, REPORTER};
use super::Caller;
use crate::error::{ApiError, ApiResult};
use crate::store::Db;
use crate::store::{self, groups::Group, projects::Project, Visibility};

/// What one might want to do with a project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectAbility {
    /// See that it exists (`GET /projects/:id`).
    Read,
    /// Read its repository: tree, blobs, archives, compare, contributors, merge base.
    ReadCode,
    /// Read changelog data (B9): like `ReadCode`, and the project's own job token may do it.
    ReadChangelog,
    /// Fetch or clone it over git (GitLab's `download_code`): like `ReadCode`, but a custom
    /// role's `read_code` alone is not enough (decisions D8); a job token fetches its own
    /// project.
    DownloadCode,
    /// Push to it (changelog commit, B8): Developer and above.
    PushCode,
    /// Read or generate repository health (B10): Maintainer and above.
    ReadHealth,
    /// Change its settings (`PUT /projects/:id`, GitLab's `admin_project`): Maintainer and above.
    AdminProject,
    /// Change its visibility (GitLab's `change_visibility_level`): Owner.
    ChangeVisibility,
    /// Archive or unarchive it (GitLab's `archive_project`): Owner, or a custom role's
    /// `archive_project`.
    ArchiveProject,
    /// Delete or restore it (GitLab's `remove_project`): Owner, or a custom role's
    /// `remove_project`.
    RemoveProject,
    /// Manage its CI/CD variables (GitLab's `admin_cicd_variables`, `project_policy.rb`: the
    /// Maintainer block): Maintainer and above, or a custom role's `admin_cicd_variables`.
    AdminCicdVariables,
    /// Read and manage its webhooks (GitLab's `read_web_hook` and `admin_web_hook`):
    /// Maintainer and above, or a custom role's `admin_web_hook`.
    AdminWebHook,
    /// Read its releases (GitLab's `read_release`): whoever sees the project (guests of a
    /// private one included); a job token reads its own project's.
    ReadRelease,
    /// Create, update or delete its releases (GitLab's `create_release`, `update_release`,
    /// `destroy_release`, all Developer in the newest `project_policy.rb`); never on an
    /// archived project.
    ManageRelease,
    /// Read commit statuses and pipelines (GitLab's `read_commit_status`, `read_pipeline`):
    /// whoever reads the code (guests of a private project do not).
    ReadCommitStatus,
    /// Post commit statuses (GitLab's `create_commit_status`, `update_pipeline`): Developer
    /// and above, never on an archived project.
    CreateCommitStatus,
    /// Fork it (GitLab's `fork_project`): whoever signed in may download its code.
    ForkProject,
    /// Mark it as a fork of another or remove its fork relation (GitLab's
    /// `link_forked_project`, `remove_fork_project`), or move it to another namespace
    /// (`change_namespace`): Owner.
    ManageFork,
    ChangeNamespace,
    /// Read, create, rotate and revoke project access tokens (GitLab's
    /// `*_resource_access_tokens`): Maintainer (`admin_project`), or a custom role's
    /// `manage_project_access_tokens`.
    ManageAccessTokens,
    /// Read, create and delete deploy tokens (GitLab's `*_deploy_token`): Maintainer, or a
    /// custom role's `manage_deploy_tokens`.
    ManageDeployTokens,
    /// Read and change its push rule (GitLab's `admin_push_rules`, `project_policy.rb`'s
    /// Maintainer block and EE's `custom_role_enables_admin_push_rules`): Maintainer and
    /// above, or a custom role's `admin_push_rules`.
    AdminPushRules,
    /// Read its merge requests, their diffs and commits (GitLab's `read_merge_request`):
    /// Reporter and above, anyone who may read a public or internal project's code, or a
    /// custom role's `admin_merge_request`; a Guest of a private project may not.
    ReadMergeRequest,
    /// Open a merge request from and into it (GitLab's `create_merge_request_from` with
    /// `create_merge_request_in`): Developer and above, or a custom role's
    /// `admin_merge_request` (which also grants `download_code`); not in an archived project.
    CreateMergeRequest,
    /// Change any of its merge requests (GitLab's `update_merge_request`): Developer and
    /// above; a merge request's author and assignees may change theirs too, which the merge
    /// request's own operations add. Not in an archived project.
    UpdateMergeRequest,
    /// Delete a merge request (GitLab's `destroy_merge_request`): Owner.
    DestroyMergeRequest,
    /// Create, change and delete its labels (GitLab's `admin_label`): Planner, Reporter and above, on a
    /// project that is not archived.
    AdminLabel,
    /// Set an issue's labels, assignees and confidentiality, see every confidential issue and
    /// internal note (GitLab's `admin_issue` / `read_confidential_issues`): Planner, Reporter and
    /// above.
    AdminIssue,
}

/// The caller's standing on one project.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectAccess {
    pub admin: bool,
    pub signed_in: bool,
    /// Highest access level of the memberships reaching the project; 0 for none.
    pub level: i64,
    /// Flags granted by custom roles on those memberships.
    pub flags: Vec<String>,
}

impl ProjectAccess {
    pub fn of(db: &mut Db, caller: &Caller, project: &Project) -> ApiResult<ProjectAccess> {
        let Caller::User(user) = caller else { return Ok(ProjectAccess::default()) };
        let mut access = ProjectAccess { admin: user.is_admin, signed_in: true, ..Default::default() };
        for membership in store::members::for_project(db, user.id, project.id)? {
            access.level = access.level.max(membership.access_level);
            for flag in membership.role_permissions {
                if !access.flags.contains(&flag) {
                    access.flags.push(flag);
                }
            }
        }
        Ok(access)
    }

    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }

    pub fn can_see(&self, visibility: Visibility) -> bool {
        self.admin
            || self.level > 0
            || visibility == Visibility::Public
            || (visibility == Visibility::Internal && self.signed_in)
    }

    pub fn can_read_code(&self, visibility: Visibility) -> bool {
        self.admin
            || visibility == Visibility::Public
            || (visibility == Visibility::Internal && self.signed_in)
            || self.level >= REPORTER
            || self.has_flag("read_code")
            || self.has_flag("admin_merge_request")
    }

    /// GitLab's `read_merge_request`: as [`Self::can_download_code`] (a custom role's
    /// `read_code` alone reads code, not merge requests).
    pub fn can_read_merge_requests(&self, visibility: Visibility) -> bool {
        self.can_download_code(visibility)
    }

    /// GitLab's `download_code`: as [`Self::can_read_code`] without the `read_code` flag, but
    /// with `admin_merge_request`, whose custom ability enables `download_code` (EE's
    /// `custom_roles` policy: reviewing merge requests means fetching their code).
    pub fn can_download_code(&self, visibility: Visibility) -> bool {
        self.admin
            || visibility == Visibility::Public
            || (visibility == Visibility::Internal && self.signed_in)
            || self.level >= REPORTER
            || self.has_flag("admin_merge_request")
    }
}

/// Checks `ability` on `project` for `caller`: `Ok` when allowed, 404 "Project Not Found" when
/// the caller may not even see the project, 403 when they see it but may not do this.
pub fn authorize_project(db: &mut Db, caller: &Caller, project: &Project, ability: ProjectAbility) -> ApiResult<()> {
    if let Caller::Job { project_id } = caller {
        return match ability {
            ProjectAbility::ReadChangelog | ProjectAbility::DownloadCode | ProjectAbility::ReadRelease
                if *project_id == project.id =>
            {
                Ok(())
            }
            ProjectAbility::ReadChangelog
            | ProjectAbility::Read
            | ProjectAbility::DownloadCode
            | ProjectAbility::ReadRelease
            | ProjectAbility::ReadCommitStatus => authorize_project(db, &Caller::Anonymous, project, ability),
            _ if *project_id == project.id => Err(ApiError::Unauthorized),
            // Refused for what the token may not do, but only where anyone may see the
            // project: elsewhere the answer is the 404 of a missing project, so a job token
            // tells nothing about projects it cannot see.
            _ => authorize_project(db, &Caller::Anonymous, project, ProjectAbility::Read)
                .and(Err(ApiError::Unauthorized)),
        };
    }
    let access = ProjectAccess::of(db, caller, project)?;
    if !access.can_see(project.visibility) {
        return Err(ApiError::NotFound("Project"));
    }
    let allowed = match ability {
        ProjectAbility::Read => true,
        ProjectAbility::ReadCode | ProjectAbility::ReadChangelog => access.can_read_code(project.visibility),
        ProjectAbility::DownloadCode => access.can_download_code(project.visibility),
        // An archived project is read-only for everyone (GitLab's `ArchivedAbilities`
        // prevent `push_code` even for administrators); every write path asks this.
        ProjectAbility::PushCode => !project.archived && (access.admin || access.level >= DEVELOPER),
        ProjectAbility::ReadHealth | ProjectAbility::AdminProject => access.admin || access.level >= MAINTAINER,
        ProjectAbility::ChangeVisibility => access.admin || access.level >= OWNER,
        ProjectAbility::ArchiveProject => access.admin || access.level >= OWNER || access.has_flag("archive_project"),
        ProjectAbility::RemoveProject => access.admin || access.level >= OWNER || access.has_flag("remove_project"),
        ProjectAbility::AdminCicdVariables => {
            access.admin || access.level >= MAINTAINER || access.has_flag("admin_cicd_variables")
        }
        ProjectAbility::AdminWebHook => access.admin || access.level >= MAINTAINER || access.has_flag("admin_web_hook"),
        ProjectAbility::ReadRelease => true,
        ProjectAbility::ReadCommitStatus => access.can_read_code(project.visibility),
        ProjectAbility::ManageRelease | ProjectAbility::CreateCommitStatus => {
            !project.archived && (access.admin || access.level >= DEVELOPER)
        }
        ProjectAbility::ForkProject => access.signed_in && access.can_download_code(project.visibility),
        ProjectAbility::ManageFork | ProjectAbility::ChangeNamespace => access.admin || access.level >= OWNER,
        ProjectAbility::ManageAccessTokens => {
            access.admin || access.level >= MAINTAINER || access.has_flag("manage_project_access_tokens")
        }
        ProjectAbility::ManageDeployTokens => {
            access.admin || access.level >= MAINTAINER || access.has_flag("manage_deploy_tokens")
        }
        ProjectAbility::AdminPushRules => {
            access.admin || access.level >= MAINTAINER || access.has_flag("admin_push_rules")
        }
        ProjectAbility::ReadMergeRequest => access.can_read_merge_requests(project.visibility),
        ProjectAbility::CreateMergeRequest => {
            !project.archived
                && (access.admin || access.level >= DEVELOPER || access.has_flag("admin_merge_request"))
                && access.can_download_code(project.visibility)
        }
        ProjectAbility::UpdateMergeRequest => !project.archived && (access.admin || access.level >= DEVELOPER),
        ProjectAbility::DestroyMergeRequest => access.admin || access.level >= OWNER,
        ProjectAbility::AdminLabel => !project.archived && (access.admin || access.level >= PLANNER),
        ProjectAbility::AdminIssue => access.admin || access.level >= PLANNER,
    };
    if allowed {
        Ok(())
    } else {
        Err(ApiError::Forbidden(None))
    }
}

/// Whether `caller` may see `group`: public groups are seen by all, internal ones by anyone
/// signed in, private ones by administrators and by members of it, an ancestor, or anything
/// below it.
pub fn can_see_group(db: &mut Db, caller: &Caller, group: &Group) -> ApiResult<bool> {
    if group.visibility == Visibility::Public {
        return Ok(true);
    }
    let Caller::User(user) = caller else { return Ok(false) };
    if user.is_admin || group.visibility == Visibility::Internal {
        return Ok(true);
    }
    Ok(!store::members::for_group(db, user.id, group.id)?.is_empty()
        || store::members::has_membership_below(db, user.id, group.id)?)
}

/// The caller's standing on one group: the highest level of the live memberships reaching it
/// (on it or an ancestor) and the flags of their custom roles, as [`ProjectAccess`] is for a
/// project.
pub fn group_access(db: &mut Db, caller: &Caller, group: &Group) -> ApiResult<ProjectAccess> {
    let Caller::User(user) = caller else { return Ok(ProjectAccess::default()) };
    let mut access = ProjectAccess { admin: user.is_admin, signed_in: true, ..Default::default() };
    for membership in store::members::for_group(db, user.id, group.id)? {
        access.level = access.level.max(membership.access_level);
        for flag in membership.role_permissions {
            if !access.flags.contains(&flag) {
                access.flags.push(flag);
            }
        }
    }
    Ok(access)
}

/// Owner of the group, directly or through an ancestor, or an administrator. Custom role flags
/// never make anyone an owner.
pub fn is_group_owner(db: &mut Db, caller: &Caller, group: &Group) -> ApiResult<bool> {
    let Caller::User(user) = caller else { return Ok(false) };
    if user.is_admin {
        return Ok(true);
    }
    Ok(store::members::for_group(db, user.id, group.id)?.iter().any(|m| m.access_level >= OWNER))
}

/// GitLab's `remove_group`: Owner of the group (directly or through an ancestor), an
/// administrator, or, for a subgroup only, a custom role's `remove_group` on a membership
/// reaching it (`ee/app/policies/ee/group_policy.rb`: the flag counts only when the group has a
/// parent).
pub fn can_remove_group(db: &mut Db, caller: &Caller, group: &Group) -> ApiResult<bool> {
    let Caller::User(user) = caller else { return Ok(false) };
    if user.is_admin {
        return Ok(true);
    }
    let memberships = store::members::for_group(db, user.id, group.id)?;
    Ok(memberships.iter().any(|m| m.access_level >= OWNER)
        || (group.parent_id.is_some()
            && memberships.iter().any(|m| m.role_permissions.iter().any(|f| f == "remove_group"))))
}

/// GitLab's group `admin_cicd_variables`: Owner of the group (directly or through an ancestor;
/// `group_policy.rb`'s owner block), an administrator, or a custom role's
/// `admin_cicd_variables` on a membership reaching the group (`ee/app/policies/ee/group_policy.rb`).
pub fn can_admin_group_cicd_variables(db: &mut Db, caller: &Caller, group: &Group) -> ApiResult<bool> {
    let access = group_access(db, caller, group)?;
    Ok(access.admin || access.level >= OWNER || access.has_flag("admin_cicd_variables"))
}

/// What one might want to do with a group's tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupAbility {
    /// Group access tokens (GitLab's `*_resource_access_tokens` on a group, `admin_group`):
    /// Owner, or a custom role's `manage_group_access_tokens`.
    ManageAccessTokens,
    /// Read its deploy tokens (`read_deploy_token`): Maintainer, or `manage_deploy_tokens`.
    ReadDeployTokens,
    /// Create and delete deploy tokens (`create_deploy_token`, `destroy_deploy_token`): Owner,
    /// or `manage_deploy_tokens`.
    ManageDeployTokens,
    /// Read and change its push rule (GitLab's `change_push_rules`, enabled by
    /// `admin_push_rules`): Maintainer, or a custom role's `admin_push_rules`.
    ChangePushRules,
    /// Group hooks (`admin_web_hook` on a group, `admin_group`): Owner, or a custom role's
    /// `admin_web_hook` (V `group_policy.rb`, `custom_abilities/admin_web_hook.yml`).
    AdminWebHook,
    /// Create, change and delete its labels (GitLab's group `admin_label`): Planners, Reporters
    /// and above.
    AdminLabel,
}

/// Whether `caller` may do `ability` on `group` (one it can see).
pub fn group_may(db: &mut Db, caller: &Caller, group: &Group, ability: GroupAbility) -> ApiResult<bool> {
    let access = group_access(db, caller, group)?;
    Ok(access.admin
        || match ability {
            GroupAbility::ManageAccessTokens => access.level >= OWNER || access.has_flag("manage_group_access_tokens"),
            GroupAbility::ReadDeployTokens => access.level >= MAINTAINER || access.has_flag("manage_deploy_tokens"),
            GroupAbility::ManageDeployTokens => access.level >= OWNER || access.has_flag("manage_deploy_tokens"),
            GroupAbility::ChangePushRules => access.level >= MAINTAINER || access.has_flag("admin_push_rules"),
            GroupAbility::AdminWebHook => access.level >= OWNER || access.has_flag("admin_web_hook"),
            GroupAbility::AdminLabel => access.level >= PLANNER,
        })
}
