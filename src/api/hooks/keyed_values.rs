//! `PUT` and `DELETE /projects/:id/hooks/:hook_id/url_variables/:key` and
//! `.../custom_headers/:key` (`lib/api/hooks/url_variables.rb`, `custom_headers.rb`): sets one
//! value of the hook's map (`value` required; a key or value the map's schema refuses, or a
//! 21st key, is 422 `Illegal key or value`) or removes one (none by that key: 404
//! `404 URL variable Not Found` / `404 Custom header Not Found`); 204 both. Values are never
//! answered. The two maps differ only in their schema and their noun: one operation, two
//! [`Kind`]s.

use super::{administered, find};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::hooks::{self, Hook};
use std::collections::BTreeMap;

/// How many keys either map holds at most (GitLab's JSON schemas' `maxProperties`).
pub const MAX_KEYS: usize = 20;

/// One of a hook's keyed maps.
pub struct Kind {
    /// The name in 404 `404 <noun> Not Found`.
    pub noun: &'static str,
    pub map: fn(&mut Hook) -> &mut BTreeMap<String, String>,
    /// The map's JSON schema, for one key and its value.
    pub valid: fn(&str, &str) -> bool,
}

/// `url_variables`: keys like identifiers, values of at most 100 characters
/// (`app/validators/json_schemas/web_hooks_url_variables.json`).
pub const URL_VARIABLES: Kind = Kind {
    noun: "URL variable",
    map: |hook| &mut hook.url_variables,
    valid: |key, value| {
        key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !value.is_empty()
            && value.chars().count() <= 100
    },
};

/// `custom_headers`: header names of letters, digits, `.`, `_`, `-`; values of at most 2048
/// characters on one line (`web_hooks_custom_headers.json`).
pub const CUSTOM_HEADERS: Kind = Kind {
    noun: "Custom header",
    map: |hook| &mut hook.custom_headers,
    valid: |key, value| {
        !key.is_empty()
            && key.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
            && !value.is_empty()
            && value.chars().count() <= 2048
            && !value.contains(['\r', '\n', '\0'])
    },
};

pub fn set(call: &Call, kind: &Kind, project: &str, hook_id: &str, key: &str, params: &Params) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let mut hook = find(call, &project, hook_id)?;
    let value = params.required_text("value")?;
    let map = (kind.map)(&mut hook);
    map.insert(key.to_string(), value.clone());
    if !(kind.valid)(key, &value) || map.len() > MAX_KEYS {
        return Err(ApiError::UnprocessableError("Illegal key or value".into()));
    }
    call.ctx.store.write(|db| hooks::update(db, &hook))?;
    Ok(Response::no_content())
}

pub fn unset(call: &Call, kind: &Kind, project: &str, hook_id: &str, key: &str) -> ApiResult<Response> {
    let project = administered(call, project)?;
    let mut hook = find(call, &project, hook_id)?;
    if (kind.map)(&mut hook).remove(key).is_none() {
        return Err(ApiError::NotFound(kind.noun));
    }
    call.ctx.store.write(|db| hooks::update(db, &hook))?;
    Ok(Response::no_content())
}
