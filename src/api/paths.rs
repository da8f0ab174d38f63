//! GitLab's rules for the paths of users, groups and projects, which share one space of routes:
//! what the administration commands and every family that names a namespace check alike.

/// GitLab's rule for one path segment of a user, group or project: letters, digits, `_`, `-`
/// and `.`, starting with a letter, digit or `_`, not ending in `.git` or `.atom`.
pub fn valid_segment(segment: &str) -> bool {
    let first_ok = segment.chars().next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    first_ok
        && segment.len() <= 255
        && segment.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && !segment.ends_with(".git")
        && !segment.ends_with(".atom")
}
