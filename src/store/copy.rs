//! Copying a whole store into an empty PostgreSQL database (`admin store-copy`), for an
//! operator who outgrows one machine: every table but the rate-limit counters (which only
//! forgive requests when lost), row by row with their ids, in one transaction, then each
//! identity column moved past the largest id copied. Token digests move as they are, so every
//! token keeps working. A target that holds anything is refused.

use super::db::{Db, Param, Row};
use super::error::{StoreError, StoreResult};
use super::{Backend, PostgresSettings, Store};

/// A column's kind, for reading it from one backend and binding it in the other.
#[derive(Clone, Copy)]
enum Kind {
    Int,
    OptInt,
    Text,
    OptText,
    Bytes,
    Bool,
    OptBool,
}

use Kind::*;

/// The tables in an order that satisfies every foreign key (groups and projects by id: a
/// parent or fork source always has the smaller one), with their columns.
const TABLES: &[(&str, &[(&str, Kind)])] = &[
    (
        "users",
        &[
            ("id", Int),
            ("username", Text),
            ("name", Text),
            ("email", OptText),
            ("is_admin", Bool),
            ("created_at", Int),
            ("state", Text),
            ("can_create_group", Bool),
            ("projects_limit", Int),
            ("external", Bool),
            ("bio", Text),
            ("location", Text),
            ("public_email", OptText),
            ("website_url", Text),
            ("organization", Text),
            ("job_title", Text),
            ("note", OptText),
            ("updated_at", Int),
            ("user_type", Text),
        ],
    ),
    (
        "personal_access_tokens",
        &[
            ("id", Int),
            ("user_id", Int),
            ("name", Text),
            ("digest", Bytes),
            ("revoked", Bool),
            ("created_at", Int),
            ("scopes", Text),
            ("expires_at", OptText),
            ("description", OptText),
            ("last_used_at", OptInt),
            // A rotation's successor has the larger id, so the row it names is copied first.
            ("previous_id", OptInt),
            ("resource_type", OptText),
            ("resource_id", OptInt),
        ],
    ),
    (
        "groups",
        &[
            ("id", Int),
            ("parent_id", OptInt),
            ("path", Text),
            ("full_path", Text),
            ("name", Text),
            ("visibility", Text),
            ("description", Text),
            ("created_at", Int),
            ("default_branch", OptText),
            ("project_creation_level", Text),
            ("subgroup_creation_level", Text),
            ("request_access_enabled", Bool),
            ("share_with_group_lock", Bool),
            ("require_two_factor_authentication", Bool),
            ("two_factor_grace_period", Int),
            ("lfs_enabled", Bool),
            ("emails_enabled", Bool),
            ("mentions_disabled", Bool),
            ("marked_for_deletion_at", OptInt),
            ("marked_for_deletion_by", OptInt),
        ],
    ),
    (
        "projects",
        &[
            ("id", Int),
            ("group_id", OptInt),
            ("path", Text),
            ("full_path", Text),
            ("name", Text),
            ("repo_dir", Text),
            ("visibility", Text),
            ("forked_from_id", OptInt),
            ("storage", OptText),
            ("created_at", Int),
            ("description", OptText),
            ("protections_stored", Bool),
            ("archived", Bool),
            ("marked_for_deletion_at", OptInt),
            ("marked_for_deletion_by", OptInt),
            ("created_repository", Bool),
            ("merge_method", Text),
            ("squash_option", Text),
            ("remove_source_branch_after_merge", Bool),
            ("only_allow_merge_if_pipeline_succeeds", Bool),
            ("allow_merge_on_skipped_pipeline", Bool),
            ("only_allow_merge_if_all_discussions_are_resolved", Bool),
            ("creator_id", OptInt),
            ("namespace_user_id", OptInt),
            ("topics", Text),
        ],
    ),
    (
        "protected_branches",
        &[
            ("id", Int),
            ("project_id", Int),
            ("name", Text),
            ("push_access_level", Int),
            ("merge_access_level", Int),
            ("allow_force_push", Bool),
        ],
    ),
    ("job_tokens", &[("id", Int), ("project_id", Int), ("digest", Bytes), ("revoked", Bool), ("created_at", Int)]),
    (
        "member_roles",
        &[
            ("id", Int),
            ("group_id", OptInt),
            ("name", Text),
            ("description", OptText),
            ("base_access_level", Int),
            ("permissions", Text),
            ("created_at", Int),
        ],
    ),
    (
        "members",
        &[
            ("id", Int),
            ("user_id", Int),
            ("group_id", OptInt),
            ("project_id", OptInt),
            ("access_level", Int),
            ("member_role_id", OptInt),
            ("expires_at", OptText),
            ("created_at", Int),
            ("created_by", OptInt),
        ],
    ),
    ("health_reports", &[("project_id", Int), ("report", Text), ("updated_at", Int)]),
    (
        "ci_variables",
        &[
            ("id", Int),
            ("project_id", OptInt),
            ("group_id", OptInt),
            ("key", Text),
            ("value", Text),
            ("variable_type", Text),
            ("protected", Bool),
            ("masked", Bool),
            ("hidden", Bool),
            ("raw", Bool),
            ("environment_scope", Text),
            ("description", OptText),
        ],
    ),
    (
        "web_hooks",
        &[
            ("id", Int),
            ("project_id", OptInt),
            ("url", Text),
            ("name", Text),
            ("description", Text),
            ("token", Text),
            ("events", Text),
            ("enable_ssl_verification", Bool),
            ("push_events_branch_filter", OptText),
            ("branch_filter_strategy", Text),
            ("custom_webhook_template", OptText),
            ("custom_headers", Text),
            ("url_variables", Text),
            ("recent_failures", Int),
            ("disabled_until", OptInt),
            ("disabled", Bool),
            ("created_at", Int),
            ("group_id", OptInt),
        ],
    ),
    (
        "web_hook_deliveries",
        &[
            ("id", Int),
            ("hook_id", Int),
            ("hook_name", Text),
            ("payload", Text),
            ("idempotency_key", Text),
            ("event_uuid", Text),
            ("created_at", Int),
            ("attempts", Int),
            ("next_at", Int),
            ("lease_owner", OptText),
            ("lease_until", OptInt),
            ("state", Text),
        ],
    ),
    (
        "web_hook_logs",
        &[
            ("id", Int),
            ("hook_id", Int),
            ("hook_name", Text),
            ("url", Text),
            ("request_headers", Text),
            ("request_data", Text),
            ("response_headers", Text),
            ("response_body", Text),
            ("response_status", Text),
            ("execution_duration", Int),
            ("created_at", Int),
        ],
    ),
    (
        "releases",
        &[
            ("id", Int),
            ("project_id", Int),
            ("tag_name", Text),
            ("name", Text),
            ("description", Text),
            ("author_id", OptInt),
            ("sha", OptText),
            ("created_at", Int),
            ("released_at", Int),
            ("updated_at", Int),
        ],
    ),
    (
        "release_links",
        &[
            ("id", Int),
            ("release_id", Int),
            ("name", Text),
            ("url", Text),
            ("filepath", OptText),
            ("link_type", Text),
            ("created_at", Int),
        ],
    ),
    (
        "pipelines",
        &[
            ("id", Int),
            ("project_id", Int),
            ("iid", Int),
            ("sha", Text),
            ("ref_name", Text),
            ("status", Text),
            ("source", Text),
            ("user_id", OptInt),
            ("created_at", Int),
            ("updated_at", Int),
            ("started_at", OptInt),
            ("finished_at", OptInt),
        ],
    ),
    (
        "commit_statuses",
        &[
            ("id", Int),
            ("project_id", Int),
            ("pipeline_id", Int),
            ("sha", Text),
            ("ref_name", Text),
            ("name", Text),
            ("status", Text),
            ("target_url", OptText),
            ("description", OptText),
            ("coverage", OptText),
            ("user_id", OptInt),
            ("retried", Bool),
            ("created_at", Int),
            ("started_at", OptInt),
            ("finished_at", OptInt),
        ],
    ),
    (
        "project_group_links",
        &[
            ("id", Int),
            ("project_id", Int),
            ("group_id", Int),
            ("group_access", Int),
            ("expires_at", OptText),
            ("created_at", Int),
        ],
    ),
    (
        "group_group_links",
        &[
            ("id", Int),
            ("shared_group_id", Int),
            ("shared_with_group_id", Int),
            ("group_access", Int),
            ("expires_at", OptText),
            ("created_at", Int),
        ],
    ),
    (
        "deploy_tokens",
        &[
            ("id", Int),
            ("project_id", OptInt),
            ("group_id", OptInt),
            ("name", Text),
            ("username", Text),
            ("digest", Bytes),
            ("scopes", Text),
            ("expires_at", OptInt),
            ("revoked", Bool),
            ("created_at", Int),
            ("last_used_at", OptInt),
        ],
    ),
    (
        "labels",
        &[
            ("id", Int),
            ("project_id", OptInt),
            ("title", Text),
            ("color", Text),
            ("description", OptText),
            ("priority", OptInt),
            ("created_at", Int),
            ("updated_at", Int),
            ("group_id", OptInt),
        ],
    ),
    ("internal_ids", &[("project_id", Int), ("usage", Text), ("last_value", Int)]),
    (
        "issues",
        &[
            ("id", Int),
            ("project_id", Int),
            ("iid", Int),
            ("author_id", OptInt),
            ("title", Text),
            ("description", OptText),
            ("state", Text),
            ("confidential", Bool),
            ("created_at", Int),
            ("updated_at", Int),
            ("closed_at", OptInt),
            ("closed_by_id", OptInt),
        ],
    ),
    ("issue_assignees", &[("issue_id", Int), ("user_id", Int)]),
    ("label_links", &[("target_type", Text), ("target_id", Int), ("label_id", Int)]),
    (
        "notes",
        &[
            ("id", Int),
            ("project_id", Int),
            ("noteable_type", Text),
            ("noteable_id", OptInt),
            ("author_id", OptInt),
            ("body", Text),
            ("system", Bool),
            ("internal", Bool),
            ("created_at", Int),
            ("updated_at", Int),
            ("type", OptText),
            ("discussion_id", Text),
            ("commit_id", OptText),
            ("position", OptText),
            ("resolved_at", OptInt),
            ("resolved_by_id", OptInt),
        ],
    ),
    (
        "award_emoji",
        &[
            ("id", Int),
            ("project_id", Int),
            ("name", Text),
            ("user_id", Int),
            ("awardable_type", Text),
            ("awardable_id", Int),
            ("created_at", Int),
            ("updated_at", Int),
        ],
    ),
    ("merge_request_iids", &[("project_id", Int), ("last_value", Int)]),
    (
        "merge_requests",
        &[
            ("id", Int),
            ("iid", Int),
            ("target_project_id", Int),
            ("source_project_id", OptInt),
            ("source_branch", Text),
            ("target_branch", Text),
            ("title", Text),
            ("description", OptText),
            ("state", Text),
            ("author_id", OptInt),
            ("draft", Bool),
            ("squash", Bool),
            ("force_remove_source_branch", Bool),
            ("should_remove_source_branch", OptBool),
            ("merged_by_id", OptInt),
            ("merged_at", OptInt),
            ("closed_by_id", OptInt),
            ("closed_at", OptInt),
            ("merge_commit_sha", OptText),
            ("squash_commit_sha", OptText),
            ("merge_error", OptText),
            ("head_sha", OptText),
            ("base_sha", OptText),
            ("start_sha", OptText),
            ("changes_count", OptInt),
            ("created_at", Int),
            ("updated_at", Int),
        ],
    ),
    (
        "merge_request_diffs",
        &[
            ("id", Int),
            ("merge_request_id", Int),
            ("head_sha", Text),
            ("base_sha", OptText),
            ("start_sha", OptText),
            ("state", Text),
            ("files_count", Int),
            ("commits_count", Int),
            ("created_at", Int),
        ],
    ),
    ("merge_request_assignees", &[("merge_request_id", Int), ("user_id", Int), ("position", Int)]),
    ("merge_request_reviewers", &[("merge_request_id", Int), ("user_id", Int), ("state", Text), ("created_at", Int)]),
    (
        "topics",
        &[
            ("id", Int),
            ("name", Text),
            ("title", Text),
            ("description", OptText),
            ("created_at", Int),
            ("updated_at", Int),
        ],
    ),
    ("project_topics", &[("project_id", Int), ("topic_id", Int)]),
    (
        "merge_request_auto_merges",
        &[
            ("merge_request_id", Int),
            ("merge_user_id", OptInt),
            ("sha", Text),
            ("squash", Bool),
            ("should_remove_source_branch", OptBool),
            ("merge_commit_message", OptText),
            ("squash_commit_message", OptText),
            ("created_at", Int),
        ],
    ),
    (
        "push_rules",
        &[
            ("id", Int),
            ("project_id", OptInt),
            ("group_id", OptInt),
            ("created_at", Int),
            ("updated_at", Int),
            ("commit_message_regex", OptText),
            ("commit_message_negative_regex", OptText),
            ("branch_name_regex", OptText),
            ("author_email_regex", OptText),
            ("file_name_regex", OptText),
            ("deny_delete_tag", Bool),
            ("member_check", Bool),
            ("prevent_secrets", Bool),
            ("max_file_size", Int),
            ("commit_committer_check", Bool),
            ("commit_committer_name_check", Bool),
            ("reject_unsigned_commits", Bool),
            ("reject_non_dco_commits", Bool),
        ],
    ),
    ("label_subscriptions", &[("id", Int), ("label_id", Int), ("user_id", Int), ("project_id", OptInt)]),
    (
        "resource_label_events",
        &[
            ("id", Int),
            ("target_type", Text),
            ("target_id", Int),
            ("label_id", OptInt),
            ("user_id", OptInt),
            ("action", Text),
            ("created_at", Int),
        ],
    ),
];

/// Tables whose `id` is an identity column to move past the copied ids.
const IDENTITIES: &[&str] = &[
    "users",
    "personal_access_tokens",
    "groups",
    "projects",
    "protected_branches",
    "job_tokens",
    "member_roles",
    "members",
    "ci_variables",
    "web_hooks",
    "web_hook_deliveries",
    "web_hook_logs",
    "releases",
    "release_links",
    "pipelines",
    "commit_statuses",
    "project_group_links",
    "group_group_links",
    "deploy_tokens",
    "labels",
    "issues",
    "notes",
    "award_emoji",
    "merge_requests",
    "merge_request_diffs",
    "topics",
    "push_rules",
    "label_subscriptions",
    "resource_label_events",
];

/// One value of a copied row.
#[derive(Debug)]
enum Value {
    Int(Option<i64>),
    Text(Option<String>),
    Bytes(Vec<u8>),
    Bool(bool),
    OptBool(Option<bool>),
}

fn read(row: &Row, index: usize, kind: Kind) -> StoreResult<Value> {
    Ok(match kind {
        Int => Value::Int(Some(row.i64(index)?)),
        OptInt => Value::Int(row.opt_i64(index)?),
        Text => Value::Text(Some(row.string(index)?)),
        OptText => Value::Text(row.opt_string(index)?),
        Bytes => Value::Bytes(row.bytes(index)?),
        Bool => Value::Bool(row.bool(index)?),
        OptBool => Value::OptBool(row.opt_bool(index)?),
    })
}

impl Value {
    /// The value as a parameter of either driver.
    fn param(&self) -> &dyn Param {
        match self {
            Value::Int(v) => v,
            Value::Text(v) => v,
            Value::Bytes(v) => v,
            Value::Bool(v) => v,
            Value::OptBool(v) => v,
        }
    }
}

/// What was copied: rows per table, in copy order.
pub type Copied = Vec<(&'static str, usize)>;

/// Copies everything in `source` into the empty PostgreSQL database `target` names.
pub fn to_postgres(source: &Store, target: &PostgresSettings) -> Result<Copied, CopyError> {
    let destination =
        Store::open(&Backend::Postgres(target.clone()), std::path::Path::new("")).map_err(CopyError::Target)?;
    destination.write(|db| {
        for (table, _) in TABLES {
            let rows = db.one(&format!("SELECT count(*) FROM {table}"), &[], |r| r.i64(0))?;
            if rows > 0 {
                return Err(CopyError::NotEmpty(table));
            }
        }
        let mut copied = Vec::new();
        for (table, columns) in TABLES {
            let rows = source.read(|from| rows_of(from, table, columns))?;
            let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
            let placeholders: Vec<String> = (1..=columns.len()).map(|i| format!("${i}")).collect();
            let insert = format!("INSERT INTO {table} ({}) VALUES ({})", names.join(", "), placeholders.join(", "));
            for row in &rows {
                let params: Vec<&dyn Param> = row.iter().map(Value::param).collect();
                db.execute(&insert, &params)?;
            }
            copied.push((*table, rows.len()));
        }
        for table in IDENTITIES {
            db.rows(
                &format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) FROM {table}"
                ),
                &[],
                |_| Ok(()),
            )?;
        }
        Ok(copied)
    })
}

fn rows_of(db: &mut Db, table: &str, columns: &[(&str, Kind)]) -> StoreResult<Vec<Vec<Value>>> {
    let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
    let order = if names.contains(&"id") { "id" } else { names[0] };
    db.rows(&format!("SELECT {} FROM {table} ORDER BY {order}", names.join(", ")), &[], |row| {
        columns.iter().enumerate().map(|(i, (_, kind))| read(row, i, *kind)).collect()
    })
}

#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error("{0}")]
    Target(String),
    #[error("the target database is not empty: {0} has rows")]
    NotEmpty(&'static str),
    #[error(transparent)]
    Store(#[from] StoreError),
}
