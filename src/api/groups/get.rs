//! `GET /groups/:id`: GitLab's `GroupDetail` of a group the caller may see (404 `Group Not
//! Found` for a missing or invisible one), with its projects unless `with_projects=false`
//! (then the `Group` entity, as GitLab answers).

use super::detail;
use crate::api::ordered::Obj;
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;

pub fn get(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let group = call.group(id)?;
    let with_projects = params.bool("with_projects")?.unwrap_or(true);
    let detailed = call.ctx.store.read(|db| super::detailed(db, &group))?;
    if with_projects {
        detail(call, &detailed, true, 200)
    } else {
        Ok(Response::json(200, &Obj::from(super::entity(&call.base_url, &detailed))))
    }
}
