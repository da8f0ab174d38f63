//! `POST /projects/:id/repository/tags` (`tag_name`, `ref`, `message`): a lightweight tag, or
//! with a `message` an annotated tag whose tagger is the caller, created only where no tag of
//! that name exists (a compare-and-swap); 201 and the Tag entity. Errors are always 400, as
//! GitLab's API answers them: `Tag name invalid`, the words of GitLab's tag check for a name it
//! prohibits (the default branch's, `refs/tags/...`, a full commit id: `TagNameProblem`),
//! `Tag <name> already exists`, `Target <ref> is invalid`.

use super::{entity, find};
use crate::api::push_rules::enforce::{self, Change, Refusal, Via};
use crate::api::repository::branches::writable;
use crate::api::{users, Call};
use crate::error::{ApiError, ApiResult};
use crate::git::write::refs::{self as refs_write, TagNameProblem};
use crate::git::{self, refs::Tag, ResolveError};
use crate::params::Params;
use crate::response::Response;
use crate::store::{projects::Project, users::User};

pub fn create(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let (project, user) = writable(call, project)?;
    let name = params.required_text("tag_name")?;
    let revision = params.required_text("ref")?;
    let message = params.string("message")?.filter(|m| !m.trim().is_empty());
    let repo = call.repository(&project, "Tag")?;
    let tag = make(call, &project, &user, &repo, &name, &revision, message.as_deref())?;
    Ok(Response::json(201, &entity(&repo, &call.web_url(&project.full_path), &tag)?))
}

/// The one tag writer of the API (this route and a release made from a `ref`): creates the
/// tag `name` at `revision` (annotated with `message` when given) for `user`, who already holds
/// `PushCode`, announces the ref change, and answers the tag. Errors are the tags API's 400s.
pub fn make(
    call: &Call,
    project: &Project,
    user: &User,
    repo: &gix::Repository,
    name: &str,
    revision: &str,
    message: Option<&str>,
) -> ApiResult<Tag> {
    // GitLab's own checks first (`Gitlab::GitRefValidator`), then those of the pre-receive hook
    // its tag write runs (`TagCheck`), which the API answers with the hook's words.
    match refs_write::tag_name_problem(name, git::default_branch(repo.git_dir()).as_deref()) {
        None => {}
        Some(TagNameProblem::Invalid) => return Err(ApiError::validation("Tag name invalid")),
        Some(problem) => return Err(ApiError::validation(problem.text())),
    }
    let target = match git::resolve_commit(repo, revision) {
        Ok(id) => id,
        Err(ResolveError::Unknown) => return Err(ApiError::validation(format!("Target {revision} is invalid"))),
        Err(e) => return Err(ApiError::internal(e)),
    };
    let ref_name = format!("refs/tags/{name}");
    if git::refs::tag(repo, name).map_err(ApiError::internal)?.is_some() {
        return Err(ApiError::validation(format!("Tag {name} already exists")));
    }
    let who = users::identity(call, user);
    let object = match message {
        Some(message) => refs_write::tag_object(repo, name, target, message, &who).map_err(ApiError::internal)?,
        None => target,
    };
    // The push rule, as the tag write's pre-receive judges it: any commit the tag reaches that
    // no ref does (a tag is no branch: the branch name rule does not apply).
    let changes = [Change { name: &ref_name, old: None, new: Some(object) }];
    let default_branch = git::default_branch(repo.git_dir());
    match enforce::check(call.ctx, project, repo, default_branch.as_deref(), &changes, Via::Web, Some(user)) {
        Ok(()) => {}
        Err(Refusal::Rule(text)) => return Err(ApiError::validation(text)),
        Err(Refusal::Failed(e)) => return Err(e),
    }
    match refs_write::create(repo, &ref_name, object, &who, "tag: created") {
        Ok(update) => call.refs_moved(project, vec![update])?,
        Err(refs_write::Error::AlreadyExists) => {
            return Err(ApiError::validation(format!("Tag {name} already exists")))
        }
        Err(refs_write::Error::InvalidName) => return Err(ApiError::validation("Tag name invalid")),
        Err(e) => return Err(ApiError::internal(e)),
    }
    find(repo, name)
}
