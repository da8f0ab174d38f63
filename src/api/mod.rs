//! The operations, in plain Rust, one file each. Both front doors (`http` and the typed C
//! exports) call these and nothing else; an operation answers a whole `Response`, so both doors
//! give the same status, headers and body.

pub mod admin;
pub mod archive;
pub mod blobs;
pub mod changelog;
pub mod commits;
pub mod compare;
pub mod contributors;
pub mod groups;
pub mod health;
pub mod member_roles;
pub mod merge_base;
pub mod pagination;
pub mod projects;
pub mod tree;
pub mod version;

use crate::auth::permissions::{self, ProjectAbility};
use crate::auth::Caller;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int_text;
use crate::store::{self, groups::Group, projects::Project};

/// One call into an operation: the instance, who is calling, and the public base URL that
/// absolute links and `web_url`s start with.
pub struct Call<'a> {
    pub ctx: &'a Context,
    pub caller: Caller,
    /// `scheme://host[:port]` without a trailing slash and without `/api/v4`.
    pub base_url: String,
    /// The request's raw path after `/api/v4` and its decoded query pairs in order: what
    /// pagination links repeat. Typed exports set the path of the equivalent route.
    pub path: String,
    pub query: Vec<(String, String)>,
}

impl<'a> Call<'a> {
    /// The project named by `id` (an integer id or a full path), checked for `ability`.
    /// Missing and invisible projects are the same 404.
    pub fn project(&self, id: &str, ability: ProjectAbility) -> ApiResult<Project> {
        self.ctx.store.read(|conn| {
            let project = match parse_int_text(id) {
                Some(n) if !id.starts_with(['+', '-']) => store::projects::find_by_id(conn, n)?,
                _ => store::projects::find_by_full_path(conn, id)?,
            }
            .ok_or(ApiError::NotFound("Project"))?;
            permissions::authorize_project(conn, &self.caller, &project, ability)?;
            Ok(project)
        })
    }

    /// The group named by `id` (an integer id or a full path) that the caller may see.
    pub fn group(&self, id: &str) -> ApiResult<Group> {
        self.ctx.store.read(|conn| {
            let group = match parse_int_text(id) {
                Some(n) if !id.starts_with(['+', '-']) => store::groups::find_by_id(conn, n)?,
                _ => store::groups::find_by_full_path(conn, id)?,
            }
            .ok_or(ApiError::NotFound("Group"))?;
            if permissions::can_see_group(conn, &self.caller, &group)? {
                Ok(group)
            } else {
                Err(ApiError::NotFound("Group"))
            }
        })
    }

    pub fn web_url(&self, full_path: &str) -> String {
        format!("{}/{}", self.base_url, full_path)
    }
}
