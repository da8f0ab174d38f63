//! `POST /projects/:id/labels/:label_id/subscribe` and `/unsubscribe`, the same under
//! `/groups/:id` (GitLab's `lib/api/subscriptions.rb`): the caller subscribes to a label the
//! parent sees, in that project (a project's route: `subscribe(current_user, project)`) or
//! everywhere (a group's); 201 and the label, or 304 with no body when the caller already is
//! (subscribe) or is not (unsubscribe) subscribed.

use super::{entity, find, Need, Parent, Scope};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;
use crate::store::labels;

pub fn subscribe(call: &Call, scope: Scope, id_or_title: &str) -> ApiResult<Response> {
    change(call, scope, id_or_title, true)
}

pub fn unsubscribe(call: &Call, scope: Scope, id_or_title: &str) -> ApiResult<Response> {
    change(call, scope, id_or_title, false)
}

fn change(call: &Call, scope: Scope, id_or_title: &str, subscribe: bool) -> ApiResult<Response> {
    let parent = Parent::of(call, scope, Need::Read)?;
    let user = call.caller.require_user()?.id;
    let answer = call.ctx.store.write(|db| -> ApiResult<_> {
        let label = find(db, &parent, id_or_title)?;
        if labels::subscribed(db, label.id, user, parent.project_id())? == subscribe {
            return Ok(None);
        }
        if subscribe {
            labels::subscribe(db, label.id, user, parent.project_id())?;
        } else {
            labels::unsubscribe(db, label.id, user, parent.project_id())?;
        }
        Ok(Some(entity(call, db, &parent, &label, None)?))
    })?;
    Ok(match answer {
        Some(label) => Response::json(201, &label),
        None => Response::empty(304),
    })
}
