//! B2 and B3: `GET /projects/:id/repository/blobs/:sha[/raw]`.
//!
//! - `sha` names a blob: a full or abbreviated id, or what else [`git::blob::find`] accepts
//!   (`<rev>:<path>`, a tag pointing at a blob). Anything that is not a blob, or cannot be
//!   found or read, is 404 `{"message":"404 Blob Not Found"}`, as GitLab answers for every
//!   failure while loading.
//! - B2 answers `{"size", "encoding": "base64", "content", "sha"}` with strict standard Base64
//!   (padding, no line breaks) and the full blob id. A blob over `limits.blob_json_max_bytes`
//!   is **400** `{"message":"400 Bad request - ..."}` naming the raw route: the request is
//!   fine, the answer would be too large (413 would speak of the request body).
//! - B3 answers the exact bytes as a stream, with GitLab's headers (`Content-Disposition:
//!   inline`, no-cache headers, `nosniff`) and `text/plain; charset=utf-8` for UTF-8 text
//!   without NUL in its first 8000 bytes, `application/octet-stream` otherwise.
//! - Blobs over 10 MB (`size > 10.megabytes`) are rate limited per project and caller (as
//!   archives are; anonymous callers share one bucket a project) by `rate_limits.large_blob`,
//!   checked from the object header before the content is inflated.
//!   B2 counts under `large_blob:<project id>:<caller>` with GitLab's message
//!   (`API::Helpers::BlobHelpers::LARGE_BLOB_THROTTLED_ERROR`, verbatim). GitLab leaves raw
//!   unlimited (Workhorse streams it); we inflate whole objects in memory, so B3 is limited
//!   too, under its own counter `large_blob_raw:<project id>:<caller>` so that B2's advice to use raw
//!   holds when B2 is exhausted.

use super::{conditional, Call};
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult};
use crate::git::{self, blob::BlobHeader};
use crate::response::{Body, Response};
use crate::store::projects::Project;
use base64::Engine;

/// GitLab's `MAX_BLOB_SIZE = 10.megabytes`: larger blobs are rate limited.
pub const LARGE_BLOB_BYTES: u64 = 10 * 1024 * 1024;

/// GitLab's text, interpolating the integer `10.megabytes` and keeping the heredoc's newlines.
const LARGE_BLOB_THROTTLED: &str = "The requested blob is over the threshold size of 10485760.\n\
Access this blob using '/projects/:id/repository/blobs/:sha/raw' to avoid this error.\n";
const LARGE_RAW_BLOB_THROTTLED: &str =
    "The requested blob is over the threshold size of 10485760 and has been requested too many times. Try again later.";

/// The blob `sha` names in the project's repository, found from its header, with the open
/// repository to read it from.
fn find(call: &Call, project: &Project, sha: &str) -> ApiResult<(gix::Repository, BlobHeader)> {
    let repo = call.repository(project, "Blob")?;
    let header = git::blob::find(&repo, sha).map_err(|_| ApiError::NotFound("Blob"))?;
    Ok((repo, header))
}

/// Counts a large blob under `key` (the project's counter) and the caller: one caller's
/// downloads never lock others out of a project's large blobs.
fn throttle_large(call: &Call, header: &BlobHeader, key: String, message: &str) -> ApiResult<()> {
    if header.size > LARGE_BLOB_BYTES {
        let key = format!("{key}:{}", call.caller.rate_key());
        call.ctx.throttle(call.ctx.config.rate_limits.large_blob, &key, message)?;
    }
    Ok(())
}

fn content(repo: &gix::Repository, header: &BlobHeader) -> ApiResult<Vec<u8>> {
    git::blob::read(repo, header.id).map_err(|_| ApiError::NotFound("Blob"))
}

/// B2: the blob as JSON with Base64 content.
/// 304 when the request already holds the blob: at once when `sha` is its full id, else once
/// the name is resolved to an id; never after reading the content.
fn unchanged(call: &Call, sha: &str, header: Option<&BlobHeader>) -> Option<Response> {
    let id = match header {
        Some(header) => header.id.to_string(),
        None if conditional::is_full_id(sha) => sha.to_string(),
        None => return None,
    };
    conditional::not_modified(call, &conditional::etag(&id))
}

pub fn get(call: &Call, project: &str, sha: &str) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadCode)?;
    if let Some(not_modified) = unchanged(call, sha, None) {
        return Ok(not_modified);
    }
    let (repo, header) = find(call, &project, sha)?;
    if let Some(not_modified) = unchanged(call, sha, Some(&header)) {
        return Ok(not_modified);
    }
    let cap = call.ctx.config.limits.blob_json_max_bytes;
    if header.size > cap {
        return Err(ApiError::BadRequest(format!(
            "The blob is {} bytes, over the {cap} bytes this endpoint answers with. \
             Access it using '/projects/:id/repository/blobs/:sha/raw'",
            header.size
        )));
    }
    throttle_large(call, &header, format!("large_blob:{}", project.id), LARGE_BLOB_THROTTLED)?;
    let data = content(&repo, &header)?;
    // Built by hand: GitLab's key order, and no second copy of a large `content` string.
    // Base64 and hex need no JSON escaping.
    let encoded_len = base64::encoded_len(data.len(), true).unwrap_or(0);
    let mut body = Vec::with_capacity(encoded_len + 128);
    body.extend_from_slice(format!("{{\"size\":{},\"encoding\":\"base64\",\"content\":\"", data.len()).as_bytes());
    let start = body.len();
    body.resize(start + encoded_len, 0);
    let written = base64::engine::general_purpose::STANDARD
        .encode_slice(&data, &mut body[start..])
        .map_err(ApiError::internal)?;
    body.truncate(start + written);
    drop(data);
    body.extend_from_slice(format!("\",\"sha\":\"{}\"}}", header.id).as_bytes());
    Ok(Response {
        status: 200,
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            ("ETag".into(), conditional::etag(&header.id.to_string())),
        ],
        body: Body::Bytes(body),
    })
}

/// B3: the exact bytes, streamed.
pub fn raw(call: &Call, project: &str, sha: &str) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadCode)?;
    if let Some(not_modified) = unchanged(call, sha, None) {
        return Ok(not_modified);
    }
    let (repo, header) = find(call, &project, sha)?;
    if let Some(not_modified) = unchanged(call, sha, Some(&header)) {
        return Ok(not_modified);
    }
    throttle_large(call, &header, format!("large_blob_raw:{}", project.id), LARGE_RAW_BLOB_THROTTLED)?;
    let data = content(&repo, &header)?;
    let content_type = if git::blob::is_text(&data) { "text/plain; charset=utf-8" } else { "application/octet-stream" };
    let headers = [
        ("Content-Type", content_type.to_string()),
        ("Content-Length", data.len().to_string()),
        ("Content-Disposition", "inline".to_string()),
        ("Cache-Control", "max-age=0, private, must-revalidate, no-store, no-cache".to_string()),
        ("Expires", "Fri, 01 Jan 1990 00:00:00 GMT".to_string()),
        ("X-Content-Type-Options", "nosniff".to_string()),
        ("ETag", conditional::etag(&header.id.to_string())),
    ];
    Ok(Response {
        status: 200,
        headers: headers.into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
        body: Body::Stream(Box::new(std::io::Cursor::new(data))),
    })
}
