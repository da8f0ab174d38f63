//! What `POST /projects` and `PUT /projects/:id` share: GitLab's rules for a project's name
//! and path, the merge settings, and visibility within a group's.

use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::store::projects::Settings;
use crate::store::{groups::Group, Visibility};
use serde_json::{json, Map, Value};

/// GitLab's `project_name_regex_message`.
const NAME_MESSAGE: &str = "can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces. It must start \
                            with a letter, digit, emoji, or '_'.";
/// GitLab's `project_path_format_message`.
const PATH_MESSAGE: &str =
    "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";

pub const MERGE_METHODS: [&str; 3] = ["ff", "rebase_merge", "merge"];
pub const SQUASH_OPTIONS: [&str; 4] = ["never", "always", "default_on", "default_off"];

/// Model errors by attribute, answered together as GitLab's `render_validation_error!` does:
/// 400 `{"message":{"<attr>":["<msg>"]}}`.
#[derive(Default)]
pub struct Errors(Map<String, Value>);

impl Errors {
    pub fn add(&mut self, attribute: &str, message: impl Into<String>) {
        let entry = self.0.entry(attribute.to_string()).or_insert_with(|| json!([]));
        if let Value::Array(messages) = entry {
            messages.push(Value::String(message.into()));
        }
    }

    pub fn into_result(self) -> ApiResult<()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ApiError::Validation(Value::Object(self.0)))
        }
    }
}

fn emoji_or_alnum(c: char) -> bool {
    c.is_alphanumeric() || ('\u{00A9}'..='\u{1f9ff}').contains(&c)
}

/// GitLab's `project_name_regex`.
pub fn check_name(name: &str, errors: &mut Errors) {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| emoji_or_alnum(c) || c == '_');
    let rest_ok =
        chars.all(|c| emoji_or_alnum(c) || matches!(c, '_' | '.' | '+' | ' ' | '-' | '\u{2010}'..='\u{2015}'));
    if name.trim().is_empty() {
        errors.add("name", "can't be blank");
    } else if !(first_ok && rest_ok) {
        errors.add("name", NAME_MESSAGE);
    }
    if name.chars().count() > 255 {
        errors.add("name", "is too long (maximum is 255 characters)");
    }
}

/// GitLab's `project_path_format_regex`, and no `.git`/`.atom` ending.
pub fn valid_path(path: &str) -> bool {
    let first_ok = path.chars().next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    first_ok
        && path.len() <= 255
        && path.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && !path.ends_with(".git")
        && !path.ends_with(".atom")
}

pub fn check_path(path: &str, errors: &mut Errors) {
    if path.is_empty() {
        errors.add("path", "can't be blank");
    } else if !valid_path(path) {
        errors.add("path", PATH_MESSAGE);
    }
}

/// Rails' `parameterize` as GitLab applies it to a name that is no valid path: lower case,
/// runs of anything but letters, digits, `-` and `_` made one `-`, no `-` at either end.
pub fn parameterize(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let mut squeezed = String::new();
    for c in out.chars() {
        if !(c == '-' && squeezed.ends_with('-')) {
            squeezed.push(c);
        }
    }
    squeezed.trim_matches('-').to_string()
}

/// GitLab's check of a project's visibility against its group's:
/// `public is not allowed in a private group.`
pub fn check_visibility(visibility: Visibility, group: Option<&Group>, errors: &mut Errors) {
    if let Some(group) = group {
        if visibility > group.visibility {
            errors.add(
                "visibility_level",
                format!("{} is not allowed in a {} group.", visibility.as_str(), group.visibility.as_str()),
            );
        }
    }
}

/// `visibility` as given, 400 for a value outside GitLab's three.
pub fn visibility(params: &Params) -> ApiResult<Option<Visibility>> {
    match params.string("visibility")? {
        None => Ok(None),
        Some(text) => Visibility::parse(&text).map(Some).ok_or(ApiError::InvalidValue("visibility".into())),
    }
}

/// A string parameter that must be one of `allowed` (Grape's `values:`).
fn one_of(params: &Params, name: &str, allowed: &[&str]) -> ApiResult<Option<String>> {
    match params.string(name)? {
        None => Ok(None),
        Some(value) if allowed.contains(&value.as_str()) => Ok(Some(value)),
        Some(_) => Err(ApiError::InvalidValue(name.into())),
    }
}

/// The merge settings `params` change in `settings`; whether any was given.
pub fn apply_settings(params: &Params, settings: &mut Settings) -> ApiResult<bool> {
    let mut given = false;
    if let Some(method) = one_of(params, "merge_method", &MERGE_METHODS)? {
        settings.merge_method = method;
        given = true;
    }
    if let Some(option) = one_of(params, "squash_option", &SQUASH_OPTIONS)? {
        settings.squash_option = option;
        given = true;
    }
    let flags: [(&str, &mut bool); 4] = [
        ("remove_source_branch_after_merge", &mut settings.remove_source_branch_after_merge),
        ("only_allow_merge_if_pipeline_succeeds", &mut settings.only_allow_merge_if_pipeline_succeeds),
        ("allow_merge_on_skipped_pipeline", &mut settings.allow_merge_on_skipped_pipeline),
        (
            "only_allow_merge_if_all_discussions_are_resolved",
            &mut settings.only_allow_merge_if_all_discussions_are_resolved,
        ),
    ];
    for (name, value) in flags {
        if let Some(flag) = params.bool(name)? {
            *value = flag;
            given = true;
        }
    }
    Ok(given)
}

/// `topics` (or the deprecated `tag_list`), trimmed, empty ones and repeats dropped.
pub fn topics(params: &Params) -> ApiResult<Option<Vec<String>>> {
    let Some(list) = params.string_list("topics")?.or(params.string_list("tag_list")?) else { return Ok(None) };
    let mut topics: Vec<String> = Vec::new();
    for topic in list.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
        if !topics.iter().any(|t| t.eq_ignore_ascii_case(topic)) {
            topics.push(topic.to_string());
        }
    }
    Ok(Some(topics))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_from_names_as_rails_parameterizes() {
        assert_eq!(parameterize("My Project"), "my-project");
        assert_eq!(parameterize("  Hello,  World! "), "hello-world");
        assert_eq!(parameterize("a_b-c"), "a_b-c");
        assert!(valid_path("app.v2") && !valid_path("-x") && !valid_path("x.git") && !valid_path("a b"));
    }

    #[test]
    fn names_follow_gitlabs_rule() {
        let check = |name: &str| {
            let mut errors = Errors::default();
            check_name(name, &mut errors);
            errors.into_result().is_ok()
        };
        assert!(check("My Project + more.v2") && check("_x") && !check("-x") && !check("a/b") && !check(" "));
    }
}
