//! `GET` and `HEAD /projects/:id/repository/files/:file_path?ref=`: the file as GitLab's entity
//! (`file_name`, `file_path`, `size`, `encoding`, `content_sha256`, `ref`, `blob_id`,
//! `commit_id`, `last_commit_id`, `execute_filemode`, `content` in Base64), its fields also as
//! `X-Gitlab-*` headers. `HEAD` answers the headers alone, whatever the file's size. A GET of a
//! file over `limits.blob_json_max_bytes` is a 400 naming the raw route, as blobs are; one over
//! 10 MB counts against `rate_limits.large_blob` as a blob's JSON does. Files of
//! [`BLOB_STREAM_FROM`] and more are read twice, never held: once for `content_sha256` (before
//! the headers), once to encode as the client reads (`crate::api::repository::blobs::open_stream`).

use super::{file_path, find, headers, object, required_ref, sha256, BLOB_STREAM_FROM};
use crate::api::repository::blobs::{self, Wanted};
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
    let size = found.meta.size;
    let cap = call.ctx.config.limits.blob_json_max_bytes;
    if !head {
        if size > cap {
            return Err(ApiError::BadRequest(format!(
                "The file is {size} bytes, over the {cap} bytes this endpoint answers with. \
                 Access it using '/projects/:id/repository/files/:file_path/raw'"
            )));
        }
        let key = format!("large_blob:{}", found.project.id);
        blobs::throttle_large(call, &found.header(), key, blobs::LARGE_BLOB_THROTTLED)?;
    }
    let json = |headers: Vec<(String, String)>| {
        let mut headers = headers;
        headers.insert(0, ("Content-Type".into(), "application/json".into()));
        headers
    };
    if size < BLOB_STREAM_FROM {
        let content = found.content()?;
        let mut entity = found.meta.entity(&sha256(&content));
        let response_headers = json(headers(&entity));
        if head {
            return Ok(Response { status: 200, headers: response_headers, body: Body::Bytes(Vec::new()) });
        }
        entity.push(("content", json!(base64::engine::general_purpose::STANDARD.encode(&content))));
        return Ok(Response { status: 200, headers: response_headers, body: Body::Bytes(object(&entity)) });
    }
    let meta = found.meta.clone();
    let wanted = Wanted { text: false, sha256: true };
    let (probed, reader) = blobs::open_stream(found.git_dir.clone(), meta.blob, wanted, move |probed, blob, out| {
        if head {
            return Ok(());
        }
        let mut entity = meta.entity(probed.sha256.as_deref().unwrap_or(""));
        entity.push(("content", json!("")));
        let whole = object(&entity);
        // The object ends with `""}`: the content goes between the quotes.
        out.write_all(&whole[..whole.len() - 2])?;
        blobs::write_base64(blob, out)?;
        out.write_all(b"\"}")
    })?;
    let entity = found.meta.entity(probed.sha256.as_deref().unwrap_or(""));
    let mut response_headers = json(headers(&entity));
    if head {
        return Ok(Response { status: 200, headers: response_headers, body: Body::Bytes(Vec::new()) });
    }
    let mut with_content = entity;
    with_content.push(("content", json!("")));
    let length = object(&with_content).len() as u64 + blobs::encoded_len(size);
    response_headers.push(("Content-Length".into(), length.to_string()));
    Ok(Response { status: 200, headers: response_headers, body: Body::Stream(Box::new(reader)) })
}
