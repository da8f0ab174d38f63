//! `PUT /projects/:id/merge_requests/:merge_request_iid/merge` (reference §1.4, §3.4, D10):
//! GitLab's checks in its order (401 without merge rights on the target branch, 409 for a
//! `sha` that is not the head, naming the head; 405 for every failed check, conflicts
//! included), then the merge, synchronously, by the project's merge method (`merge`: a merge
//! commit; `rebase_merge`: a merge commit when the target could fast-forward; `ff`: the target
//! fast-forwarded), squashing first when asked or required (`squash_option`), each through
//! `git::merge` (objects written, the target moved by compare-and-swap). A push that moved the
//! target meanwhile wins: 422 `Branch cannot be merged`, `merge_error` saying why. After the
//! merge the source branch is removed when asked (the request's `should_remove_source_branch`,
//! else create's `remove_source_branch`) and allowed (not protected, not the default branch,
//! the merger may delete it, still at the merged head).
//!
//! `merge_when_pipeline_succeeds`/`auto_merge`: no pipeline ever runs here, so (as GitLab does
//! with none) the merge happens at once.

use super::status::{current_verdict, detailed, head_pipeline_status};
use super::{find, full_of, heard, record};
use crate::api::users::identity;
use crate::api::Call;
use crate::auth::protection::{self, RefChange};
use crate::error::{ApiError, ApiResult};
use crate::events::MergeRequestAction;
use crate::git::merge::{self as git_merge, MergeError};
use crate::git::write::RefUpdate;
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, merge_requests};
use gix::ObjectId;

/// GitLab's `merge_error` when the squash the project requires was not asked for.
const SQUASH_REQUIRED: &str = "This project requires squashing commits when merge requests are accepted.";
/// GitLab's `merge_error` when fast-forward is required and not possible.
const FF_ONLY: &str = "Only fast-forward merge is allowed for your project. Please update your source branch";

pub fn merge(call: &Call, id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let (project, mr) = find(call, id, iid)?;
    let merge_commit_message = params.string("merge_commit_message")?.filter(|m| !m.trim().is_empty());
    let squash_commit_message = params.string("squash_commit_message")?.filter(|m| !m.trim().is_empty());
    let squash_param = params.bool("squash")?;
    let remove_source = params.bool("should_remove_source_branch")?;
    for flag in ["merge_when_pipeline_succeeds", "auto_merge"] {
        params.bool(flag)?;
    }
    let sha = params.string("sha")?;
    let repo = call.repository(&project, "Project")?;
    let default_branch = crate::git::default_branch(call.git_dir(&project)?);
    // 2. `can_be_merged_by?`: 401, even for a signed-in Reporter.
    let may_merge = call
        .ctx
        .store
        .read(|db| protection::can_merge(db, &call.caller, &project, default_branch.as_deref(), &mr.target_branch))?;
    if !may_merge {
        return Err(ApiError::Unauthorized);
    }
    // 3. The head named must be the head: checked before mergeability.
    let head_sha = mr.head_sha.clone().unwrap_or_default();
    if let Some(sha) = sha.as_deref().filter(|s| !s.is_empty()) {
        if sha != head_sha {
            return Err(ApiError::Conflict(format!("SHA does not match HEAD of source branch: {head_sha}")));
        }
    }
    // 5. Every failed check is 405; `PUT .../merge` always checks afresh.
    let Some(verdict) = current_verdict(call, &project, &mr) else { return Err(ApiError::MethodNotAllowed) };
    // A pipeline that must succeed and has not (missing, running, failed) is one more failed
    // check: 405, as GitLab's `mergeable?` with the CI check.
    let pipeline = head_pipeline_status(call, &project, &mr);
    let blocking = super::status::blocking_discussions(call, &project, &mr);
    if detailed(&project, &mr, verdict, pipeline.as_deref(), blocking) != "mergeable" {
        return Err(ApiError::MethodNotAllowed);
    }
    let squash = match project.settings.squash_option.as_str() {
        "never" => false,
        "always" if squash_param != Some(true) && !mr.squash => {
            return failed(call, &project, &mr, SQUASH_REQUIRED.into());
        }
        "always" => true,
        _ => squash_param.unwrap_or(false) || mr.squash,
    };
    let head = ObjectId::from_hex(head_sha.as_bytes()).map_err(ApiError::internal)?;
    let Some(target) = crate::git::refs::branch(&repo, &mr.target_branch).map_err(ApiError::internal)? else {
        return Err(ApiError::MethodNotAllowed);
    };
    let who = identity(call, &user);
    // 6. The merge itself.
    let mut squash_commit = None;
    let mut source = head;
    if squash {
        let author = match mr.author_id {
            Some(author) => call.ctx.store.read(|db| store::users::find_by_id(db, author))?,
            None => None,
        };
        let author = author.map_or_else(|| who.clone(), |a| identity(call, &a));
        let start = crate::git::merge_base::best(&repo, target, &[head]).map_err(ApiError::internal)?.unwrap_or(target);
        let message = squash_commit_message.clone().unwrap_or_else(|| mr.title.clone());
        match call.git("merge_squash", || git_merge::squash(&repo, start, head, &message, &author, &who)) {
            Ok(commit) => {
                squash_commit = Some(commit);
                source = commit;
            }
            Err(e) => return merge_failed(call, &project, &mr, e),
        }
    }
    let allow = || {
        call.ctx
            .store
            .read(|db| protection::can_merge(db, &call.caller, &project, default_branch.as_deref(), &mr.target_branch))
            .unwrap_or(false)
    };
    let done = match project.settings.merge_method.as_str() {
        "ff" => call.git("merge_ff", || git_merge::fast_forward(&repo, &mr.target_branch, target, source, &who, allow)),
        _ => {
            let reference = format!("{}!{}", project.full_path, mr.iid);
            let message = merge_commit_message.clone().unwrap_or_else(|| {
                git_merge::default_message(&mr.source_branch, &mr.target_branch, &mr.title, None, &reference)
            });
            call.git("merge_commit", || {
                git_merge::merge_commit(&repo, &mr.target_branch, target, source, &message, &who, allow)
                    .map(|merged| merged.update)
            })
        }
    };
    let update = match done {
        Ok(update) => update,
        Err(e) => return merge_failed(call, &project, &mr, e),
    };
    let merged_to = update.new.unwrap_or(source);
    // The merge request is merged before the move is announced: the refresh then finds it no
    // longer open and leaves it to this merge's record.
    let now = merge_requests::now_millis();
    let previous = mr.clone();
    let (merged, events) = call.ctx.store.write(|db| -> ApiResult<_> {
        let mut changed = previous.clone();
        changed.state = "merged".into();
        changed.merged_by_id = Some(user.id);
        changed.merged_at = Some(now);
        changed.merge_commit_sha = Some(merged_to.to_string());
        changed.squash_commit_sha = squash_commit.map(|c| c.to_string());
        changed.squash = squash;
        changed.should_remove_source_branch = remove_source;
        changed.merge_error = None;
        changed.updated_at = now;
        merge_requests::update(db, &changed)?;
        let events = record(db, call, MergeRequestAction::Merged, &changed, None)?;
        Ok((changed, events))
    })?;
    heard(call, &events);
    let mut updates = vec![update];
    if remove_source.unwrap_or(merged.force_remove_source_branch) {
        if let Some(removed) = remove_source_branch(call, &project, &merged, head, default_branch.as_deref())? {
            updates.push(removed);
        }
    }
    call.refs_moved(&project, updates)?;
    Ok(Response::json(200, &full_of(call, &project, &merged, Default::default())?))
}

/// GitLab's `DeleteSourceBranchWorker` conditions, then the deletion by compare-and-swap on the
/// merged head; `None` when the branch stays.
fn remove_source_branch(
    call: &Call,
    project: &crate::store::projects::Project,
    mr: &merge_requests::MergeRequest,
    head: ObjectId,
    default_branch: Option<&str>,
) -> ApiResult<Option<RefUpdate>> {
    if mr.source_project_id != Some(project.id) || default_branch == Some(mr.source_branch.as_str()) {
        return Ok(None);
    }
    let allowed = call.ctx.store.read(|db| {
        let protected = protection::protection_of(db, project, default_branch, &mr.source_branch)?.is_some();
        let may = protection::check(db, &call.caller, project, default_branch, &mr.source_branch, RefChange::Delete)?;
        Ok::<_, ApiError>(!protected && may.is_ok())
    })?;
    if !allowed {
        return Ok(None);
    }
    let repo = call.repository(project, "Project")?;
    let Some(user) = call.caller.user() else { return Ok(None) };
    let who = identity(call, user);
    let name = format!("refs/heads/{}", mr.source_branch);
    match crate::git::write::refs::delete(&repo, &name, head, &who) {
        Ok(update) => Ok(Some(update)),
        // Moved since the merge, or already gone: it stays as it is.
        Err(_) => Ok(None),
    }
}

/// The merge was attempted and did not happen: 422 `Branch cannot be merged`, the reason kept
/// in `merge_error` as GitLab keeps it.
fn merge_failed(
    call: &Call,
    project: &crate::store::projects::Project,
    mr: &merge_requests::MergeRequest,
    error: MergeError,
) -> ApiResult<Response> {
    let reason = match &error {
        MergeError::Race(branch) => MergeError::race_text(branch),
        MergeError::NotFastForward => FF_ONLY.into(),
        MergeError::Conflicts(_) => "Merge request is not mergeable".into(),
        MergeError::Refused(_) => "An error occurred while merging".into(),
        MergeError::NoBranch(_) => "No source for merge".into(),
        MergeError::Git(_) => return Err(ApiError::internal(error)),
    };
    failed(call, project, mr, reason)
}

fn failed(
    call: &Call,
    _project: &crate::store::projects::Project,
    mr: &merge_requests::MergeRequest,
    reason: String,
) -> ApiResult<Response> {
    call.ctx.store.write(|db| -> ApiResult<()> {
        if let Some(mut current) = merge_requests::find_by_id(db, mr.id)? {
            current.merge_error = Some(reason.clone());
            merge_requests::update(db, &current)?;
        }
        Ok(())
    })?;
    Err(ApiError::Unprocessable("Branch cannot be merged".into()))
}
