//! The protection rule (decisions D8): whether a caller may create, update, force-update or
//! delete a branch. Every write path (files, commits, branches, tags, the changelog commit and
//! pushes) asks [`check`]; none decides by itself.
//!
//! A project's protections are the rows of the store's `protected_branches` (names, or patterns
//! where `*` matches any run of characters), made when the project is created with its default
//! branch protected as GitLab protects it by default: Maintainers (and administrators) push and
//! merge, nobody force-pushes. A project made before protections were stored keeps that
//! implicit rule until its protections are first changed ([`materialize`]). The default branch
//! is never deleted. Branches no rule matches are open to anyone who may push code (Developer
//! and above).
//! The caller must already hold [`ProjectAbility::PushCode`](super::permissions::ProjectAbility)
//! on the project: this rule only narrows it per branch.

use super::permissions::ProjectAccess;
use super::roles::{DEVELOPER, MAINTAINER};
use super::Caller;
use crate::error::ApiResult;
use crate::store::projects::{self, Project};
use crate::store::protected_branches::{self, ProtectedBranch};
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

impl From<ProtectedBranch> for Protection {
    fn from(row: ProtectedBranch) -> Protection {
        Protection {
            name: row.name,
            push_access_level: row.push_access_level,
            merge_access_level: row.merge_access_level,
            allow_force_push: row.allow_force_push,
        }
    }
}

/// Whether `pattern` (a protected branch's name, `*` matching any run of characters, `/`
/// included, as GitLab's `RefMatcher` does) matches `branch`.
pub fn matches(pattern: &str, branch: &str) -> bool {
    let Some((first, rest)) = pattern.split_once('*') else { return pattern == branch };
    let Some(mut remaining) = branch.strip_prefix(first) else { return false };
    let mut pieces: Vec<&str> = rest.split('*').collect();
    let last = pieces.pop().unwrap_or("");
    for piece in pieces {
        match remaining.find(piece) {
            Some(at) => remaining = &remaining[at + piece.len()..],
            None => return false,
        }
    }
    remaining.len() >= last.len() && remaining.ends_with(last)
}

/// Every protection rule of `project` (default branch `default_branch`): its stored rows, or
/// the implicit rule on the default branch for a project whose rows were never stored.
pub fn rules(db: &mut Db, project: &Project, default_branch: Option<&str>) -> ApiResult<Vec<Protection>> {
    if !project.protections_stored {
        return Ok(default_branch.map(Protection::default_branch).into_iter().collect());
    }
    Ok(protected_branches::list(db, project.id)?.into_iter().map(Protection::from).collect())
}

/// The protection `rules` give `branch`, if any matches. Several matching rules combine as
/// GitLab combines them: the most permissive level to push and to merge, force pushes only
/// when every rule allows them; the name is the exact rule's, else the first pattern's.
pub fn effective(rules: &[Protection], branch: &str) -> Option<Protection> {
    let matching: Vec<&Protection> = rules.iter().filter(|rule| matches(&rule.name, branch)).collect();
    let first = matching.iter().find(|rule| rule.name == branch).or(matching.first())?;
    let loosest = |level: fn(&Protection) -> i64| {
        matching.iter().map(|rule| level(rule)).filter(|l| *l != NO_ACCESS).min().unwrap_or(NO_ACCESS)
    };
    Some(Protection {
        name: first.name.clone(),
        push_access_level: loosest(|rule| rule.push_access_level),
        merge_access_level: loosest(|rule| rule.merge_access_level),
        allow_force_push: matching.iter().all(|rule| rule.allow_force_push),
    })
}

/// The protection of `branch` in `project`, whose default branch is `default_branch`, if any.
pub fn protection_of(
    db: &mut Db,
    project: &Project,
    default_branch: Option<&str>,
    branch: &str,
) -> ApiResult<Option<Protection>> {
    Ok(effective(&rules(db, project, default_branch)?, branch))
}

/// Makes the rules of a project that still has the implicit one into stored rows (its default
/// branch protected), before its protections change. Runs inside the changing transaction.
pub fn materialize(db: &mut Db, project: &Project, default_branch: Option<&str>) -> ApiResult<()> {
    if project.protections_stored {
        return Ok(());
    }
    if let Some(branch) = default_branch {
        if protected_branches::find(db, project.id, branch)?.is_none() {
            protect_default_branch(db, project.id, branch)?;
        }
    }
    projects::mark_protections_stored(db, project.id)?;
    Ok(())
}

/// Stores GitLab's default protection of a new project's default branch `branch`.
pub fn protect_default_branch(db: &mut Db, project_id: i64, branch: &str) -> ApiResult<()> {
    let rule = Protection::default_branch(branch);
    protected_branches::insert(
        db,
        project_id,
        branch,
        rule.push_access_level,
        rule.merge_access_level,
        rule.allow_force_push,
    )?;
    Ok(())
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
    let access = ProjectAccess::of(db, caller, project)?;
    let protection = protection_of(db, project, default_branch, branch)?;
    Ok(decide(&access, protection.as_ref(), default_branch == Some(branch), change))
}

/// The rule itself, on what is already known: the caller's `access`, the branch's
/// `protection`, and whether it is the default branch.
pub fn decide(
    access: &ProjectAccess,
    protection: Option<&Protection>,
    is_default: bool,
    change: RefChange,
) -> Result<(), Refusal> {
    if change == RefChange::Delete && is_default {
        return Err(Refusal::DeleteDefault);
    }
    let Some(protection) = protection else {
        return if access.admin || access.level >= DEVELOPER { Ok(()) } else { Err(Refusal::Push) };
    };
    match change {
        RefChange::Create | RefChange::Update if reaches(access, protection.push_access_level) => Ok(()),
        RefChange::Create | RefChange::Update => Err(Refusal::Push),
        RefChange::ForceUpdate if !protection.allow_force_push => Err(Refusal::ForcePush),
        RefChange::ForceUpdate if reaches(access, protection.push_access_level) => Ok(()),
        RefChange::ForceUpdate => Err(Refusal::Push),
        RefChange::Delete if access.admin || access.level >= MAINTAINER => Ok(()),
        RefChange::Delete => Err(Refusal::DeleteProtected),
    }
}

/// Whether `caller` may merge into `branch` (GitLab's `can_be_merged_by?`:
/// `can_push_to_branch? || can_merge_to_branch?`): an unprotected branch takes Developers, a
/// protected one its push or its merge access level. The caller's right to update merge
/// requests at all is the caller's to check.
pub fn can_merge(
    db: &mut Db,
    caller: &Caller,
    project: &Project,
    default_branch: Option<&str>,
    branch: &str,
) -> ApiResult<bool> {
    if project.archived {
        return Ok(false);
    }
    let access = ProjectAccess::of(db, caller, project)?;
    Ok(match protection_of(db, project, default_branch, branch)? {
        None => access.admin || access.level >= DEVELOPER,
        Some(rule) => reaches(&access, rule.push_access_level) || reaches(&access, rule.merge_access_level),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(name: &str, push: i64, merge: i64, force: bool) -> Protection {
        Protection { name: name.into(), push_access_level: push, merge_access_level: merge, allow_force_push: force }
    }

    #[test]
    fn wildcards_match_any_run_of_characters_slashes_included() {
        for (pattern, branch, expected) in [
            ("main", "main", true),
            ("main", "main2", false),
            ("release/*", "release/1.0", true),
            ("release/*", "release/", true),
            ("release/*", "release", false),
            ("*-stable", "1-0-stable", true),
            ("*-stable", "stable", false),
            ("feat*/*/x", "feature/a/b/x", true),
            ("a*b*c", "abc", true),
            ("a*b*c", "acb", false),
            ("*", "anything/at/all", true),
            ("a*a", "a", false),
        ] {
            assert_eq!(matches(pattern, branch), expected, "{pattern} {branch}");
        }
    }

    #[test]
    fn matching_rules_combine_as_gitlab_combines_them() {
        let rules = [rule("release/*", MAINTAINER, MAINTAINER, true), rule("release/1", DEVELOPER, NO_ACCESS, false)];
        let combined = effective(&rules, "release/1").unwrap();
        assert_eq!(combined.name, "release/1", "the exact rule names the protection");
        assert_eq!((combined.push_access_level, combined.merge_access_level), (DEVELOPER, MAINTAINER));
        assert!(!combined.allow_force_push, "force pushes only when every rule allows them");
        assert_eq!(effective(&rules, "release/2").unwrap().name, "release/*");
        assert_eq!(effective(&rules, "main"), None);
        let nobody = [rule("frozen", NO_ACCESS, NO_ACCESS, false)];
        assert_eq!(effective(&nobody, "frozen").unwrap().push_access_level, NO_ACCESS);
    }

    #[test]
    fn the_rule_for_each_change() {
        let developer = ProjectAccess { signed_in: true, level: DEVELOPER, ..Default::default() };
        let maintainer = ProjectAccess { signed_in: true, level: MAINTAINER, ..Default::default() };
        let admin = ProjectAccess { admin: true, signed_in: true, ..Default::default() };
        let default = Protection::default_branch("main");
        assert_eq!(decide(&developer, Some(&default), true, RefChange::Update), Err(Refusal::Push));
        assert_eq!(decide(&maintainer, Some(&default), true, RefChange::Update), Ok(()));
        assert_eq!(decide(&admin, Some(&default), true, RefChange::ForceUpdate), Err(Refusal::ForcePush));
        assert_eq!(decide(&admin, Some(&default), true, RefChange::Delete), Err(Refusal::DeleteDefault));
        assert_eq!(decide(&admin, None, true, RefChange::Delete), Err(Refusal::DeleteDefault));
        assert_eq!(decide(&developer, Some(&default), false, RefChange::Delete), Err(Refusal::DeleteProtected));
        assert_eq!(decide(&maintainer, Some(&default), false, RefChange::Delete), Ok(()));
        assert_eq!(decide(&developer, None, false, RefChange::ForceUpdate), Ok(()));
        let admins_only = rule("x", ADMIN, ADMIN, false);
        assert_eq!(decide(&maintainer, Some(&admins_only), false, RefChange::Create), Err(Refusal::Push));
        assert_eq!(decide(&admin, Some(&admins_only), false, RefChange::Create), Ok(()));
    }
}
