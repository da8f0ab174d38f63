//! `PUT /projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id` (and
//! issues'): `resolved` required; resolves or unresolves every resolvable note of the
//! discussion (`Discussions::ResolveService` / `UnresolveService`). 403 unless the caller may
//! resolve it (`can_resolve?`: a resolvable discussion, and Developers and above or the
//! noteable's author); 404 `Discussion Not Found` when there is none. 200 and the Discussion.

use super::{entity, find, target};
use crate::api::issues::Viewer;
use crate::api::notes::{noteable, resolvable, Kind};
use crate::api::Call;
use crate::auth::roles::DEVELOPER;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store;

pub fn resolve(
    call: &Call,
    project_id: &str,
    kind: Kind,
    id: &str,
    discussion_id: &str,
    params: &Params,
) -> ApiResult<Response> {
    let resolved = params.bool("resolved")?.ok_or_else(|| ApiError::MissingParam("resolved".into()))?;
    let (project, id) = target(call, project_id, kind, id)?;
    if project.archived {
        return Err(ApiError::Forbidden(None));
    }
    let user = call.caller.require_user()?.clone();
    let entity = call.ctx.store.write(|db| -> ApiResult<_> {
        let viewer = Viewer::of(db, call, &project)?;
        let noteable = noteable(db, &project, kind, &id, &viewer)?;
        let notes = find(db, &noteable, discussion_id, &viewer, "Discussion")?;
        let ids: Vec<i64> = notes.iter().filter(|n| resolvable(n)).map(|n| n.id).collect();
        let may = viewer.admin || viewer.level >= DEVELOPER || noteable.author_id == Some(user.id);
        if ids.is_empty() || !may {
            return Err(ApiError::Forbidden(None));
        }
        store::notes::set_resolved(db, &ids, resolved.then_some(user.id))?;
        let notes = find(db, &noteable, discussion_id, &viewer, "Discussion")?;
        entity(call, db, &notes, &noteable)
    })?;
    Ok(Response::json(200, &entity))
}
