//! `DELETE /projects/:id/issues/:issue_iid/award_emoji/:award_id` (merge requests', notes'):
//! by the award's user or an administrator (`401 Unauthorized` for anyone else, anonymous
//! callers too); 204. 404 `Not found` when the awardable has no such award.

use super::{awardable, parse_award_id, project, Kind};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::response::Response;
use crate::store;

pub fn delete(
    call: &Call,
    project_id: &str,
    kind: Kind,
    iid: &str,
    note_id: Option<&str>,
    award_id: &str,
) -> ApiResult<Response> {
    let project = project(call, project_id)?;
    let award_id = parse_award_id(award_id)?;
    call.ctx.store.write(|db| -> ApiResult<_> {
        let awardable = awardable(db, call, &project, kind, iid, note_id)?;
        let award = store::award_emoji::find(db, awardable.type_name, awardable.id, award_id)?
            .ok_or(ApiError::RecordNotFound)?;
        let allowed = call.caller.user().is_some_and(|u| u.id == award.user_id || u.is_admin);
        if !allowed {
            return Err(ApiError::Unauthorized);
        }
        store::award_emoji::delete(db, award.id)?;
        if awardable.type_name == "Issue" {
            store::issues::touch(db, awardable.id)?;
        }
        Ok(())
    })?;
    Ok(Response::no_content())
}
