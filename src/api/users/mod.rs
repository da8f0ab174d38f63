//! Users as tools see them (`gitlab-repository-families.md` §6): `GET /user` ([`current`])
//! and `GET /users/:id` ([`get`]), GitLab's `UserBasic` < `UserPublic` < `UserWithAdmin`
//! entities built here once. `web_url` is under the call's base URL (the external URL when
//! one is set), which python-gitlab's `auth()` checks against the URL it was given.

pub mod current;
pub mod get;

use super::Call;
use crate::error::ApiResult;
use crate::store::{self, users::User};
use forgecore_date::rfc3339;
use serde_json::{json, Map, Value};

/// How much of a user an entity shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// `UserBasic`: what anyone may see.
    Basic,
    /// `UserPublic`: the user themself (and administrators).
    Public,
    /// `UserWithAdmin`: `UserPublic` plus `is_admin`, for administrators.
    Admin,
}

/// The address commits by `user` carry when they have none of their own (GitLab's private
/// commit email), under the host of `base_url`.
pub fn commit_email(user: &User, base_url: &str) -> String {
    let host = base_url.split("://").nth(1).unwrap_or("localhost").split(['/', ':']).next().unwrap_or("localhost");
    user.email.clone().unwrap_or_else(|| format!("{}-{}@users.noreply.{host}", user.id, user.username))
}

pub fn entity(call: &Call, user: &User, detail: Detail) -> ApiResult<Value> {
    let mut entity = Map::new();
    let mut put = |key: &str, value: Value| {
        entity.insert(key.to_string(), value);
    };
    put("id", json!(user.id));
    put("username", json!(user.username));
    put("name", json!(user.name));
    put("state", json!("active"));
    put("locked", json!(false));
    put("avatar_url", Value::Null);
    put("web_url", json!(call.web_url(&user.username)));
    if detail != Detail::Basic {
        let created = call.ctx.store.read(|db| store::users::created_at(db, user.id))?.unwrap_or(0);
        let commit_email = commit_email(user, &call.base_url);
        put("created_at", json!(rfc3339(created, 0)));
        for empty in ["bio", "location", "linkedin", "twitter", "discord", "website_url", "organization", "job_title"] {
            put(empty, json!(""));
        }
        put("public_email", Value::Null);
        put("pronouns", Value::Null);
        put("bot", json!(false));
        put("work_information", Value::Null);
        put("followers", json!(0));
        put("following", json!(0));
        put("local_time", Value::Null);
        put("last_sign_in_at", Value::Null);
        put("confirmed_at", json!(rfc3339(created, 0)));
        put("last_activity_on", Value::Null);
        put("email", json!(user.email.clone().unwrap_or_else(|| commit_email.clone())));
        put("theme_id", json!(1));
        put("color_scheme_id", json!(1));
        put("projects_limit", json!(100_000));
        put("current_sign_in_at", Value::Null);
        put("identities", json!([]));
        put("can_create_group", json!(true));
        put("can_create_project", json!(true));
        put("two_factor_enabled", json!(false));
        put("external", json!(false));
        put("private_profile", json!(false));
        put("commit_email", json!(commit_email));
    }
    if detail == Detail::Admin {
        put("is_admin", json!(user.is_admin));
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
