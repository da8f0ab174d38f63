//! `GET /groups/:id/members/:user_id`, `GET /projects/:id/members/:user_id` (a direct member)
//! and `GET .../members/all/:user_id` (the member's best membership reaching the source,
//! inherited ones included). Missing: `404 Not found`, as GitLab's `find_by!`.

use super::{entity, member_not_found, parse_user_id, visible, Scope};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;
use crate::store::members;

pub fn get(call: &Call, scope: Scope, user_id: &str) -> ApiResult<Response> {
    one(call, scope, user_id, false)
}

pub fn get_all(call: &Call, scope: Scope, user_id: &str) -> ApiResult<Response> {
    one(call, scope, user_id, true)
}

fn one(call: &Call, scope: Scope, user_id: &str, all: bool) -> ApiResult<Response> {
    let user_id = parse_user_id(user_id)?;
    let target = visible(call, scope)?;
    let source = target.source();
    let found = call.ctx.store.read(|db| -> ApiResult<_> {
        let member =
            if all { members::find_in_all(db, source, user_id)? } else { members::find_direct(db, source, user_id)? };
        let member = member.ok_or_else(member_not_found)?;
        entity(db, &call.base_url, member)
    })?;
    Ok(Response::json(200, &found))
}
