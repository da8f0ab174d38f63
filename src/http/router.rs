//! The route table: (method, decoded path segments) to one operation. Nothing else.
//! A known path with another method is a 405; an unknown path a 404.

use super::request::Request;
use crate::api::member_roles::{self, Scope};
use crate::api::{
    archive, blobs, changelog, compare, contributors, groups, health, merge_base, projects, tree, version, Call,
};
use crate::error::{ApiError, ApiResult};
use crate::response::Response;

pub fn route(call: &Call, request: &Request) -> ApiResult<Response> {
    let segments: Vec<&str> = request.segments.iter().map(String::as_str).collect();
    let method = request.method.as_str();
    let params = &request.params;
    match segments.as_slice() {
        ["version"] => match method {
            "GET" => Ok(version::get()),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["member_roles"] => match method {
            "GET" => member_roles::list(call, Scope::Instance),
            "POST" => member_roles::create(call, Scope::Instance, params),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["member_roles", role] => match method {
            "PUT" => member_roles::update(call, Scope::Instance, role, params),
            "DELETE" => member_roles::delete(call, Scope::Instance, role),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["groups", group] => match method {
            "GET" => groups::get(call, group),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["groups", group, "member_roles"] => match method {
            "GET" => member_roles::list(call, Scope::Group(group)),
            "POST" => member_roles::create(call, Scope::Group(group), params),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["groups", group, "member_roles", role] => match method {
            "PUT" => member_roles::update(call, Scope::Group(group), role, params),
            "DELETE" => member_roles::delete(call, Scope::Group(group), role),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["projects", project] => match method {
            "GET" => projects::get(call, project),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["projects", project, "repository", "tree"] => match method {
            "GET" => tree::list(call, project, params),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["projects", project, "repository", "blobs", sha] => match method {
            "GET" => blobs::get(call, project, sha),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["projects", project, "repository", "blobs", sha, "raw"] => match method {
            "GET" => blobs::raw(call, project, sha),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["projects", project, "repository", "contributors"] => match method {
            "GET" => contributors::list(call, project, params),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["projects", project, "repository", "merge_base"] => match method {
            "GET" => merge_base::get(call, project, params),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["projects", project, "repository", "compare"] => match method {
            "GET" => compare::get(call, project, params),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["projects", project, "repository", "changelog"] => match method {
            "GET" => changelog::generate(call, project, params),
            "POST" => changelog::commit(call, project, params),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["projects", project, "repository", "health"] => match method {
            "GET" => health::get(call, project, params),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["projects", project, "repository", last] if *last == "archive" || last.starts_with("archive.") => match method
        {
            "GET" => archive::get(call, project, last.strip_prefix("archive."), params),
            _ => Err(ApiError::MethodNotAllowed),
        },
        ["__panic"] if call.ctx.config.features.test_panic_route => panic!("panic route requested"),
        _ => Err(ApiError::NotFound("")),
    }
}
