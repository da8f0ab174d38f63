//! Archives (B4) through the typed C doors: `fc_repository_archive` answers the streamed
//! response the HTTP route answers, and `fc_repository_archive_write` hands the archive's
//! bytes to a caller's callback as they are produced, so a C program can write it to a file
//! or a socket without handling a stream.

use super::exports::repository_response;
use super::{fc_ctx, fc_response, guard};
use crate::api::repository::archive;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::{Body, Response};
use std::ffi::{c_char, c_void};
use std::io::Read;

/// Bytes handed to the callback per call, at most.
const WRITE_CHUNK: usize = 64 * 1024;

/// The typed door passes `format` as a parameter, never as a route suffix: an unknown one is a
/// 400 rather than "no route".
fn operation(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    archive::get(call, project, None, params)
}

/// `GET /projects/:id/repository/archive[.format]`: `project`, optional `format` (`tar.gz` by default, `tgz`, `gz`, `tar`,
/// `tar.bz2`, `tbz`, `tbz2`, `tb2`, `bz2`, `zip`), `sha`, `path`, `exclude_paths` (an array or
/// a comma-separated string), `include_lfs_blobs`. The archive is a streamed body: read it
/// with `fc_response_read`; `Content-Disposition` carries GitLab's file name.
#[no_mangle]
pub extern "C" fn fc_repository_archive(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    guard(|| {
        repository_response(
            ctx,
            auth_json,
            params_json,
            ("GET", "/projects/:id/repository/archive"),
            "archive",
            operation,
        )
    })
}

/// `GET /projects/:id/repository/archive[.format]`, written through `write`: the parameters of `fc_repository_archive`, and
/// `write(user_data, bytes, len)` called with consecutive pieces of the archive (each at most
/// 64 KiB, never empty) on the calling thread; it returns 0 to go on, anything else to stop.
/// Returns the response: on success status 200 with the route's headers (the file name is in
/// `Content-Disposition`) and an empty body, after every byte went through `write`. Any error
/// found before the archive starts (unknown `sha`, bad parameters, no access) is that error's
/// response and `write` is never called. `write` stopping gives 400; a failure while
/// producing (a corrupt repository) gives 500 and the bytes written so far are not an archive.
/// A NULL `write` is a 400.
#[no_mangle]
pub extern "C" fn fc_repository_archive_write(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
    write: Option<extern "C" fn(user_data: *mut c_void, data: *const u8, len: usize) -> i32>,
    user_data: *mut c_void,
) -> *mut fc_response {
    guard(|| {
        let Some(write) = write else {
            return Err(ApiError::BadRequest("write is NULL".into()).into_response());
        };
        let response = repository_response(
            ctx,
            auth_json,
            params_json,
            ("GET", "/projects/:id/repository/archive"),
            "archive",
            operation,
        )?;
        if response.status != 200 {
            return Ok(response);
        }
        let Response { status, headers, body } = response;
        let mut send = |data: &[u8]| -> bool { data.is_empty() || write(user_data, data.as_ptr(), data.len()) == 0 };
        let complete = match body {
            Body::Bytes(bytes) => bytes.chunks(WRITE_CHUNK).all(&mut send),
            Body::Stream(mut reader) => {
                let mut buf = vec![0u8; WRITE_CHUNK];
                loop {
                    match reader.read(&mut buf) {
                        Ok(0) => break true,
                        Ok(n) => {
                            if !send(&buf[..n]) {
                                break false;
                            }
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Ok(ApiError::internal(e).into_response()),
                    }
                }
            }
        };
        if !complete {
            return Ok(ApiError::BadRequest("the write callback stopped the archive".into()).into_response());
        }
        Ok(Response { status, headers, body: Body::Bytes(Vec::new()) })
    })
}
