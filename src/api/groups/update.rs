//! `PUT /groups/:id` (`gitlab-administration.md` §7): an Owner (or an administrator) changes
//! the group's `name`, `path`, `visibility` and settings; 200 with `GroupDetail`. A new path
//! moves the full path of every subgroup and project below it in the same transaction, so the
//! projects are served (REST and git over HTTP) at their new paths at once. Refusals: 401
//! anonymous, 404 a group the caller cannot see, 403 not an Owner, 400 GitLab's validation body
//! (`{"message": {"path": ["has already been taken"]}}`, a visibility above the parent's or
//! below what the group holds).

use super::{apply_settings, detail, name_errors, parent_visibility_error, path_errors};
use crate::api::Call;
use crate::auth::permissions;
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::groups;
use crate::store::StoreError;
use serde_json::{Map, Value};

/// `render_validation_error!`: `{"message": {"<attribute>": ["<message>", ...]}}`.
fn validation_error(errors: &[(&str, String)]) -> ApiError {
    let mut body = Map::new();
    for (key, message) in errors {
        let entry = body.entry(key.to_string()).or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(messages) = entry {
            messages.push(Value::String(message.clone()));
        }
    }
    ApiError::Validation(Value::Object(body))
}

pub fn update(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let Caller::User(_) = &call.caller else { return Err(ApiError::Unauthorized) };
    let group = call.group(id)?;
    let name = super::text_param(params, "name")?;
    let path = super::text_param(params, "path")?;
    let visibility = super::visibility_param(params)?;
    let detailed = call.ctx.store.write(|db| -> ApiResult<_> {
        groups::lock(db, group.id)?;
        let group = groups::find_by_id(db, group.id)?.ok_or(ApiError::NotFound("Group"))?;
        if !permissions::is_group_owner(db, &call.caller, &group)? {
            return Err(ApiError::Forbidden(None));
        }
        let mut settings = super::detailed(db, &group)?.settings;
        apply_settings(params, &mut settings)?;
        let name = name.clone().unwrap_or_else(|| group.name.clone());
        let visibility = visibility.unwrap_or(group.visibility);
        let mut errors = name_errors(&name);
        let new_path = path.as_deref().filter(|p| *p != group.path);
        if let Some(new_path) = new_path {
            errors.extend(path_errors(new_path, group.parent_id.is_none()));
            let full_path = match group.full_path.rsplit_once('/') {
                Some((parent, _)) => format!("{parent}/{new_path}"),
                None => new_path.to_string(),
            };
            if errors.iter().all(|(key, _)| *key != "path")
                && crate::store::namespaces::path_taken(db, &full_path, Some(group.id))?
            {
                errors.push(("path", "has already been taken".into()));
            }
        }
        if visibility != group.visibility {
            if let Some(parent_id) = group.parent_id {
                if let Some(parent) = groups::find_by_id(db, parent_id)? {
                    errors.extend(parent_visibility_error(visibility, &parent));
                }
            }
            let (subgroups, projects) = groups::highest_visibility_below(db, group.id)?;
            let v = visibility.as_str();
            if projects.is_some_and(|p| p > visibility) {
                errors.push((
                    "visibility_level",
                    format!("{v} is not allowed since this group contains projects with higher visibility."),
                ));
            }
            if subgroups.is_some_and(|s| s > visibility) {
                errors.push((
                    "visibility_level",
                    format!("{v} is not allowed since there are sub-groups with higher visibility."),
                ));
            }
        }
        if !errors.is_empty() {
            return Err(validation_error(&errors));
        }
        groups::update(db, group.id, &name, visibility, &settings)?;
        if let Some(new_path) = new_path {
            match groups::rename(db, &group, new_path) {
                Err(StoreError::Conflict(_)) => {
                    return Err(validation_error(&[("path", "has already been taken".into())]))
                }
                other => other?,
            };
        }
        let group = groups::find_by_id(db, group.id)?.ok_or(ApiError::NotFound("Group"))?;
        super::detailed(db, &group)
    })?;
    detail(call, &detailed, false, 200)
}
