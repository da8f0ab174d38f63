//! The exported functions: opening and closing a context, the HTTP door (`fc_request`) and the
//! typed doors (JSON in, JSON out) for member roles and administration.

use super::{bad_argument, c_bytes, c_str, context, fc_ctx, fc_response, guard};
use crate::api::member_roles::{self, Scope};
use crate::api::{self, admin, Call, Origin};
use crate::auth::Credentials;
use crate::params::Params;
use crate::response::Response;
use crate::{http, Context};
use serde_json::Value;
use std::ffi::c_char;

/// The ABI version of this library (`FC_ABI_VERSION` of the header it was built with).
/// Bindings refuse to use a library whose version differs from theirs.
#[no_mangle]
pub extern "C" fn fc_abi_version() -> u32 {
    crate::FC_ABI_VERSION
}

/// Opens an instance from a JSON configuration (`{"data_dir": "...", ...}`). On success stores
/// the new context in `*out` and returns NULL; on failure leaves `*out` NULL and returns a
/// response (status 400 or 500, body `{"message": "..."}`) that the caller frees.
#[no_mangle]
pub extern "C" fn fc_open(config_json: *const c_char, out: *mut *mut fc_ctx) -> *mut fc_response {
    if out.is_null() {
        return guard(|| Err(bad_argument("out is NULL".into())));
    }
    // SAFETY: `out` is non-NULL and writable by the caller's contract.
    unsafe { *out = std::ptr::null_mut() };
    let mut opened: Option<Box<fc_ctx>> = None;
    let response = guard(|| {
        // SAFETY: NULL or a NUL-terminated string by the caller's contract.
        let text = unsafe { c_str(config_json, "config_json") }?;
        let inner = Context::from_json(text).map_err(|message| crate::ApiError::validation(message).into_response())?;
        opened = Some(Box::new(fc_ctx::new(inner)));
        Ok(Response::no_content())
    });
    match opened {
        Some(ctx) => {
            fc_response_free_internal(response);
            // SAFETY: `out` is non-NULL and writable (checked above).
            unsafe { *out = Box::into_raw(ctx) };
            std::ptr::null_mut()
        }
        None => response,
    }
}

fn fc_response_free_internal(response: *mut fc_response) {
    super::response::fc_response_free(response);
}

/// Closes a context: waits for the calls on it in flight, then frees the instance. A call that
/// comes while or after it closes is answered 400 `ctx is closed`; closing twice does nothing
/// more. NULL is a no-op.
#[no_mangle]
pub extern "C" fn fc_close(ctx: *mut fc_ctx) {
    if ctx.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: a pointer from `fc_open`, never freed (see `super::close`).
        super::close(unsafe { &*ctx });
    }));
}

/// Parses the headers argument: a JSON object `{"Name": "value"}` or an array of
/// `["Name", "value"]` pairs.
pub(super) fn parse_headers(text: &str) -> Result<Vec<(String, String)>, Response> {
    let invalid =
        || bad_argument("headers_json must be a JSON object of strings or an array of [name, value] pairs".into());
    match serde_json::from_str::<Value>(text).map_err(|_| invalid())? {
        Value::Object(map) => map
            .into_iter()
            .map(|(name, value)| match value {
                Value::String(v) => Ok((name, v)),
                _ => Err(invalid()),
            })
            .collect(),
        Value::Array(pairs) => pairs
            .into_iter()
            .map(|pair| match pair {
                Value::Array(mut items) if items.len() == 2 => match (items.remove(0), items.remove(0)) {
                    (Value::String(n), Value::String(v)) => Ok((n, v)),
                    _ => Err(invalid()),
                },
                _ => Err(invalid()),
            })
            .collect(),
        _ => Err(invalid()),
    }
}

/// Serves one HTTP request: `method` (`GET`, ...), the raw request `target` as sent on the wire
/// (`/api/v4/projects/a%2Fb/repository/tree?ref=main`), the request headers as `headers_json`
/// (a JSON object `{"Name": "value"}` or an array of `["Name", "value"]` pairs, which keeps
/// order and repeats), and the body (`body` may be NULL when `body_len` is 0). Always returns a
/// response the caller frees.
#[no_mangle]
pub extern "C" fn fc_request(
    ctx: *const fc_ctx,
    method: *const c_char,
    target: *const c_char,
    headers_json: *const c_char,
    body: *const u8,
    body_len: usize,
) -> *mut fc_response {
    guard(|| {
        // SAFETY: each pointer is NULL or valid for the call by the caller's contract.
        let (ctx, method, target, headers, body) = unsafe {
            (
                context(ctx)?,
                c_str(method, "method")?,
                c_str(target, "target")?,
                c_str(headers_json, "headers_json")?,
                c_bytes(body, body_len, "body")?,
            )
        };
        let headers = parse_headers(headers)?;
        Ok(http::handle(&ctx, method, target, headers, body))
    })
}

/// The typed doors' arguments: credentials from `auth_json` (`{"private_token": "..."}`,
/// `{"job_token": "..."}` or `{}`) and the parameters object.
pub(super) fn typed_arguments(auth_json: &str, params_json: &str) -> Result<(Credentials, Params), Response> {
    let invalid_auth =
        || bad_argument("auth_json must be {}, {\"private_token\": \"...\"} or {\"job_token\": \"...\"}".into());
    let Ok(Value::Object(auth)) = serde_json::from_str::<Value>(auth_json) else { return Err(invalid_auth()) };
    let mut credentials = Credentials::default();
    for (key, value) in auth {
        let list = match key.as_str() {
            "private_token" => &mut credentials.personal,
            "job_token" => &mut credentials.job,
            _ => return Err(invalid_auth()),
        };
        match value {
            Value::Null => {}
            Value::String(token) => list.push(token),
            _ => return Err(invalid_auth()),
        }
    }
    let params: Value =
        serde_json::from_str(params_json).map_err(|_| bad_argument("params_json is not valid JSON".into()))?;
    let params = Params::from_json_object(params).map_err(|e| e.into_response())?;
    Ok((credentials, params))
}

/// Runs a member-role operation with its scope (`"group"`: id or full path; absent: the
/// instance) and, where needed, `"member_role_id"` taken from the parameters.
fn member_role_export(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
    scope_route: (&'static str, &'static str),
    operation: fn(&Call, Scope, Option<&str>, &Params) -> crate::error::ApiResult<Response>,
) -> *mut fc_response {
    guard(|| {
        // SAFETY: each pointer is NULL or valid for the call by the caller's contract.
        let (ctx, auth_json, params_json) =
            unsafe { (context(ctx)?, c_str(auth_json, "auth_json")?, c_str(params_json, "params_json")?) };
        let (credentials, params) = typed_arguments(auth_json, params_json)?;
        let call = Call::new(&ctx, &credentials, api::base_url(&ctx, None), Origin::default())
            .and_then(|call| crate::http::router::check_scopes(&call, scope_route.0, scope_route.1).map(|()| call))
            .map_err(|e| e.into_response())?;
        let text = |key: &str| params.string(key).map_err(|e| e.into_response());
        let group = text("group")?;
        let role_id = text("member_role_id")?;
        let scope = group.as_deref().map_or(Scope::Instance, Scope::Group);
        operation(&call, scope, role_id.as_deref(), &params).or_else(|e| Ok(e.into_response()))
    })
}

fn required_role_id(role_id: Option<&str>) -> crate::error::ApiResult<&str> {
    role_id.ok_or_else(|| crate::ApiError::MissingParam("member_role_id".into()))
}

/// `GET /member_roles` or `GET /groups/:id/member_roles`. `params_json`: `{}` or `{"group": "<id or path>"}`.
#[no_mangle]
pub extern "C" fn fc_member_roles_list(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    member_role_export(ctx, auth_json, params_json, ("GET", "/member_roles"), |call, scope, _, _| {
        member_roles::list::list(call, scope)
    })
}

/// `POST /member_roles` or `POST /groups/:id/member_roles`: `name`, `base_access_level`, optional `description` and flags,
/// optional `group`. 201 and the role.
#[no_mangle]
pub extern "C" fn fc_member_roles_create(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    member_role_export(ctx, auth_json, params_json, ("POST", "/member_roles"), |call, scope, _, params| {
        member_roles::create::create(call, scope, params)
    })
}

/// `PUT /member_roles/:member_role_id` or `PUT /groups/:id/member_roles/:member_role_id`:
/// a role's `name` and/or `description`; `member_role_id`, optional `group`.
#[no_mangle]
pub extern "C" fn fc_member_roles_update(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    member_role_export(
        ctx,
        auth_json,
        params_json,
        ("PUT", "/member_roles/:member_role_id"),
        |call, scope, role_id, params| {
            let mut params = params.clone();
            params.remove("group");
            member_roles::update::update(call, scope, required_role_id(role_id)?, &params)
        },
    )
}

/// `DELETE /member_roles/:member_role_id` or `DELETE /groups/:id/member_roles/:member_role_id`:
/// `member_role_id`, optional `group`. 204 with an empty body.
#[no_mangle]
pub extern "C" fn fc_member_roles_delete(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    member_role_export(
        ctx,
        auth_json,
        params_json,
        ("DELETE", "/member_roles/:member_role_id"),
        |call, scope, role_id, _| member_roles::delete::delete(call, scope, required_role_id(role_id)?),
    )
}

/// Runs one administrative command (`{"command": "user_add", ...}`; see the README).
/// Trusted: whoever can open the data directory administers the instance.
#[no_mangle]
pub extern "C" fn fc_admin(ctx: *const fc_ctx, command_json: *const c_char) -> *mut fc_response {
    guard(|| {
        // SAFETY: each pointer is NULL or valid for the call by the caller's contract.
        let (ctx, command) = unsafe { (context(ctx)?, c_str(command_json, "command_json")?) };
        let (_, params) = typed_arguments("{}", command)?;
        Ok(admin::run(&ctx, &params).unwrap_or_else(|e| e.into_response()))
    })
}

/// Runs a repository operation on `"project"` (an id or full path) from the parameters. The
/// pagination links of the answer point at the equivalent HTTP route, `repository/<route>`.
fn repository_export(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
    scope_route: (&'static str, &'static str),
    route: &str,
    operation: fn(&Call, &str, &Params) -> crate::error::ApiResult<Response>,
) -> *mut fc_response {
    guard(|| repository_response(ctx, auth_json, params_json, scope_route, route, operation))
}

/// The response of [`repository_export`], still in Rust (`Err` for a bad argument).
pub(super) fn repository_response(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
    scope_route: (&'static str, &'static str),
    route: &str,
    operation: fn(&Call, &str, &Params) -> crate::error::ApiResult<Response>,
) -> Result<Response, Response> {
    // SAFETY: each pointer is NULL or valid for the call by the caller's contract.
    let (ctx, auth_json, params_json) =
        unsafe { (context(ctx)?, c_str(auth_json, "auth_json")?, c_str(params_json, "params_json")?) };
    let (credentials, mut params) = typed_arguments(auth_json, params_json)?;
    let project = match params.string("project") {
        Ok(Some(project)) => project,
        Ok(None) => return Ok(crate::ApiError::MissingParam("project".into()).into_response()),
        Err(e) => return Ok(e.into_response()),
    };
    params.remove("project");
    // A route with the commit in its path (`commits/{sha}/diff`) links with it there, not in
    // the query; the operation still reads it from the parameters.
    let sha = if route.contains("{sha}") { params.remove("sha") } else { None };
    let route = match &sha {
        Some(Value::String(sha)) => route.replace(
            "{sha}",
            &percent_encoding::utf8_percent_encode(sha, percent_encoding::NON_ALPHANUMERIC).to_string(),
        ),
        _ => route.replace("/{sha}", ""),
    };
    let origin = Origin::repository_route(&project, &route, &params);
    if let Some(sha) = sha {
        params.set("sha", sha);
    }
    let answer = Call::new(&ctx, &credentials, api::base_url(&ctx, None), origin).and_then(|call| {
        crate::http::router::check_scopes(&call, scope_route.0, scope_route.1)?;
        operation(&call, &project, &params)
    });
    Ok(answer.unwrap_or_else(|e| e.into_response()))
}

/// `GET /projects/:id/repository/tree`: `project`, optional `ref`, `path`, `recursive`, `page`, `per_page`, `pagination`,
/// `page_token`. JSON array; pagination headers as on the HTTP route.
#[no_mangle]
pub extern "C" fn fc_repository_tree(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/tree"),
        "tree",
        crate::api::repository::tree::list,
    )
}

/// `GET /projects/:id/repository/blobs/:sha`: `project`, `sha`. `{size, encoding, content, sha}`.
#[no_mangle]
pub extern "C" fn fc_repository_blob(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/blobs/:sha"),
        "blobs",
        |call, project, params| crate::api::repository::blobs::get(call, project, &params.required_string("sha")?),
    )
}

/// `GET /projects/:id/repository/blobs/:sha/raw`: `project`, `sha`. The exact bytes, streamed: read them with `fc_response_read`.
#[no_mangle]
pub extern "C" fn fc_repository_raw_blob(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/blobs/:sha/raw"),
        "blobs",
        |call, project, params| crate::api::repository::blobs::raw(call, project, &params.required_string("sha")?),
    )
}

/// `GET /projects/:id/repository/contributors`: `project`, optional `ref`, `order_by`, `sort`, `page`, `per_page`.
#[no_mangle]
pub extern "C" fn fc_repository_contributors(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/contributors"),
        "contributors",
        crate::api::repository::contributors::list,
    )
}

/// `GET /projects/:id/repository/merge_base`: `project`, `refs` (an array of two or more refs). The commit entity.
#[no_mangle]
pub extern "C" fn fc_repository_merge_base(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/merge_base"),
        "merge_base",
        crate::api::repository::merge_base::get,
    )
}

/// `GET /projects/:id/repository/compare`: `project`, `from`, `to`, optional `straight`, `unidiff`, `from_project_id`.
#[no_mangle]
pub extern "C" fn fc_repository_compare(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/compare"),
        "compare",
        crate::api::repository::compare::get,
    )
}

/// `GET /projects/:id/repository/changelog`: `project`, `version`, optional `from`, `to`, `date`, `trailer`,
/// `config_file`. `{"notes": "..."}`; accepts a job token of the project.
#[no_mangle]
pub extern "C" fn fc_changelog_generate(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/changelog"),
        "changelog",
        crate::api::repository::changelog::generate,
    )
}

/// `POST /projects/:id/repository/changelog`: as `fc_changelog_generate` plus optional `branch`, `file`, `message`.
/// `{"commit": ..., "notes": "..."}`.
#[no_mangle]
pub extern "C" fn fc_changelog_commit(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("POST", "/projects/:id/repository/changelog"),
        "changelog",
        crate::api::repository::changelog::commit,
    )
}

/// `GET /projects/:id/repository/health`: `project`, optional `generate`. The stored or new report.
#[no_mangle]
pub extern "C" fn fc_repository_health(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/health"),
        "health",
        crate::api::repository::health::get,
    )
}

/// `GET /projects/:id/repository/commits`: `project`, optional `ref_name`, `since`, `until`, `path`, `author`, `all`,
/// `first_parent`, `order`, `with_stats`, `trailers`, `page`, `per_page`. JSON array; pagination headers without totals.
#[no_mangle]
pub extern "C" fn fc_repository_commits(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/commits"),
        "commits",
        crate::api::repository::commits::list::list,
    )
}

/// `GET /projects/:id/repository/commits/:sha`: `project`, `sha`, optional `stats`. The commit detail.
#[no_mangle]
pub extern "C" fn fc_repository_commit(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/commits/:sha"),
        "commits/{sha}",
        |call, project, params| {
            crate::api::repository::commits::get::get(call, project, &params.required_string("sha")?, params)
        },
    )
}

/// `GET /projects/:id/repository/commits/:sha/diff`: `project`, `sha`, optional `unidiff`, `page`, `per_page`.
#[no_mangle]
pub extern "C" fn fc_repository_commit_diff(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/commits/:sha/diff"),
        "commits/{sha}/diff",
        |call, project, params| {
            crate::api::repository::commits::diff::diff(call, project, &params.required_string("sha")?, params)
        },
    )
}

/// `GET /projects/:id/repository/commits/:sha/refs`: `project`, `sha`, optional `type`, `page`, `per_page`.
#[no_mangle]
pub extern "C" fn fc_repository_commit_refs(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/commits/:sha/refs"),
        "commits/{sha}/refs",
        |call, project, params| {
            crate::api::repository::commits::refs::refs(call, project, &params.required_string("sha")?, params)
        },
    )
}

/// `GET /projects/:id/repository/commits/:sha/sequence`: `project`, `sha`, optional `first_parent`. `{"count": n}`.
#[no_mangle]
pub extern "C" fn fc_repository_commit_sequence(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/commits/:sha/sequence"),
        "commits/{sha}/sequence",
        |call, project, params| {
            crate::api::repository::commits::sequence::sequence(call, project, &params.required_string("sha")?, params)
        },
    )
}

/// `POST /projects/:id/repository/commits`: `project`, `branch`, `commit_message`, `actions` (an array of
/// `{action, file_path, previous_path, content, encoding, last_commit_id, execute_filemode}`), optional
/// `start_branch` or `start_sha`, `force`, `author_name`, `author_email`, `stats`. 201 with the commit detail.
#[no_mangle]
pub extern "C" fn fc_repository_commit_create(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    repository_export(
        ctx,
        auth_json,
        params_json,
        ("POST", "/projects/:id/repository/commits"),
        "commits",
        crate::api::repository::commits::create::create,
    )
}
