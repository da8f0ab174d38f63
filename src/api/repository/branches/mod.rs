//! Branches (`gitlab-repository-families.md` §3): list, get, create, delete one, delete the
//! merged ones; one file per operation. This module builds GitLab's Branch entity once: the
//! tip's commit, `merged` (into the default branch, which itself shows `false`), `protected`
//! (wildcards count), `developers_can_push`/`developers_can_merge`, `can_push` for the caller,
//! `default` and `web_url`. Every write asks `auth::protection::check`.

pub mod create;
pub mod delete;
pub mod delete_merged;
pub mod get;
pub mod list;

use super::commits;
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility, ProjectAccess};
use crate::auth::protection::{self, Protection, RefChange, Refusal};
use crate::auth::roles::DEVELOPER;
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git::{self, refs::Branch};
use crate::store::projects::Project;
use serde_json::{json, Value};

/// What every branch entity of one answer shares: the repository, its default branch and
/// tip, the project's protection rules and the caller's access.
pub struct Scope<'a> {
    ctx: &'a crate::context::Context,
    git_dir: std::path::PathBuf,
    pub repo: gix::Repository,
    pub project: Project,
    pub default_branch: Option<String>,
    pub default_tip: Option<gix::ObjectId>,
    pub rules: Vec<Protection>,
    pub access: ProjectAccess,
    pub project_url: String,
}

impl<'a> Scope<'a> {
    pub fn new(call: &Call<'a>, project: Project) -> ApiResult<Scope<'a>> {
        let repo = call.repository(&project, "Branch")?;
        let git_dir = call.git_dir(&project)?;
        let default_branch = git::default_branch(&git_dir);
        let default_tip = match &default_branch {
            Some(name) => git::refs::branch(&repo, name).or_broken()?,
            None => None,
        };
        let (rules, access) = call.ctx.store.read(|db| -> ApiResult<_> {
            Ok((
                protection::rules(db, &project, default_branch.as_deref())?,
                ProjectAccess::of(db, &call.caller, &project)?,
            ))
        })?;
        let project_url = call.web_url(&project.full_path);
        Ok(Scope { ctx: call.ctx, git_dir, repo, project, default_branch, default_tip, rules, access, project_url })
    }

    /// Whether `tip` is merged into the default branch's `default_tip`: a walk the first time,
    /// kept after (a pure function of the two commit ids, so never stale).
    fn merged(&self, tip: gix::ObjectId, default_tip: gix::ObjectId) -> ApiResult<bool> {
        let key = format!("branch_merged\0{}\0{tip}\0{default_tip}", self.git_dir.display());
        let answer = self.ctx.caches.answers.get_or_compute(
            key,
            |_| 128,
            || git::refs::is_ancestor(&self.repo, tip, default_tip),
        );
        Ok(*answer.or_broken()?)
    }

    pub fn is_default(&self, name: &str) -> bool {
        self.default_branch.as_deref() == Some(name)
    }

    /// GitLab's Branch entity of `branch`.
    pub fn entity(&self, branch: &Branch) -> ApiResult<Value> {
        // A tip that cannot be read (a corrupt pack) is the 404 of a missing commit, as every
        // repository read answers it, never a 500.
        let info = git::commit::read(&self.repo, branch.tip).or_not_found(ApiError::NotFound("Commit"))?;
        let is_default = self.is_default(&branch.name);
        let merged = match self.default_tip {
            Some(tip) if !is_default => self.merged(branch.tip, tip)?,
            _ => false,
        };
        let protection = protection::effective(&self.rules, &branch.name);
        let can_push = protection::decide(&self.access, protection.as_ref(), is_default, RefChange::Update).is_ok();
        let developers_can = |level: fn(&Protection) -> i64| protection.as_ref().is_some_and(|p| level(p) == DEVELOPER);
        Ok(json!({
            "name": branch.name,
            "commit": commits::entity_of(&self.project_url, &info),
            "merged": merged,
            "protected": protection.is_some(),
            "developers_can_push": developers_can(|p| p.push_access_level),
            "developers_can_merge": developers_can(|p| p.merge_access_level),
            "can_push": can_push,
            "default": is_default,
            "web_url": format!("{}/-/tree/{}", self.project_url, branch.name),
        }))
    }
}

/// The branch named by the path, or 404 `Branch Not Found`.
pub fn find(scope: &Scope, name: &str) -> ApiResult<Branch> {
    let tip = git::refs::branch(&scope.repo, name).or_broken()?.ok_or(ApiError::NotFound("Branch"))?;
    Ok(Branch { name: name.to_string(), tip })
}

/// The project a write names, for a signed-in caller who may push code: 404 for a project
/// they may not see, 401 for anyone not signed in (job tokens too), 403 below Developer.
pub fn writable(call: &Call, id: &str) -> ApiResult<(Project, crate::store::users::User)> {
    let project = call.project(id, ProjectAbility::Read)?;
    let user = call.caller.require_user()?.clone();
    call.ctx.store.read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::PushCode))?;
    Ok((project, user))
}

/// What the one protection rule says of `change` to `name` for the caller.
pub fn check(call: &Call, scope: &Scope, name: &str, change: RefChange) -> ApiResult<Result<(), Refusal>> {
    call.ctx
        .store
        .read(|db| protection::check(db, &call.caller, &scope.project, scope.default_branch.as_deref(), name, change))
}
