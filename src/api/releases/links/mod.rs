//! A release's asset links (`lib/api/release/links.rb`): list, get, create, update, delete
//! under `/projects/:id/releases/:tag_name/assets/links`; one file per operation. The rules of
//! GitLab's `Releases::Link` model are here once, for these routes and for the links a
//! release is created with: `url` required with a scheme `http`, `https` or `ftp`, unique in
//! the release; `name` required and unique; `filepath` (`direct_asset_path`) matching
//! `\A/(?:[\-\.\w]+/?)*[\da-zA-Z]+\z`, at most 128 characters, unique; `link_type` one of
//! `other` (default), `runbook`, `image`, `package`.

pub mod create;
pub mod delete;
pub mod get;
pub mod list;
pub mod update;

use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult};
use crate::store::projects::Project;
use crate::store::releases::{self, Link, Release};
use serde_json::Value;

pub const LINK_TYPES: [&str; 4] = ["other", "runbook", "image", "package"];

/// A link as a request gives it.
#[derive(Debug, Clone, Default)]
pub struct LinkInput {
    pub name: Option<String>,
    pub url: Option<String>,
    pub filepath: Option<String>,
    pub link_type: Option<String>,
}

fn text(value: Option<&Value>) -> Option<String> {
    match value {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

impl LinkInput {
    /// From the request's parameters (a link route) or one item of `assets.links`.
    pub fn from_object(get: impl Fn(&str) -> Option<Value>) -> LinkInput {
        LinkInput {
            name: text(get("name").as_ref()),
            url: text(get("url").as_ref()),
            // `direct_asset_path` is the current name, `filepath` the deprecated one.
            filepath: text(get("direct_asset_path").as_ref()).or_else(|| text(get("filepath").as_ref())),
            link_type: text(get("link_type").as_ref()),
        }
    }
}

/// Whether `path` is a link's `filepath` as GitLab's `FILEPATH_REGEX` has it.
fn valid_filepath(path: &str) -> bool {
    let Some(rest) = path.strip_prefix('/') else { return false };
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-' || c == '.';
    !rest.is_empty()
        && !rest.contains("//")
        && rest.chars().all(|c| word(c) || c == '/')
        && rest.chars().last().is_some_and(|c| c.is_ascii_alphanumeric())
}

/// The problems of `links` (the release's links after the change), as GitLab's model states
/// them (`Links url is blocked: ...`, `Links name has already been taken`), without the
/// `Validation failed: ` prefix; empty when they are valid.
pub fn problems(links: &[Link]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, link) in links.iter().enumerate() {
        let earlier = &links[..i];
        if link.url.trim().is_empty() {
            out.push("Links url can't be blank".to_string());
        } else if !["http://", "https://", "ftp://"].iter().any(|s| link.url.to_ascii_lowercase().starts_with(s))
            || link.url.split("://").nth(1).is_none_or(|rest| rest.is_empty() || rest.contains(char::is_whitespace))
        {
            out.push("Links url is blocked: Only allowed schemes are http, https, ftp".to_string());
        } else if earlier.iter().any(|l| l.url == link.url) {
            out.push("Links url has already been taken".to_string());
        }
        if link.name.trim().is_empty() {
            out.push("Links name can't be blank".to_string());
        } else if earlier.iter().any(|l| l.name == link.name) {
            out.push("Links name has already been taken".to_string());
        }
        if let Some(path) = &link.filepath {
            if path.chars().count() > 128 {
                out.push("Links filepath is too long (maximum is 128 characters)".to_string());
            } else if !valid_filepath(path) {
                out.push("Links filepath is in an invalid format".to_string());
            } else if earlier.iter().any(|l| l.filepath.as_ref() == Some(path)) {
                out.push("Links filepath has already been taken".to_string());
            }
        }
        if !LINK_TYPES.contains(&link.link_type.as_str()) {
            out.push("Links link type is not included in the list".to_string());
        }
    }
    out.dedup();
    out
}

/// The 400 of invalid links: `{"message": "Validation failed: ..."}`.
pub fn invalid(problems: &[String]) -> ApiError {
    ApiError::validation(format!("Validation failed: {}", problems.join(", ")))
}

/// The project (read for `ability`) and its release of `tag_name`; 404 `404 Not Found` when
/// there is none.
pub fn release_of(call: &Call, id: &str, tag_name: &str, ability: ProjectAbility) -> ApiResult<(Project, Release)> {
    let project = call.project(id, ProjectAbility::ReadRelease)?;
    call.ctx.store.read(|db| crate::auth::permissions::authorize_project(db, &call.caller, &project, ability))?;
    let release = super::find(call, &project, tag_name)?;
    Ok((project, release))
}

/// The link `link_id` of the release, else 404 `404 Not found`.
pub fn find(call: &Call, release: &Release, link_id: &str) -> ApiResult<Link> {
    let id: i64 = link_id.parse().map_err(|_| ApiError::InvalidParam("link_id".into()))?;
    let links = call.ctx.store.read(|db| releases::links(db, release.id))?;
    links.into_iter().find(|l| l.id == id).ok_or(ApiError::RecordNotFound)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(name: &str, url: &str, filepath: Option<&str>) -> Link {
        Link {
            id: 0,
            release_id: 0,
            name: name.into(),
            url: url.into(),
            filepath: filepath.map(str::to_string),
            link_type: "other".into(),
            created_at: 0,
        }
    }

    #[test]
    fn link_rules() {
        assert!(problems(&[link("a", "https://x/y", Some("/bin/app-1.0"))]).is_empty());
        assert_eq!(
            problems(&[link("a", "javascript:alert(1)", None)]),
            ["Links url is blocked: Only allowed schemes are http, https, ftp"]
        );
        assert_eq!(
            problems(&[link("a", "https://x/1", None), link("a", "https://x/1", None)]),
            ["Links url has already been taken", "Links name has already been taken"]
        );
        assert_eq!(problems(&[link("a", "https://x", Some("bin"))]), ["Links filepath is in an invalid format"]);
        assert_eq!(problems(&[link("a", "https://x", Some("/bin/"))]), ["Links filepath is in an invalid format"]);
    }
}
