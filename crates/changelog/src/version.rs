//! Versions: GitLab's semantic-version patterns and the order of the `version_sorter` gem, which
//! GitLab uses both to pick the previous tag and to place a section in a changelog file.

use regex::Regex;
use std::cmp::Ordering;
use std::sync::LazyLock;

/// `Gitlab::Regex.unbounded_semver_regex` (unanchored; pre-release alternatives in their greedy
/// order), with ASCII digits as in Ruby.
pub const UNBOUNDED_SEMVER: &str = r"(?P<major>0|[1-9][0-9]*)\.(?P<minor>0|[1-9][0-9]*)\.(?P<patch>0|[1-9][0-9]*)(?:-(?P<prerelease>(?:[0-9]*[a-zA-Z-][0-9a-zA-Z-]*|[1-9][0-9]*|0)(?:\.(?:[0-9]*[a-zA-Z-][0-9a-zA-Z-]*|[1-9][0-9]*|0))*))?(?:\+(?P<build>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?";

/// `Gitlab::Changelog::Config::DEFAULT_TAG_REGEX`: semver with an optional leading `v`, named
/// groups `major`, `minor`, `patch`, `pre` and `meta` (RE2 syntax; `\d` is ASCII there).
pub const DEFAULT_TAG_REGEX: &str = r"^v?(?P<major>0|[1-9][0-9]*)\.(?P<minor>0|[1-9][0-9]*)\.(?P<patch>0|[1-9][0-9]*)(?:-(?P<pre>(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+(?P<meta>[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$";

static UNBOUNDED: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(UNBOUNDED_SEMVER).ok());
static DEFAULT_TAG: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(DEFAULT_TAG_REGEX).ok());

/// Whether `text` contains a semantic version anywhere (the API's parameter check).
pub fn contains_semver(text: &str) -> bool {
    UNBOUNDED.as_ref().is_some_and(|re| re.is_match(text))
}

/// The default tag pattern, compiled once.
pub fn default_tag_regex() -> Option<&'static Regex> {
    DEFAULT_TAG.as_ref()
}

/// `major.minor.patch[+meta]` from a match of a tag pattern, when the three numbers are there.
pub fn assemble(captures: &regex::Captures<'_>) -> Option<String> {
    let major = captures.name("major")?.as_str();
    let minor = captures.name("minor")?.as_str();
    let patch = captures.name("patch")?.as_str();
    let mut version = format!("{major}.{minor}.{patch}");
    if let Some(meta) = captures.name("meta") {
        version.push('+');
        version.push_str(meta.as_str());
    }
    Some(version)
}

/// One component of a version for `version_sorter`: a number, or a run of letters (with a
/// leading `-` when there was one); other characters separate components.
#[derive(Debug, PartialEq, Eq)]
enum Component<'a> {
    Number(u32),
    Text(&'a [u8]),
}

/// At most this many components count, as in the gem.
const MAX_COMPONENTS: usize = 64;

fn components(version: &str) -> Vec<Component<'_>> {
    let s = version.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() && out.len() < MAX_COMPONENTS {
        if s[i].is_ascii_digit() {
            let start = i;
            while i < s.len() && s[i].is_ascii_digit() {
                i += 1;
            }
            // A number that overflows 32 bits is compared as text, like the gem does.
            match version[start..i].parse::<u32>() {
                Ok(n) => out.push(Component::Number(n)),
                Err(_) => out.push(Component::Text(&s[start..i])),
            }
        } else if s[i] == b'-' || s[i].is_ascii_alphabetic() {
            let start = i;
            if s[i] == b'-' {
                i += 1;
            }
            while i < s.len() && s[i].is_ascii_alphabetic() {
                i += 1;
            }
            out.push(Component::Text(&s[start..i]));
        } else {
            i += 1;
        }
    }
    out
}

/// `VersionSorter`'s comparison: component by component, numbers numerically, text bytewise,
/// a number above text; when one runs out, a following number makes the longer one greater and
/// following text makes it smaller (so `1.0.0-rc1` < `1.0.0` < `1.0.0.1`).
pub fn compare(a: &str, b: &str) -> Ordering {
    let (ca, cb) = (components(a), components(b));
    for (x, y) in ca.iter().zip(cb.iter()) {
        let ordering = match (x, y) {
            (Component::Number(x), Component::Number(y)) => x.cmp(y),
            (Component::Text(x), Component::Text(y)) => x.cmp(y),
            (Component::Number(_), Component::Text(_)) => Ordering::Greater,
            (Component::Text(_), Component::Number(_)) => Ordering::Less,
        };
        if ordering != Ordering::Equal {
            return ordering;
        }
    }
    let n = ca.len().min(cb.len());
    match ca.len().cmp(&cb.len()) {
        Ordering::Less => match cb[n] {
            Component::Number(_) => Ordering::Less,
            Component::Text(_) => Ordering::Greater,
        },
        Ordering::Greater => match ca[n] {
            Component::Number(_) => Ordering::Greater,
            Component::Text(_) => Ordering::Less,
        },
        Ordering::Equal => Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_version_sorter() {
        let mut versions = vec!["1.10.0", "1.2.0", "1.0.0", "1.0.0-rc1", "2.0.0", "1.0.0.1", "1.0.0-beta", "0.9.9"];
        versions.sort_by(|a, b| compare(a, b));
        assert_eq!(versions, ["0.9.9", "1.0.0-beta", "1.0.0-rc1", "1.0.0", "1.0.0.1", "1.2.0", "1.10.0", "2.0.0"]);
        assert_eq!(compare("1.0.0+build", "1.0.0"), Ordering::Less);
    }

    #[test]
    fn patterns_compile_and_match() {
        assert!(contains_semver("v1.2.3"));
        assert!(contains_semver("x1.0.0.0"));
        assert!(!contains_semver("1.2"));
        let re = default_tag_regex().unwrap();
        let c = re.captures("v1.2.3+b.1").unwrap();
        assert_eq!(assemble(&c).as_deref(), Some("1.2.3+b.1"));
        assert!(re.captures("v1.2.3-rc.1").unwrap().name("pre").is_some());
        assert!(re.captures("1.0.0.0").is_none());
        assert!(re.captures("01.0.0").is_none());
    }
}
