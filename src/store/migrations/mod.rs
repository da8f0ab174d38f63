//! The schema of both backends, as one numbered list: entry `n` of [`MIGRATIONS`] (counting
//! from 1) moves a database from version `n - 1` to `n`, on SQLite with its `sqlite` SQL and on
//! PostgreSQL with its `postgres` SQL, and the version is the number of entries a database has
//! run: SQLite records it in `user_version`, PostgreSQL in the one row of `schema_version`. Owns
//! the list and the rule of which entries a database still needs ([`pending`]); the backends
//! run them, each in one transaction of its own.
//!
//! Both dialects describe the same tables, in each one's types: SQLite's STRICT
//! `INTEGER`/`TEXT`/`BLOB` with `COLLATE NOCASE` for names, PostgreSQL's `BIGINT` (identity
//! columns, so a copied store keeps its ids), `BOOLEAN`, `BYTEA`, and unique indexes on
//! `lower(...)` for names. Each entry is a pair of files here, `NNNN_<what>.sqlite.sql` and
//! `NNNN_<what>.postgres.sql`.
//!
//! The backends numbered their own lists before there was one; both had four entries, so each
//! keeps its numbers (a database at version `n` of either is at entry `n` here, and never runs
//! an entry again). Their first three entries differ: PostgreSQL's first schema (entry 1) came
//! with SQLite's third, so it already holds what SQLite's entries 2 (health reports) and 3
//! (storages) add, and its entries 2 and 3 add the notification triggers its memos need
//! (`notified.rs`), which SQLite has no use for. From entry 4 on, both backends have the same
//! tables and columns after every entry, and an entry makes the same change in both dialects.
//! `tests/migrations.rs` records what each backend holds at every version and migrates a
//! database of each version, rows and all.
//!
//! Append, never edit: a database at version `n` never runs entries `1..=n` again, so a change
//! to one of them reaches only databases made after it. Public so that tests can make a
//! database as a library of an older version left it.

use super::db::Dialect;

/// One step of the schema, in each backend's SQL.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub sqlite: &'static str,
    pub postgres: &'static str,
}

impl Migration {
    /// This step in `dialect`'s SQL.
    pub fn sql(&self, dialect: Dialect) -> &'static str {
        match dialect {
            Dialect::Sqlite => self.sqlite,
            Dialect::Postgres => self.postgres,
        }
    }
}

/// Every migration, in order: entry `n - 1` of the slice leaves a database at version `n`.
pub const MIGRATIONS: &[Migration] = &[
    // 1: users, tokens, groups, projects, members, member roles, rate-limit state (and, on
    // PostgreSQL, health reports and storages: its schema started at SQLite's version 3).
    Migration { sqlite: include_str!("0001_tables.sqlite.sql"), postgres: include_str!("0001_tables.postgres.sql") },
    // 2: SQLite: the last repository health report of each project (B10). PostgreSQL:
    // notifications on `forgecore_auth` when users or tokens change (hosts' token caches).
    Migration {
        sqlite: include_str!("0002_health_reports.sqlite.sql"),
        postgres: include_str!("0002_auth_notifications.postgres.sql"),
    },
    // 3: SQLite: repository storages (a project's path relative to its named storage).
    // PostgreSQL: notifications on `forgecore_roles` and `forgecore_projects` when member
    // roles or projects change (hosts' role lists and project lookups).
    Migration {
        sqlite: include_str!("0003_storages.sqlite.sql"),
        postgres: include_str!("0003_role_and_project_notifications.postgres.sql"),
    },
    // 4: project creation times and descriptions, protected branches (decisions D8).
    Migration {
        sqlite: include_str!("0004_protected_branches.sqlite.sql"),
        postgres: include_str!("0004_protected_branches.postgres.sql"),
    },
    // 5: what GitLab's Group entity answers of a group and `PUT /groups/:id` changes
    // (description, creation time, default branch, creation levels, request access and the
    // other stored settings).
    Migration {
        sqlite: include_str!("0005_group_settings.sqlite.sql"),
        postgres: include_str!("0005_group_settings.postgres.sql"),
    },
    // 6: members' expiry date, creation time and creator.
    Migration {
        sqlite: include_str!("0006_member_expiry.sqlite.sql"),
        postgres: include_str!("0006_member_expiry.postgres.sql"),
    },
    // 7: projects made, changed, archived and deleted through the API, groups marked for
    // deletion (decisions D9).
    Migration {
        sqlite: include_str!("0007_projects_lifecycle.sqlite.sql"),
        postgres: include_str!("0007_projects_lifecycle.postgres.sql"),
    },
    // 8: users' state, profile and limits (decisions D9).
    Migration {
        sqlite: include_str!("0008_user_profiles.sqlite.sql"),
        postgres: include_str!("0008_user_profiles.postgres.sql"),
    },
    // 9: personal access tokens' scopes, expiry, description and rotation (decisions D9).
    Migration {
        sqlite: include_str!("0009_token_scopes.sqlite.sql"),
        postgres: include_str!("0009_token_scopes.postgres.sql"),
    },
    // 10 (issue #38's administration bench): SQLite's indexes on `groups.parent_id` and
    // `projects.group_id`, which PostgreSQL's first schema has.
    Migration {
        sqlite: include_str!("0010_tree_indexes.sqlite.sql"),
        postgres: include_str!("0010_tree_indexes.postgres.sql"),
    },
    // 11: CI/CD variables of the instance, groups and projects (the custom role flag
    // `admin_cicd_variables`).
    Migration {
        sqlite: include_str!("0011_ci_variables.sqlite.sql"),
        postgres: include_str!("0011_ci_variables.postgres.sql"),
    },
    // 12 (issue #41): webhooks, their outbox of deliveries and their logs.
    Migration { sqlite: include_str!("0012_hooks.sqlite.sql"), postgres: include_str!("0012_hooks.postgres.sql") },
    // 13 (issue #42): releases and their asset links, commit statuses and the external
    // pipelines GitLab makes for them.
    Migration {
        sqlite: include_str!("0013_releases_statuses.sqlite.sql"),
        postgres: include_str!("0013_releases_statuses.postgres.sql"),
    },
    // 14 (issue #38): fork networks, `mr_default_target_self`, and projects and groups shared
    // with groups.
    Migration {
        sqlite: include_str!("0014_forks_and_shares.sqlite.sql"),
        postgres: include_str!("0014_forks_and_shares.postgres.sql"),
    },
    // 15: users' `user_type` (project bots), the resource of a project or
    // group access token, and deploy tokens (issue #38).
    Migration {
        sqlite: include_str!("0015_access_tokens.sqlite.sql"),
        postgres: include_str!("0015_access_tokens.postgres.sql"),
    },
    // 16 (issue #39, decisions D10): merge requests, their iid sequence,
    // diff versions, assignees and reviewers.
    Migration {
        sqlite: include_str!("0016_merge_requests.sqlite.sql"),
        postgres: include_str!("0016_merge_requests.postgres.sql"),
    },
    // 17 (issue #40): labels and their links to issues
    // and merge requests, per-project internal ids, issues and their assignees, notes.
    Migration {
        sqlite: include_str!("0017_issues_labels_notes.sqlite.sql"),
        postgres: include_str!("0017_issues_labels_notes.postgres.sql"),
    },
    Migration { sqlite: include_str!("0018_topics.sqlite.sql"), postgres: include_str!("0018_topics.postgres.sql") },
    Migration {
        sqlite: include_str!("0019_auto_merges.sqlite.sql"),
        postgres: include_str!("0019_auto_merges.postgres.sql"),
    },
    // 20 (issue #42, decisions D12): push rules of projects and groups.
    Migration {
        sqlite: include_str!("0020_push_rules.sqlite.sql"),
        postgres: include_str!("0020_push_rules.postgres.sql"),
    },
    // 21 (issue #41): group hooks, `web_hooks.group_id`.
    Migration {
        sqlite: include_str!("0021_group_hooks.sqlite.sql"),
        postgres: include_str!("0021_group_hooks.postgres.sql"),
    },
    // 22 (decisions D10): discussions (notes' `type`,
    // `discussion_id`, `commit_id`, `position`, resolution) and award emoji.
    Migration {
        sqlite: include_str!("0022_discussions_award_emoji.sqlite.sql"),
        postgres: include_str!("0022_discussions_award_emoji.postgres.sql"),
    },
    // 23: group labels (a label of a project or of a group), label
    // subscriptions, resource label events.
    Migration {
        sqlite: include_str!("0023_label_extras.sqlite.sql"),
        postgres: include_str!("0023_label_extras.postgres.sql"),
    },
];

/// The version of a database that has run every migration.
pub fn newest() -> i64 {
    MIGRATIONS.len() as i64
}

/// What a database at `version` still has to run, in order: each entry's SQL in `dialect`
/// and the version it leaves the database at. A database newer than this library is refused
/// (the error says so in one line).
pub(super) fn pending(dialect: Dialect, version: i64) -> Result<impl Iterator<Item = (i64, &'static str)>, String> {
    let known = newest();
    if version > known {
        let database = match dialect {
            Dialect::Sqlite => "the database",
            Dialect::Postgres => "the PostgreSQL store",
        };
        return Err(format!(
            "{database} has schema version {version}, newer than this library's {known}; refusing to open it"
        ));
    }
    Ok(MIGRATIONS
        .iter()
        .enumerate()
        .skip(version as usize)
        .map(move |(index, migration)| (index as i64 + 1, migration.sql(dialect))))
}
