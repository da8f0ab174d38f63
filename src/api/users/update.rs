//! `PUT /users/:id` (administrators): any of `POST /users`' optional attributes and `email`,
//! `name`, `username`, `password`; 200 `UserWithAdmin`. Conflicts first (409 `Email has
//! already been taken`, `Username has already been taken`), then GitLab's validation (400).
//! A password is validated and not stored, as on create.

use super::{entity, find, parse_id, require_admin, require_signed_in, validate, Detail, Form};
use crate::api::Call;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store;

pub fn update(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    require_signed_in(call)?;
    let id = parse_id(id)?;
    let form = Form::read(params)?;
    params.bool("skip_reconfirmation")?;
    require_admin(call)?;
    let user = call.ctx.store.write(|db| -> ApiResult<_> {
        let user = form.apply(find(db, id)?);
        validate(db, &user, &form, false)?;
        store::users::update(db, &user)?;
        Ok(store::users::find_by_id(db, id)?.unwrap_or(user))
    })?;
    Ok(Response::json(200, &entity(call, &user, Detail::Admin)?))
}
