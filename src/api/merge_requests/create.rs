//! `POST /projects/:id/merge_requests` (reference §1.2): `title`, `source_branch` and
//! `target_branch` required (Grape's joined `… is missing`), `description`, `assignee_id` /
//! `assignee_ids`, `reviewer_ids`, `labels` (created where missing), `remove_source_branch`, `squash`, `target_project_id` (the
//! project itself; merge requests between forks come with forks). 201 with the full entity.
//!
//! GitLab prepares a new merge request asynchronously (its 201 shows `changes_count` and
//! `diff_refs` null until `NewMergeRequestWorker` ran); here the first diff version and
//! `refs/merge-requests/:iid/head` are written in the creating transaction, so the 201 already
//! shows them (what clients poll for). Errors in GitLab's order: 403 without
//! `create_merge_request_from`, 422 for a branch into itself, 409 for a second open merge
//! request of the same branches, 400 for an invalid branch name.

use super::{
    check_branch_name, duplicate, existing_users, full_of, heard, int_list, is_draft, label_target, label_titles,
    record, same_branch,
};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult};
use crate::events::refresh;
use crate::events::MergeRequestAction;
use crate::params::Params;
use crate::response::Response;
use crate::store::merge_requests::{self, MergeRequest};
use crate::store::StoreError;
use serde_json::json;

/// GitLab's limit of a description (`Gitlab::Database::MAX_TEXT_SIZE_LIMIT`... 1 MiB of text).
pub const MAX_DESCRIPTION: usize = 1_048_576;

/// The assignees a create or update names: `assignee_ids` (0 or empty: nobody) over
/// `assignee_id`; `None` when neither is given.
pub fn assignees(params: &Params) -> ApiResult<Option<Vec<i64>>> {
    if let Some(ids) = int_list(params, "assignee_ids")? {
        return Ok(Some(ids));
    }
    match params.int("assignee_id")? {
        Some(id) => Ok(Some(vec![id])),
        None if params.contains("assignee_id") => Ok(Some(Vec::new())),
        None => Ok(None),
    }
}

pub fn check_description(description: Option<&str>) -> ApiResult<()> {
    if description.is_some_and(|d| d.chars().count() > MAX_DESCRIPTION) {
        return Err(ApiError::Validation(
            json!({"description": [format!("is too long (maximum is {MAX_DESCRIPTION} characters)")]}),
        ));
    }
    Ok(())
}

pub fn create(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let missing: Vec<String> = ["title", "source_branch", "target_branch"]
        .iter()
        .filter(|name| params.string(name).ok().flatten().is_none())
        .map(|name| format!("{name} is missing"))
        .collect();
    if !missing.is_empty() {
        return Err(ApiError::ParamError(missing.join(", ")));
    }
    let project = call.project(id, ProjectAbility::CreateMergeRequest)?;
    let title = params.required_string("title")?;
    let source_branch = params.required_string("source_branch")?;
    let target_branch = params.required_string("target_branch")?;
    if let Some(target) = params.int("target_project_id")? {
        if target != project.id {
            // Merge requests between projects come with forks: a project that is none of
            // this one's network (or that the caller cannot see) is GitLab's answers.
            let other = call.ctx.store.read(|db| crate::store::projects::find_by_id(db, target))?;
            return Err(match other {
                None => ApiError::NotFound("Project"),
                Some(_) => ApiError::Messages {
                    status: 422,
                    message: json!(["Source project is not a fork of the target project"]),
                },
            });
        }
    }
    if title.trim().is_empty() {
        return Err(ApiError::Validation(json!({"title": ["can't be blank"]})));
    }
    let description = params.string("description")?;
    check_description(description.as_deref())?;
    let assignees = assignees(params)?.unwrap_or_default();
    let reviewers = int_list(params, "reviewer_ids")?.unwrap_or_default();
    let remove_source_branch = params.bool("remove_source_branch")?.unwrap_or(false);
    let squash = params.bool("squash")?.unwrap_or(false);
    let labels = label_titles(params, "labels")?.unwrap_or_default();
    for flag in ["allow_collaboration", "allow_maintainer_to_push"] {
        params.bool(flag)?;
    }
    if source_branch == target_branch {
        return Err(same_branch());
    }
    check_branch_name(&source_branch, "source_branch")?;
    check_branch_name(&target_branch, "target_branch")?;
    let repo = call.repository(&project, "Project")?;
    let now = merge_requests::now_millis();
    let new = MergeRequest {
        target_project_id: project.id,
        source_project_id: Some(project.id),
        source_branch: source_branch.clone(),
        target_branch: target_branch.clone(),
        draft: is_draft(&title),
        title,
        description,
        state: "opened".into(),
        author_id: Some(user.id),
        squash,
        force_remove_source_branch: remove_source_branch,
        created_at: now,
        updated_at: now,
        ..Default::default()
    };
    let made = call.ctx.store.write(|db| -> ApiResult<_> {
        if let Some(open) =
            merge_requests::find_open(db, Some(project.id), &source_branch, project.id, &target_branch, None)?
        {
            return Err(duplicate(open.iid));
        }
        let new = MergeRequest {
            assignees: existing_users(db, &assignees)?,
            reviewers: existing_users(db, &reviewers)?,
            ..new.clone()
        };
        let mut mr = match merge_requests::insert(db, &new) {
            Err(StoreError::Conflict(_)) => return Err(ApiError::Conflict(String::new())),
            other => other?,
        };
        if !labels.is_empty() {
            let available = crate::store::labels::Available::for_project(db, project.id, project.group_id)?;
            let actor = call.caller.user().map(|u| u.id);
            crate::store::labels::set(db, &available, project.id, label_target(&mr), &labels, actor)?;
        }
        refresh::reload(db, &repo, &mut mr)?;
        let events = record(db, call, MergeRequestAction::Opened, &mr, None)?;
        Ok((mr, events))
    });
    let (mr, events) = match made {
        Ok(made) => made,
        // Another create won the race for these branches: name it, as GitLab's validation does.
        Err(ApiError::Conflict(_)) => {
            let open = call.ctx.store.read(|db| {
                merge_requests::find_open(db, Some(project.id), &source_branch, project.id, &target_branch, None)
            })?;
            return Err(open.map_or(ApiError::Conflict("409 Conflict".into()), |o| duplicate(o.iid)));
        }
        Err(e) => return Err(e),
    };
    heard(call, &events);
    Ok(Response::json(201, &full_of(call, &project, &mr, Default::default())?))
}
