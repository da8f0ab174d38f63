//! The protection rule (decisions D8): whether a caller may create, update, force-update or
//! delete a branch. Every write path (files, commits, branches, tags, the changelog commit and
//! pushes) asks [`check`]; none decides by itself.
//!
//! Until protected branches are stored, a project's default branch is protected as GitLab
//! protects it by default: Maintainers (and administrators) push and merge, nobody force-pushes,
//! nobody deletes it. Other branches are open to anyone who may push code (Developer and above).
//! The caller must already hold [`ProjectAbility::PushCode`](super::permissions::ProjectAbility)
//! on the project: this rule only narrows it per branch.

use super::permissions::ProjectAccess;
use super::roles::{DEVELOPER, MAINTAINER};
use super::Caller;
use crate::error::ApiResult;
use crate::store::projects::Project;
use crate::store::Db;

/// GitLab's `Gitlab::Access::NO_ACCESS`: nobody may do it.
pub const NO_ACCESS: i64 = 0;
/// GitLab's `Gitlab::Access::ADMIN`: administrators only.
pub const ADMIN: i64 = 60;

/// What a write would do to a branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefChange {
    /// The branch does not exist yet.
    Create,
    /// The branch moves to a descendant of its tip.
    Update,
    /// The branch moves to a commit that does not descend from its tip.
    ForceUpdate,
    /// The branch goes away.
    Delete,
}

/// How a branch is protected: GitLab's `ProtectedBranch` with one access level per action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protection {
    /// The name or wildcard pattern that protects the branch.
    pub name: String,
    /// Lowest access level allowed to push (and create): 0 no one, 30, 40 or 60.
    pub push_access_level: i64,
    /// Lowest access level allowed to merge.
    pub merge_access_level: i64,
    pub allow_force_push: bool,
}

impl Protection {
    /// GitLab's default protection of a new project's default branch ("fully protected"):
    /// Maintainers push and merge, nobody force-pushes.
    pub fn default_branch(name: &str) -> Protection {
        Protection {
            name: name.to_string(),
            push_access_level: MAINTAINER,
            merge_access_level: MAINTAINER,
            allow_force_push: false,
        }
    }
}

/// Why a change of a branch is refused; each write path words it as GitLab does there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The caller may not push to (or create) this protected branch.
    Push,
    /// Nobody may force-push to this protected branch.
    ForcePush,
    /// Protected branches are deleted by Maintainers only.
    DeleteProtected,
    /// The default branch is never deleted.
    DeleteDefault,
}

/// The protection of `branch` in `project`, whose default branch is `default_branch`, if any.
pub fn protection_of(
    _db: &mut Db,
    _project: &Project,
    default_branch: Option<&str>,
    branch: &str,
) -> ApiResult<Option<Protection>> {
    Ok((default_branch == Some(branch)).then(|| Protection::default_branch(branch)))
}

/// Whether `access` reaches `level` of a protection (administrators always do, but for
/// [`NO_ACCESS`]).
fn reaches(access: &ProjectAccess, level: i64) -> bool {
    level != NO_ACCESS && (access.admin || (level != ADMIN && access.level >= level))
}

/// Whether `caller` may make `change` to `branch` of `project` (default branch `default_branch`,
/// `None` for an empty repository, whose first branch becomes the default one). The caller's
/// right to push code at all is checked before, by `authorize_project`.
pub fn check(
    db: &mut Db,
    caller: &Caller,
    project: &Project,
    default_branch: Option<&str>,
    branch: &str,
    change: RefChange,
) -> ApiResult<Result<(), Refusal>> {
    if change == RefChange::Delete && default_branch == Some(branch) {
        return Ok(Err(Refusal::DeleteDefault));
    }
    let access = ProjectAccess::of(db, caller, project)?;
    let Some(protection) = protection_of(db, project, default_branch, branch)? else {
        return Ok(if access.admin || access.level >= DEVELOPER { Ok(()) } else { Err(Refusal::Push) });
    };
    Ok(match change {
        RefChange::Create | RefChange::Update if reaches(&access, protection.push_access_level) => Ok(()),
        RefChange::Create | RefChange::Update => Err(Refusal::Push),
        RefChange::ForceUpdate if !protection.allow_force_push => Err(Refusal::ForcePush),
        RefChange::ForceUpdate if reaches(&access, protection.push_access_level) => Ok(()),
        RefChange::ForceUpdate => Err(Refusal::Push),
        RefChange::Delete if access.admin || access.level >= MAINTAINER => Ok(()),
        RefChange::Delete => Err(Refusal::DeleteProtected),
    })
}

/// Whether `caller` may push to `branch` (the Branch entity's `can_push`).
pub fn can_push(
    db: &mut Db,
    caller: &Caller,
    project: &Project,
    default_branch: Option<&str>,
    branch: &str,
) -> ApiResult<bool> {
    Ok(check(db, caller, project, default_branch, branch, RefChange::Update)?.is_ok())
}
