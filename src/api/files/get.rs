//! `GET` and `HEAD /projects/:id/repository/files/:file_path?ref=`: the file as GitLab's entity
//! (`file_name`, `file_path`, `size`, `encoding`, `content_sha256`, `ref`, `blob_id`,
//! `commit_id`, `last_commit_id`, `execute_filemode`, `content` in Base64), its fields also as
//! `X-Gitlab-*` headers. `HEAD` answers the headers alone, whatever the file's size. A GET of a
//! file over `limits.blob_json_max_bytes` is a 400 naming the raw route, as blobs are.

use super::{file_path, find, headers, object, required_ref};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::{Body, Response};
use base64::Engine;
use serde_json::json;

pub fn get(call: &Call, project: &str, path: &str, params: &Params, head: bool) -> ApiResult<Response> {
    let path = file_path(path, false)?;
    let reference = required_ref(params)?;
    let found = find(call, project, &path, Some(reference))?;
    let cap = call.ctx.config.limits.blob_json_max_bytes;
    if found.size > cap && !head {
        return Err(ApiError::BadRequest(format!(
            "The file is {} bytes, over the {cap} bytes this endpoint answers with. \
             Access it using '/projects/:id/repository/files/:file_path/raw'",
            found.size
        )));
    }
    let content = found.content()?;
    let mut entity = found.entity(&content)?;
    let mut response_headers = headers(&entity);
    response_headers.insert(0, ("Content-Type".into(), "application/json".into()));
    if head {
        return Ok(Response { status: 200, headers: response_headers, body: Body::Bytes(Vec::new()) });
    }
    entity.push(("content", json!(base64::engine::general_purpose::STANDARD.encode(&content))));
    Ok(Response { status: 200, headers: response_headers, body: Body::Bytes(object(&entity)) })
}
