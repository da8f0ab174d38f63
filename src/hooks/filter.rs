//! Which branches a hook's push events are for (GitLab's `ActiveHookFilter`): every branch
//! when the filter is blank or the strategy `all_branches`; `wildcard`: the exact name, `*`
//! matching any run of characters; `regex`: RE2's dialect (the `regex` crate, linear time),
//! unanchored, and a pattern that does not compile matches nothing.

/// Whether a push to `branch` is for a hook with this filter and strategy.
pub fn matches(filter: Option<&str>, strategy: &str, branch: &str) -> bool {
    let filter = filter.map(str::trim).unwrap_or("");
    if filter.is_empty() || strategy == "all_branches" {
        return true;
    }
    match strategy {
        "regex" => regex::RegexBuilder::new(filter).size_limit(1 << 20).build().is_ok_and(|re| re.is_match(branch)),
        _ => wildcard(filter, branch),
    }
}

fn wildcard(pattern: &str, name: &str) -> bool {
    if !pattern.contains('*') {
        return pattern == name;
    }
    let escaped: Vec<String> = pattern.split('*').map(regex::escape).collect();
    regex::Regex::new(&format!("^{}$", escaped.join(".*?"))).is_ok_and(|re| re.is_match(name))
}

/// Whether a wildcard filter is acceptable: a git ref name once each `*` is an `x`, at most
/// 4000 characters (GitLab's `BranchFilterValidator`).
pub fn valid_wildcard(filter: &str) -> bool {
    let name = filter.replace('*', "x");
    filter.len() <= 4000
        && !name.is_empty()
        && !name.starts_with(['/', '-', '.'])
        && !name.ends_with(['/', '.'])
        && !name.ends_with(".lock")
        && !name.contains("..")
        && !name.contains("//")
        && !name.contains("@{")
        && !name.chars().any(|c| c.is_control() || " ~^:?[\\".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies() {
        assert!(matches(None, "wildcard", "main"));
        assert!(matches(Some("main"), "wildcard", "main"));
        assert!(!matches(Some("main"), "wildcard", "main2"));
        assert!(matches(Some("release/*"), "wildcard", "release/1.0"));
        assert!(!matches(Some("release/*"), "wildcard", "hotfix/release/1"));
        assert!(matches(Some("^fea"), "regex", "feature"));
        assert!(matches(Some("ture"), "regex", "feature"));
        assert!(!matches(Some("("), "regex", "("));
        assert!(matches(Some("main"), "all_branches", "other"));
        assert!(valid_wildcard("release/*") && !valid_wildcard("a..b") && !valid_wildcard("a b"));
    }
}
