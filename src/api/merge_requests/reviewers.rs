//! `GET /projects/:id/merge_requests/:merge_request_iid/reviewers`: GitLab's
//! `MergeRequestReviewer` of each reviewer, `{user, state, created_at}`, in the order they were
//! added (`state` is `unreviewed` until reviews come).

use super::{find, iso_millis, People};
use crate::api::ordered::Obj;
use crate::api::Call;
use crate::error::ApiResult;
use crate::response::Response;
use crate::store::merge_requests;

pub fn reviewers(call: &Call, id: &str, iid: &str) -> ApiResult<Response> {
    let (_, mr) = find(call, id, iid)?;
    let (rows, people) = call
        .ctx
        .store
        .read(|db| -> ApiResult<_> { Ok((merge_requests::reviewer_rows(db, mr.id)?, People::of(db, &[&mr])?)) })?;
    let mut out = Vec::new();
    for (user, state, created_at) in rows {
        if let Some(user) = people.user(call, user) {
            let mut entry = Obj::new();
            entry.obj("user", user).put("state", state).put("created_at", iso_millis(created_at));
            out.push(entry);
        }
    }
    Ok(Response::json(200, &out))
}
