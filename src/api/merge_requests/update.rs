//! `PUT /projects/:id/merge_requests/:merge_request_iid` (reference §1.3): at least one of
//! GitLab's parameters (Grape's `at_least_one_of`), `title` and `target_branch` not blank;
//! `state_event` `close` or `reopen`; a new `target_branch` reloads the diff (a new version);
//! `labels` (`""` clears), `add_labels`, `remove_labels` (created where missing),
//! `assignee_id(s)` (0 or empty: nobody), `reviewer_ids`, `remove_source_branch`, `squash`; a
//! title's draft prefix (`Draft:`, `[Draft]`, `(Draft)`) makes it a draft. Developers and the
//! merge request's author and assignees may change it (403 otherwise); reopening or
//! retargeting into a second open merge request of the same branches is GitLab's 409.
//! Each change is announced once: `Closed`, `Reopened`, or `Updated`.

use super::create::{assignees, check_description};
use super::{
    check_branch_name, duplicate, existing_users, find, full_of, heard, int_list, is_draft, label_target, label_titles,
    may_update, record, same_branch,
};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::events::refresh;
use crate::events::MergeRequestAction;
use crate::params::Params;
use crate::response::Response;
use crate::store::merge_requests::{self, MergeRequest};
use crate::store::StoreError;

/// Grape's `at_least_one_of` of the update, in its order.
const ANY_OF: [&str; 18] = [
    "assignee_id",
    "assignee_ids",
    "reviewer_ids",
    "description",
    "labels",
    "add_labels",
    "remove_labels",
    "milestone_id",
    "milestone",
    "remove_source_branch",
    "allow_collaboration",
    "allow_maintainer_to_push",
    "squash",
    "target_branch",
    "title",
    "state_event",
    "discussion_locked",
    "merge_after",
];

pub fn update(call: &Call, id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    call.caller.require_user()?;
    if !ANY_OF.iter().any(|name| params.contains(name)) {
        return Err(ApiError::ParamError(format!(
            "{} are missing, at least one parameter must be provided",
            ANY_OF.join(", ")
        )));
    }
    let (project, mr) = find(call, id, iid)?;
    if !call.ctx.store.read(|db| may_update(db, call, &project, &mr))? {
        return Err(ApiError::Forbidden(None));
    }
    let title = params.string("title")?;
    if title.as_deref().is_some_and(|t| t.trim().is_empty()) {
        return Err(ApiError::ParamError("title is empty".into()));
    }
    let target_branch = params.string("target_branch")?;
    if target_branch.as_deref().is_some_and(|t| t.trim().is_empty()) {
        return Err(ApiError::ParamError("target_branch is empty".into()));
    }
    let state_event = match params.string("state_event")?.as_deref() {
        None => None,
        Some("close") => Some(MergeRequestAction::Closed),
        Some("reopen") => Some(MergeRequestAction::Reopened),
        Some(_) => return Err(ApiError::InvalidValue("state_event".into())),
    };
    let description = params.string("description")?;
    check_description(description.as_deref())?;
    let assignees = assignees(params)?;
    let reviewers = int_list(params, "reviewer_ids")?;
    let remove_source_branch = params.bool("remove_source_branch")?;
    let squash = params.bool("squash")?;
    let labels = label_titles(params, "labels")?;
    let add_labels = label_titles(params, "add_labels")?;
    let remove_labels = label_titles(params, "remove_labels")?;
    for flag in ["allow_collaboration", "allow_maintainer_to_push", "discussion_locked"] {
        params.bool(flag)?;
    }
    if let Some(branch) = &target_branch {
        if *branch == mr.source_branch && mr.source_project_id == Some(mr.target_project_id) {
            return Err(same_branch());
        }
        check_branch_name(branch, "target_branch")?;
    }
    let user_id = call.caller.user().map(|u| u.id);
    let repo = call.repository(&project, "Project")?;
    let made = call.ctx.store.write(|db| -> ApiResult<_> {
        // The row as it is now (a push may have made a version since it was read), locked.
        let mr = merge_requests::find_for_update(db, mr.id)?.ok_or(ApiError::RecordNotFound)?;
        let previous = mr.clone();
        let mut changed = mr.clone();
        if let Some(title) = &title {
            changed.draft = is_draft(title);
            changed.title = title.clone();
        }
        if params.contains("description") {
            changed.description = description.clone();
        }
        if let Some(ids) = &assignees {
            changed.assignees = existing_users(db, ids)?;
        }
        if let Some(ids) = &reviewers {
            changed.reviewers = existing_users(db, ids)?;
        }
        if let Some(remove) = remove_source_branch {
            changed.force_remove_source_branch = remove;
        }
        if let Some(squash) = squash {
            changed.squash = squash;
        }
        let retargeted = target_branch.as_ref().is_some_and(|b| *b != mr.target_branch);
        if let Some(branch) = &target_branch {
            changed.target_branch = branch.clone();
        }
        let now = merge_requests::now_millis();
        let mut action = None;
        match state_event {
            Some(MergeRequestAction::Closed) if changed.is_open() => {
                changed.state = "closed".into();
                changed.closed_at = Some(now);
                changed.closed_by_id = user_id;
                action = Some(MergeRequestAction::Closed);
            }
            Some(MergeRequestAction::Reopened) if changed.state == "closed" => {
                changed.state = "opened".into();
                changed.closed_at = None;
                changed.closed_by_id = None;
                action = Some(MergeRequestAction::Reopened);
            }
            _ => {}
        }
        if changed.is_open() && (retargeted || action == Some(MergeRequestAction::Reopened)) {
            let open = merge_requests::find_open(
                db,
                changed.source_project_id,
                &changed.source_branch,
                changed.target_project_id,
                &changed.target_branch,
                Some(changed.id),
            )?;
            if let Some(open) = open {
                return Err(duplicate(open.iid));
            }
        }
        let target = label_target(&changed);
        let labels_before = crate::store::labels::of_target(db, target)?;
        let available = crate::store::labels::Available::for_project(db, project.id, project.group_id)?;
        let actor = call.caller.user().map(|u| u.id);
        if let Some(titles) = &labels {
            crate::store::labels::set(db, &available, project.id, target, titles, actor)?;
        }
        if let Some(titles) = &add_labels {
            crate::store::labels::add(db, &available, project.id, target, titles, actor)?;
        }
        if let Some(titles) = &remove_labels {
            crate::store::labels::remove(db, target, titles, actor)?;
        }
        let labels_changed = crate::store::labels::of_target(db, target)? != labels_before;
        let people_changed = changed.assignees != mr.assignees || changed.reviewers != mr.reviewers || labels_changed;
        if changed == mr && action.is_none() && !labels_changed {
            return Ok((changed, Vec::new()));
        }
        changed.updated_at = now;
        match merge_requests::update(db, &changed) {
            Err(StoreError::Conflict(_)) => return Err(ApiError::Conflict(String::new())),
            other => other?,
        }
        if changed.assignees != mr.assignees {
            merge_requests::set_assignees(db, changed.id, &changed.assignees)?;
        }
        if changed.reviewers != mr.reviewers {
            merge_requests::set_reviewers(db, changed.id, &changed.reviewers, now)?;
        }
        if retargeted || action == Some(MergeRequestAction::Reopened) {
            refresh::reload(db, &repo, &mut changed)?;
        }
        let mut events = Vec::new();
        if let Some(action) = action {
            events.extend(record(db, call, action, &changed, None)?);
        }
        let mut rest = previous.clone();
        rest.state.clone_from(&changed.state);
        rest.closed_at = changed.closed_at;
        rest.closed_by_id = changed.closed_by_id;
        if people_changed || !same_fields(&rest, &changed) {
            events.extend(record(db, call, MergeRequestAction::Updated, &changed, Some(&previous))?);
        }
        Ok((changed, events))
    });
    let (mr, events) = match made {
        Ok(made) => made,
        Err(ApiError::Conflict(_)) => {
            let open = call.ctx.store.read(|db| {
                merge_requests::find_open(
                    db,
                    mr.source_project_id,
                    &mr.source_branch,
                    mr.target_project_id,
                    target_branch.as_deref().unwrap_or(&mr.target_branch),
                    Some(mr.id),
                )
            })?;
            return Err(open.map_or(ApiError::Conflict("409 Conflict".into()), |o| duplicate(o.iid)));
        }
        Err(e) => return Err(e),
    };
    heard(call, &events);
    Ok(Response::json(200, &full_of(call, &project, &mr, Default::default())?))
}

/// Whether two versions of a merge request agree in what an update changes (times aside).
fn same_fields(a: &MergeRequest, b: &MergeRequest) -> bool {
    let strip = |m: &MergeRequest| MergeRequest { updated_at: 0, ..m.clone() };
    strip(a) == strip(b)
}
