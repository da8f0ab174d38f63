//! What every write of the API shares: who commits ([`committer`]) and the protection rule as
//! the write path asks it ([`BranchRule`]), so files, commits and the changelog word nothing
//! about identities or protection by themselves.

use super::Call;
use crate::auth::protection::{self, RefChange, Refusal};
use crate::error::{ApiError, ApiResult};
use crate::git::write::{BranchMove, Identity, PathProblem, WriteError};
use crate::store::projects::Project;
use forgecore_changelog::strftime::DateTime;

/// The caller as a commit's committer (and default author): their name (the username when it
/// is blank) and email (GitLab's private commit email when they have none, on the configured
/// `external_url`'s host: never the request's `Host`, which a client chooses and a commit
/// keeps), now, in UTC. 401 for anyone but a user.
pub fn committer(call: &Call) -> ApiResult<Identity> {
    let user = call.caller.require_user()?;
    let base = call.ctx.config.external_base().unwrap_or("http://localhost");
    let host = base.split("://").nth(1).unwrap_or("localhost").split(['/', ':']).next().unwrap_or("localhost");
    Ok(Identity {
        name: if user.name.trim().is_empty() { user.username.clone() } else { user.name.clone() },
        email: user.email.clone().unwrap_or_else(|| format!("{}-{}@users.noreply.{host}", user.id, user.username)),
        seconds: DateTime::now().seconds,
        offset: 0,
    })
}

/// The committer with the author GitLab's `author_name` and `author_email` name, each
/// replacing the caller's when given and not blank.
pub fn author(committer: &Identity, name: Option<String>, email: Option<String>) -> Identity {
    let given = |value: Option<String>| value.filter(|v| !v.trim().is_empty());
    Identity {
        name: given(name).unwrap_or_else(|| committer.name.clone()),
        email: given(email).unwrap_or_else(|| committer.email.clone()),
        ..committer.clone()
    }
}

/// The protection rule for one branch of one project, asked by the write path before the
/// branch moves; it remembers why it refused, or the store's failure.
pub struct BranchRule<'c> {
    call: &'c Call<'c>,
    project: &'c Project,
    default_branch: Option<String>,
    branch: String,
    refused: Option<Refusal>,
    failed: Option<ApiError>,
}

impl<'c> BranchRule<'c> {
    pub fn new(call: &'c Call<'c>, project: &'c Project, branch: &str) -> ApiResult<BranchRule<'c>> {
        let default_branch = crate::git::default_branch(call.git_dir(project)?);
        Ok(BranchRule { call, project, default_branch, branch: branch.to_string(), refused: None, failed: None })
    }

    /// Whether the branch may move as `moved` says to `commit` (written, on no ref yet): the
    /// protection rule, then the project's push rule over the branch and the new commits, as
    /// GitLab's pre-receive judges a web write (a refusal is 400 with GitLab's text).
    pub fn allows(&mut self, moved: BranchMove, commit: gix::ObjectId) -> bool {
        if !self.protection_allows(moved) {
            return false;
        }
        use crate::api::push_rules::enforce::{self, Change, Refusal, Via};
        let (call, project) = (self.call, self.project);
        let repo = match call.repository(project, "Project") {
            Ok(repo) => repo,
            Err(e) => {
                self.failed = Some(e);
                return false;
            }
        };
        let name = format!("refs/heads/{}", self.branch);
        let changes = [Change { name: &name, old: None, new: Some(commit) }];
        let checked = enforce::check(
            call.ctx,
            project,
            &repo,
            self.default_branch.as_deref(),
            &changes,
            Via::Web,
            call.caller.user(),
        );
        match checked {
            Ok(()) => true,
            Err(Refusal::Rule(text)) => {
                self.failed = Some(ApiError::validation(text));
                false
            }
            Err(Refusal::Failed(e)) => {
                self.failed = Some(e);
                false
            }
        }
    }

    fn protection_allows(&mut self, moved: BranchMove) -> bool {
        let change = match moved {
            BranchMove::Create => RefChange::Create,
            BranchMove::FastForward => RefChange::Update,
            BranchMove::Force => RefChange::ForceUpdate,
        };
        let (call, project, default_branch, branch) =
            (self.call, self.project, self.default_branch.as_deref(), &self.branch);
        let decided =
            call.ctx.store.read(|db| protection::check(db, &call.caller, project, default_branch, branch, change));
        match decided {
            Ok(Ok(())) => true,
            Ok(Err(refusal)) => {
                self.refused = Some(refusal);
                false
            }
            Err(e) => {
                self.failed = Some(e);
                false
            }
        }
    }

    /// After a refused write: the store's failure, if that was the reason, else why the rule
    /// refused.
    pub fn outcome(self) -> Result<Refusal, ApiError> {
        match (self.failed, self.refused) {
            (Some(e), _) => Err(e),
            (None, Some(refusal)) => Ok(refusal),
            (None, None) => Ok(Refusal::Push),
        }
    }
}

/// Which API words a refused write: the files API and the commits API say some things
/// differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wording {
    Files,
    Commits,
}

/// GitLab's answer to a write the write path refused (every one is 400 `{"message": ...}` but
/// the commits API's protection refusal, a 403). `rule` says why a branch move was refused.
/// What a write to the branch checked out in a served work tree answers (git's words for the
/// same push, `receive.denyCurrentBranch`).
pub fn checked_out_text(branch: &str) -> String {
    format!("refusing to update checked out branch: refs/heads/{branch}")
}

pub fn refused(error: WriteError, branch: &str, wording: Wording, rule: BranchRule<'_>) -> ApiError {
    let text = match error {
        WriteError::InvalidBranch => {
            format!("Something went wrong when we tried to create '{branch}' for you: Branch name is invalid")
        }
        WriteError::NotOnBranch => "You can only create or edit files when you are on a branch".into(),
        WriteError::BranchExists(name) => {
            format!("A branch called '{name}' already exists. Switch to that branch in order to make changes")
        }
        WriteError::InvalidPath { problem: PathProblem::Empty, .. } => "You must provide a file path".into(),
        WriteError::InvalidPath { problem: PathProblem::Traversal, .. } => {
            "Path cannot include directory traversal".into()
        }
        WriteError::InvalidPath { path, problem: PathProblem::Invalid } => format!("invalid path: '{path}'"),
        WriteError::FileExists(_) => "A file with this name already exists".into(),
        WriteError::FileMissing(_) => "A file with this name doesn't exist".into(),
        WriteError::DirectoryExists(_) => "A directory with this name already exists".into(),
        WriteError::Stale(path) => match wording {
            Wording::Files => {
                "You are attempting to update a file that has changed since you started editing it.".into()
            }
            Wording::Commits => format!("The file has changed since you started editing it: {path}"),
        },
        WriteError::Refused(_) => {
            if let Err(e) = rule.outcome() {
                return e;
            }
            match wording {
                Wording::Files => "You are not allowed to push into this branch".into(),
                Wording::Commits => {
                    return ApiError::Forbidden(Some("You are not allowed to push into this branch".into()))
                }
            }
        }
        WriteError::Race => format!("9:Could not update refs/heads/{branch}. Please refresh and try again."),
        WriteError::CheckedOut(name) => checked_out_text(&name),
        // git's fsck message, as a push of the same tree is refused with it.
        WriteError::Gitmodules(problem) => format!("invalid .gitmodules: {problem}"),
        WriteError::UnreadableStart(_) => {
            return ApiError::Unprocessable("The branch's commit cannot be read from the repository".into())
        }
        WriteError::UnwritableTree(_) => {
            "The branch's tree holds a name git does not allow in a tree (such as `..` or `.git`): \
             nothing can be committed on it"
                .into()
        }
        e @ (WriteError::TooLarge | WriteError::Git(_)) => return ApiError::internal(e),
    };
    ApiError::validation(text)
}
