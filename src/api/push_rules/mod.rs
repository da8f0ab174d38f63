//! Push rules (issue #42, decisions D12): a project's or group's rules over the refs and new
//! commits of a write, with GitLab's texts (`ee/lib/gitlab/checks/push_rules/*`,
//! `ee/app/models/push_rule.rb`; reference `gitlab-hooks-releases-statuses.md` §4).
//! [`rules`] holds the rule set and its checks; the routes and their store come next.

pub mod rules;
