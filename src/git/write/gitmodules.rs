//! git's fsck rules for `.gitmodules`, applied to what the write path commits, so that a REST
//! write never commits a `.gitmodules` that a push of the same tree would be refused for
//! (`receive.fsckObjects`, which every push here runs with) or that `git fsck` reports: git's
//! `fsck_gitmodules_fn` (fsck.c) and `check_submodule_name` / `check_submodule_url`
//! (submodule-config.c), at the severity git gives them (errors refuse; a `.gitmodules` that
//! does not parse is only `gitmodulesParse`, an info, and passes).
//!
//! A file counts as `.gitmodules` in any directory and under any name NTFS or HFS+ would open
//! as one (git's `is_ntfs_dotgitmodules`, `is_hfs_dotgitmodules`): case folded, trailing dots
//! and spaces and an NTFS stream suffix dropped, the short name `GITMOD~N`, and the characters
//! HFS+ ignores.

use gix::bstr::ByteSlice;

/// Whether a path component names `.gitmodules` on some file system git protects.
pub fn names_gitmodules(component: &str) -> bool {
    // HFS+ ignores these code points in names (git's `next_hfs_char`).
    let ignorable =
        |c: char| matches!(c, '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}');
    let folded: String = component.chars().filter(|c| !ignorable(*c)).collect::<String>().to_ascii_lowercase();
    // NTFS: an alternate data stream (`.gitmodules::$DATA`), trailing dots and spaces.
    let name = folded.split(':').next().unwrap_or("").trim_end_matches(['.', ' ']);
    if name == ".gitmodules" {
        return true;
    }
    name.strip_prefix("gitmod~").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// What git's fsck says is wrong with this `.gitmodules` content, in its words, if anything.
pub fn problem(content: &[u8]) -> Option<String> {
    let Ok(config) = gix::config::File::try_from(content.as_bstr()) else { return None };
    for section in config.sections_by_name("submodule")? {
        let Some(name) = section.header().subsection_name() else { continue };
        let name = name.to_str_lossy();
        if !valid_name(&name) {
            return Some(format!("disallowed submodule name: {name}"));
        }
        let body = section.body();
        for value in body.values("url") {
            let url = value.to_str_lossy();
            if !valid_url(&url) {
                return Some(format!("disallowed submodule url: {url}"));
            }
        }
        for value in body.values("path") {
            if value.starts_with(b"-") {
                return Some(format!("disallowed submodule path: {}", value.to_str_lossy()));
            }
        }
        for value in body.values("update") {
            if value.starts_with(b"!") {
                return Some(format!("disallowed submodule update setting: {}", value.to_str_lossy()));
            }
        }
    }
    None
}

/// git's `check_submodule_name`: not empty, and no `..` component (`/` and `\` both separate).
fn valid_name(name: &str) -> bool {
    !name.is_empty() && !name.split(['/', '\\']).any(|component| component == "..")
}

/// git's `check_submodule_url`: nothing that looks like an option; for a relative or `git://`
/// URL, no newline once percent-decoded and no leading `../` run escaping to `:` or `/`; for
/// any other URL, no newline once percent-decoded (what git's URL normalisation and credential
/// parsing refuse).
fn valid_url(url: &str) -> bool {
    if url.starts_with('-') {
        return false;
    }
    let decoded = percent_encoding::percent_decode_str(url).decode_utf8_lossy();
    if decoded.contains('\n') {
        return false;
    }
    let relative = url.starts_with("./") || url.starts_with("../");
    if relative || url.starts_with("git://") {
        let mut rest = url;
        let mut dotdots = 0;
        while let Some(next) = rest.strip_prefix("../").or_else(|| rest.strip_prefix("..\\")) {
            rest = next;
            dotdots += 1;
        }
        if dotdots > 0 && (rest.starts_with(':') || rest.starts_with('/')) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_open_as_gitmodules() {
        for name in [".gitmodules", ".GitModules", ".gitmodules.", ".gitmodules ", "GITMOD~1", ".gitmodules::$DATA"] {
            assert!(names_gitmodules(name), "{name}");
        }
        assert!(names_gitmodules(".git\u{200c}modules"));
        for name in ["gitmodules", ".gitmodulesx", "gitmod~", "x.gitmodules"] {
            assert!(!names_gitmodules(name), "{name}");
        }
    }

    #[test]
    fn what_fsck_refuses() {
        let one = |body: &str| problem(format!("[submodule \"{body}").as_bytes());
        assert_eq!(one("ok\"]\n\tpath = lib\n\turl = https://example.com/lib.git\n"), None);
        assert_eq!(one("ok\"]\n\turl = ../lib.git\n"), None);
        assert_eq!(one("../../x\"]\n\tpath = x\n"), Some("disallowed submodule name: ../../x".into()));
        assert_eq!(one("a\\\\..\"]\n\tpath = x\n"), Some("disallowed submodule name: a\\..".into()));
        assert_eq!(
            one("x\"]\n\turl = --upload-pack=evil\n"),
            Some("disallowed submodule url: --upload-pack=evil".into())
        );
        assert_eq!(one("x\"]\n\turl = ../:evil\n"), Some("disallowed submodule url: ../:evil".into()));
        assert_eq!(
            one("x\"]\n\turl = https://a%0a@example.com/\n"),
            Some("disallowed submodule url: https://a%0a@example.com/".into())
        );
        assert_eq!(one("x\"]\n\tpath = -x\n"), Some("disallowed submodule path: -x".into()));
        assert_eq!(one("x\"]\n\tupdate = !rm -rf /\n"), Some("disallowed submodule update setting: !rm -rf /".into()));
        assert_eq!(problem(b"[broken"), None, "a .gitmodules that does not parse is only an info");
    }
}
