//! Project topics (`lib/api/topics.rb`): list and get for anyone, create, update, delete and
//! merge for administrators (`authenticated_as_admin!`: 401 anonymously, 403 otherwise). A topic
//! is named in the path by its id (an integer, else 400 `id is invalid`); a missing one is
//! Grape's `RecordNotFound` 404. The entity is `Entities::Projects::Topic`, keys in its order;
//! topics have no avatars here (`avatar_url` null). Validations are the model's
//! (`app/models/projects/topic.rb`), answered as `render_validation_error!` does.

pub mod create;
pub mod delete;
pub mod get;
pub mod list;
pub mod merge;
pub mod update;

use super::ordered::Obj;
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int_text;
use crate::store::topics::{self, Topic};
use crate::store::Db;
use serde_json::{json, Map, Value};

/// The one organization of a forgecore instance (GitLab's default organization).
const ORGANIZATION_ID: i64 = 1;

pub fn entity(topic: &Topic) -> Obj {
    let mut entity = Obj::new();
    entity
        .put("id", topic.id)
        .put("name", topic.name.as_str())
        .put("title", topic.title.as_str())
        .put("description", topic.description.as_deref())
        .put("total_projects_count", topic.total_projects_count)
        .put("organization_id", ORGANIZATION_ID)
        .put("avatar_url", Value::Null);
    entity
}

/// A name another topic has, as the model's uniqueness validation reports it.
fn taken() -> ApiError {
    ApiError::Validation(json!({"name": ["has already been taken"]}))
}

/// The id a path names: 400 `<param> is invalid` when it is not an integer.
fn id(text: &str, param: &str) -> ApiResult<i64> {
    parse_int_text(text).ok_or_else(|| ApiError::InvalidParam(param.into()))
}

/// The topic `id` names, or Grape's 404 `Not found`.
fn find(db: &mut Db, id: i64) -> ApiResult<Topic> {
    topics::find(db, id)?.ok_or(ApiError::RecordNotFound)
}

/// The model's validations of what a create or update sets, collected as GitLab reports them
/// (`{"message": {"name": ["has already been taken"]}}`). `taken`: another topic has the name.
fn validate(name: &str, title: Option<&str>, description: Option<&str>, taken: bool) -> ApiResult<()> {
    let mut errors: Map<String, Value> = Map::new();
    let mut add = |field: &str, text: &str| {
        if let Some(list) = errors.entry(field.to_string()).or_insert_with(|| json!([])).as_array_mut() {
            list.push(json!(text));
        }
    };
    if name.trim().is_empty() {
        add("name", "can't be blank");
    } else if name.chars().count() > 255 {
        add("name", "is too long (maximum is 255 characters)");
    }
    if taken {
        add("name", "has already been taken");
    }
    if name.contains(['\n', '\r', '\u{b}', '\u{c}', '\u{85}', '\u{2028}', '\u{2029}']) {
        add("name", "has characters that are not allowed");
    } else if !name.is_ascii() {
        add("name", "must only include ASCII characters");
    }
    if let Some(title) = title {
        if title.trim().is_empty() {
            add("title", "can't be blank");
        } else if title.chars().count() > 255 {
            add("title", "is too long (maximum is 255 characters)");
        }
    }
    if description.is_some_and(|d| d.chars().count() > 1024) {
        add("description", "is too long (maximum is 1024 characters)");
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiError::Validation(Value::Object(errors)))
    }
}
