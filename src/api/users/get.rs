//! `GET /users/:id`: GitLab's `User` profile for anyone signed in, `UserDetailsWithAdmin` for
//! administrators; anonymous callers get 403 `Not authorized!` and an id no user has 404 `User
//! Not Found` (`lib/api/users.rb`).

use super::{entity, Detail};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int_text;
use crate::response::Response;
use crate::store;

pub fn get(call: &Call, id: &str) -> ApiResult<Response> {
    let Some(me) = call.caller.user() else { return Err(ApiError::Forbidden(Some("Not authorized!".into()))) };
    let id = parse_int_text(id).ok_or(ApiError::NotFound("User"))?;
    let user = call.ctx.store.read(|db| store::users::find_by_id(db, id))?.ok_or(ApiError::NotFound("User"))?;
    let detail = if me.is_admin { Detail::DetailsAdmin } else { Detail::Profile };
    Ok(Response::json(200, &entity(call, &user, detail)?))
}
