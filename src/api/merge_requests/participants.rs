//! `GET /projects/:id/merge_requests/:merge_request_iid/participants`: GitLab's `UserBasic` of
//! everyone taking part: the author, the assignees and the reviewers, once each, in that order
//! (notes' authors join them when notes come).

use super::{find, People};
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;
use serde_json::Value;

pub fn participants(call: &Call, id: &str, iid: &str) -> ApiResult<Response> {
    let (_, mr) = find(call, id, iid)?;
    let people = call.ctx.store.read(|db| People::of(db, &[&mr]))?;
    let mut ids: Vec<i64> = Vec::new();
    for id in mr.author_id.into_iter().chain(mr.assignees.iter().copied()).chain(mr.reviewers.iter().copied()) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let mut out = Vec::new();
    for id in ids {
        let user = people.basic(call, Some(id))?;
        if user != Value::Null {
            out.push(user);
        }
    }
    Ok(Response::json(200, &out))
}
