//! Putting a section into a changelog file (`Gitlab::Changelog::Generator`) and telling whether
//! a file already has it (`Release#header_start_pattern`), on bytes so that the rest of the file
//! is kept exactly, whatever its encoding.
//!
//! Existing sections are found by lines matching `^##\s+<semver>`: `## v1.2.3` does not match,
//! so a file of `v` headers looks like it has none. All versions are ordered descending with
//! [`version::compare`]; the new section goes just before the header of the next lower version,
//! or at the end of the file when there is none (with an empty line first when the file has
//! versions).

use super::release::ruby_rstrip;
use super::version::{self, UNBOUNDED_SEMVER};
use regex::bytes::Regex;
use std::sync::LazyLock;

/// `^##\s+(?<version>unbounded semver)`, `\s` as in Ruby.
static HEADER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(&format!(r"^##[\t\n\x0B\x0C\r ]+(?P<version>{UNBOUNDED_SEMVER})")).ok());

/// Whether `content` already has a header for `version`: `^##\s*<version>` on any line, a
/// prefix match (so `## 1.0.0-rc1` counts for `1.0.0`), as GitLab checks before committing.
pub fn has_release(content: &[u8], version: &str) -> bool {
    let pattern = format!(r"(?m)^##[\t\n\x0B\x0C\r ]*{}", regex::escape(version));
    Regex::new(&pattern).is_ok_and(|re| re.is_match(content))
}

/// `content` with `section` (a release's Markdown, ending in `\n\n`) added for `version`.
pub fn insert(content: &[u8], version: &str, section: &str) -> Vec<u8> {
    let lines: Vec<&[u8]> = content.split_inclusive(|b| *b == b'\n').collect();
    // Version -> index of the last line with its header, in order of first appearance.
    let mut locations: Vec<(String, usize)> = Vec::new();
    if let Some(header) = HEADER.as_ref() {
        for (index, line) in lines.iter().enumerate() {
            let Some(found) = header.captures(line).and_then(|c| c.name("version")) else { continue };
            let found = String::from_utf8_lossy(found.as_bytes()).into_owned();
            match locations.iter_mut().find(|(v, _)| *v == found) {
                Some(slot) => slot.1 = index,
                None => locations.push((found, index)),
            }
        }
    }
    let mut versions: Vec<&str> = std::iter::once(version).chain(locations.iter().map(|(v, _)| v.as_str())).collect();
    versions.sort_by(|a, b| version::compare(b, a));
    let new_index = versions.iter().position(|v| *v == version).unwrap_or(0);
    let mut out = Vec::with_capacity(content.len() + section.len() + 2);
    match versions.get(new_index + 1) {
        Some(next) => {
            let line_index = locations.iter().find(|(v, _)| v == next).map_or(lines.len(), |(_, i)| *i);
            for line in &lines[..line_index] {
                out.extend_from_slice(line);
            }
            out.extend_from_slice(section.as_bytes());
            for line in &lines[line_index..] {
                out.extend_from_slice(line);
            }
        }
        None => {
            out.extend_from_slice(content);
            if versions.len() > 1 {
                out.push(b'\n');
            }
            out.extend_from_slice(ruby_rstrip(section).as_bytes());
            out.push(b'\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(v: &str) -> String {
        format!("## {v} (2024-01-01)\n\n- {v}\n\n")
    }

    #[test]
    fn new_file_gets_the_section_alone() {
        assert_eq!(insert(b"", "1.0.0", &section("1.0.0")), b"## 1.0.0 (2024-01-01)\n\n- 1.0.0\n");
    }

    #[test]
    fn sections_go_in_descending_order_after_a_preamble() {
        let file = b"# Changelog\n\n## 1.1.0 (x)\n\n- a\n\n## 1.0.0 (x)\n\n- b\n";
        let out = String::from_utf8(insert(file, "1.2.0", &section("1.2.0"))).unwrap();
        assert!(out.starts_with("# Changelog\n\n## 1.2.0 (2024-01-01)\n\n- 1.2.0\n\n## 1.1.0"), "{out}");
        let out = String::from_utf8(insert(file, "1.0.5", &section("1.0.5"))).unwrap();
        assert!(out.contains("- a\n\n## 1.0.5 (2024-01-01)\n\n- 1.0.5\n\n## 1.0.0 (x)"), "{out}");
        let out = String::from_utf8(insert(file, "0.9.0", &section("0.9.0"))).unwrap();
        assert!(out.ends_with("- b\n\n## 0.9.0 (2024-01-01)\n\n- 0.9.0\n"), "{out}");
    }

    #[test]
    fn v_headers_mean_appending() {
        let file = b"## v1.0.0 (x)\n\n- b\n";
        let out = String::from_utf8(insert(file, "2.0.0", &section("2.0.0"))).unwrap();
        assert_eq!(out, "## v1.0.0 (x)\n\n- b\n## 2.0.0 (2024-01-01)\n\n- 2.0.0\n");
    }

    #[test]
    fn existing_headers_are_found_by_prefix() {
        assert!(has_release(b"x\n## 1.0.0 (y)\n", "1.0.0"));
        assert!(has_release(b"##1.0.0-rc1\n", "1.0.0"));
        assert!(!has_release(b"## v1.0.0\n", "1.0.0"));
        assert!(!has_release(b"### 1.0.0\n", "1.0.0"));
        assert!(!has_release(b"x ## 1.0.0\n", "1.0.0"));
    }
}
