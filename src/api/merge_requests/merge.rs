//! `PUT /projects/:id/merge_requests/:merge_request_iid/merge` (reference §1.4, §3.4, D10):
//! GitLab's checks in its order (401 without merge rights on the target branch, 409 for a
//! `sha` that is not the head, naming the head; 405 for every failed check, conflicts
//! included), then the merge, synchronously, through `events::merge` (the one merge, by the
//! project's method, squashing when asked or required, the source branch removed when asked
//! and allowed). A push that moved the target meanwhile wins: 422 `Branch cannot be merged`,
//! `merge_error` saying why.
//!
//! `merge_when_pipeline_succeeds`/`auto_merge` (GitLab's `automatically_mergeable?`, newest
//! `lib/api/merge_requests.rb`, V): while the head pipeline is in progress, and the merge
//! request passes every other check, the merge is queued (`AutoMerge::MergeWhenChecksPassService`
//! is available unless the merge request is mergeable now with no pipeline in progress): the
//! auto-merge is stored with the merge's parameters and the head it was set for, GitLab's
//! system note `enabled an automatic merge when all merge checks for <sha> pass` is written
//! when it was not set before, and the answer is 200 with the entity
//! (`merge_when_pipeline_succeeds: true`, `merge_user` the caller). The auto-merge listener
//! merges it when that pipeline succeeds. With no pipeline, or a successful one, the merge
//! happens at once (D10); a failed one is 405.

use super::status::{blocking_discussions, current_verdict, detailed, head_pipeline_status};
use super::{find, full_of};
use crate::api::push_rules::enforce::{self, Change, Refusal, Via};
use crate::api::statuses::{self, Gate};
use crate::api::users::identity;
use crate::api::Call;
use crate::auth::protection;
use crate::error::{ApiError, ApiResult};
use crate::events::merge::{self as merging, Failure, Order};
use crate::params::Params;
use crate::response::Response;
use crate::store::auto_merges::{self, AutoMerge};
use crate::store::projects::Project;
use crate::store::users::User;
use crate::store::{self, merge_requests};

/// What the merge call asks beside the merge itself.
struct Asked {
    merge_commit_message: Option<String>,
    squash_commit_message: Option<String>,
    squash: Option<bool>,
    remove_source: Option<bool>,
}

pub fn merge(call: &Call, id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let (project, mr) = find(call, id, iid)?;
    let asked = Asked {
        merge_commit_message: params.string("merge_commit_message")?.filter(|m| !m.trim().is_empty()),
        squash_commit_message: params.string("squash_commit_message")?.filter(|m| !m.trim().is_empty()),
        squash: params.bool("squash")?,
        remove_source: params.bool("should_remove_source_branch")?,
    };
    let mut auto = false;
    for flag in ["merge_when_pipeline_succeeds", "auto_merge"] {
        auto |= params.bool(flag)? == Some(true);
    }
    let sha = params.string("sha")?;
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
    let Some(verdict) = current_verdict(call, &project, &mr) else { return Err(ApiError::MethodNotAllowed) };
    // 4. Auto-merge: queued while the head pipeline runs and every other check passes.
    if auto {
        match call.ctx.store.read(|db| statuses::merge_gate(db, project.id, &head_sha))? {
            Gate::Waiting
                if detailed(&project, &mr, verdict, Some("success"), blocking_discussions(call, &project, &mr))
                    == "mergeable" =>
            {
                return queue(call, &project, &mr, &user, &asked);
            }
            Gate::Waiting | Gate::Failed => return Err(ApiError::MethodNotAllowed),
            Gate::NoPipeline | Gate::Succeeded => {}
        }
    }
    // 5. Every failed check is 405; `PUT .../merge` always checks afresh. A pipeline that must
    // succeed and has not (missing, running, failed) is one more failed check.
    let pipeline = head_pipeline_status(call, &project, &mr);
    let blocking = blocking_discussions(call, &project, &mr);
    if detailed(&project, &mr, verdict, pipeline.as_deref(), blocking) != "mergeable" {
        return Err(ApiError::MethodNotAllowed);
    }
    // 6. The merge itself.
    let repo = call.repository(&project, "Project")?;
    let author = match mr.author_id {
        Some(author) => call.ctx.store.read(|db| store::users::find_by_id(db, author))?,
        None => None,
    };
    let who = identity(call, &user);
    // The push rule over the target branch and the commits the merge brings (its merge or
    // squash commit: message and author), as GitLab's pre-receive judges a merge; read before
    // the merge's transaction, so the check inside it reads no store.
    let rule = enforce::rule_of(call.ctx, &project)?;
    let target_ref = format!("refs/heads/{}", mr.target_branch);
    let rule_default_branch = default_branch.clone();
    let push_rule = |old: gix::ObjectId, new: gix::ObjectId| -> Result<(), Option<String>> {
        let Some(rule) = &rule else { return Ok(()) };
        let changes = [Change { name: &target_ref, old: Some(old), new: Some(new) }];
        let branch = rule_default_branch.as_deref();
        match enforce::check_rule(call.ctx, rule, &repo, branch, &changes, Via::Web, Some(&user)) {
            Ok(()) => Ok(()),
            Err(Refusal::Rule(text)) => Err(Some(text)),
            Err(Refusal::Failed(_)) => Err(None),
        }
    };
    let order = Order {
        project: &project,
        repo: &repo,
        git_dir: call.git_dir(&project)?,
        default_branch,
        mr: &mr,
        merger: &user,
        caller: &call.caller,
        author: author.map_or_else(|| who.clone(), |a| identity(call, &a)),
        who,
        squash: asked.squash,
        merge_commit_message: asked.merge_commit_message,
        squash_commit_message: asked.squash_commit_message,
        remove_source: asked.remove_source,
        timed: &|op, spent| call.git_spent(op, spent),
        push_rule: &push_rule,
    };
    let done = call.ctx.store.write(|db| -> ApiResult<_> {
        match merging::merge(db, &order) {
            Ok(merged) => {
                let mut heard = Vec::new();
                for event in &merged.events {
                    heard.push(event.clone());
                    heard.extend(call.ctx.events.record(db, event)?);
                }
                Ok(Ok((merged.mr, heard)))
            }
            Err(failure) => Ok(Err(failure)),
        }
    })?;
    match done {
        Ok((merged, heard)) => {
            for event in &heard {
                call.ctx.events.heard(event);
            }
            Ok(Response::json(200, &full_of(call, &project, &merged, Default::default())?))
        }
        Err(Failure::Failed(reason)) => failed(call, &mr, reason),
        Err(Failure::Conflicts) => failed(call, &mr, "Merge request is not mergeable".into()),
        Err(Failure::NotAllowed) => failed(call, &mr, "An error occurred while merging".into()),
        Err(Failure::Broken(e)) => Err(e),
    }
}

/// GitLab's system note when an auto-merge is set (`SystemNoteService.merge_when_checks_pass`).
pub fn enabled_note(sha: &str) -> String {
    format!("enabled an automatic merge when all merge checks for {sha} pass")
}

/// Sets the auto-merge (GitLab's `AutoMerge::BaseService#execute`, or `#update` when it is set
/// already: the newest parameters win, no second note).
fn queue(
    call: &Call,
    project: &Project,
    mr: &merge_requests::MergeRequest,
    user: &User,
    asked: &Asked,
) -> ApiResult<Response> {
    let head_sha = mr.head_sha.clone().unwrap_or_default();
    let queued = call.ctx.store.write(|db| -> ApiResult<_> {
        let Some(mut current) = merge_requests::find_for_update(db, mr.id)? else {
            return Err(ApiError::RecordNotFound);
        };
        if current.head_sha.as_deref() != Some(head_sha.as_str()) || !current.is_open() {
            return Err(ApiError::MethodNotAllowed);
        }
        // `merge_request.update(squash: params[:squash]) if params[:squash]`.
        if asked.squash == Some(true) && !current.squash {
            current.squash = true;
            current.updated_at = merge_requests::now_millis();
            merge_requests::update(db, &current)?;
        }
        let auto = AutoMerge {
            merge_request_id: current.id,
            merge_user_id: Some(user.id),
            sha: head_sha.clone(),
            squash: asked.squash == Some(true),
            should_remove_source_branch: asked.remove_source,
            merge_commit_message: asked.merge_commit_message.clone(),
            squash_commit_message: asked.squash_commit_message.clone(),
            created_at: merge_requests::now_millis(),
        };
        if auto_merges::set(db, &auto)? {
            store::notes::insert_system(
                db,
                project.id,
                "MergeRequest",
                current.id,
                Some(user.id),
                &enabled_note(&head_sha),
            )?;
        }
        Ok(current)
    })?;
    Ok(Response::json(200, &full_of(call, project, &queued, Default::default())?))
}

/// The merge was attempted and did not happen: 422 `Branch cannot be merged`, the reason kept
/// in `merge_error` as GitLab keeps it.
fn failed(call: &Call, mr: &merge_requests::MergeRequest, reason: String) -> ApiResult<Response> {
    call.ctx.store.write(|db| -> ApiResult<()> {
        if let Some(mut current) = merge_requests::find_by_id(db, mr.id)? {
            current.merge_error = Some(reason.clone());
            merge_requests::update(db, &current)?;
        }
        Ok(())
    })?;
    Err(ApiError::Unprocessable("Branch cannot be merged".into()))
}
