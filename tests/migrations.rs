//! Every older schema migrates forward with its rows intact. For each version `k` of the one
//! list of migrations (`forgecore::store::migrations`), from 0 (a database nothing opened yet)
//! to the newest: a database is made as a library of version `k` left it (entries `1..=k`, the
//! version recorded where that library recorded it: SQLite's `user_version`, PostgreSQL's
//! `schema_version`), every table it has gets realistic rows in every column it has, and
//! `Store::open` migrates it. Then the database is at the newest version, every row is there
//! with its values, and each column added since holds its default.
//!
//! [`tables`] is also the record of what each backend holds at every version (their histories
//! differ up to version 3; see `src/store/migrations/mod.rs`), checked against the database
//! before any row goes in and after the migration: a migration moved, edited or added without
//! its tables and columns here fails, and so does one that loses or changes a row.
//!
//! SQLite always; PostgreSQL under `make test-rust-postgres` (`FORGECORE_TEST_POSTGRES`; plain
//! `cargo test` lists that test as ignored, never passes it), a new database for each version.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use forgecore::store::migrations::{self, MIGRATIONS};
use forgecore::store::{now_seconds, Backend, Dialect, PostgresSettings, Store, DB_FILE};
use std::collections::BTreeSet;
use std::time::Duration;

const NEEDS_SERVER: &str = "FORGECORE_TEST_POSTGRES is not set: run `make test-rust-postgres`";

/// A stored value as either backend's driver reads it (SQLite's 0 and 1 read as booleans).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    Null,
    Int(i64),
    Text(String),
    Bytes(Vec<u8>),
    Bool(bool),
}

const NULL: Value = Value::Null;

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Int(n)
    }
}

impl From<&str> for Value {
    fn from(text: &str) -> Value {
        Value::Text(text.to_string())
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<[u8; 32]> for Value {
    fn from(digest: [u8; 32]) -> Value {
        Value::Bytes(digest.to_vec())
    }
}

/// A row's values, in its table's column order.
macro_rules! row {
    ($($value:expr),* $(,)?) => { vec![$(Value::from($value)),*] };
}

/// What a column holds, to bind a value to it and read it back.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Int,
    Text,
    Bytes,
    Bool,
}

/// The version from which something exists, on each backend.
#[derive(Debug, Clone, Copy)]
struct Since {
    sqlite: i64,
    postgres: i64,
}

impl Since {
    const fn both(version: i64) -> Since {
        Since { sqlite: version, postgres: version }
    }

    fn on(self, dialect: Dialect) -> i64 {
        match dialect {
            Dialect::Sqlite => self.sqlite,
            Dialect::Postgres => self.postgres,
        }
    }
}

/// What a row made before its column existed holds in it once the column is added.
#[derive(Debug, Clone)]
enum Filled {
    With(Value),
    /// The time of the migration, in seconds since the epoch.
    Now,
    /// The row's `id` (its first column) as 40 lower-case hex digits (notes' `discussion_id`).
    IdAsHex,
}

struct Column {
    name: &'static str,
    kind: Kind,
    /// `None`: made with its table.
    added: Option<(Since, Filled)>,
}

/// A column made with its table.
fn col(name: &'static str, kind: Kind) -> Column {
    Column { name, kind, added: None }
}

/// A column a later migration adds to its table, filling rows already there.
fn added(name: &'static str, kind: Kind, since: Since, filled: Filled) -> Column {
    Column { name, kind, added: Some((since, filled)) }
}

struct Table {
    name: &'static str,
    since: Since,
    columns: Vec<Column>,
    /// Ordered by the first column, as they are read back.
    rows: Vec<Vec<Value>>,
}

impl Table {
    fn column_since(&self, column: &Column) -> Since {
        column.added.as_ref().map_or(self.since, |(since, _)| *since)
    }

    /// The positions of the columns the table has at `version`.
    fn columns_at(&self, dialect: Dialect, version: i64) -> Vec<usize> {
        (0..self.columns.len()).filter(|&i| self.column_since(&self.columns[i]).on(dialect) <= version).collect()
    }
}

/// Every table of the newest schema with the version each table and column came in, and rows
/// for each, in an order that satisfies every foreign key. A migration that adds a table or a
/// column adds it here.
fn tables() -> Vec<Table> {
    use Kind::*;
    let one = Since::both(1);
    vec![
        Table {
            name: "users",
            since: one,
            columns: vec![
                col("id", Int),
                col("username", Text),
                col("name", Text),
                col("email", Text),
                col("is_admin", Bool),
                col("created_at", Int),
                added("state", Text, Since::both(8), Filled::With("active".into())),
                added("can_create_group", Bool, Since::both(8), Filled::With(true.into())),
                added("projects_limit", Int, Since::both(8), Filled::With(100_000.into())),
                added("external", Bool, Since::both(8), Filled::With(false.into())),
                added("bio", Text, Since::both(8), Filled::With("".into())),
                added("location", Text, Since::both(8), Filled::With("".into())),
                added("public_email", Text, Since::both(8), Filled::With(NULL)),
                added("website_url", Text, Since::both(8), Filled::With("".into())),
                added("organization", Text, Since::both(8), Filled::With("".into())),
                added("job_title", Text, Since::both(8), Filled::With("".into())),
                added("note", Text, Since::both(8), Filled::With(NULL)),
                added("updated_at", Int, Since::both(8), Filled::Now),
                // 15: project bots (issue #38).
                added("user_type", Text, Since::both(15), Filled::With(Value::from("human"))),
            ],
            rows: vec![
                row![
                    1,
                    "root",
                    "Administrator",
                    "root@example.com",
                    true,
                    1_700_000_000,
                    "active",
                    true,
                    100_000,
                    false,
                    "Runs the place.",
                    "Berlin",
                    "root@example.com",
                    "https://example.com",
                    "Example",
                    "Operator",
                    "bootstrap administrator",
                    1_700_000_050,
                    "human"
                ],
                row![
                    2,
                    "Alice.Dev",
                    "Alice Developer",
                    NULL,
                    false,
                    1_700_000_100,
                    "blocked",
                    false,
                    0,
                    true,
                    "",
                    "",
                    NULL,
                    "",
                    "",
                    "",
                    NULL,
                    1_700_000_150,
                    "project_bot"
                ],
            ],
        },
        Table {
            name: "personal_access_tokens",
            since: one,
            columns: vec![
                col("id", Int),
                col("user_id", Int),
                col("name", Text),
                col("digest", Bytes),
                col("revoked", Bool),
                col("created_at", Int),
                added("scopes", Text, Since::both(9), Filled::With(Value::from(r#"["api"]"#))),
                added("expires_at", Text, Since::both(9), Filled::With(NULL)),
                added("description", Text, Since::both(9), Filled::With(NULL)),
                added("last_used_at", Int, Since::both(9), Filled::With(NULL)),
                added("previous_id", Int, Since::both(9), Filled::With(NULL)),
                added("resource_type", Text, Since::both(15), Filled::With(NULL)),
                added("resource_id", Int, Since::both(15), Filled::With(NULL)),
            ],
            rows: vec![
                row![
                    1,
                    1,
                    "bootstrap",
                    [0x11; 32],
                    false,
                    1_700_000_200,
                    r#"["api","sudo"]"#,
                    "2027-01-31",
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL
                ],
                row![
                    2,
                    2,
                    "old laptop",
                    [0x22; 32],
                    true,
                    1_700_000_300,
                    r#"["read_api"]"#,
                    NULL,
                    "CI",
                    1_700_000_400,
                    1,
                    "project",
                    1
                ],
            ],
        },
        Table {
            name: "groups",
            since: one,
            columns: vec![
                col("id", Int),
                col("parent_id", Int),
                col("path", Text),
                col("full_path", Text),
                col("name", Text),
                col("visibility", Text),
                // 5: groups through the API (issue #38).
                added("description", Text, Since::both(5), Filled::With(Value::from(""))),
                added("created_at", Int, Since::both(5), Filled::Now),
                added("default_branch", Text, Since::both(5), Filled::With(NULL)),
                added("project_creation_level", Text, Since::both(5), Filled::With(Value::from("developer"))),
                added("subgroup_creation_level", Text, Since::both(5), Filled::With(Value::from("maintainer"))),
                added("request_access_enabled", Bool, Since::both(5), Filled::With(Value::Bool(true))),
                added("share_with_group_lock", Bool, Since::both(5), Filled::With(Value::Bool(false))),
                added("require_two_factor_authentication", Bool, Since::both(5), Filled::With(Value::Bool(false))),
                added("two_factor_grace_period", Int, Since::both(5), Filled::With(Value::Int(48))),
                added("lfs_enabled", Bool, Since::both(5), Filled::With(Value::Bool(true))),
                added("emails_enabled", Bool, Since::both(5), Filled::With(Value::Bool(true))),
                added("mentions_disabled", Bool, Since::both(5), Filled::With(Value::Bool(false))),
                // 7: groups marked for deletion (issue #38).
                added("marked_for_deletion_at", Int, Since::both(7), Filled::With(NULL)),
                added("marked_for_deletion_by", Int, Since::both(7), Filled::With(NULL)),
            ],
            rows: vec![
                row![
                    1,
                    NULL,
                    "platform",
                    "platform",
                    "Platform",
                    "internal",
                    "The platform team",
                    1_700_000_050,
                    "trunk",
                    "maintainer",
                    "owner",
                    false,
                    true,
                    true,
                    12,
                    false,
                    false,
                    true,
                    NULL,
                    NULL
                ],
                row![
                    2,
                    1,
                    "Tools",
                    "platform/Tools",
                    "Tools",
                    "private",
                    "",
                    1_700_000_060,
                    NULL,
                    "developer",
                    "maintainer",
                    true,
                    false,
                    false,
                    48,
                    true,
                    true,
                    false,
                    1_700_000_950,
                    1
                ],
            ],
        },
        Table {
            name: "projects",
            since: one,
            columns: vec![
                col("id", Int),
                col("group_id", Int),
                col("path", Text),
                col("full_path", Text),
                col("name", Text),
                col("repo_dir", Text),
                col("visibility", Text),
                col("forked_from_id", Int),
                added("storage", Text, Since { sqlite: 3, postgres: 1 }, Filled::With(NULL)),
                added("created_at", Int, Since::both(4), Filled::Now),
                added("description", Text, Since::both(4), Filled::With(NULL)),
                added("protections_stored", Bool, Since::both(4), Filled::With(Value::Bool(false))),
                added("archived", Bool, Since::both(7), Filled::With(Value::Bool(false))),
                added("marked_for_deletion_at", Int, Since::both(7), Filled::With(NULL)),
                added("marked_for_deletion_by", Int, Since::both(7), Filled::With(NULL)),
                added("created_repository", Bool, Since::both(7), Filled::With(Value::Bool(false))),
                added("merge_method", Text, Since::both(7), Filled::With(Value::Text("merge".into()))),
                added("squash_option", Text, Since::both(7), Filled::With(Value::Text("default_off".into()))),
                added("remove_source_branch_after_merge", Bool, Since::both(7), Filled::With(Value::Bool(true))),
                added("only_allow_merge_if_pipeline_succeeds", Bool, Since::both(7), Filled::With(Value::Bool(false))),
                added("allow_merge_on_skipped_pipeline", Bool, Since::both(7), Filled::With(Value::Bool(false))),
                added(
                    "only_allow_merge_if_all_discussions_are_resolved",
                    Bool,
                    Since::both(7),
                    Filled::With(Value::Bool(false)),
                ),
                added("creator_id", Int, Since::both(7), Filled::With(NULL)),
                added("namespace_user_id", Int, Since::both(7), Filled::With(NULL)),
                added("topics", Text, Since::both(7), Filled::With(Value::Text("[]".into()))),
                added("fork_network_root_id", Int, Since::both(14), Filled::With(NULL)),
                added("mr_default_target_self", Bool, Since::both(14), Filled::With(Value::Bool(false))),
            ],
            rows: vec![
                row![
                    1,
                    1,
                    "forge",
                    "platform/forge",
                    "forge",
                    "/srv/git/platform/forge.git",
                    "public",
                    NULL,
                    NULL,
                    1_700_000_400,
                    "The forge itself.",
                    true,
                    false,
                    NULL,
                    NULL,
                    false,
                    "merge",
                    "default_off",
                    true,
                    false,
                    false,
                    false,
                    NULL,
                    NULL,
                    "[]",
                    NULL,
                    false
                ],
                row![
                    2,
                    2,
                    "forge-fork",
                    "platform/Tools/forge-fork",
                    "forge-fork",
                    "platform/Tools/forge-fork.git",
                    "private",
                    1,
                    "fast-disks",
                    1_700_000_500,
                    NULL,
                    false,
                    true,
                    1_700_000_900,
                    2,
                    true,
                    "rebase_merge",
                    "always",
                    false,
                    true,
                    true,
                    true,
                    2,
                    2,
                    "[\"go\",\"tools\"]",
                    1,
                    true
                ],
            ],
        },
        Table {
            name: "job_tokens",
            since: one,
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("digest", Bytes),
                col("revoked", Bool),
                col("created_at", Int),
            ],
            rows: vec![row![1, 1, [0x33; 32], false, 1_700_000_600], row![2, 2, [0x44; 32], true, 1_700_000_700]],
        },
        Table {
            name: "member_roles",
            since: one,
            columns: vec![
                col("id", Int),
                col("group_id", Int),
                col("name", Text),
                col("description", Text),
                col("base_access_level", Int),
                col("permissions", Text),
                col("created_at", Int),
            ],
            rows: vec![
                row![1, NULL, "Auditor", "Reads everything", 10, r#"["read_code"]"#, 1_700_000_800],
                row![2, 1, "Releaser", NULL, 30, r#"["read_code","admin_merge_request"]"#, 1_700_000_900],
            ],
        },
        Table {
            name: "members",
            since: one,
            columns: vec![
                col("id", Int),
                col("user_id", Int),
                col("group_id", Int),
                col("project_id", Int),
                col("access_level", Int),
                col("member_role_id", Int),
                added("expires_at", Text, Since::both(6), Filled::With(NULL)),
                added("created_at", Int, Since::both(6), Filled::Now),
                added("created_by", Int, Since::both(6), Filled::With(NULL)),
            ],
            rows: vec![
                row![1, 2, 1, NULL, 30, 2, "2031-01-31", 1_700_002_000, 1],
                row![2, 1, NULL, 2, 50, NULL, NULL, 1_700_002_100, NULL],
            ],
        },
        Table {
            name: "rate_limits",
            since: one,
            columns: vec![col("key", Text), col("window_start", Int), col("hits", Int), col("expires_at", Int)],
            rows: vec![row!["anonymous:203.0.113.7", 1_700_001_000, 3, 1_700_001_060]],
        },
        Table {
            name: "health_reports",
            since: Since { sqlite: 2, postgres: 1 },
            columns: vec![col("project_id", Int), col("report", Text), col("updated_at", Int)],
            rows: vec![row![1, r#"{"checks":[{"name":"fsck","status":"ok"}]}"#, 1_700_001_100_000]],
        },
        Table {
            name: "protected_branches",
            since: Since::both(4),
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("name", Text),
                col("push_access_level", Int),
                col("merge_access_level", Int),
                col("allow_force_push", Bool),
            ],
            rows: vec![row![1, 1, "main", 40, 40, false], row![2, 1, "release/*", 0, 30, true]],
        },
        Table {
            name: "ci_variables",
            since: Since::both(11),
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("group_id", Int),
                col("key", Text),
                col("value", Text),
                col("variable_type", Text),
                col("protected", Bool),
                col("masked", Bool),
                col("hidden", Bool),
                col("raw", Bool),
                col("environment_scope", Text),
                col("description", Text),
            ],
            rows: vec![
                row![1, NULL, NULL, "INSTANCE_KEY", "v1", "env_var", false, false, false, false, "*", NULL],
                row![2, NULL, 1, "GROUP_KEY", "secret-value", "file", true, true, true, true, "*", "a group's"],
                row![3, 1, NULL, "PROJECT_KEY", "v3", "env_var", false, false, false, false, "production", NULL],
            ],
        },
        Table {
            name: "web_hooks",
            since: Since::both(12),
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("url", Text),
                col("name", Text),
                col("description", Text),
                col("token", Text),
                col("events", Text),
                col("enable_ssl_verification", Bool),
                col("push_events_branch_filter", Text),
                col("branch_filter_strategy", Text),
                col("custom_webhook_template", Text),
                col("custom_headers", Text),
                col("url_variables", Text),
                col("recent_failures", Int),
                col("disabled_until", Int),
                col("disabled", Bool),
                col("created_at", Int),
                added("group_id", Int, Since::both(21), Filled::With(NULL)),
            ],
            rows: vec![row![
                1,
                1,
                "https://hooks.example.com/in",
                "ci",
                "",
                "secret",
                r#"{"push_events":true}"#,
                true,
                "main",
                "wildcard",
                NULL,
                "{}",
                "{}",
                0,
                NULL,
                false,
                1_700_003_000,
                NULL
            ]],
        },
        Table {
            name: "web_hook_deliveries",
            since: Since::both(12),
            columns: vec![
                col("id", Int),
                col("hook_id", Int),
                col("hook_name", Text),
                col("payload", Text),
                col("idempotency_key", Text),
                col("event_uuid", Text),
                col("created_at", Int),
                col("attempts", Int),
                col("next_at", Int),
                col("lease_owner", Text),
                col("lease_until", Int),
                col("state", Text),
            ],
            rows: vec![row![
                1,
                1,
                "push_hooks",
                "{}",
                "k-1",
                "e-1",
                1_700_003_000_000,
                0,
                1_700_003_000_000,
                NULL,
                NULL,
                "pending"
            ]],
        },
        Table {
            name: "web_hook_logs",
            since: Since::both(12),
            columns: vec![
                col("id", Int),
                col("hook_id", Int),
                col("hook_name", Text),
                col("url", Text),
                col("request_headers", Text),
                col("request_data", Text),
                col("response_headers", Text),
                col("response_body", Text),
                col("response_status", Text),
                col("execution_duration", Int),
                col("created_at", Int),
            ],
            rows: vec![row![
                1,
                1,
                "push_hooks",
                "https://hooks.example.com/in",
                "{}",
                "{}",
                "{}",
                "ok",
                "200",
                1500,
                1_700_003_001
            ]],
        },
        Table {
            name: "releases",
            since: Since::both(13),
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("tag_name", Text),
                col("name", Text),
                col("description", Text),
                col("author_id", Int),
                col("sha", Text),
                col("created_at", Int),
                col("released_at", Int),
                col("updated_at", Int),
            ],
            rows: vec![row![1, 1, "v1.0.0", "v1.0.0", "notes", 1, NULL, 1_700_003_000, 1_700_003_000, 1_700_003_000]],
        },
        Table {
            name: "release_links",
            since: Since::both(13),
            columns: vec![
                col("id", Int),
                col("release_id", Int),
                col("name", Text),
                col("url", Text),
                col("filepath", Text),
                col("link_type", Text),
                col("created_at", Int),
            ],
            rows: vec![row![1, 1, "bin", "https://example.com/bin", "/bin", "package", 1_700_003_000]],
        },
        Table {
            name: "pipelines",
            since: Since::both(13),
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("iid", Int),
                col("sha", Text),
                col("ref_name", Text),
                col("status", Text),
                col("source", Text),
                col("user_id", Int),
                col("created_at", Int),
                col("updated_at", Int),
                col("started_at", Int),
                col("finished_at", Int),
            ],
            rows: vec![row![
                1,
                1,
                1,
                "abc",
                "main",
                "success",
                "external",
                1,
                1_700_003_000,
                1_700_003_000,
                NULL,
                NULL
            ]],
        },
        Table {
            name: "commit_statuses",
            since: Since::both(13),
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("pipeline_id", Int),
                col("sha", Text),
                col("ref_name", Text),
                col("name", Text),
                col("status", Text),
                col("target_url", Text),
                col("description", Text),
                col("coverage", Text),
                col("user_id", Int),
                col("retried", Bool),
                col("created_at", Int),
                col("started_at", Int),
                col("finished_at", Int),
            ],
            rows: vec![row![
                1,
                1,
                1,
                "abc",
                "main",
                "ci",
                "success",
                NULL,
                NULL,
                "12.5",
                1,
                false,
                1_700_003_000,
                NULL,
                NULL
            ]],
        },
        Table {
            name: "project_group_links",
            since: Since::both(14),
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("group_id", Int),
                col("group_access", Int),
                col("expires_at", Text),
                col("created_at", Int),
            ],
            rows: vec![row![1, 1, 2, 30, "2031-02-28", 1_700_003_000], row![2, 2, 1, 20, NULL, 1_700_003_100]],
        },
        Table {
            name: "group_group_links",
            since: Since::both(14),
            columns: vec![
                col("id", Int),
                col("shared_group_id", Int),
                col("shared_with_group_id", Int),
                col("group_access", Int),
                col("expires_at", Text),
                col("created_at", Int),
            ],
            rows: vec![row![1, 1, 2, 40, NULL, 1_700_003_200]],
        },
        Table {
            name: "deploy_tokens",
            since: Since::both(15),
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("group_id", Int),
                col("name", Text),
                col("username", Text),
                col("digest", Bytes),
                col("scopes", Text),
                col("expires_at", Int),
                col("revoked", Bool),
                col("created_at", Int),
                col("last_used_at", Int),
            ],
            rows: vec![
                row![
                    1,
                    1,
                    NULL,
                    "ci",
                    "gitlab+deploy-token-1",
                    [0x33; 32],
                    r#"["read_repository"]"#,
                    NULL,
                    false,
                    1_700_003_000,
                    NULL
                ],
                row![
                    2,
                    NULL,
                    1,
                    "registry",
                    "deployer",
                    [0x44; 32],
                    r#"["read_registry"]"#,
                    1_800_000_000,
                    true,
                    1_700_003_100,
                    1_700_003_200
                ],
            ],
        },
        Table {
            name: "labels",
            since: Since::both(17),
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("title", Text),
                col("color", Text),
                col("description", Text),
                col("priority", Int),
                col("created_at", Int),
                col("updated_at", Int),
                // Group labels (issue-extras): a project's labels keep `group_id` NULL.
                added("group_id", Int, LABEL_EXTRAS, Filled::With(NULL)),
            ],
            rows: vec![
                row![1, 1, "bug", "#d9534f", "Broken", NULL, 1_700_003_000_000, 1_700_003_000_000, NULL],
                row![2, 1, "dependencies", "#6699cc", NULL, 2, 1_700_003_100_000, 1_700_003_200_000, NULL],
            ],
        },
        Table {
            name: "internal_ids",
            since: Since::both(17),
            columns: vec![col("project_id", Int), col("usage", Text), col("last_value", Int)],
            rows: vec![row![1, "issues", 2]],
        },
        Table {
            name: "issues",
            since: Since::both(17),
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("iid", Int),
                col("author_id", Int),
                col("title", Text),
                col("description", Text),
                col("state", Text),
                col("confidential", Bool),
                col("created_at", Int),
                col("updated_at", Int),
                col("closed_at", Int),
                col("closed_by_id", Int),
            ],
            rows: vec![
                row![
                    1,
                    1,
                    1,
                    1,
                    "Dependency Dashboard",
                    "- [ ] dep",
                    "opened",
                    false,
                    1_700_003_000_000,
                    1_700_003_000_000,
                    NULL,
                    NULL
                ],
                row![
                    2,
                    1,
                    2,
                    2,
                    "Leak",
                    NULL,
                    "closed",
                    true,
                    1_700_003_100_000,
                    1_700_003_300_000,
                    1_700_003_300_000,
                    1
                ],
            ],
        },
        Table {
            name: "issue_assignees",
            since: Since::both(17),
            columns: vec![col("issue_id", Int), col("user_id", Int)],
            rows: vec![row![2, 1]],
        },
        Table {
            name: "label_links",
            since: Since::both(17),
            columns: vec![col("target_type", Text), col("target_id", Int), col("label_id", Int)],
            rows: vec![row!["Issue", 1, 2], row!["Issue", 2, 1]],
        },
        Table {
            name: "notes",
            since: Since::both(17),
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("noteable_type", Text),
                col("noteable_id", Int),
                col("author_id", Int),
                col("body", Text),
                col("system", Bool),
                col("internal", Bool),
                col("created_at", Int),
                col("updated_at", Int),
                added("type", Text, Since::both(22), Filled::With(NULL)),
                added("discussion_id", Text, Since::both(22), Filled::IdAsHex),
                added("commit_id", Text, Since::both(22), Filled::With(NULL)),
                added("position", Text, Since::both(22), Filled::With(NULL)),
                added("resolved_at", Int, Since::both(22), Filled::With(NULL)),
                added("resolved_by_id", Int, Since::both(22), Filled::With(NULL)),
            ],
            rows: vec![
                row![
                    1,
                    1,
                    "Issue",
                    2,
                    1,
                    "closed",
                    true,
                    false,
                    1_700_003_300_000,
                    1_700_003_300_000,
                    NULL,
                    "0000000000000000000000000000000000000001",
                    NULL,
                    NULL,
                    NULL,
                    NULL
                ],
                row![
                    2,
                    1,
                    "MergeRequest",
                    1,
                    2,
                    "Line 3?",
                    false,
                    true,
                    1_700_003_400_000,
                    1_700_003_400_000,
                    "DiffNote",
                    "0000000000000000000000000000000000000002",
                    NULL,
                    r#"{"base_sha":"b","start_sha":"c","head_sha":"a","position_type":"text","new_line":3}"#,
                    1_700_003_500_000,
                    1
                ],
            ],
        },
        Table {
            name: "award_emoji",
            since: Since::both(22),
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("name", Text),
                col("user_id", Int),
                col("awardable_type", Text),
                col("awardable_id", Int),
                col("created_at", Int),
                col("updated_at", Int),
            ],
            rows: vec![row![1, 1, "thumbsup", 2, "Issue", 1, 1_700_003_600_000, 1_700_003_600_000]],
        },
        Table {
            name: "merge_request_iids",
            since: Since::both(16),
            columns: vec![col("project_id", Int), col("last_value", Int)],
            rows: vec![row![1, 2]],
        },
        Table {
            name: "merge_requests",
            since: Since::both(16),
            columns: vec![
                col("id", Int),
                col("iid", Int),
                col("target_project_id", Int),
                col("source_project_id", Int),
                col("source_branch", Text),
                col("target_branch", Text),
                col("title", Text),
                col("description", Text),
                col("state", Text),
                col("author_id", Int),
                col("draft", Bool),
                col("squash", Bool),
                col("force_remove_source_branch", Bool),
                col("should_remove_source_branch", Bool),
                col("merged_by_id", Int),
                col("merged_at", Int),
                col("closed_by_id", Int),
                col("closed_at", Int),
                col("merge_commit_sha", Text),
                col("squash_commit_sha", Text),
                col("merge_error", Text),
                col("head_sha", Text),
                col("base_sha", Text),
                col("start_sha", Text),
                col("changes_count", Int),
                col("created_at", Int),
                col("updated_at", Int),
            ],
            rows: vec![
                row![
                    1,
                    1,
                    1,
                    1,
                    "feature",
                    "main",
                    "Draft: Add the feature",
                    "Closes #3",
                    "opened",
                    2,
                    true,
                    false,
                    true,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
                    "cccccccccccccccccccccccccccccccccccccccc",
                    3,
                    1_700_003_000_000,
                    1_700_003_100_000
                ],
                row![
                    2,
                    2,
                    1,
                    2,
                    "fix",
                    "main",
                    "Fix it",
                    NULL,
                    "merged",
                    1,
                    false,
                    true,
                    false,
                    true,
                    1,
                    1_700_003_300_000,
                    NULL,
                    NULL,
                    "dddddddddddddddddddddddddddddddddddddddd",
                    "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
                    NULL,
                    "ffffffffffffffffffffffffffffffffffffffff",
                    NULL,
                    NULL,
                    NULL,
                    1_700_003_200_000,
                    1_700_003_300_000
                ],
            ],
        },
        Table {
            name: "merge_request_diffs",
            since: Since::both(16),
            columns: vec![
                col("id", Int),
                col("merge_request_id", Int),
                col("head_sha", Text),
                col("base_sha", Text),
                col("start_sha", Text),
                col("state", Text),
                col("files_count", Int),
                col("commits_count", Int),
                col("created_at", Int),
            ],
            rows: vec![
                row![
                    1,
                    1,
                    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
                    "cccccccccccccccccccccccccccccccccccccccc",
                    "collected",
                    3,
                    2,
                    1_700_003_000_000
                ],
                row![2, 2, "ffffffffffffffffffffffffffffffffffffffff", NULL, NULL, "empty", 0, 0, 1_700_003_200_000],
            ],
        },
        Table {
            name: "merge_request_assignees",
            since: Since::both(16),
            columns: vec![col("merge_request_id", Int), col("user_id", Int), col("position", Int)],
            rows: vec![row![1, 1, 0], row![2, 2, 0]],
        },
        Table {
            name: "merge_request_reviewers",
            since: Since::both(16),
            columns: vec![
                col("merge_request_id", Int),
                col("user_id", Int),
                col("state", Text),
                col("created_at", Int),
            ],
            rows: vec![row![1, 2, "unreviewed", 1_700_003_000_000], row![2, 1, "reviewed", 1_700_003_250_000]],
        },
        Table {
            name: "topics",
            since: Since::both(18),
            columns: vec![
                col("id", Int),
                col("name", Text),
                col("title", Text),
                col("description", Text),
                col("created_at", Int),
                col("updated_at", Int),
            ],
            rows: vec![
                row![1, "rust", "Rust", "Systems programming.", 1_700_003_400, 1_700_003_400],
                row![2, "cli", "cli", NULL, 1_700_003_500, 1_700_003_600],
            ],
        },
        Table {
            name: "project_topics",
            since: Since::both(18),
            columns: vec![col("project_id", Int), col("topic_id", Int)],
            rows: vec![row![1, 1], row![1, 2], row![2, 1]],
        },
        Table {
            name: "merge_request_auto_merges",
            since: Since::both(19),
            columns: vec![
                col("merge_request_id", Int),
                col("merge_user_id", Int),
                col("sha", Text),
                col("squash", Bool),
                col("should_remove_source_branch", Bool),
                col("merge_commit_message", Text),
                col("squash_commit_message", Text),
                col("created_at", Int),
            ],
            rows: vec![row![
                1,
                2,
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                true,
                NULL,
                "Merge it",
                NULL,
                1_700_003_300_000
            ]],
        },
        Table {
            name: "push_rules",
            since: Since::both(20),
            columns: vec![
                col("id", Int),
                col("project_id", Int),
                col("group_id", Int),
                col("created_at", Int),
                col("updated_at", Int),
                col("commit_message_regex", Text),
                col("commit_message_negative_regex", Text),
                col("branch_name_regex", Text),
                col("author_email_regex", Text),
                col("file_name_regex", Text),
                col("deny_delete_tag", Bool),
                col("member_check", Bool),
                col("prevent_secrets", Bool),
                col("max_file_size", Int),
                col("commit_committer_check", Bool),
                col("commit_committer_name_check", Bool),
                col("reject_unsigned_commits", Bool),
                col("reject_non_dco_commits", Bool),
            ],
            rows: vec![
                row![
                    1,
                    1,
                    NULL,
                    1_700_004_000_000,
                    1_700_004_100_000,
                    "^JIRA-\\d+",
                    "WIP",
                    "^(feature|fix)/",
                    "@example\\.com$",
                    "\\.exe$",
                    true,
                    false,
                    true,
                    10,
                    false,
                    false,
                    false,
                    true
                ],
                row![
                    2,
                    NULL,
                    1,
                    1_700_004_200_000,
                    1_700_004_200_000,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    false,
                    true,
                    false,
                    0,
                    true,
                    true,
                    true,
                    false
                ],
            ],
        },
        Table {
            name: "label_subscriptions",
            since: LABEL_EXTRAS,
            columns: vec![col("id", Int), col("label_id", Int), col("user_id", Int), col("project_id", Int)],
            rows: vec![row![1, 1, 1, NULL], row![2, 2, 2, 1]],
        },
        Table {
            name: "resource_label_events",
            since: LABEL_EXTRAS,
            columns: vec![
                col("id", Int),
                col("target_type", Text),
                col("target_id", Int),
                col("label_id", Int),
                col("user_id", Int),
                col("action", Text),
                col("created_at", Int),
            ],
            rows: vec![
                row![1, "Issue", 1, 2, 1, "add", 1_700_003_000_000],
                row![2, "MergeRequest", 1, NULL, 2, "remove", 1_700_003_100_000],
            ],
        },
    ]
}

/// The rows a migration makes in a table new since `version` from the rows of older tables:
/// version 18 makes the topics the projects' `topics` (there since 7) name, and their links
/// (the fork, project 2, names `go` and `tools`). Times written by the migration read as 0.
fn made_by_migration(table: &str, version: i64) -> Vec<Vec<Value>> {
    match table {
        "topics" if version >= 7 => vec![row![1, "go", "go", NULL, 0, 0], row![2, "tools", "tools", NULL, 0, 0]],
        "project_topics" if version >= 7 => vec![row![2, 1], row![2, 2]],
        _ => Vec::new(),
    }
}

/// The migration of group labels, label subscriptions and resource label events
/// (`0023_label_extras`).
const LABEL_EXTRAS: Since = Since::both(23);

/// A database as its own driver sees it: to make it as an older library left it, and to read
/// what the store left of it.
enum Raw {
    Sqlite(rusqlite::Connection),
    Postgres(postgres::Client),
}

impl Raw {
    fn batch(&mut self, sql: &str) {
        match self {
            Raw::Sqlite(conn) => conn.execute_batch(sql).unwrap(),
            Raw::Postgres(client) => client.batch_execute(sql).unwrap(),
        }
    }

    /// The version a library recorded.
    fn version(&mut self) -> i64 {
        match self {
            Raw::Sqlite(conn) => conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap(),
            Raw::Postgres(client) => client.query_one("SELECT version FROM schema_version", &[]).unwrap().get(0),
        }
    }

    /// Records `version` where a library of that version did.
    fn record_version(&mut self, version: i64) {
        match self {
            Raw::Sqlite(conn) => conn.pragma_update(None, "user_version", version).unwrap(),
            Raw::Postgres(client) => client
                .batch_execute(&format!(
                    "CREATE TABLE schema_version (version BIGINT NOT NULL);
                     INSERT INTO schema_version (version) VALUES ({version})"
                ))
                .unwrap(),
        }
    }

    /// The first column of every row a query with one text parameter answers.
    fn names(&mut self, sqlite: &str, postgres: &str, param: &str) -> BTreeSet<String> {
        match self {
            Raw::Sqlite(conn) => {
                let mut statement = conn.prepare(sqlite).unwrap();
                let names = statement.query_map([param], |r| r.get(0)).unwrap();
                names.collect::<Result<_, _>>().unwrap()
            }
            Raw::Postgres(client) => client.query(postgres, &[&param]).unwrap().iter().map(|r| r.get(0)).collect(),
        }
    }

    /// The store's tables (not the version's own).
    fn tables(&mut self) -> BTreeSet<String> {
        self.names(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
             AND name <> ?1",
            "SELECT table_name::text FROM information_schema.tables
             WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> $1",
            "schema_version",
        )
    }

    fn columns(&mut self, table: &str) -> BTreeSet<String> {
        self.names(
            "SELECT name FROM pragma_table_info(?1)",
            "SELECT column_name::text FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = $1",
            table,
        )
    }

    fn insert(&mut self, table: &str, columns: &[&Column], values: &[&Value]) {
        let names: Vec<&str> = columns.iter().map(|c| c.name).collect();
        let mark = if matches!(self, Raw::Sqlite(_)) { "?" } else { "$" };
        let marks: Vec<String> = (1..=columns.len()).map(|i| format!("{mark}{i}")).collect();
        let sql = format!("INSERT INTO {table} ({}) VALUES ({})", names.join(", "), marks.join(", "));
        match self {
            Raw::Sqlite(conn) => {
                conn.execute(&sql, rusqlite::params_from_iter(values.iter().map(|v| sqlite_value(v)))).unwrap();
            }
            Raw::Postgres(client) => {
                let params: Vec<_> = columns.iter().zip(values).map(|(c, v)| postgres_value(c.kind, v)).collect();
                let params: Vec<&(dyn postgres::types::ToSql + Sync)> = params.iter().map(|p| p.as_ref()).collect();
                client.execute(&sql, &params).unwrap();
            }
        }
    }

    /// Every row of `table`, ordered by its first column.
    fn rows(&mut self, table: &str, columns: &[Column]) -> Vec<Vec<Value>> {
        let names: Vec<&str> = columns.iter().map(|c| c.name).collect();
        let sql = format!("SELECT {} FROM {table} ORDER BY 1", names.join(", "));
        let read = |i: usize, c: &Column, value| match (c.kind, value) {
            (_, None) => NULL,
            (Kind::Bool, Some(Value::Int(n))) if n == 0 || n == 1 => Value::Bool(n == 1),
            (Kind::Bool, Some(Value::Bool(b))) => Value::Bool(b),
            (Kind::Int, Some(v @ Value::Int(_)))
            | (Kind::Text, Some(v @ Value::Text(_)))
            | (Kind::Bytes, Some(v @ Value::Bytes(_))) => v,
            (kind, Some(v)) => panic!("{table}.{} (column {i}), a {kind:?} column, holds {v:?}", c.name),
        };
        match self {
            Raw::Sqlite(conn) => {
                let mut statement = conn.prepare(&sql).unwrap();
                let mut rows = statement.query([]).unwrap();
                let mut out = Vec::new();
                while let Some(row) = rows.next().unwrap() {
                    let values =
                        columns.iter().enumerate().map(|(i, c)| read(i, c, from_sqlite(row.get_ref(i).unwrap())));
                    out.push(values.collect());
                }
                out
            }
            Raw::Postgres(client) => client
                .query(&sql, &[])
                .unwrap()
                .iter()
                .map(|row| columns.iter().enumerate().map(|(i, c)| read(i, c, from_postgres(row, i, c.kind))).collect())
                .collect(),
        }
    }
}

fn sqlite_value(value: &Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as V;
    match value {
        Value::Null => V::Null,
        Value::Int(n) => V::Integer(*n),
        Value::Text(text) => V::Text(text.clone()),
        Value::Bytes(bytes) => V::Blob(bytes.clone()),
        Value::Bool(b) => V::Integer(i64::from(*b)),
    }
}

/// A value as PostgreSQL binds it: a NULL is typed by its column.
fn postgres_value(kind: Kind, value: &Value) -> Box<dyn postgres::types::ToSql + Sync> {
    match (value, kind) {
        (Value::Int(n), _) => Box::new(*n),
        (Value::Text(text), _) => Box::new(text.clone()),
        (Value::Bytes(bytes), _) => Box::new(bytes.clone()),
        (Value::Bool(b), _) => Box::new(*b),
        (Value::Null, Kind::Int) => Box::new(None::<i64>),
        (Value::Null, Kind::Text) => Box::new(None::<String>),
        (Value::Null, Kind::Bytes) => Box::new(None::<Vec<u8>>),
        (Value::Null, Kind::Bool) => Box::new(None::<bool>),
    }
}

fn from_sqlite(value: rusqlite::types::ValueRef) -> Option<Value> {
    use rusqlite::types::ValueRef as V;
    match value {
        V::Null => None,
        V::Integer(n) => Some(Value::Int(n)),
        V::Text(text) => Some(Value::Text(String::from_utf8(text.to_vec()).unwrap())),
        V::Blob(bytes) => Some(Value::Bytes(bytes.to_vec())),
        V::Real(real) => panic!("a REAL in a store without one: {real}"),
    }
}

fn from_postgres(row: &postgres::Row, i: usize, kind: Kind) -> Option<Value> {
    match kind {
        Kind::Int => row.get::<_, Option<i64>>(i).map(Value::Int),
        Kind::Text => row.get::<_, Option<String>>(i).map(Value::Text),
        Kind::Bytes => row.get::<_, Option<Vec<u8>>>(i).map(Value::Bytes),
        Kind::Bool => row.get::<_, Option<bool>>(i).map(Value::Bool),
    }
}

/// Where one version's database lives, on one backend.
enum Place {
    /// The data directory.
    Sqlite(common::TempDir),
    /// A database of its own on the test server.
    Postgres(String),
}

impl Place {
    fn dialect(&self) -> Dialect {
        match self {
            Place::Sqlite(_) => Dialect::Sqlite,
            Place::Postgres(_) => Dialect::Postgres,
        }
    }

    /// A connection of the backend's own driver, as an older library's pragmas left SQLite's.
    fn connect(&self) -> Raw {
        match self {
            Place::Sqlite(dir) => {
                let conn = rusqlite::Connection::open(dir.path().join(DB_FILE)).unwrap();
                conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;").unwrap();
                Raw::Sqlite(conn)
            }
            Place::Postgres(url) => Raw::Postgres(postgres::Client::connect(url, postgres::NoTls).unwrap()),
        }
    }

    /// The store, as a host opens it.
    fn open(&self) -> Result<Store, String> {
        match self {
            Place::Sqlite(dir) => Store::open(&Backend::Sqlite, dir.path()),
            Place::Postgres(url) => {
                let settings = PostgresSettings { url: url.clone(), pool_size: 2, timeout: Duration::from_secs(10) };
                Store::open(&Backend::Postgres(settings), std::path::Path::new(""))
            }
        }
    }
}

/// The tables that exist at `version`.
fn existing(tables: &[Table], dialect: Dialect, version: i64) -> impl Iterator<Item = &Table> {
    tables.iter().filter(move |t| t.since.on(dialect) <= version)
}

/// The database has exactly the tables and columns `tables` says it has at `version`.
fn check_schema(db: &mut Raw, tables: &[Table], dialect: Dialect, version: i64, when: &str) {
    let expected: BTreeSet<String> = existing(tables, dialect, version).map(|t| t.name.to_string()).collect();
    assert_eq!(db.tables(), expected, "{when}: the tables of version {version}");
    for table in existing(tables, dialect, version) {
        let expected: BTreeSet<String> =
            table.columns_at(dialect, version).into_iter().map(|i| table.columns[i].name.to_string()).collect();
        assert_eq!(db.columns(table.name), expected, "{when}: the columns of {} at version {version}", table.name);
    }
}

/// A database at `version` in `place`, as a library of that version left it, with every row
/// of every table it has, in every column it has.
fn make_old(place: &Place, tables: &[Table], version: i64, when: &str) {
    let dialect = place.dialect();
    let mut old = place.connect();
    for migration in &MIGRATIONS[..version as usize] {
        old.batch(migration.sql(dialect));
    }
    if version > 0 {
        old.record_version(version);
    }
    check_schema(&mut old, tables, dialect, version, &format!("{when}, before migrating"));
    for table in existing(tables, dialect, version) {
        let present = table.columns_at(dialect, version);
        let columns: Vec<&Column> = present.iter().map(|&i| &table.columns[i]).collect();
        for row in &table.rows {
            old.insert(table.name, &columns, &present.iter().map(|&i| &row[i]).collect::<Vec<_>>());
        }
    }
}

/// Every row `make_old` put in a database of `version` is there after the migration, with
/// its values, and the columns added since hold their defaults (`Filled::Now` a time within
/// `migrated`); tables added since are empty.
fn check_rows(
    db: &mut Raw,
    tables: &[Table],
    dialect: Dialect,
    version: i64,
    migrated: std::ops::RangeInclusive<i64>,
    when: &str,
) {
    for table in tables {
        let stored = db.rows(table.name, &table.columns);
        if table.since.on(dialect) > version {
            // Times the migration wrote read as 0, to compare with what it should have made.
            let stored: Vec<Vec<Value>> = stored
                .into_iter()
                .map(|row| {
                    row.into_iter()
                        .zip(&table.columns)
                        .map(|(value, column)| match value {
                            Value::Int(t) if column.name.ends_with("_at") && migrated.contains(&t) => Value::Int(0),
                            other => other,
                        })
                        .collect()
                })
                .collect();
            let made = made_by_migration(table.name, version);
            assert_eq!(stored, made, "{when}: {} is new, holding what the migration made of older rows", table.name);
            continue;
        }
        assert_eq!(stored.len(), table.rows.len(), "{when}: the rows of {}: {stored:?}", table.name);
        for (stored, inserted) in stored.iter().zip(&table.rows) {
            for (i, column) in table.columns.iter().enumerate() {
                let what = format!("{when}: {}.{} of the row {:?}", table.name, column.name, inserted[0]);
                match &column.added {
                    Some((since, filled)) if since.on(dialect) > version => match filled {
                        Filled::With(value) => assert_eq!(&stored[i], value, "{what}, added since"),
                        Filled::IdAsHex => {
                            let Value::Int(id) = inserted[0] else { panic!("{what}: the row has no integer id") };
                            assert_eq!(stored[i], Value::Text(format!("{id:040x}")), "{what}, added since")
                        }
                        Filled::Now => assert!(
                            matches!(stored[i], Value::Int(t) if migrated.contains(&t)),
                            "{what}, added since: {:?}, not a time of the migration ({migrated:?})",
                            stored[i]
                        ),
                    },
                    _ => assert_eq!(stored[i], inserted[i], "{what}"),
                }
            }
        }
    }
}

/// For every version from 0 to the newest, a database of that version in a new `place`, with
/// rows in every table it has, is migrated by `Store::open` with every row intact.
fn every_version_migrates_forward_with_its_rows(place: impl Fn() -> Place) {
    let tables = tables();
    let newest = migrations::newest();
    for version in 0..=newest {
        let place = place();
        let dialect = place.dialect();
        let when = format!("{dialect:?} from version {version}");
        make_old(&place, &tables, version, &when);
        let started = now_seconds();
        let store = place.open().unwrap_or_else(|e| panic!("{when}: Store::open: {e}"));
        // PostgreSQL rounds the epoch it stores to the nearest second.
        let ended = now_seconds() + 1;
        let mut db = place.connect();
        assert_eq!(db.version(), newest, "{when}: the recorded version");
        check_schema(&mut db, &tables, dialect, newest, &format!("{when}, migrated"));
        check_rows(&mut db, &tables, dialect, version, started..=ended, &when);
        drop(store);
    }
}

#[test]
fn every_older_sqlite_database_migrates_forward_with_its_rows() {
    every_version_migrates_forward_with_its_rows(|| Place::Sqlite(common::TempDir::new()));
}

#[test]
#[ignore = "needs a PostgreSQL server: make test-rust-postgres"]
fn every_older_postgres_database_migrates_forward_with_its_rows() {
    let server = common::postgres_server().expect(NEEDS_SERVER);
    every_version_migrates_forward_with_its_rows(|| Place::Postgres(common::new_postgres_database(&server)));
}
