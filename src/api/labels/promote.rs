//! `PUT /projects/:id/labels/:label_id/promote` (and the deprecated `PUT
//! /projects/:id/labels/promote` naming it by `name`): turns one of the project's own labels
//! into a label of the project's group (`promote_label` in `label_helpers.rb`,
//! `Labels::PromoteService`): the same-titled labels of every project in the group and its
//! subgroups are merged into it (their issues, merge requests, events and subscriptions move
//! to it). Needs `admin_label` on the project and on its group; a project in no group is 400
//! `Failed to promote project label to group label`. 200 and the `GroupLabel`.

use super::{entity, find_own, Need, Parent, Scope};
use crate::api::Call;
use crate::auth::permissions::{self, GroupAbility};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, labels};

pub fn promote(call: &Call, project_id: &str, id_or_title: &str) -> ApiResult<Response> {
    let parent = Parent::of(call, Scope::Project(project_id), Need::Admin)?;
    let Parent::Project(project) = &parent else { return Err(ApiError::NotFound("Project")) };
    let failed = || ApiError::Validation("Failed to promote project label to group label".into());
    let group_id = project.group_id.ok_or_else(failed)?;
    let label = call.ctx.store.write(|db| -> ApiResult<_> {
        let group = store::groups::find_by_id(db, group_id)?.ok_or_else(failed)?;
        if !permissions::group_may(db, &call.caller, &group, GroupAbility::AdminLabel)? {
            return Err(ApiError::Forbidden(None));
        }
        let label = find_own(db, &parent, id_or_title)?;
        let promoted = labels::promote(db, &label, group.id)?;
        entity(call, db, &Parent::Group(group), &promoted, None)
    })?;
    Ok(Response::json(200, &label))
}

/// The deprecated form: the label named by `name`.
pub fn promote_named(call: &Call, project_id: &str, params: &Params) -> ApiResult<Response> {
    let name = params.required_string("name")?;
    promote(call, project_id, &name)
}
