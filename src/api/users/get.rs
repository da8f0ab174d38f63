//! `GET /users/:id`: a user's basic profile for anyone (profiles are public, as GitLab's are by
//! default), the public one for the user themself and administrators (who also see
//! `is_admin`); 404 `User Not Found` for an id no user has.

use super::{entity, Detail};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int_text;
use crate::response::Response;
use crate::store;

pub fn get(call: &Call, id: &str) -> ApiResult<Response> {
    let id = parse_int_text(id).ok_or(ApiError::NotFound("User"))?;
    let user = call.ctx.store.read(|db| store::users::find_by_id(db, id))?.ok_or(ApiError::NotFound("User"))?;
    let detail = match call.caller.user() {
        Some(me) if me.is_admin => Detail::Admin,
        Some(me) if me.id == user.id => Detail::Public,
        _ => Detail::Basic,
    };
    Ok(Response::json(200, &entity(call, &user, detail)?))
}
