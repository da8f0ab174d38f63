//! The typed doors of projects, users, branches, tags and protected branches (issue 28): JSON
//! in (`auth_json` as for every typed export, and a parameters object), the HTTP route's
//! response out. Each export names its HTTP route by its template, whose `:subjects`
//! (`"project"`, `"group"`, `"user_id"`, `"branch"`, `"tag_name"`, `"name"`) are parameters;
//! the rest are the route's own. Pagination links point at the equivalent HTTP route.

use super::{c_str, context, fc_ctx, fc_response, guard};
use crate::api::repository::{branches, tags};
use crate::api::{self, projects, protected_branches, users, Call, Origin};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde_json::Value;
use std::ffi::c_char;

/// The subjects of `route` (the HTTP route's template, each `:name` a parameter of that
/// name), in path order.
fn subjects(route: &str) -> impl Iterator<Item = &str> {
    route.split('/').filter_map(|segment| segment.strip_prefix(':'))
}

/// The HTTP path of `route` with each subject's value percent-encoded in its place.
fn path_of(route: &str, values: &[String]) -> String {
    let mut values = values.iter();
    let segments = route.split('/').map(|segment| match segment.strip_prefix(':') {
        Some(_) => utf8_percent_encode(values.next().map_or("", String::as_str), NON_ALPHANUMERIC).to_string(),
        None => segment.to_string(),
    });
    segments.collect::<Vec<_>>().join("/")
}

/// Runs `operation` with the values of the subjects of `route` (the HTTP route's template,
/// `/projects/:project/repository/tags/:tag_name`; each subject required) taken out of the
/// parameters.
fn family_export(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
    scope_route: (&'static str, &'static str),
    route: &str,
    operation: fn(&Call, &[String], &Params) -> ApiResult<Response>,
) -> *mut fc_response {
    guard(|| {
        // SAFETY: each pointer is NULL or valid for the call by the caller's contract.
        let (ctx, auth_json, params_json) =
            unsafe { (context(ctx)?, c_str(auth_json, "auth_json")?, c_str(params_json, "params_json")?) };
        let (credentials, mut params) = super::exports::typed_arguments(auth_json, params_json)?;
        let mut values = Vec::new();
        for subject in subjects(route) {
            match params.string(subject) {
                Ok(Some(value)) => values.push(value),
                Ok(None) => return Ok(ApiError::MissingParam(subject.into()).into_response()),
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
        let origin = Origin { path: path_of(route, &values), query };
        let answer = Call::new(&ctx, &credentials, api::base_url(&ctx, None), origin).and_then(|call| {
            crate::http::router::check_scopes(&call, scope_route.0, scope_route.1)?;
            operation(&call, &values, &params)
        });
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
    family_export(ctx, auth_json, params_json, ("GET", "/projects"), "/projects", |call, _, params| {
        projects::list::list(call, params)
    })
}

/// `GET /groups/:id/projects`: `group` (id or full path), `include_subgroups` and the filters of `fc_projects_list`.
#[no_mangle]
pub extern "C" fn fc_group_projects_list(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/groups/:id/projects"),
        "/groups/:group/projects",
        |call, v, params| projects::list::list_of_group(call, &v[0], params),
    )
}

/// `GET /projects/:id`: `project` (id or full path). ProjectWithAccess, or ProjectDetails for anonymous callers.
#[no_mangle]
pub extern "C" fn fc_project_get(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(ctx, auth_json, params_json, ("GET", "/projects/:id"), "/projects/:project", |call, v, _| {
        projects::get(call, &v[0])
    })
}

/// `GET /user`: the signed-in caller (401 for anyone else).
#[no_mangle]
pub extern "C" fn fc_user_current(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(ctx, auth_json, params_json, ("GET", "/user"), "/user", |call, _, _| users::current::current(call))
}

/// `GET /users/:id`: `user_id`.
#[no_mangle]
pub extern "C" fn fc_user_get(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(ctx, auth_json, params_json, ("GET", "/users/:id"), "/users/:user_id", |call, v, _| {
        users::get::get(call, &v[0])
    })
}

/// `GET /projects/:id/repository/branches`: `project`, optional `search`, `regex`, `sort`, `pagination`,
/// `page_token`, `page`, `per_page`.
#[no_mangle]
pub extern "C" fn fc_branches_list(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/branches"),
        "/projects/:project/repository/branches",
        |call, v, params| branches::list::list(call, &v[0], params),
    )
}

/// `GET /projects/:id/repository/branches/:branch`: `project`, `branch`.
#[no_mangle]
pub extern "C" fn fc_branch_get(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/branches/:branch"),
        "/projects/:project/repository/branches/:branch",
        |call, v, _| branches::get::get(call, &v[0], &v[1], false),
    )
}

/// `POST /projects/:id/repository/branches`: `project`, `branch`, `ref`. 201 and the branch.
#[no_mangle]
pub extern "C" fn fc_branch_create(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("POST", "/projects/:id/repository/branches"),
        "/projects/:project/repository/branches",
        |call, v, params| branches::create::create(call, &v[0], params),
    )
}

/// `DELETE /projects/:id/repository/branches/:branch`: `project`, `branch`. 204.
#[no_mangle]
pub extern "C" fn fc_branch_delete(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("DELETE", "/projects/:id/repository/branches/:branch"),
        "/projects/:project/repository/branches/:branch",
        |call, v, _| branches::delete::delete(call, &v[0], &v[1]),
    )
}

/// `DELETE /projects/:id/repository/merged_branches`: `project`. 202.
#[no_mangle]
pub extern "C" fn fc_branches_delete_merged(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("DELETE", "/projects/:id/repository/merged_branches"),
        "/projects/:project/repository/merged_branches",
        |call, v, _| branches::delete_merged::delete_merged(call, &v[0]),
    )
}

/// `GET /projects/:id/repository/tags`: `project`, optional `order_by`, `sort`, `search`, `pagination`,
/// `page_token`, `page`, `per_page`.
#[no_mangle]
pub extern "C" fn fc_tags_list(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/tags"),
        "/projects/:project/repository/tags",
        |call, v, params| tags::list::list(call, &v[0], params),
    )
}

/// `GET /projects/:id/repository/tags/:tag_name`: `project`, `tag_name`.
#[no_mangle]
pub extern "C" fn fc_tag_get(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/repository/tags/:tag_name"),
        "/projects/:project/repository/tags/:tag_name",
        |call, v, _| tags::get::get(call, &v[0], &v[1]),
    )
}

/// `POST /projects/:id/repository/tags`: `project`, `tag_name`, `ref`, optional `message` (an annotated tag).
#[no_mangle]
pub extern "C" fn fc_tag_create(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("POST", "/projects/:id/repository/tags"),
        "/projects/:project/repository/tags",
        |call, v, params| tags::create::create(call, &v[0], params),
    )
}

/// `DELETE /projects/:id/repository/tags/:tag_name`: `project`, `tag_name`. 204.
#[no_mangle]
pub extern "C" fn fc_tag_delete(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("DELETE", "/projects/:id/repository/tags/:tag_name"),
        "/projects/:project/repository/tags/:tag_name",
        |call, v, _| tags::delete::delete(call, &v[0], &v[1]),
    )
}

/// `GET /projects/:id/protected_branches`: `project`, optional `search`, `page`, `per_page`.
#[no_mangle]
pub extern "C" fn fc_protected_branches_list(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/protected_branches"),
        "/projects/:project/protected_branches",
        |call, v, params| protected_branches::list::list(call, &v[0], params),
    )
}

/// `GET /projects/:id/protected_branches/:name`: `project`, `name`.
#[no_mangle]
pub extern "C" fn fc_protected_branch_get(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("GET", "/projects/:id/protected_branches/:name"),
        "/projects/:project/protected_branches/:name",
        |call, v, _| protected_branches::get::get(call, &v[0], &v[1]),
    )
}

/// `POST /projects/:id/protected_branches`: `project`, `name`, optional `push_access_level`,
/// `merge_access_level`, `allow_force_push`. 201.
#[no_mangle]
pub extern "C" fn fc_protected_branch_create(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("POST", "/projects/:id/protected_branches"),
        "/projects/:project/protected_branches",
        |call, v, params| protected_branches::create::create(call, &v[0], params),
    )
}

/// `DELETE /projects/:id/protected_branches/:name`: `project`, `name`. 204.
#[no_mangle]
pub extern "C" fn fc_protected_branch_delete(
    ctx: *const fc_ctx,
    auth_json: *const c_char,
    params_json: *const c_char,
) -> *mut fc_response {
    family_export(
        ctx,
        auth_json,
        params_json,
        ("DELETE", "/projects/:id/protected_branches/:name"),
        "/projects/:project/protected_branches/:name",
        |call, v, _| protected_branches::delete::delete(call, &v[0], &v[1]),
    )
}

#[cfg(test)]
mod tests {
    use super::{path_of, subjects};

    #[test]
    fn a_route_template_names_its_subjects_and_makes_its_path() {
        let route = "/projects/:project/repository/tags/:tag_name";
        assert_eq!(subjects(route).collect::<Vec<_>>(), ["project", "tag_name"]);
        let values = ["fx/work".to_string(), "v1.0 rc".to_string()];
        assert_eq!(path_of(route, &values), "/projects/fx%2Fwork/repository/tags/v1%2E0%20rc");
        assert_eq!(subjects("/user").count(), 0);
        assert_eq!(path_of("/user", &[]), "/user");
    }
}
