//! A push rule set and its checks, each failing with GitLab's words (reference
//! `gitlab-hooks-releases-statuses.md` §4.2, `ee/lib/gitlab/checks/push_rules/*`).
//!
//! Patterns are RE2 in GitLab (`Gitlab::UntrustedRegexp`); here Rust's `regex` crate, which
//! has the same dialect (no look-around, no backreferences) and matches in linear time, so a
//! pattern such as `(a+)+$` cannot stall a push (decisions D12). Compiled programs are bounded
//! ([`SIZE_LIMIT`]): a pattern over the bound is refused at creation like an invalid one.
//! Commit message rules compile multiline (`^`/`$` per line), the others not; matching is
//! "found anywhere" (unanchored), as `UntrustedRegexp#match?`.

use regex::{Regex, RegexBuilder};

/// The compiled size a pattern may reach (bytes of the regex crate's program).
pub const SIZE_LIMIT: usize = 1 << 20;
/// GitLab's length limits: `commit_message_negative_regex` 2047 characters, the others 511.
pub const MAX_NEGATIVE_CHARS: usize = 2047;
pub const MAX_PATTERN_CHARS: usize = 511;

/// One rule set as stored: the patterns as given (`None` or empty: no rule).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushRule {
    pub commit_message_regex: Option<String>,
    pub commit_message_negative_regex: Option<String>,
    pub branch_name_regex: Option<String>,
    pub author_email_regex: Option<String>,
    pub file_name_regex: Option<String>,
    pub deny_delete_tag: bool,
    pub member_check: bool,
    pub prevent_secrets: bool,
    /// MiB, 0: no limit.
    pub max_file_size: i64,
    pub reject_non_dco_commits: bool,
    pub commit_committer_check: bool,
    pub commit_committer_name_check: bool,
    pub reject_unsigned_commits: bool,
}

impl From<&crate::store::push_rules::Settings> for PushRule {
    fn from(s: &crate::store::push_rules::Settings) -> PushRule {
        PushRule {
            commit_message_regex: s.commit_message_regex.clone(),
            commit_message_negative_regex: s.commit_message_negative_regex.clone(),
            branch_name_regex: s.branch_name_regex.clone(),
            author_email_regex: s.author_email_regex.clone(),
            file_name_regex: s.file_name_regex.clone(),
            deny_delete_tag: s.deny_delete_tag,
            member_check: s.member_check,
            prevent_secrets: s.prevent_secrets,
            max_file_size: s.max_file_size,
            reject_non_dco_commits: s.reject_non_dco_commits,
            commit_committer_check: s.commit_committer_check,
            commit_committer_name_check: s.commit_committer_name_check,
            reject_unsigned_commits: s.reject_unsigned_commits,
        }
    }
}

impl PushRule {
    /// Whether any rule looks at commits (else a write's new commits need not be read).
    pub fn checks_commits(&self) -> bool {
        let set = |p: &Option<String>| p.as_deref().is_some_and(|p| !p.is_empty());
        set(&self.commit_message_regex)
            || set(&self.commit_message_negative_regex)
            || set(&self.author_email_regex)
            || set(&self.file_name_regex)
            || self.prevent_secrets
            || self.max_file_size > 0
            || self.reject_non_dco_commits
            || self.member_check
            || self.commit_committer_check
            || self.commit_committer_name_check
            || self.reject_unsigned_commits
    }
}

/// Compiles `pattern` as the rules do: multiline for commit message rules, bounded in size.
pub fn compile(pattern: &str, multiline: bool) -> Result<Regex, String> {
    RegexBuilder::new(pattern).multi_line(multiline).size_limit(SIZE_LIMIT).dfa_size_limit(SIZE_LIMIT).build().map_err(
        |e| match e {
            regex::Error::CompiledTooBig(_) => "is too large to be checked".to_string(),
            e => format!("not valid RE2 syntax: {}", e.to_string().lines().last().unwrap_or("").trim()),
        },
    )
}

/// The validation errors of `rule` as GitLab's `render_validation_error!` keys them (field:
/// messages); empty when the rule may be stored.
pub fn validate(rule: &PushRule) -> Vec<(&'static str, String)> {
    let mut errors = Vec::new();
    let fields: [(&'static str, &Option<String>, usize, bool); 5] = [
        ("commit_message_regex", &rule.commit_message_regex, MAX_PATTERN_CHARS, true),
        ("commit_message_negative_regex", &rule.commit_message_negative_regex, MAX_NEGATIVE_CHARS, true),
        ("branch_name_regex", &rule.branch_name_regex, MAX_PATTERN_CHARS, false),
        ("author_email_regex", &rule.author_email_regex, MAX_PATTERN_CHARS, false),
        ("file_name_regex", &rule.file_name_regex, MAX_PATTERN_CHARS, false),
    ];
    for (field, pattern, max, multiline) in fields {
        let Some(pattern) = pattern.as_deref().filter(|p| !p.is_empty()) else { continue };
        if pattern.chars().count() > max {
            errors.push((field, format!("is too long (maximum is {max} characters)")));
        } else if let Err(e) = compile(pattern, multiline) {
            errors.push((field, e));
        }
    }
    if rule.max_file_size < 0 {
        errors.push(("max_file_size", "must be greater than or equal to 0".to_string()));
    }
    errors
}

/// A pattern of a stored rule, or why it no longer compiles (GitLab's text at check time).
fn pattern(pattern: &Option<String>, multiline: bool) -> Result<Option<(&str, Regex)>, String> {
    let Some(text) = pattern.as_deref().filter(|p| !p.is_empty()) else { return Ok(None) };
    match compile(text, multiline) {
        Ok(regex) => Ok(Some((text, regex))),
        Err(e) => Err(format!("Regular expression '{text}' is invalid: {e}")),
    }
}

/// What a new commit brings to the checks.
#[derive(Debug, Clone)]
pub struct NewCommit<'a> {
    pub message: &'a str,
    pub author_email: &'a str,
    /// The committer's email, checked against `author_email_regex` on pushes only (a web
    /// write's committer is the instance's own, GitLab skips it): `None` for web writes.
    pub committer_email: Option<&'a str>,
    /// Paths of files the commit creates (not those it changes), with their sizes in bytes.
    pub new_files: &'a [(&'a str, u64)],
    /// Paths of files whose content the commit changes, with their new sizes: only the size
    /// limit looks at them.
    pub changed_files: &'a [(&'a str, u64)],
}

/// GitLab's text for a created or updated `branch` its name rule refuses.
pub fn check_branch(rule: &PushRule, branch: &str) -> Result<(), String> {
    if let Some((text, regex)) = pattern(&rule.branch_name_regex, false)? {
        if !regex.is_match(branch) {
            return Err(format!("Branch name does not follow the pattern '{text}'"));
        }
    }
    Ok(())
}

/// GitLab's text for deleting a tag when `deny_delete_tag` is on (pushes only).
pub fn check_tag_delete(rule: &PushRule) -> Result<(), String> {
    if rule.deny_delete_tag {
        return Err("You cannot delete a tag".into());
    }
    Ok(())
}

/// The first rule `commit` breaks, in GitLab's order, with its text.
pub fn check_commit(rule: &PushRule, commit: &NewCommit) -> Result<(), String> {
    if let Some((text, regex)) = pattern(&rule.commit_message_regex, true)? {
        if !regex.is_match(commit.message) {
            return Err(format!("Commit message does not follow the pattern '{text}'"));
        }
    }
    if let Some((text, regex)) = pattern(&rule.commit_message_negative_regex, true)? {
        if regex.is_match(commit.message.trim_end_matches(['\n', '\r'])) {
            return Err(format!("Commit message contains the forbidden pattern '{text}'"));
        }
    }
    if let Some((text, regex)) = pattern(&rule.author_email_regex, false)? {
        if let Some(committer) = commit.committer_email.filter(|c| !regex.is_match(c)) {
            return Err(format!("Committer's email '{committer}' does not follow the pattern '{text}'"));
        }
        if !regex.is_match(commit.author_email) {
            return Err(format!("Author's email '{}' does not follow the pattern '{text}'", commit.author_email));
        }
    }
    if rule.reject_non_dco_commits && !dco().is_match(commit.message) {
        return Err("Commit message must contain a DCO signoff".into());
    }
    let file_rule = pattern(&rule.file_name_regex, false)?;
    for (path, size) in commit.new_files {
        if let Some((text, regex)) = &file_rule {
            if regex.is_match(path) {
                return Err(format!("File name {path} was prohibited by the pattern {text:?}."));
            }
        }
        if rule.prevent_secrets && is_secret(path) {
            return Err(format!("File name {path} was prohibited by the pattern {:?}.", secret_pattern(path)));
        }
        if rule.max_file_size > 0 && *size > (rule.max_file_size as u64) * 1024 * 1024 {
            return Err(format!(
                "File \"{path}\" is larger than the allowed size of {} MiB. Use Git LFS to manage this file.",
                rule.max_file_size
            ));
        }
    }
    for (path, size) in commit.changed_files {
        if rule.max_file_size > 0 && *size > (rule.max_file_size as u64) * 1024 * 1024 {
            return Err(format!(
                "File \"{path}\" is larger than the allowed size of {} MiB. Use Git LFS to manage this file.",
                rule.max_file_size
            ));
        }
    }
    Ok(())
}

fn dco() -> &'static Regex {
    static DCO: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    DCO.get_or_init(|| Regex::new(r"(?m)Signed-off-by:.+<.+@.+>").expect("a valid pattern"))
}

/// Part of GitLab's `files_denylist.yml`: file names that hold secrets.
const SECRET_NAMES: [&str; 8] =
    ["id_rsa", "id_dsa", "id_ed25519", "id_ecdsa", "id_rsa_sk", "id_dsa_sk", "id_ed25519_sk", "id_ecdsa_sk"];
const SECRET_SUFFIXES: [&str; 4] = [".pem", ".key", ".history", "_history"];

fn is_secret(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path == ".aws/credentials"
        || path.ends_with("/.aws/credentials")
        || SECRET_NAMES.contains(&name)
        || SECRET_SUFFIXES.iter().any(|suffix| name.ends_with(suffix))
}

/// The denylist entry that names `path`, as GitLab's message quotes it.
fn secret_pattern(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    if let Some(suffix) = SECRET_SUFFIXES.iter().find(|suffix| name.ends_with(*suffix)) {
        return format!(r"{}$", regex::escape(suffix));
    }
    if name == "credentials" {
        return r"\.aws/credentials$".into();
    }
    format!("(^|/){name}$")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit<'a>(message: &'a str, email: &'a str, files: &'a [(&'a str, u64)]) -> NewCommit<'a> {
        NewCommit { message, author_email: email, committer_email: None, new_files: files, changed_files: &[] }
    }

    #[test]
    fn invalid_and_too_long_patterns_are_refused_at_creation() {
        let rule = PushRule {
            commit_message_regex: Some("(unclosed".into()),
            branch_name_regex: Some("x".repeat(512)),
            author_email_regex: Some(r"(?<=@)example".into()),
            max_file_size: -1,
            ..Default::default()
        };
        let fields: Vec<&str> = validate(&rule).into_iter().map(|(field, _)| field).collect();
        assert_eq!(fields, ["commit_message_regex", "branch_name_regex", "author_email_regex", "max_file_size"]);
        let huge = PushRule { file_name_regex: Some(r"\w{100}\w{100}\w{100}".into()), ..Default::default() };
        let errors = validate(&huge);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].1, "is too large to be checked");
        assert!(
            validate(&PushRule { commit_message_regex: Some("^JIRA-\\d+".into()), ..Default::default() }).is_empty()
        );
    }

    #[test]
    fn each_rule_refuses_with_gitlabs_text() {
        let rule = PushRule {
            commit_message_regex: Some("^JIRA-\\d+".into()),
            commit_message_negative_regex: Some("WIP".into()),
            author_email_regex: Some("@example\\.com$".into()),
            branch_name_regex: Some("^(feature|fix)/".into()),
            file_name_regex: Some("\\.exe$".into()),
            ..Default::default()
        };
        let ok = commit("fix\nJIRA-1 the bug", "a@example.com", &[("src/a.rs", 10)]);
        assert_eq!(check_commit(&rule, &ok), Ok(()), "multiline: ^ matches at the second line");
        assert_eq!(
            check_commit(&rule, &commit("the bug", "a@example.com", &[])),
            Err("Commit message does not follow the pattern '^JIRA-\\d+'".into())
        );
        assert_eq!(
            check_commit(&rule, &commit("JIRA-2 WIP", "a@example.com", &[])),
            Err("Commit message contains the forbidden pattern 'WIP'".into())
        );
        assert_eq!(
            check_commit(&rule, &commit("JIRA-3", "a@evil.org", &[])),
            Err("Author's email 'a@evil.org' does not follow the pattern '@example\\.com$'".into())
        );
        assert_eq!(
            check_commit(&rule, &commit("JIRA-4", "a@example.com", &[("bin/x.exe", 1)])),
            Err("File name bin/x.exe was prohibited by the pattern \"\\\\.exe$\".".into())
        );
        assert_eq!(check_branch(&rule, "feature/a"), Ok(()));
        assert_eq!(
            check_branch(&rule, "main"),
            Err("Branch name does not follow the pattern '^(feature|fix)/'".into())
        );
    }

    #[test]
    fn secrets_sizes_dco_and_tags() {
        let rule =
            PushRule { prevent_secrets: true, max_file_size: 1, reject_non_dco_commits: true, ..Default::default() };
        let signed = "x\n\nSigned-off-by: A <a@b.c>";
        assert_eq!(check_commit(&rule, &commit(signed, "a@b.c", &[("a.txt", 1024 * 1024)])), Ok(()));
        assert_eq!(
            check_commit(&rule, &commit("x", "a@b.c", &[])),
            Err("Commit message must contain a DCO signoff".into())
        );
        let too_big = check_commit(&rule, &commit(signed, "a@b.c", &[("big.bin", 1024 * 1024 + 1)]));
        assert_eq!(
            too_big,
            Err("File \"big.bin\" is larger than the allowed size of 1 MiB. Use Git LFS to manage this file.".into())
        );
        for secret in ["keys/id_rsa", ".aws/credentials", "server.pem", ".bash_history"] {
            let refused = check_commit(&rule, &commit(signed, "a@b.c", &[(secret, 1)]));
            assert!(refused.as_ref().is_err_and(|e| e.starts_with(&format!("File name {secret} was prohibited"))));
        }
        assert_eq!(check_tag_delete(&rule), Ok(()));
        let deny = PushRule { deny_delete_tag: true, ..Default::default() };
        assert_eq!(check_tag_delete(&deny), Err("You cannot delete a tag".into()));
    }

    #[test]
    fn a_catastrophic_pattern_is_checked_in_linear_time() {
        let rule = PushRule { commit_message_regex: Some("(a+)+$".into()), ..Default::default() };
        let message = format!("{}!", "a".repeat(100_000));
        let started = std::time::Instant::now();
        let outcome = check_commit(&rule, &commit(&message, "a@b.c", &[]));
        let took = started.elapsed();
        assert_eq!(outcome, Err("Commit message does not follow the pattern '(a+)+$'".into()), "`!` ends the message");
        assert!(took < std::time::Duration::from_millis(100), "took {took:?}");
    }
}
