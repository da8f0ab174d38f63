//! `PUT /projects/:id/issues/:issue_iid`: `title`, `description`, `state_event` (`close`,
//! `reopen`), `labels` (replacing), `add_labels`, `remove_labels`, `assignee_ids` /
//! `assignee_id`, `confidential`, and `updated_at` for Owners and administrators; at least one
//! of them (GitLab's `update_params_at_least_one_of`, 400 otherwise). The author, the assignees
//! and Planners/Reporters and above change an issue (`update_issue`, 403 for others who see it);
//! labels, assignees and confidentiality need `admin_issue` and are ignored without it, as
//! `IssuableBaseService#filter_params` drops them. Closing and reopening write GitLab's system
//! notes (`SystemNoteService.change_status`: `closed`, `reopened`). 200 and the issue.

use super::{assignee_ids, check_text, find_visible, heard, label_names, record, single, time_param, Viewer};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::events::IssueAction;
use crate::params::Params;
use crate::response::Response;
use crate::store::issues;
use crate::store::labels::{self, now_millis, Target, TargetType};
use crate::store::notes;

/// GitLab's `update_params_at_least_one_of`, in its order.
const AT_LEAST_ONE_OF: [&str; 14] = [
    "assignee_id",
    "assignee_ids",
    "confidential",
    "created_at",
    "description",
    "discussion_locked",
    "due_date",
    "labels",
    "add_labels",
    "remove_labels",
    "milestone_id",
    "state_event",
    "title",
    "issue_type",
];

pub fn update(call: &Call, project_id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let project = call.project(project_id, ProjectAbility::Read)?;
    if !AT_LEAST_ONE_OF.iter().any(|name| params.contains(name)) {
        return Err(ApiError::ParamError(format!(
            "{} are missing, at least one parameter must be provided",
            AT_LEAST_ONE_OF.join(", ")
        )));
    }
    let state_event = match params.string("state_event")?.as_deref() {
        None => None,
        Some("close") => Some(true),
        Some("reopen") => Some(false),
        Some(_) => return Err(ApiError::InvalidValue("state_event".into())),
    };
    let title = params.string("title")?;
    let description = params.string("description")?;
    check_text(title.as_deref(), description.as_deref())?;
    let confidential = params.bool("confidential")?;
    let (set, add, remove) =
        (label_names(params, "labels")?, label_names(params, "add_labels")?, label_names(params, "remove_labels")?);
    let updated_at = time_param(params, "updated_at")?;
    if project.archived {
        return Err(ApiError::Forbidden(None));
    }
    let (entity, event) = call.ctx.store.write(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let (mut issue, assignees) = find_visible(db, &project, iid, &viewer)?;
        if !viewer.can_update(&issue, &assignees) {
            return Err(ApiError::Forbidden(None));
        }
        let before = issue.clone();
        let mut changed = false;
        if let Some(title) = &title {
            issue.title = title.trim().to_string();
        }
        if params.contains("description") {
            issue.description = description.clone();
        }
        if viewer.admin_issue() {
            if let Some(confidential) = confidential {
                issue.confidential = confidential;
            }
            let target = Target { kind: TargetType::Issue, id: issue.id };
            let labels_before = labels::of_target(db, target)?;
            let available = labels::Available::for_project(db, project.id, project.group_id)?;
            if let Some(names) = &set {
                labels::set(db, &available, project.id, target, names, Some(user.id))?;
            }
            if let Some(names) = &add {
                labels::add(db, &available, project.id, target, names, Some(user.id))?;
            }
            if let Some(names) = &remove {
                labels::remove(db, target, names, Some(user.id))?;
            }
            changed |= labels::of_target(db, target)? != labels_before;
            if let Some(ids) = assignee_ids(db, params)? {
                if ids != assignees {
                    issues::set_assignees(db, issue.id, &ids)?;
                    changed = true;
                }
            }
        }
        let mut action = None;
        match state_event {
            Some(true) if issue.state == "opened" => {
                issue.state = "closed".into();
                issue.closed_at = Some(now_millis());
                issue.closed_by_id = Some(user.id);
                action = Some(IssueAction::Closed);
            }
            Some(false) if issue.state == "closed" => {
                issue.state = "opened".into();
                issue.closed_at = None;
                issue.closed_by_id = None;
                action = Some(IssueAction::Reopened);
            }
            _ => {}
        }
        changed |= issue != before;
        let owner = viewer.admin || viewer.level >= OWNER;
        if changed {
            issues::update(db, &mut issue, updated_at.filter(|_| owner))?;
        }
        if let Some(action) = action {
            let body = if action == IssueAction::Closed { "closed" } else { "reopened" };
            notes::insert_system(db, project.id, "Issue", issue.id, Some(user.id), body)?;
        }
        let event = match (action, changed) {
            (Some(action), _) => Some(record(call, db, &issue, action)?),
            (None, true) => Some(record(call, db, &issue, IssueAction::Updated)?),
            (None, false) => None,
        };
        Ok((single(call, db, &issue, &project, params)?, event))
    })?;
    heard(call, &event.into_iter().collect::<Vec<_>>());
    Ok(Response::json(200, &entity))
}
