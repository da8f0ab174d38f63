//! A project's push rule applied to what a write changes (decisions D12): every write path asks
//! [`check`] before its refs move — a push's `pre-receive` (`transport::policy`), the REST
//! writes (`api::push::BranchRule`, branches, tags) and merges. GitLab runs the same checks
//! in its pre-receive for all of them; web writes skip what GitLab's `updated_from_web?`
//! skips (the committer's email pattern, `member_check`, `reject_unsigned_commits`,
//! `deny_delete_tag`, the name check).
//!
//! Only new commits are read (`git::new_commits`: reachable from the new tips, from no ref),
//! one at a time, within [`BUDGET`]; the first rule the first refused commit breaks wins.

use super::rules::{self, NewCommit, PushRule};
use crate::context::Context;
use crate::error::ApiError;
use crate::git::new_commits;
use crate::store::projects::Project;
use crate::store::push_rules::Owner;
use crate::store::users::User;
use gix::ObjectId;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

/// How long reading a write's new commits may take before the write is refused.
pub const BUDGET: Duration = Duration::from_secs(30);

/// The text of a write the check could not finish (GitLab's `Gitlab::Checks::TimedLogger`
/// refuses a push whose checks outlive their time the same way).
pub const TIMED_OUT: &str = "Push operation timed out";

/// One ref a write changes: its full name, what it named (`None`: created) and names now
/// (`None`: deleted).
#[derive(Debug, Clone)]
pub struct Change<'a> {
    pub name: &'a str,
    pub old: Option<ObjectId>,
    pub new: Option<ObjectId>,
}

/// Who writes, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// `git push`.
    Push,
    /// REST writes and merges (GitLab's `updated_from_web?`).
    Web,
}

/// Why a write was refused.
#[derive(Debug)]
pub enum Refusal {
    /// A rule refused it: GitLab's text.
    Rule(String),
    /// The store could not answer.
    Failed(ApiError),
}

/// The project's rule, if it has one.
pub fn rule_of(ctx: &Context, project: &Project) -> Result<Option<PushRule>, ApiError> {
    let stored = ctx.store.read(|db| crate::store::push_rules::find(db, Owner::Project(project.id)))?;
    Ok(stored.map(|s| PushRule::from(&s.settings)))
}

/// Checks `changes` of `project`'s repository `repo` (which must see the written objects)
/// against its push rule.
pub fn check(
    ctx: &Context,
    project: &Project,
    repo: &gix::Repository,
    default_branch: Option<&str>,
    changes: &[Change],
    via: Via,
    pusher: Option<&User>,
) -> Result<(), Refusal> {
    let Some(rule) = rule_of(ctx, project).map_err(Refusal::Failed)? else { return Ok(()) };
    check_rule(ctx, &rule, repo, default_branch, changes, via, pusher)
}

/// [`check`] with the rule given.
pub fn check_rule(
    ctx: &Context,
    rule: &PushRule,
    repo: &gix::Repository,
    default_branch: Option<&str>,
    changes: &[Change],
    via: Via,
    pusher: Option<&User>,
) -> Result<(), Refusal> {
    for change in changes {
        if change.name.starts_with("refs/tags/") && change.new.is_none() && change.old.is_some() && via == Via::Push {
            rules::check_tag_delete(rule).map_err(Refusal::Rule)?;
        }
        if let Some(branch) = change.name.strip_prefix("refs/heads/") {
            if change.new.is_some() && Some(branch) != default_branch {
                rules::check_branch(rule, branch).map_err(Refusal::Rule)?;
            }
        }
    }
    if !rule.checks_commits() {
        return Ok(());
    }
    let tips: Vec<ObjectId> = changes.iter().filter_map(|c| c.new).collect();
    let deadline = Instant::now() + BUDGET;
    let mut outcome = Ok(());
    let walked =
        new_commits::each(repo, &tips, deadline, |commit| match check_commit(ctx, rule, commit, via, pusher) {
            Ok(()) => ControlFlow::Continue(()),
            Err(refusal) => {
                outcome = Err(refusal);
                ControlFlow::Break(())
            }
        });
    match walked {
        Ok(()) => outcome,
        Err(new_commits::Error::Late) => Err(Refusal::Rule(TIMED_OUT.into())),
        Err(e) => Err(Refusal::Failed(ApiError::internal(e))),
    }
}

/// GitLab's private commit email of `user` (`<id>-<username>@users.noreply.<host>`), which
/// counts among a user's verified emails.
fn is_own_email(ctx: &Context, user: &User, email: &str) -> bool {
    if user.email.as_deref().is_some_and(|own| own.eq_ignore_ascii_case(email)) {
        return true;
    }
    let base = ctx.config.external_base().unwrap_or("http://localhost");
    let host = base.split("://").nth(1).unwrap_or("localhost").split(['/', ':']).next().unwrap_or("localhost");
    email.eq_ignore_ascii_case(&format!("{}-{}@users.noreply.{host}", user.id, user.username))
}

fn check_commit(
    ctx: &Context,
    rule: &PushRule,
    commit: &new_commits::NewCommit,
    via: Via,
    pusher: Option<&User>,
) -> Result<(), Refusal> {
    let new_files: Vec<(&str, u64)> = commit.new_files.iter().map(|(p, s)| (p.as_str(), *s)).collect();
    let changed_files: Vec<(&str, u64)> = commit.changed_files.iter().map(|(p, s)| (p.as_str(), *s)).collect();
    let seen = NewCommit {
        message: &commit.message,
        author_email: &commit.author_email,
        committer_email: (via == Via::Push).then_some(commit.committer_email.as_str()),
        new_files: &new_files,
        changed_files: &changed_files,
    };
    rules::check_commit(rule, &seen).map_err(Refusal::Rule)?;
    if rule.member_check && via == Via::Push {
        let is_user =
            |email: &str| ctx.store.read(|db| crate::store::users::find_by_email(db, email)).map(|u| u.is_some());
        if !is_user(&commit.author_email).map_err(|e| Refusal::Failed(e.into()))? {
            return Err(Refusal::Rule(format!("Author '{}' is not a member of team", commit.author_email)));
        }
        if !commit.committer_email.eq_ignore_ascii_case(&commit.author_email)
            && !is_user(&commit.committer_email).map_err(|e| Refusal::Failed(e.into()))?
        {
            return Err(Refusal::Rule(format!("Committer '{}' is not a member of team", commit.committer_email)));
        }
    }
    if let Some(user) = pusher {
        if rule.commit_committer_check {
            // A web write's committer is the writer: GitLab looks at the author there.
            let email = if via == Via::Push { &commit.committer_email } else { &commit.author_email };
            if !is_own_email(ctx, user, email) {
                return Err(Refusal::Rule(format!(
                    "You cannot push commits for '{email}'. You can only push commits if the committer email is one \
                     of your own verified emails."
                )));
            }
        }
        if rule.commit_committer_name_check
            && via == Via::Push
            && commit.committer_email.eq_ignore_ascii_case(&commit.author_email)
            && commit.author_name != user.name
        {
            return Err(Refusal::Rule("Your git username is inconsistent with GitLab account name".into()));
        }
    }
    if rule.reject_unsigned_commits && via == Via::Push && !commit.signed {
        return Err(Refusal::Rule("Commit must be signed with a GPG key".into()));
    }
    Ok(())
}
