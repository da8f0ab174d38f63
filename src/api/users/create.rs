//! `POST /users` (administrators): GitLab's required `email`, `name`, `username` and one of
//! `password`, `reset_password`, `force_random_password`; 201 `UserWithAdmin`. The one create
//! operation, [`create_user`], serves the admin CLI's `user add` too (decisions D9).
//!
//! forgecore has no password sign-in: a given password is checked as GitLab checks it (8 to
//! 128 characters) and never stored; `reset_password`, `force_random_password` and
//! `skip_confirmation` change nothing here.

use super::{entity, require_admin, require_signed_in, validate, Detail, Form};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, users::User, Store};

/// Creates the user `form` describes after GitLab's validation (see [`validate`]): for the
/// API and the CLI alike. `email_required`: the API's users need an email.
pub fn create_user(store: &Store, form: &Form, email_required: bool) -> ApiResult<User> {
    let user = form.apply(User { projects_limit: 100_000, can_create_group: true, ..User::default() });
    store.write(|db| -> ApiResult<_> {
        validate(db, &user, form, email_required)?;
        let inserted = store::users::insert(db, &user.username, &user.name, user.email.as_deref(), user.is_admin)
            .map_err(|e| match store::users::username_taken(db, &user.username, None) {
                Ok(true) => ApiError::Conflict("Username has already been taken".into()),
                _ => e.into(),
            })?;
        let user = User { id: inserted.id, created_at: inserted.created_at, ..user };
        store::users::update(db, &user)?;
        Ok(store::users::find_by_id(db, user.id)?.unwrap_or(user))
    })
}

/// Grape's parameter errors of `POST /users`, all of them, in its order.
fn check_required(params: &Params) -> ApiResult<()> {
    let present = |name: &str| params.raw(name).is_some_and(|v| !v.is_null());
    let mut errors = Vec::new();
    if !present("email") {
        errors.push("email is missing".to_string());
    }
    if !["password", "reset_password", "force_random_password"].iter().any(|n| present(n)) {
        errors.push(
            "password, reset_password, force_random_password are missing, at least one parameter must be provided"
                .into(),
        );
    }
    for name in ["name", "username"] {
        if !present(name) {
            errors.push(format!("{name} is missing"));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiError::ParamError(errors.join(", ")))
    }
}

pub fn create(call: &Call, params: &Params) -> ApiResult<Response> {
    require_signed_in(call)?;
    check_required(params)?;
    let form = Form::read(params)?;
    for flag in ["reset_password", "force_random_password", "skip_confirmation"] {
        params.bool(flag)?;
    }
    require_admin(call)?;
    let user = create_user(&call.ctx.store, &form, true)?;
    Ok(Response::json(201, &entity(call, &user, Detail::Admin)?))
}
