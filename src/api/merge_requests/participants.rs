//! `GET /projects/:id/merge_requests/:merge_request_iid/participants`: GitLab's `UserBasic` of
//! everyone taking part: the author, the assignees and the reviewers, once each, in that order
//! (notes' authors join them when notes come).

use super::{find, People};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;

pub fn participants(call: &Call, id: &str, iid: &str) -> ApiResult<Response> {
    let (_, mr) = find(call, id, iid)?;
    let people = call.ctx.store.read(|db| People::of(db, &[&mr]))?;
    let mut ids: Vec<i64> = Vec::new();
    for id in mr.author_id.into_iter().chain(mr.assignees.iter().copied()).chain(mr.reviewers.iter().copied()) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let out: Vec<_> = ids.into_iter().filter_map(|id| people.user(call, id)).collect();
    Ok(Response::json(200, &out))
}
