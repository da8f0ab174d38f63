//! `GET /namespaces/:id`: a namespace by id or full path: a group the caller is a member of (on
//! it or an ancestor; GitLab's `read_namespace_via_membership`), their own user namespace, or
//! any for administrators; everything else 404 `Namespace Not Found`.

use super::{entity, listed_of, signed_in};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int_text;
use crate::response::Response;
use crate::store::namespaces::{self, Namespace};

pub fn get(call: &Call, id: &str) -> ApiResult<Response> {
    let viewer = signed_in(call)?;
    if id.contains('\0') {
        return Err(ApiError::NotFound("Namespace"));
    }
    let body = call.ctx.store.read(|db| -> ApiResult<_> {
        let found = match parse_int_text(id).filter(|_| !id.starts_with(['+', '-'])) {
            Some(id) => namespaces::find_by_id(db, id)?,
            None => namespaces::find_by_full_path(db, id)?,
        };
        let namespace = found.ok_or(ApiError::NotFound("Namespace"))?;
        let listed = listed_of(db, viewer, &namespace)?;
        let visible = viewer.is_admin
            || match &namespace {
                Namespace::User(user) => user.id == viewer.id,
                Namespace::Group(_) => listed.level.is_some_and(|level| level > 0),
            };
        if !visible {
            return Err(ApiError::NotFound("Namespace"));
        }
        entity(call, db, viewer, &listed)
    })?;
    Ok(Response::json(200, &body))
}
