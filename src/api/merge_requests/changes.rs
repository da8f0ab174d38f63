//! `GET /projects/:id/merge_requests/:merge_request_iid/changes` (deprecated by GitLab, still
//! read by changesets and older clients): the full entity with `changes` (the Diff entities of
//! `git diff base...head` within the compare's limits) and `overflow` (the list was cut).
//! `access_raw_diffs` is accepted (every diff here is read from git); `unidiff` prefixes the
//! file headers.

use super::{find, full_of, Shas};
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use serde_json::{json, Value};

pub fn changes(call: &Call, id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let (project, mr) = find(call, id, iid)?;
    params.bool("access_raw_diffs")?;
    let unidiff = params.bool("unidiff")?.unwrap_or(false);
    let (changes, overflow) = match Shas::latest(&mr)? {
        None => (Vec::new(), false),
        Some(shas) => {
            let repo = call.repository(&project, "Project")?;
            call.git("merge_request_changes", || shas.diffs(call, &repo, unidiff, false))?
        }
    };
    let mut entity = full_of(call, &project, &mr, Default::default())?;
    entity.put("changes", Value::Array(changes));
    entity.put("overflow", json!(overflow));
    Ok(Response::json(200, &entity))
}
