//! Resource label events (issue-extras), as GitLab's `lib/api/resource_label_events.rb` has
//! them: the labels added to and removed from an issue or a merge request, as
//! `store::labels` records them whichever route changed the labels; list and get, one file
//! each. Every route needs a signed-in caller (`before { authenticate! }`); the issue or merge
//! request is found as its notes' routes find it (`find_noteable`: 404 for one the caller may
//! not see). The entity is `ResourceLabelEvent` (`lib/api/entities/resource_label_event.rb`):
//! `id`, `user`, `created_at`, `resource_type`, `resource_id`, `label` (`LabelBasic`, null
//! once the label is deleted), `action` (`add` or `remove`).

pub mod get;
pub mod list;

use super::issues::Viewer;
use super::labels::basic as label_basic;
use super::ordered::{self, iso_millis, Obj};
use super::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::store::labels::{LabelEvent, Target, TargetType};
use crate::store::{self, Db};
use serde_json::Value;

/// What carries the events a route names.
#[derive(Debug, Clone, Copy)]
pub enum Eventable {
    Issue,
    MergeRequest,
}

/// The issue or merge request `iid` of project `id`, as a label target the caller may read.
fn target(call: &Call, id: &str, kind: Eventable, iid: &str) -> ApiResult<Target> {
    call.caller.require_user()?;
    match kind {
        Eventable::Issue => {
            let project = call.project(id, ProjectAbility::Read)?;
            call.ctx.store.read(|db| -> ApiResult<_> {
                let viewer = Viewer::of(db, call, &project)?;
                let (issue, _) = super::issues::find_visible(db, &project, iid, &viewer)?;
                Ok(Target { kind: TargetType::Issue, id: issue.id })
            })
        }
        Eventable::MergeRequest => {
            let (_, mr) = super::merge_requests::find(call, id, iid)?;
            Ok(Target { kind: TargetType::MergeRequest, id: mr.id })
        }
    }
}

/// The `ResourceLabelEvent` entity of `event`.
fn entity(call: &Call, db: &mut Db, event: &LabelEvent) -> ApiResult<Obj> {
    let mut o = Obj::new();
    o.put("id", event.id);
    match event.user_id.map(|id| store::users::find_by_id(db, id)).transpose()?.flatten() {
        Some(user) => o.obj("user", ordered::user(call, &user)),
        None => o.put("user", Value::Null),
    };
    o.put("created_at", iso_millis(event.created_at))
        .put("resource_type", event.target.kind.as_str())
        .put("resource_id", event.target.id);
    match &event.label {
        Some(label) => o.obj("label", label_basic(label)),
        None => o.put("label", Value::Null),
    };
    o.put("action", event.action.as_str());
    Ok(o)
}
