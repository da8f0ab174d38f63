//! `GET /projects/:id/repository/files/:file_path/raw[?ref=][&lfs=true]`: the file's bytes
//! with the `X-Gitlab-*` headers, the raw blob's no-cache headers and content type, and an
//! `ETag` (the blob id) that a later `If-None-Match` turns into a 304. `ref` is optional (the
//! default branch); a leading `/` in the path is allowed. With `lfs=true`, an LFS pointer is
//! answered with the object it names from the repository's LFS store (404 when the store does
//! not have it); anything else is answered as it is. Files of [`BLOB_STREAM_FROM`] and more are
//! streamed, read first for their SHA-256 and content type, as raw blobs are.

use super::{file_path, find, headers, sha256, BLOB_STREAM_FROM};
use crate::api::repository::blobs::{self, Wanted};
use crate::api::{conditional, Call};
use crate::error::{ApiError, ApiResult};
use crate::git;
use crate::params::Params;
use crate::response::{Body, Response};

pub fn raw(call: &Call, project: &str, path: &str, params: &Params) -> ApiResult<Response> {
    let path = file_path(path, true)?;
    let reference = params.revision("ref")?;
    if reference.as_deref().is_some_and(|r| r.trim().is_empty()) {
        return Err(ApiError::ParamError("ref is empty".into()));
    }
    let lfs = params.bool("lfs")?.unwrap_or(false);
    let found = find(call, project, &path, reference)?;
    let etag = conditional::etag(&found.meta.blob.to_string());
    // LFS pointers are small: only those read whole can be one.
    let small = found.meta.size < BLOB_STREAM_FROM;
    if lfs && small {
        let content = found.content()?;
        if let Some(object) = forgecore_archive::lfs_object(&found.repo, &content) {
            let (oid, _) = forgecore_archive::lfs::parse_pointer(&content).ok_or(ApiError::NotFound(""))?;
            let etag = conditional::etag(oid);
            if let Some(not_modified) = conditional::not_modified(call, &etag) {
                return Ok(not_modified);
            }
            let mut response_headers = headers(&found.meta.entity(&sha256(&content)));
            let name = path.rsplit('/').next().unwrap_or(&path).replace(['"', '\\'], "_");
            response_headers.extend([
                ("Content-Type".into(), "application/octet-stream".into()),
                ("Content-Length".into(), object.len().to_string()),
                ("Content-Disposition".into(), format!("attachment; filename=\"{name}\"")),
                ("X-Content-Type-Options".into(), "nosniff".into()),
                ("ETag".into(), etag),
            ]);
            let reader = object.into_reader().map_err(ApiError::internal)?;
            return Ok(Response { status: 200, headers: response_headers, body: Body::Stream(Box::new(reader)) });
        }
        if forgecore_archive::lfs::parse_pointer(&content).is_some() {
            return Err(ApiError::NotFound(""));
        }
    }
    if let Some(not_modified) = conditional::not_modified(call, &etag) {
        return Ok(not_modified);
    }
    let (text, sha, body): (bool, String, Box<dyn std::io::Read + Send>) = if small {
        let content = found.content()?;
        (git::blob::is_text(&content), sha256(&content), Box::new(std::io::Cursor::new(content)))
    } else {
        let wanted = Wanted { text: true, sha256: true };
        let (probed, reader) =
            blobs::open_stream(found.git_dir.clone(), found.meta.blob, wanted, |_, blob, out| blobs::copy(blob, out))?;
        (probed.text, probed.sha256.unwrap_or_default(), Box::new(reader))
    };
    let mut response_headers = headers(&found.meta.entity(&sha));
    let content_type = if text { "text/plain; charset=utf-8" } else { "application/octet-stream" };
    response_headers.extend([
        ("Content-Type".into(), content_type.into()),
        ("Content-Length".into(), found.meta.size.to_string()),
        ("Content-Disposition".into(), "inline".into()),
        ("Cache-Control".into(), "max-age=0, private, must-revalidate, no-store, no-cache".into()),
        ("Expires".into(), "Fri, 01 Jan 1990 00:00:00 GMT".into()),
        ("X-Content-Type-Options".into(), "nosniff".into()),
        ("ETag".into(), etag),
    ]);
    Ok(Response { status: 200, headers: response_headers, body: Body::Stream(body) })
}
