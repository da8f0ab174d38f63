//! The typed doors of projects, users, branches, tags and protected branches (issue 28): JSON
//! in (`auth_json` as for every typed export, and a parameters object), the HTTP route's
//! response out. The subject of a route (`"project"`, `"group"`, `"user_id"`, `"branch"`,
//! `"tag_name"`, `"name"`) is a parameter; the rest are the route's own. Pagination links
//! point at the equivalent HTTP route.

use super::{c_str, context, fc_ctx, fc_response, guard};
use crate::api::{self, branches, projects, protected_branches, tags, users, Call, Origin};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde_json::Value;
use std::ffi::c_char;

/// The names a route takes from the parameters, in path order, and how its HTTP path is made
/// from their values.
struct Route {
    subjects: &'static [&'static str],
    path: fn(&[String]) -> String,
}

fn encoded(text: &str) -> String {
    utf8_percent_encode(text, NON_ALPHANUMERIC).to_string()
}

/// Runs `operation` with the values of `route.subjects` (each required) taken out of the
/// parameters.
fn family_export(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
    route: Route,
    operation: fn(&Call, &[String], &Params) -> ApiResult<Response>,
) -> *mut fc_response {
    guard(|| {
        // SAFETY: each pointer is NULL or valid for the call by the caller's contract.
        let (ctx, auth_json, params_json) =
            unsafe { (context(ctx)?, c_str(auth_json, "auth_json")?, c_str(params_json, "params_json")?) };
        let (credentials, mut params) = super::exports::typed_arguments(auth_json, params_json)?;
        let mut values = Vec::new();
        for subject in route.subjects {
            match params.string(subject) {
                Ok(Some(value)) => values.push(value),
                Ok(None) => return Ok(ApiError::MissingParam((*subject).into()).into_response()),
                Err(e) => return Ok(e.into_response()),
            }
            params.remove(subject);
        }
        let query = params
            .iter()
            .filter_map(|(name, value)| match value {
                Value::String(s) => Some((name.clone(), s.clone())),
                Value::Number(_) | Value::Bool(_) => Some((name.clone(), value.to_string())),
                _ => None,
            })
            .collect();
        let origin = Origin { path: (route.path)(&values), query };
        let answer = Call::new(&ctx, &credentials, api::base_url(&ctx, None), origin)
            .and_then(|call| operation(&call, &values, &params));
        Ok(answer.unwrap_or_else(|e| e.into_response()))
    })
}

/// `GET /projects`: `membership`, `min_access_level`, `owned`, `search`, `visibility`,
/// `archived`, `order_by`, `sort`, `simple`, `id_after`, `id_before`, `pagination`, `page`, `per_page`.
#[no_mangle]
pub extern "C" fn fc_projects_list(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route { subjects: &[], path: |_| "/projects".into() };
    family_export(ctx, auth_json, params_json, route, |call, _, params| projects::list::list(call, params))
}

/// `GET /groups/:id/projects`: `group` (id or full path), `include_subgroups` and the filters of `fc_projects_list`.
#[no_mangle]
pub extern "C" fn fc_group_projects_list(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route { subjects: &["group"], path: |v| format!("/groups/{}/projects", encoded(&v[0])) };
    family_export(ctx, auth_json, params_json, route, |call, v, params| {
        projects::list::list_of_group(call, &v[0], params)
    })
}

/// `GET /projects/:id`: `project` (id or full path). ProjectWithAccess, or ProjectDetails for anonymous callers.
#[no_mangle]
pub extern "C" fn fc_project_get(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route { subjects: &["project"], path: |v| format!("/projects/{}", encoded(&v[0])) };
    family_export(ctx, auth_json, params_json, route, |call, v, _| projects::get(call, &v[0]))
}

/// `GET /user`: the signed-in caller (401 for anyone else).
#[no_mangle]
pub extern "C" fn fc_user_current(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route { subjects: &[], path: |_| "/user".into() };
    family_export(ctx, auth_json, params_json, route, |call, _, _| users::current::current(call))
}

/// `GET /users/:id`: `user_id`.
#[no_mangle]
pub extern "C" fn fc_user_get(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route { subjects: &["user_id"], path: |v| format!("/users/{}", encoded(&v[0])) };
    family_export(ctx, auth_json, params_json, route, |call, v, _| users::get::get(call, &v[0]))
}

/// `GET /projects/:id/repository/branches`: `project`, optional `search`, `regex`, `sort`, `pagination`,
/// `page_token`, `page`, `per_page`.
#[no_mangle]
pub extern "C" fn fc_branches_list(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route { subjects: &["project"], path: |v| format!("/projects/{}/repository/branches", encoded(&v[0])) };
    family_export(ctx, auth_json, params_json, route, |call, v, params| branches::list::list(call, &v[0], params))
}

/// `GET /projects/:id/repository/branches/:branch`: `project`, `branch`.
#[no_mangle]
pub extern "C" fn fc_branch_get(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route {
        subjects: &["project", "branch"],
        path: |v| format!("/projects/{}/repository/branches/{}", encoded(&v[0]), encoded(&v[1])),
    };
    family_export(ctx, auth_json, params_json, route, |call, v, _| branches::get::get(call, &v[0], &v[1], false))
}

/// `POST /projects/:id/repository/branches`: `project`, `branch`, `ref`. 201 and the branch.
#[no_mangle]
pub extern "C" fn fc_branch_create(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route { subjects: &["project"], path: |v| format!("/projects/{}/repository/branches", encoded(&v[0])) };
    family_export(ctx, auth_json, params_json, route, |call, v, params| branches::create::create(call, &v[0], params))
}

/// `DELETE /projects/:id/repository/branches/:branch`: `project`, `branch`. 204.
#[no_mangle]
pub extern "C" fn fc_branch_delete(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route {
        subjects: &["project", "branch"],
        path: |v| format!("/projects/{}/repository/branches/{}", encoded(&v[0]), encoded(&v[1])),
    };
    family_export(ctx, auth_json, params_json, route, |call, v, _| branches::delete::delete(call, &v[0], &v[1]))
}

/// `DELETE /projects/:id/repository/merged_branches`: `project`. 202.
#[no_mangle]
pub extern "C" fn fc_branches_delete_merged(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route =
        Route { subjects: &["project"], path: |v| format!("/projects/{}/repository/merged_branches", encoded(&v[0])) };
    family_export(ctx, auth_json, params_json, route, |call, v, _| branches::delete_merged::delete_merged(call, &v[0]))
}

/// `GET /projects/:id/repository/tags`: `project`, optional `order_by`, `sort`, `search`, `pagination`,
/// `page_token`, `page`, `per_page`.
#[no_mangle]
pub extern "C" fn fc_tags_list(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route { subjects: &["project"], path: |v| format!("/projects/{}/repository/tags", encoded(&v[0])) };
    family_export(ctx, auth_json, params_json, route, |call, v, params| tags::list::list(call, &v[0], params))
}

/// `GET /projects/:id/repository/tags/:tag_name`: `project`, `tag_name`.
#[no_mangle]
pub extern "C" fn fc_tag_get(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route {
        subjects: &["project", "tag_name"],
        path: |v| format!("/projects/{}/repository/tags/{}", encoded(&v[0]), encoded(&v[1])),
    };
    family_export(ctx, auth_json, params_json, route, |call, v, _| tags::get::get(call, &v[0], &v[1]))
}

/// `POST /projects/:id/repository/tags`: `project`, `tag_name`, `ref`, optional `message` (an annotated tag).
#[no_mangle]
pub extern "C" fn fc_tag_create(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route { subjects: &["project"], path: |v| format!("/projects/{}/repository/tags", encoded(&v[0])) };
    family_export(ctx, auth_json, params_json, route, |call, v, params| tags::create::create(call, &v[0], params))
}

/// `DELETE /projects/:id/repository/tags/:tag_name`: `project`, `tag_name`. 204.
#[no_mangle]
pub extern "C" fn fc_tag_delete(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route {
        subjects: &["project", "tag_name"],
        path: |v| format!("/projects/{}/repository/tags/{}", encoded(&v[0]), encoded(&v[1])),
    };
    family_export(ctx, auth_json, params_json, route, |call, v, _| tags::delete::delete(call, &v[0], &v[1]))
}

/// `GET /projects/:id/protected_branches`: `project`, optional `search`, `page`, `per_page`.
#[no_mangle]
pub extern "C" fn fc_protected_branches_list(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route { subjects: &["project"], path: |v| format!("/projects/{}/protected_branches", encoded(&v[0])) };
    family_export(ctx, auth_json, params_json, route, |call, v, params| {
        protected_branches::list::list(call, &v[0], params)
    })
}

/// `GET /projects/:id/protected_branches/:name`: `project`, `name`.
#[no_mangle]
pub extern "C" fn fc_protected_branch_get(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route {
        subjects: &["project", "name"],
        path: |v| format!("/projects/{}/protected_branches/{}", encoded(&v[0]), encoded(&v[1])),
    };
    family_export(ctx, auth_json, params_json, route, |call, v, _| protected_branches::get::get(call, &v[0], &v[1]))
}

/// `POST /projects/:id/protected_branches`: `project`, `name`, optional `push_access_level`,
/// `merge_access_level`, `allow_force_push`. 201.
#[no_mangle]
pub extern "C" fn fc_protected_branch_create(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route { subjects: &["project"], path: |v| format!("/projects/{}/protected_branches", encoded(&v[0])) };
    family_export(ctx, auth_json, params_json, route, |call, v, params| {
        protected_branches::create::create(call, &v[0], params)
    })
}

/// `DELETE /projects/:id/protected_branches/:name`: `project`, `name`. 204.
#[no_mangle]
pub extern "C" fn fc_protected_branch_delete(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    let route = Route {
        subjects: &["project", "name"],
        path: |v| format!("/projects/{}/protected_branches/{}", encoded(&v[0]), encoded(&v[1])),
    };
    family_export(ctx, auth_json, params_json, route, |call, v, _| {
        protected_branches::delete::delete(call, &v[0], &v[1])
    })
}
