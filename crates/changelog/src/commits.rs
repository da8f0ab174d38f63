//! What GitLab reads from each commit of the range (`Commit#title`, `#description`, trailers)
//! and which commits make entries (`ChangelogCommitsFinder`): newest first, a commit that a newer
//! commit of the range reverts (`This reverts commit <sha>` at the start of a line of its
//! description) is skipped, together with the revert target it would itself name; the revert
//! stays only when it carries the trailer. A commit makes an entry when it has the trailer
//! (case-sensitive key); its value is the category.

use regex::Regex;
use std::collections::HashSet;
use std::sync::LazyLock;

/// `REVERT_REGEX = /^This reverts commit (?<sha>[0-9a-f]{40})/i` (Ruby's `^`: any line start).
static REVERT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?mi)^This reverts commit (?P<sha>[0-9a-f]{40})").ok());
/// `See merge request <reference>` in a merge commit's message (decisions D5): GitLab writes
/// `<full path>!<iid>`, older versions `!<iid>`, and since 2022 the merge request's URL.
static MERGE_REQUEST: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"See merge request (?P<reference>\S+)").ok());

const NO_MESSAGE: &str = "No commit message";

fn blank(text: &str) -> bool {
    text.chars().all(char::is_whitespace)
}

/// `Commit#full_title`: the first line (up to `\r` or `\n`), or "No commit message".
pub fn full_title(message: &str) -> &str {
    if blank(message) {
        NO_MESSAGE
    } else {
        message.split(['\r', '\n']).next().unwrap_or("")
    }
}

/// `Commit#title`: the full title, or when it has 100 characters or more, its first 78 cut back
/// to the last space (ActiveSupport `truncate(81, separator: ' ', omission: '...')`).
pub fn title(message: &str) -> String {
    let full = full_title(message);
    let chars: Vec<char> = full.chars().collect();
    if chars.len() < 100 {
        return full.to_string();
    }
    let room = 78;
    let stop = chars[..=room].iter().rposition(|c| *c == ' ').unwrap_or(room);
    let mut out: String = chars[..stop].iter().collect();
    out.push_str("...");
    out
}

/// `Commit#description`: the whole message when the title is 100 characters or more, else
/// what follows the first line.
pub fn description(message: &str) -> &str {
    if full_title(message).chars().count() >= 100 {
        return message;
    }
    if blank(message) {
        return NO_MESSAGE;
    }
    message.split_once('\n').map_or("", |(_, rest)| rest)
}

/// The commit a revert names, as GitLab reads it (lower-case hex only ever matches an id).
pub fn reverted_sha(message: &str) -> Option<String> {
    let re = REVERT.as_ref()?;
    re.captures(description(message)).and_then(|c| c.name("sha")).map(|m| m.as_str().to_string())
}

/// The leading decimal digits of `text` as a number.
fn leading_number(text: &str) -> Option<u64> {
    let end = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    text[..end].parse().ok()
}

/// One merge request reference: the project path it names (empty for `!<iid>`; for a URL, the
/// URL's path, which may start with a relative URL root) and the iid.
fn parse_reference(reference: &str) -> Option<(&str, u64)> {
    if let Some(rest) = reference.strip_prefix("https://").or_else(|| reference.strip_prefix("http://")) {
        let (_host, path) = rest.split_once('/')?;
        let (project, iid) = path.split_once("/-/merge_requests/")?;
        return Some((project, leading_number(iid)?));
    }
    let (path, iid) = reference.rsplit_once('!')?;
    Some((path.trim_end_matches(['.', '/']), leading_number(iid)?))
}

/// The iid of the first merge request of `project` (its full path) that a merge commit names,
/// in any of GitLab's forms: `<full path>!<iid>`, `!<iid>`, or its URL on any host (and under
/// any relative URL root). Merge requests of other projects (a security fork's, say) are not
/// this project's: GitLab looks them up in the project, and finds none.
pub fn merge_request_of(message: &str, project: &str) -> Option<u64> {
    let regex = MERGE_REQUEST.as_ref()?;
    regex.captures_iter(message).find_map(|c| {
        let (path, iid) = parse_reference(c.name("reference")?.as_str())?;
        let names_project = path.is_empty()
            || path.eq_ignore_ascii_case(project)
            || (path.len() > project.len()
                && path.is_char_boundary(path.len() - project.len() - 1)
                && path[path.len() - project.len() - 1..].eq_ignore_ascii_case(&format!("/{project}")));
        names_project.then_some(iid)
    })
}

/// Each trailer key once, with its last value (a Ruby hash built from the trailer list).
pub fn trailer_map(trailers: &[(String, String)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (key, value) in trailers {
        match out.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value.clone(),
            None => out.push((key.clone(), value.clone())),
        }
    }
    out
}

/// The indexes of the commits (given newest first, with their ids, messages and trailers) that
/// make entries, and each one's category.
pub fn select<'a>(
    commits: impl IntoIterator<Item = (&'a str, &'a str, &'a [(String, String)])>,
    trailer: &str,
) -> Vec<(usize, String)> {
    let mut reverted: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for (index, (id, message, trailers)) in commits.into_iter().enumerate() {
        if reverted.contains(id) {
            continue;
        }
        if let Some(sha) = reverted_sha(message) {
            reverted.insert(sha);
        }
        if let Some((_, value)) = trailers.iter().rev().find(|(k, _)| k == trailer) {
            out.push((index, value.clone()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_and_descriptions() {
        assert_eq!(title("Fix it\n\nBody"), "Fix it");
        assert_eq!(title("  \n"), "No commit message");
        assert_eq!(title("A\r\nB"), "A");
        let long = format!("{} tail", "word ".repeat(30));
        let t = title(&long);
        assert!(t.ends_with("...") && t.chars().count() <= 81, "{t}");
        assert_eq!(t, format!("{}...", "word ".repeat(15).trim_end()));
        assert_eq!(description("T\nbody\n"), "body\n");
        assert_eq!(description(&long), long);
    }

    #[test]
    fn reverts_and_merge_requests() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(reverted_sha(&format!("Revert \"x\"\n\nThis reverts commit {sha}.\n")).as_deref(), Some(sha));
        assert_eq!(reverted_sha(&format!("This reverts commit {sha}")), None, "the title is not the description");
        assert_eq!(
            merge_request_of("Merge branch 'a' into 'main'\n\nSee merge request grp/sub.proj!42\n", "grp/sub.proj"),
            Some(42)
        );
    }

    #[test]
    fn merge_requests_of_the_project_in_every_form() {
        let of = |message: &str| merge_request_of(message, "grp/sub.proj");
        assert_eq!(of("Merge\n\nSee merge request grp/sub.proj!42\n"), Some(42));
        assert_eq!(of("Merge\n\nSee merge request GRP/Sub.proj!42."), Some(42), "case, trailing dot");
        assert_eq!(of("Merge\n\nSee merge request !7\n"), Some(7));
        assert_eq!(of("See merge request https://gitlab.com/grp/sub.proj/-/merge_requests/300\n"), Some(300));
        assert_eq!(of("See merge request http://forge.test:8080/gitlab/grp/sub.proj/-/merge_requests/5"), Some(5));
        // Another project's merge request is not this project's, whatever the form.
        assert_eq!(of("See merge request grp/security/sub.proj!41"), None);
        assert_eq!(of("See merge request https://gitlab.com/grp/security/sub.proj/-/merge_requests/41"), None);
        assert_eq!(of("See merge request https://gitlab.com/xgrp/sub.proj/-/merge_requests/41"), None);
        assert_eq!(of("See merge request other/proj!1\nSee merge request grp/sub.proj!2"), Some(2));
        assert_eq!(of("See merge request grp/sub.proj"), None);
        assert_eq!(of("no reference"), None);
    }

    #[test]
    fn a_revert_removes_both_commits_unless_it_has_the_trailer() {
        let (a, b) = ("a".repeat(40), "b".repeat(40));
        let revert_a = format!("Revert\n\nThis reverts commit {a}\n");
        let tr = vec![("Changelog".to_string(), "fixed".to_string())];
        let none: Vec<(String, String)> = vec![];
        let commits = [(b.as_str(), revert_a.as_str(), none.as_slice()), (a.as_str(), "A\n", tr.as_slice())];
        assert!(select(commits, "Changelog").is_empty());
        let commits = [(b.as_str(), revert_a.as_str(), tr.as_slice()), (a.as_str(), "A\n", tr.as_slice())];
        assert_eq!(select(commits, "Changelog"), vec![(0, "fixed".to_string())]);
        let commits = [(a.as_str(), "A\n", tr.as_slice())];
        assert!(select(commits, "changelog").is_empty(), "the trailer key is case-sensitive");
    }
}
