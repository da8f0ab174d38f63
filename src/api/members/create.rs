//! `POST /groups/:id/members`, `POST /projects/:id/members`: add a user (or several, comma
//! separated) with `access_level`, `expires_at` and `member_role_id`. [`add`] is the one way a
//! membership is made: the route and the administration commands both call it.

use super::{
    checked_role, entity, invalid, read_access_level, read_expires_at, read_member_role_id, visible, Actor, Scope,
    Standing, Target,
};
use crate::api::Call;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_int_text, Params};
use crate::response::Response;
use crate::store::{
    self,
    members::{Member, NewMember},
    users::User,
};
use serde_json::{json, Map, Value};

/// What a new membership is to be.
#[derive(Debug, Clone)]
pub struct Addition {
    pub access_level: i64,
    /// `YYYY-MM-DD`, already checked not to be in the past.
    pub expires_at: Option<String>,
    pub member_role_id: Option<i64>,
}

/// Makes `user` a member of `target` for `actor`: 403 when the actor may not manage the
/// members, 409 `Member already exists` for a live direct membership, the custom-role
/// validations (400), and GitLab's `the member access level can't be higher than the current
/// user's one` (400) when the actor would give more than they have.
pub fn add(ctx: &Context, actor: &Actor, target: &Target, user: &User, addition: &Addition) -> ApiResult<Member> {
    let source = target.source();
    ctx.store.write(|db| -> ApiResult<_> {
        let standing = Standing::of(db, actor, target)?;
        standing.require_manage()?;
        if store::members::find_direct(db, source, user.id)?.is_some() {
            return Err(ApiError::Conflict("Member already exists".into()));
        }
        // A project or group access token's bot belongs to its resource only (GitLab's
        // `validates :user_id, uniqueness` for `project_bot?` members, `app/models/member.rb`).
        if store::tokens::is_placed_bot(db, user.id)? {
            return Err(invalid("user_id", "project bots cannot be added to other groups / projects"));
        }
        standing.require_owner_assignment(addition.access_level)?;
        let role = match addition.member_role_id {
            Some(id) => Some(checked_role(db, target, id, addition.access_level)?),
            None => None,
        };
        if standing.prevents(addition.access_level, role.as_ref()) {
            return Err(invalid("base", "the member access level can't be higher than the current user's one"));
        }
        Ok(store::members::insert(
            db,
            &NewMember {
                source,
                user_id: user.id,
                access_level: addition.access_level,
                member_role_id: addition.member_role_id,
                expires_at: addition.expires_at.as_deref(),
                created_by: match actor {
                    Actor::User(u) => Some(u.id),
                    Actor::Administration => None,
                },
            },
        )?)
    })
}

/// Who to add: `user_id` or `username`, exactly one; either may be a comma-separated list.
enum Invitees {
    One(User),
    Many(Vec<String>, bool),
}

fn invitees(call: &Call, params: &Params) -> ApiResult<Invitees> {
    let user_id = params.string("user_id")?.filter(|s| !s.is_empty());
    let username = params.string("username")?.filter(|s| !s.is_empty());
    let (text, by_id) = match (user_id, username) {
        (Some(_), Some(_)) => return Err(ApiError::ParamError("user_id, username are mutually exclusive".into())),
        (None, None) => {
            return Err(ApiError::ParamError(
                "user_id, username are missing, exactly one parameter must be provided".into(),
            ))
        }
        (Some(id), None) => (id, true),
        (None, Some(name)) => (name, false),
    };
    if text.contains(',') {
        let items = text.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
        return Ok(Invitees::Many(items, by_id));
    }
    match find_user(call, &text, by_id)? {
        Some(user) => Ok(Invitees::One(user)),
        None => Err(ApiError::NotFound("User")),
    }
}

fn find_user(call: &Call, text: &str, by_id: bool) -> ApiResult<Option<User>> {
    call.ctx.store.read(|db| -> ApiResult<_> {
        if by_id {
            match parse_int_text(text) {
                Some(id) => Ok(store::users::find_by_id(db, id)?),
                None => Err(ApiError::InvalidParam("user_id".into())),
            }
        } else {
            Ok(store::users::find_by_username(db, text)?)
        }
    })
}

pub fn create(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    let access_level = read_access_level(params)?;
    let expires_at = read_expires_at(params)?.flatten();
    let member_role_id = read_member_role_id(params)?.flatten();
    let target = visible(call, scope)?;
    let actor = Actor::of(call)?;
    call.ctx.store.read(|db| Standing::of(db, &actor, &target))?.require_manage()?;
    let addition = Addition { access_level, expires_at, member_role_id };
    match invitees(call, params)? {
        Invitees::One(user) => {
            let member = add(call.ctx, &actor, &target, &user, &addition)?;
            let shown = call.ctx.store.read(|db| entity(db, &call.base_url, member))?;
            Ok(Response::json(201, &shown))
        }
        Invitees::Many(items, by_id) => {
            // `Members::CreateService`: each one added on its own; the answer says which failed.
            let mut errors = Map::new();
            for item in items {
                let outcome = match find_user(call, &item, by_id) {
                    Ok(Some(user)) => add(call.ctx, &actor, &target, &user, &addition).map(|_| ()),
                    Ok(None) => Err(ApiError::NotFound("User")),
                    Err(e) => Err(e),
                };
                if let Err(error) = outcome {
                    errors.insert(item, Value::String(message_of(&error)));
                }
            }
            if errors.is_empty() {
                Ok(Response::json(201, &json!({"status": "success"})))
            } else {
                Ok(Response::json(201, &json!({"status": "error", "message": errors})))
            }
        }
    }
}

/// One line for an error in a list answer.
fn message_of(error: &ApiError) -> String {
    let body = error.body();
    let message = body.get("message").or_else(|| body.get("error")).cloned().unwrap_or(Value::Null);
    match message {
        Value::String(s) => s,
        Value::Object(fields) => fields
            .iter()
            .map(|(field, texts)| {
                let texts: Vec<String> =
                    texts.as_array().into_iter().flatten().filter_map(|t| t.as_str().map(str::to_string)).collect();
                if field == "base" {
                    texts.join(", ")
                } else {
                    format!("{field} {}", texts.join(", "))
                }
            })
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}
