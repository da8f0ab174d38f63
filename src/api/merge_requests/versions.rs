//! `GET /projects/:id/merge_requests/:merge_request_iid/versions` and `.../versions/:version_id`
//! (reference §2.4, python-gitlab's `mr.diffs`): every diff version, newest first, as GitLab's
//! `MergeRequestDiff` (`real_size` a string, `patch_id_sha` null: not computed here); one
//! version as `MergeRequestDiffFull`, with its commits (`git log base..head`) and diffs.

use super::{commit_entities, find, iso_millis, Shas};
use crate::api::ordered::Obj;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_int, Params};
use crate::response::Response;
use crate::store::merge_requests::{self, Version};
use serde_json::{json, Value};

fn entity(version: &Version) -> Obj {
    let mut out = Obj::new();
    for (key, value) in [
        ("id", json!(version.id)),
        ("head_commit_sha", json!(version.head_sha)),
        ("base_commit_sha", json!(version.base_sha)),
        ("start_commit_sha", json!(version.start_sha)),
        ("created_at", json!(iso_millis(version.created_at))),
        ("merge_request_id", json!(version.merge_request_id)),
        ("state", json!(version.state)),
        ("real_size", json!(version.files_count.to_string())),
        ("patch_id_sha", Value::Null),
    ] {
        out.put(key, value);
    }
    out
}

pub fn list(call: &Call, id: &str, iid: &str) -> ApiResult<Response> {
    let (_, mr) = find(call, id, iid)?;
    let versions = call.ctx.store.read(|db| merge_requests::versions(db, mr.id))?;
    Ok(Response::json(200, &versions.iter().map(entity).collect::<Vec<_>>()))
}

pub fn get(call: &Call, id: &str, iid: &str, version_id: &str, params: &Params) -> ApiResult<Response> {
    let (project, mr) = find(call, id, iid)?;
    let version_id =
        parse_int(&Value::String(version_id.into())).ok_or_else(|| ApiError::InvalidParam("version_id".into()))?;
    let unidiff = params.bool("unidiff")?.unwrap_or(false);
    let version =
        call.ctx.store.read(|db| merge_requests::version(db, mr.id, version_id))?.ok_or(ApiError::RecordNotFound)?;
    let shas = Shas::of(Some(&version.head_sha), version.base_sha.as_deref())?.ok_or(ApiError::RecordNotFound)?;
    let repo = call.repository(&project, "Project")?;
    let ids = call.git("merge_request_version", || shas.commits(&repo))?;
    let commits = commit_entities(call, &project, &repo, &ids)?;
    let (diffs, _) = call.git("merge_request_version", || shas.diffs(call, &repo, unidiff, false))?;
    let mut out = entity(&version);
    out.put("commits", Value::Array(commits));
    out.put("diffs", Value::Array(diffs));
    Ok(Response::json(200, &out))
}
