//! Access levels and the permission flags a custom member role can add to its base level.

pub const GUEST: i64 = 10;
pub const PLANNER: i64 = 15;
pub const REPORTER: i64 = 20;
pub const DEVELOPER: i64 = 30;
pub const MAINTAINER: i64 = 40;
pub const OWNER: i64 = 50;

/// The base levels a custom role and a membership may have.
pub const ACCESS_LEVELS: [i64; 6] = [GUEST, PLANNER, REPORTER, DEVELOPER, MAINTAINER, OWNER];

/// The 21 flags of decisions D3: seed 2.1's twenty plus `admin_security_testing`.
pub const PERMISSION_FLAGS: [&str; 21] = [
    "admin_cicd_variables",
    "admin_compliance_framework",
    "admin_group_member",
    "admin_merge_request",
    "admin_push_rules",
    "admin_security_testing",
    "admin_terraform_state",
    "admin_vulnerability",
    "admin_web_hook",
    "archive_project",
    "manage_deploy_tokens",
    "manage_group_access_tokens",
    "manage_merge_request_settings",
    "manage_project_access_tokens",
    "manage_security_policy_link",
    "read_code",
    "read_dependency",
    "read_runners",
    "read_vulnerability",
    "remove_group",
    "remove_project",
];

/// Flags that need another flag, unless the base level already includes that one:
/// (flag, required flag, lowest base level that includes the requirement).
pub const REQUIREMENTS: [(&str, &str, i64); 1] = [("admin_vulnerability", "read_vulnerability", DEVELOPER)];

/// GitLab's humanized name of a flag: `read_vulnerability` -> `Read vulnerability`.
pub fn humanize(flag: &str) -> String {
    let text = flag.replace('_', " ");
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_stores_creation_levels_are_these_levels() {
        use crate::store::namespaces::project_creation_min_level as level;
        assert_eq!(
            [level("developer"), level("maintainer"), level("owner"), level("noone")],
            [Some(super::DEVELOPER), Some(super::MAINTAINER), Some(super::OWNER), None]
        );
    }
}
