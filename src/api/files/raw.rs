//! `GET /projects/:id/repository/files/:file_path/raw[?ref=][&lfs=true]`: the file's bytes
//! with the `X-Gitlab-*` headers, the raw blob's no-cache headers and content type, and an
//! `ETag` (the blob id) that a later `If-None-Match` turns into a 304. `ref` is optional (the
//! default branch); a leading `/` in the path is allowed. With `lfs=true`, an LFS pointer is
//! answered with the object it names from the repository's LFS store (404 when the store does
//! not have it); anything else is answered as it is.

use super::{file_path, find, headers};
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
    let content = found.content()?;
    let mut response_headers = headers(&found.entity(&content)?);
    if lfs {
        if let Some(object) = forgecore_archive::lfs_object(&found.repo, &content) {
            let (oid, _) = forgecore_archive::lfs::parse_pointer(&content).ok_or(ApiError::NotFound(""))?;
            let etag = conditional::etag(oid);
            if let Some(not_modified) = conditional::not_modified(call, &etag) {
                return Ok(not_modified);
            }
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
    let etag = conditional::etag(&found.blob.to_string());
    if let Some(not_modified) = conditional::not_modified(call, &etag) {
        return Ok(not_modified);
    }
    let content_type =
        if git::blob::is_text(&content) { "text/plain; charset=utf-8" } else { "application/octet-stream" };
    response_headers.extend([
        ("Content-Type".into(), content_type.into()),
        ("Content-Length".into(), content.len().to_string()),
        ("Content-Disposition".into(), "inline".into()),
        ("Cache-Control".into(), "max-age=0, private, must-revalidate, no-store, no-cache".into()),
        ("Expires".into(), "Fri, 01 Jan 1990 00:00:00 GMT".into()),
        ("X-Content-Type-Options".into(), "nosniff".into()),
        ("ETag".into(), etag),
    ]);
    Ok(Response { status: 200, headers: response_headers, body: Body::Stream(Box::new(std::io::Cursor::new(content))) })
}
