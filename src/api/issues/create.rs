//! `POST /projects/:id/issues`: `title` required; `description`, `confidential`, `labels`
//! (created where missing), `assignee_ids` / `assignee_id`, and for Owners and administrators
//! `created_at` and `iid` (`set_issue_created_at`, `set_issue_iid`). Anyone signed in who sees
//! the project opens issues (`create_issue`); labels and assignees are kept only for those who
//! may set an issue's metadata (Planners, Reporters and above), as GitLab's
//! `IssuableBaseService#filter_params` drops them. 201 and the issue; the `iid` is the
//! project's next, taken under the counter's row lock.

use super::{assignee_ids, check_text, heard, label_names, record, single, time_param, Viewer};
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::auth::roles::OWNER;
use crate::error::{ApiError, ApiResult};
use crate::events::IssueAction;
use crate::params::Params;
use crate::response::Response;
use crate::store::issues::{self, NewIssue};
use crate::store::labels::{self, Target, TargetType};
use crate::store::StoreError;

pub fn create(call: &Call, project_id: &str, params: &Params) -> ApiResult<Response> {
    let user = call.caller.require_user()?.clone();
    let project = call.project(project_id, ProjectAbility::Read)?;
    if project.archived {
        return Err(ApiError::Forbidden(None));
    }
    let title = params.required_string("title")?;
    let description = params.string("description")?;
    check_text(Some(&title), description.as_deref())?;
    let confidential = params.bool("confidential")?.unwrap_or(false);
    let names = label_names(params, "labels")?;
    let created_at = time_param(params, "created_at")?;
    let iid = params.int("iid")?;
    let (entity, event) = call.ctx.store.write(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let owner = viewer.admin || viewer.level >= OWNER;
        let assignees = assignee_ids(db, params)?;
        let new = NewIssue {
            project_id: project.id,
            iid: iid.filter(|_| owner),
            author_id: Some(user.id),
            title: title.trim().to_string(),
            description: description.clone(),
            confidential,
            created_at: created_at.filter(|_| owner),
        };
        let issue = match issues::insert(db, &new) {
            Err(StoreError::Conflict(_)) => return Err(super::invalid("iid", "has already been taken")),
            other => other?,
        };
        if viewer.admin_issue() {
            if let Some(names) = &names {
                let available = labels::Available::for_project(db, project.id, project.group_id)?;
                let target = Target { kind: TargetType::Issue, id: issue.id };
                labels::set(db, &available, project.id, target, names, Some(user.id))?;
            }
            if let Some(assignees) = &assignees {
                issues::set_assignees(db, issue.id, assignees)?;
            }
        }
        let event = record(call, db, &issue, IssueAction::Opened)?;
        Ok((single(call, db, &issue, &project, params)?, event))
    })?;
    heard(call, &[event]);
    Ok(Response::json(201, &entity))
}
