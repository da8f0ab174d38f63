//! The repository files API through the typed C doors: each export answers exactly what its
//! HTTP route answers (status, `X-Gitlab-*` headers, body), with `project` and `file_path` as
//! parameters instead of path segments.

use super::exports::repository_response;
use super::{fc_ctx, fc_response, guard};
use crate::api::repository::files;
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use std::ffi::c_char;

type FileOperation = fn(&Call, &str, &str, &Params) -> ApiResult<Response>;

/// Runs `operation` with `file_path` taken out of the parameters.
fn with_path(call: &Call, project: &str, params: &Params, operation: FileOperation) -> ApiResult<Response> {
    let path = params.required_string("file_path")?;
    let mut rest = params.clone();
    rest.remove("file_path");
    operation(call, project, &path, &rest)
}

fn get(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    with_path(call, project, params, |call, project, path, params| files::get::get(call, project, path, params, false))
}

fn raw(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    with_path(call, project, params, files::raw::raw)
}

fn blame(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    with_path(call, project, params, files::blame::blame)
}

fn create(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    with_path(call, project, params, files::write::create)
}

fn update(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    with_path(call, project, params, files::write::update)
}

fn delete(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    with_path(call, project, params, files::write::delete)
}

fn file_export(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
    route: (&'static str, &'static str),
    operation: fn(&Call, &str, &Params) -> ApiResult<Response>,
) -> *mut fc_response {
    guard(|| repository_response(ctx, auth_json, params_json, route, "files", operation))
}

/// `GET /projects/:id/repository/files/:file_path`: `project`, `file_path`, `ref`. The file entity (Base64 content),
/// its fields also as `X-Gitlab-*` headers.
#[no_mangle]
pub extern "C" fn fc_repository_file(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    file_export(ctx, auth_json, params_json, ("GET", "/projects/:id/repository/files/:file_path"), get)
}

/// `GET /projects/:id/repository/files/:file_path/raw`: `project`, `file_path`, optional `ref`, `lfs`. The bytes,
/// streamed: read them with `fc_response_read`.
#[no_mangle]
pub extern "C" fn fc_repository_file_raw(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    file_export(ctx, auth_json, params_json, ("GET", "/projects/:id/repository/files/:file_path/raw"), raw)
}

/// `GET /projects/:id/repository/files/:file_path/blame`: `project`, `file_path`, `ref`, optional `range`
/// (`{"start": n, "end": m}`). `[{"commit": ..., "lines": [...]}, ...]`.
#[no_mangle]
pub extern "C" fn fc_repository_file_blame(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    file_export(ctx, auth_json, params_json, ("GET", "/projects/:id/repository/files/:file_path/blame"), blame)
}

/// `POST /projects/:id/repository/files/:file_path`: `project`, `file_path`, `branch`, `commit_message`, `content`,
/// optional `start_branch`, `encoding`, `author_name`, `author_email`, `execute_filemode`. 201 `{file_path, branch}`.
#[no_mangle]
pub extern "C" fn fc_repository_file_create(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    file_export(ctx, auth_json, params_json, ("POST", "/projects/:id/repository/files/:file_path"), create)
}

/// `PUT /projects/:id/repository/files/:file_path`: as `fc_repository_file_create` plus optional `last_commit_id`.
/// 200 `{file_path, branch}`.
#[no_mangle]
pub extern "C" fn fc_repository_file_update(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    file_export(ctx, auth_json, params_json, ("PUT", "/projects/:id/repository/files/:file_path"), update)
}

/// `DELETE /projects/:id/repository/files/:file_path`: `project`, `file_path`, `branch`, `commit_message`, optional
/// `start_branch`, `author_name`, `author_email`. 204, no body.
#[no_mangle]
pub extern "C" fn fc_repository_file_delete(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    file_export(ctx, auth_json, params_json, ("DELETE", "/projects/:id/repository/files/:file_path"), delete)
}
