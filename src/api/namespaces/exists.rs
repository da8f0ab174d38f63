//! `GET /namespaces/:id/exists`: whether the path `:id` is taken among the top-level
//! namespaces (groups, users' namespaces and, as routes are one space here, top-level
//! projects) or, with `parent_id`, among that group's subgroups and projects;
//! `{"exists": bool, "suggests": [free path]}` (GitLab's `Namespace.clean_path`: the path with
//! the first free number appended).

use super::signed_in;
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::{groups, Db};
use serde_json::json;

fn taken(db: &mut Db, prefix: &str, path: &str) -> ApiResult<bool> {
    Ok(crate::store::namespaces::path_taken(db, &format!("{prefix}{path}"), None)?)
}

pub fn exists(call: &Call, path: &str, params: &Params) -> ApiResult<Response> {
    signed_in(call)?;
    if path.contains('\0') {
        return Ok(Response::json(200, &json!({"exists": false, "suggests": []})));
    }
    let parent_id = params.int("parent_id")?;
    let body = call.ctx.store.read(|db| -> ApiResult<_> {
        let prefix = match parent_id {
            None => String::new(),
            Some(id) => match groups::find_by_id(db, id)? {
                Some(parent) => format!("{}/", parent.full_path),
                // No such parent holds nothing.
                None => return Ok(json!({"exists": false, "suggests": []})),
            },
        };
        if !taken(db, &prefix, path)? {
            return Ok(json!({"exists": false, "suggests": []}));
        }
        let mut n = 1u32;
        while taken(db, &prefix, &format!("{path}{n}"))? && n < 10_000 {
            n += 1;
        }
        Ok(json!({"exists": true, "suggests": [format!("{path}{n}")]}))
    })?;
    Ok(Response::json(200, &body))
}
