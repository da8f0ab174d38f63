//! `GET /users/:user_id/memberships` (`type`: `Project` or `Namespace`): the user's direct
//! memberships of groups and projects, administrators only (`authenticated_as_admin!`: 403
//! for others), in the order they were made, in offset pages; 400 `type does not have a valid
//! value` for another type, 404 `User Not Found` for an id no user has. The entity is
//! GitLab's `Membership` (`lib/api/entities/membership.rb`): `source_id`, `source_name`,
//! `source_type` (`Namespace` for a group, `Project`), `access_level`.

use super::require_admin;
use crate::api::ordered::Obj;
use crate::api::{pagination, Call};
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_int_text, Params};
use crate::response::Response;
use crate::store;
use crate::store::members::{self, Source, SourceKind};

pub fn list(call: &Call, user_id: &str, params: &Params) -> ApiResult<Response> {
    let user_id = parse_int_text(user_id).ok_or_else(|| ApiError::InvalidParam("user_id".into()))?;
    let kind = match params.string("type")?.as_deref() {
        None => None,
        Some("Project") => Some(SourceKind::Project),
        Some("Namespace") => Some(SourceKind::Group),
        Some(_) => return Err(ApiError::InvalidValue("type".into())),
    };
    require_admin(call)?;
    let page = pagination::page(call, params)?;
    let (rows, total) = call.ctx.store.read(|db| -> ApiResult<_> {
        store::users::find_by_id(db, user_id)?.ok_or(ApiError::NotFound("User"))?;
        Ok(members::of_user(db, user_id, kind, page.per_page as i64, page.offset() as i64)?)
    })?;
    let shown: Vec<Obj> = rows
        .iter()
        .map(|m| {
            let (id, kind) = match m.source {
                Source::Group(id) => (id, "Namespace"),
                Source::Project(id) => (id, "Project"),
            };
            let mut o = Obj::new();
            o.put("source_id", id)
                .put("source_name", m.source_name.as_str())
                .put("source_type", kind)
                .put("access_level", m.access_level);
            o
        })
        .collect();
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total as usize, &[]));
    Ok(response)
}
