//! The Users API (`lib/api/users.rb`, reference `gitlab-administration.md` §2, decisions D9):
//! `GET /user` ([`current`]), `GET /users` ([`list`]), `GET /users/:id` ([`get`]), and for
//! administrators `POST /users` ([`create`]), `PUT /users/:id` ([`update`]), `DELETE
//! /users/:id` ([`delete`]) and the state actions `block`, `unblock`, `deactivate`,
//! `activate`, `ban`, `unban`, `approve`, `reject` (one file each). GitLab's `UserBasic` <
//! `User` < `UserPublic` < `UserWithAdmin` < `UserDetailsWithAdmin` entities are built here
//! once ([`entity`]). `web_url` is under the call's base URL (the external URL when one is
//! set), which python-gitlab's `auth()` checks against the URL it was given.
//!
//! Creating a user is one operation for the API and the admin CLI ([`create::create_user`]):
//! the same validation, the same conflicts. forgecore has no password sign-in: a password is
//! validated as GitLab validates it and never stored.

pub mod activate;
pub mod approve;
pub mod ban;
pub mod block;
pub mod create;
pub mod current;
pub mod deactivate;
pub mod delete;
pub mod get;
pub mod list;
pub mod memberships;
pub mod reject;
pub mod unban;
pub mod unblock;
pub mod update;

use super::Call;
use crate::api::paths::valid_segment;
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_int_text, Params};
use crate::store::Db;
use crate::store::{self, users::User, users::UserState};
use forgecore_date::rfc3339;
use serde_json::{json, Map, Value};

/// How much of a user an entity shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detail {
    /// `UserBasic`: what lists show anyone.
    Basic,
    /// `User`: a profile, for anyone signed in (`GET /users/:id`).
    Profile,
    /// `UserPublic`: the user themself (`GET /user`).
    Public,
    /// `UserWithAdmin`: `UserPublic` plus `is_admin` and the admins' fields.
    Admin,
    /// `UserDetailsWithAdmin`: `UserWithAdmin` plus `highest_role` and sign-in addresses.
    DetailsAdmin,
}

/// The address commits by `user` carry when they have none of their own (GitLab's private
/// commit email), under the host of `base_url`.
pub fn commit_email(user: &User, base_url: &str) -> String {
    store::users::commit_email(user, base_url)
}

/// GitLab's `work_information` helper: `<job title> at <organization>`, either alone, or null.
fn work_information(user: &User) -> Value {
    match (user.profile.job_title.trim().is_empty(), user.profile.organization.trim().is_empty()) {
        (false, false) => json!(format!("{} at {}", user.profile.job_title, user.profile.organization)),
        (false, true) => json!(user.profile.job_title),
        (true, false) => json!(user.profile.organization),
        (true, true) => Value::Null,
    }
}

pub fn entity(call: &Call, user: &User, detail: Detail) -> ApiResult<Value> {
    let mut entity = Map::new();
    let mut put = |key: &str, value: Value| {
        entity.insert(key.to_string(), value);
    };
    put("id", json!(user.id));
    put("username", json!(user.username));
    put("name", json!(user.name));
    put("state", json!(user.state.as_str()));
    put("locked", json!(false));
    put("avatar_url", Value::Null);
    put("web_url", json!(call.web_url(&user.username)));
    if detail >= Detail::Profile {
        put("created_at", json!(rfc3339(user.created_at, 0)));
        put("bio", json!(user.profile.bio));
        put("location", json!(user.profile.location));
        put("public_email", json!(user.profile.public_email.clone().filter(|e| !e.is_empty())));
        for empty in ["linkedin", "twitter", "discord"] {
            put(empty, json!(""));
        }
        put("website_url", json!(user.profile.website_url));
        put("organization", json!(user.profile.organization));
        put("job_title", json!(user.profile.job_title));
        put("pronouns", Value::Null);
        put("bot", json!(user.bot));
        put("work_information", work_information(user));
        put("followers", json!(0));
        put("following", json!(0));
        put("local_time", Value::Null);
    }
    if detail >= Detail::Public {
        let commit_email = commit_email(user, &call.base_url);
        put("last_sign_in_at", Value::Null);
        put("confirmed_at", json!(rfc3339(user.created_at, 0)));
        put("last_activity_on", Value::Null);
        put("email", json!(user.email.clone().unwrap_or_else(|| commit_email.clone())));
        put("theme_id", json!(1));
        put("color_scheme_id", json!(1));
        put("projects_limit", json!(user.projects_limit));
        put("current_sign_in_at", Value::Null);
        put("identities", json!([]));
        put("can_create_group", json!(user.can_create_group));
        put("can_create_project", json!(user.projects_limit > 0));
        put("two_factor_enabled", json!(false));
        put("external", json!(user.external));
        put("private_profile", json!(false));
        put("commit_email", json!(commit_email));
    }
    if detail >= Detail::Admin {
        put("is_admin", json!(user.is_admin));
        put("note", json!(user.profile.note));
        put("namespace_id", Value::Null);
        put("created_by", Value::Null);
    }
    if detail >= Detail::DetailsAdmin {
        let highest = call.ctx.store.read(|db| store::users::highest_role(db, user.id))?;
        put("highest_role", json!(highest));
        put("current_sign_in_ip", Value::Null);
        put("last_sign_in_ip", Value::Null);
    }
    Ok(Value::Object(entity))
}

/// Who `user` is in what they write to a repository now (reflogs, tags): their name (else
/// username) and commit email, at the current time in UTC.
pub fn identity(call: &Call, user: &User) -> crate::git::write::Identity {
    crate::git::write::Identity {
        name: if user.name.trim().is_empty() { user.username.clone() } else { user.name.clone() },
        email: commit_email(user, &call.base_url),
        seconds: store::now_seconds(),
        offset: 0,
    }
}

/// Why GitLab refuses an account's tokens on the API (`Gitlab::Auth::UserAccessDeniedReason`),
/// `None` for an active account. `base_url` is the instance's, which the deactivated text names.
pub fn access_denied(user: &User, base_url: &str) -> Option<String> {
    match user.state {
        UserState::Active => None,
        UserState::BlockedPendingApproval => {
            Some("Your account is pending approval from your administrator and hence blocked.".into())
        }
        UserState::Deactivated => Some(format!(
            "Your account has been deactivated by your administrator. Please log back in from a web browser to \
             reactivate your account at {base_url}"
        )),
        UserState::Blocked | UserState::Banned => Some("Your account has been blocked.".into()),
    }
}

/// The caller, who must be an administrator: 401 for anyone not signed in, 403 for others
/// (GitLab's `authenticated_as_admin!`).
pub fn require_admin<'c>(call: &'c Call) -> ApiResult<&'c User> {
    let user = call.caller.require_user()?;
    if user.is_admin {
        Ok(user)
    } else {
        Err(ApiError::Forbidden(None))
    }
}

/// Writes (`authenticate_non_get!`): 401 for anyone not signed in.
pub fn require_signed_in(call: &Call) -> ApiResult<()> {
    call.caller.require_user().map(|_| ())
}

/// The `:id` of a route: an integer (Grape's `requires :id, type: Integer`), else 400.
pub fn parse_id(text: &str) -> ApiResult<i64> {
    match parse_int_text(text) {
        Some(id) if !text.starts_with(['+', '-']) => Ok(id),
        _ => Err(ApiError::InvalidParam("id".into())),
    }
}

/// The user with this id, else 404 `User Not Found`.
pub fn find(db: &mut Db, id: i64) -> ApiResult<User> {
    store::users::find_by_id(db, id)?.ok_or(ApiError::NotFound("User"))
}

/// What `POST /users`, `PUT /users/:id` and the CLI's `user add` may set; absent is `None`.
#[derive(Debug, Clone, Default)]
pub struct Form {
    pub username: Option<String>,
    pub name: Option<String>,
    pub email: Option<String>,
    pub password: Option<String>,
    pub admin: Option<bool>,
    pub can_create_group: Option<bool>,
    pub external: Option<bool>,
    pub projects_limit: Option<i64>,
    pub bio: Option<String>,
    pub location: Option<String>,
    pub public_email: Option<String>,
    pub website_url: Option<String>,
    pub organization: Option<String>,
    pub job_title: Option<String>,
    pub note: Option<String>,
}

impl Form {
    /// The form's fields from request parameters (wrong types: 400 `<name> is invalid`).
    pub fn read(params: &Params) -> ApiResult<Form> {
        // No text here may hold a NUL (GitLab refuses null bytes in any parameter; PostgreSQL
        // could not store one).
        let text = |name: &str| -> ApiResult<Option<String>> {
            match params.string(name)? {
                Some(value) if value.contains('\0') => Err(ApiError::InvalidParam(name.to_string())),
                other => Ok(other),
            }
        };
        Ok(Form {
            username: text("username")?,
            name: text("name")?,
            email: text("email")?,
            password: text("password")?,
            admin: params.bool("admin")?,
            can_create_group: params.bool("can_create_group")?,
            external: params.bool("external")?,
            projects_limit: params.int("projects_limit")?,
            bio: text("bio")?,
            location: text("location")?,
            public_email: text("public_email")?,
            website_url: text("website_url")?,
            organization: text("organization")?,
            job_title: text("job_title")?,
            note: text("note")?,
        })
    }

    /// `user` with the form's fields set.
    fn apply(&self, mut user: User) -> User {
        let set = |field: &mut String, value: &Option<String>| {
            if let Some(value) = value {
                *field = value.clone();
            }
        };
        set(&mut user.username, &self.username);
        set(&mut user.name, &self.name);
        if let Some(email) = &self.email {
            user.email = Some(email.clone());
        }
        if let Some(admin) = self.admin {
            user.is_admin = admin;
        }
        if let Some(can) = self.can_create_group {
            user.can_create_group = can;
        }
        if let Some(external) = self.external {
            user.external = external;
        }
        if let Some(limit) = self.projects_limit {
            user.projects_limit = limit;
        }
        set(&mut user.profile.bio, &self.bio);
        set(&mut user.profile.location, &self.location);
        if let Some(public_email) = &self.public_email {
            user.profile.public_email = Some(public_email.clone()).filter(|e| !e.is_empty());
        }
        set(&mut user.profile.website_url, &self.website_url);
        set(&mut user.profile.organization, &self.organization);
        set(&mut user.profile.job_title, &self.job_title);
        if let Some(note) = &self.note {
            user.profile.note = Some(note.clone());
        }
        user
    }
}

/// GitLab's username rule (`Gitlab::PathRegex.namespace_format_regex`): one path segment by
/// the rule every path here follows, not ending in `.`.
pub fn valid_username(username: &str) -> bool {
    valid_segment(username) && !username.ends_with('.')
}

/// GitLab's texts for an invalid username, minimum password length and the rest.
const USERNAME_FORMAT: &str =
    "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";
const MIN_PASSWORD: usize = 8;
const MAX_PASSWORD: usize = 128;
const MAX_TEXT: usize = 255;

fn plausible_email(email: &str) -> bool {
    match email.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.is_empty()
                && !domain.contains('@')
                && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        }
        None => false,
    }
}

/// Checks `user` (with the form's password if one was given) as GitLab's `User` model validates it, in
/// `db`; `email_required`: the API's users need one, the CLI's may have none. The conflicts
/// come first, as `POST /users` and `PUT /users/:id` answer them: 409 `Email has already been
/// taken`, 409 `Username has already been taken`; then 400 with GitLab's validation body. A
/// username equal to a top-level group's or project's path is taken too (a namespace), 400
/// as GitLab's `namespace_uniq` reports it.
pub fn validate(db: &mut Db, user: &User, form: &Form, email_required: bool) -> ApiResult<()> {
    let password = form.password.as_deref();
    let except = (user.id != 0).then_some(user.id);
    if let Some(email) = user.email.as_deref().filter(|e| !e.is_empty()) {
        if store::users::email_taken(db, email, except)? {
            return Err(ApiError::Conflict("Email has already been taken".into()));
        }
    }
    if !user.username.is_empty() && store::users::username_taken(db, &user.username, except)? {
        return Err(ApiError::Conflict("Username has already been taken".into()));
    }
    let mut errors: Map<String, Value> = Map::new();
    let mut add = |field: &str, message: &str| {
        let list = errors.entry(field.to_string()).or_insert_with(|| json!([]));
        if let Value::Array(items) = list {
            items.push(json!(message));
        }
    };
    if user.name.contains('\0') {
        add("name", "is invalid");
    } else if user.name.trim().is_empty() {
        add("name", "can't be blank");
    } else if user.name.chars().count() > MAX_TEXT {
        add("name", "is too long (maximum is 255 characters)");
    }
    if user.username.is_empty() {
        add("username", "can't be blank");
    } else if !valid_username(&user.username) {
        add("username", USERNAME_FORMAT);
    } else if store::users::namespace_taken(db, &user.username)? {
        add("username", "has already been taken");
    }
    match user.email.as_deref() {
        None | Some("") if email_required => add("email", "can't be blank"),
        Some(email) if !email.is_empty() && !plausible_email(email) => add("email", "is invalid"),
        _ => {}
    }
    if let Some(password) = password {
        let length = password.chars().count();
        if length < MIN_PASSWORD {
            add("password", "is too short (minimum is 8 characters)");
        } else if length > MAX_PASSWORD {
            add("password", "is too long (maximum is 128 characters)");
        }
    }
    if user.projects_limit < 0 {
        add("projects_limit", "must be greater than or equal to 0");
    } else if user.projects_limit > i64::from(i32::MAX) {
        add("projects_limit", "must be less than or equal to 2147483647");
    }
    // The public email must be one of the user's when it is set (GitLab keeps a changed
    // primary email as a secondary one, so a public email set before stays valid).
    if let Some(public_email) = user.profile.public_email.as_deref().filter(|_| form.public_email.is_some()) {
        let own = user.email.as_deref().is_some_and(|e| e.eq_ignore_ascii_case(public_email));
        if !own {
            add("public_email", "is not an email you own");
        }
    }
    for (field, value) in [
        ("bio", &user.profile.bio),
        ("location", &user.profile.location),
        ("website_url", &user.profile.website_url),
        ("organization", &user.profile.organization),
        ("job_title", &user.profile.job_title),
    ] {
        if value.chars().count() > MAX_TEXT {
            add(field, "is too long (maximum is 255 characters)");
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiError::Validation(Value::Object(errors)))
    }
}

/// The answer of a state action: `201` and `true`, `false` or `null`, as Grape renders the
/// endpoint's value.
pub fn state_answer(value: Option<bool>) -> crate::response::Response {
    crate::response::Response::json(201, &json!(value))
}

/// What a state action makes of its target: a new state (or none) and the answer's value.
pub type Transition = (Option<UserState>, Option<bool>);

/// Runs a state action (administrators only, GitLab's `authenticated_as_admin!`) on the user
/// `id`: `decide` says, from the caller and the target, what to do or why not.
pub fn state_action(
    call: &Call,
    id: &str,
    decide: impl FnOnce(&User, &User) -> ApiResult<Transition>,
) -> ApiResult<crate::response::Response> {
    require_signed_in(call)?;
    let id = parse_id(id)?;
    let me = require_admin(call)?;
    let value = call.ctx.store.write(|db| -> ApiResult<_> {
        let user = find(db, id)?;
        let (state, value) = decide(me, &user)?;
        if let Some(state) = state {
            store::users::set_state(db, user.id, state)?;
        }
        Ok(value)
    })?;
    Ok(state_answer(value))
}

/// GitLab's `User#activate` transition (unblock, activate, approve): from any state but
/// active, to active; `false` when there is nothing to do.
pub fn activate_transition(user: &User) -> Transition {
    match user.state {
        UserState::Active => (None, Some(false)),
        _ => (Some(UserState::Active), Some(true)),
    }
}
