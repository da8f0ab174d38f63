//! Choosing `from` when it is not given (`Repositories::ChangelogTagFinder`): the tag of the last
//! stable version before the requested one.
//!
//! The requested version is read with the default pattern (so `v1.2.3` and `1.2.3` are alike);
//! every tag name with the configuration's `tag_regex` (unanchored, linear-time). A tag is skipped
//! when its `pre` group matched or `major`, `minor` or `patch` is missing; its version is
//! `major.minor.patch[+meta]`, and of several tags with one version the last in name order wins.
//! All versions, the requested one first, are sorted with [`version::compare`]; the tag just below
//! the first occurrence of the requested version is the answer.

use super::version::{self, assemble, default_tag_regex};
use super::ChangelogError;
use regex::RegexBuilder;
use std::collections::HashMap;

/// Limits on a configured `tag_regex` (compiled program size and nesting).
const REGEX_SIZE_LIMIT: usize = 1 << 20;
const REGEX_NEST_LIMIT: u32 = 100;

pub fn version_format_error() -> ChangelogError {
    ChangelogError(
        "The requested `version` attribute format is not correct. Use formats such as `1.0.0` or `v1.0.0`.".into(),
    )
}

/// The requested version as the tag finder reads it: `major.minor.patch[+meta]`.
pub fn requested_version(version: &str) -> Result<String, ChangelogError> {
    let re = default_tag_regex().ok_or_else(version_format_error)?;
    re.captures(version).as_ref().and_then(assemble).ok_or_else(version_format_error)
}

/// The first line of a regex compile error, without the caret diagram.
fn regex_message(e: &regex::Error) -> String {
    let text = e.to_string();
    text.lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("error: ").map(str::to_string))
        .unwrap_or_else(|| text.lines().last().unwrap_or("").trim().to_string())
}

/// Of `tags` (short names, in name order), the name of the previous tag for `version`.
pub fn previous_tag<'a>(
    version: &str,
    tag_regex: &str,
    tags: impl IntoIterator<Item = &'a str>,
) -> Result<Option<&'a str>, ChangelogError> {
    let re = RegexBuilder::new(tag_regex).size_limit(REGEX_SIZE_LIMIT).nest_limit(REGEX_NEST_LIMIT).build().map_err(
        |e| {
            ChangelogError(format!(
                "The regular expression to use for finding the previous tag for a version is invalid: {}",
                regex_message(&e)
            ))
        },
    )?;
    let requested = requested_version(version)?;
    let mut by_version: HashMap<String, &'a str> = HashMap::new();
    let mut versions = vec![requested.clone()];
    for name in tags {
        let Some(captures) = re.captures(name) else { continue };
        if captures.name("pre").is_some() {
            continue;
        }
        let Some(found) = assemble(&captures) else { continue };
        by_version.insert(found.clone(), name);
        versions.push(found);
    }
    versions.sort_by(|a, b| version::compare(a, b));
    let index = versions.iter().position(|v| *v == requested).unwrap_or(0);
    if index == 0 {
        return Ok(None);
    }
    let below = &versions[index - 1];
    Ok(by_version.get(below).copied())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::DEFAULT_TAG_REGEX;

    #[test]
    fn the_seed_example() {
        let tags = ["v1.0.0-pre1", "v1.0.0", "v1.1.0", "v2.0.0"];
        let prev = |v: &str| previous_tag(v, DEFAULT_TAG_REGEX, tags).unwrap();
        assert_eq!(prev("2.1.0"), Some("v2.0.0"));
        assert_eq!(prev("1.1.1"), Some("v1.1.0"));
        assert_eq!(prev("1.2.0"), Some("v1.1.0"));
        assert_eq!(prev("v1.2.0"), Some("v1.1.0"));
        assert_eq!(prev("2.0.0"), Some("v1.1.0"), "a tag of the same version is not before it");
        assert_eq!(prev("1.0.0"), None);
        assert_eq!(prev("0.0.1"), None);
    }

    #[test]
    fn custom_patterns_and_errors() {
        let tags = ["release-1.0.0", "release-1.1.0", "v9.0.0"];
        let re = r"^release-(?P<major>\d+)\.(?P<minor>\d+)\.(?P<patch>\d+)$";
        assert_eq!(previous_tag("2.0.0", re, tags).unwrap(), Some("release-1.1.0"));
        let e = previous_tag("2.0.0", r"(?<=a)b", tags).unwrap_err();
        assert!(
            e.0.starts_with("The regular expression to use for finding the previous tag for a version is invalid: "),
            "{}",
            e.0
        );
        assert!(!e.0.contains('\n'));
        assert_eq!(previous_tag("1.0", DEFAULT_TAG_REGEX, tags).unwrap_err(), version_format_error());
    }
}
