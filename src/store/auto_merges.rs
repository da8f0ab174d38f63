//! The auto-merges of merge requests (migration 19; GitLab's `auto_merge_enabled`,
//! `merge_user` and `merge_params`): one row per merge request while "merge when the pipeline
//! succeeds" is set. [`set`] writes it (again: the newest call's parameters win, as GitLab's
//! `AutoMergeService#update`); [`take`] deletes it and answers what it held, which is how the
//! auto-merge is cancelled, aborted or carried out: of two transactions taking the same row,
//! PostgreSQL's row lock lets one have it, and the other finds nothing. What a row means is
//! the auto-merge listener's and the merge route's.

use super::db::{Db, Row};
use super::error::StoreResult;
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoMerge {
    pub merge_request_id: i64,
    /// Who set it (GitLab's `merge_user`); `None` once that user is deleted.
    pub merge_user_id: Option<i64>,
    /// The head it was set for (`merge_params['sha']`).
    pub sha: String,
    pub squash: bool,
    pub should_remove_source_branch: Option<bool>,
    pub merge_commit_message: Option<String>,
    pub squash_commit_message: Option<String>,
    /// Milliseconds since the epoch.
    pub created_at: i64,
}

const COLUMNS: &str = "merge_request_id, merge_user_id, sha, squash, should_remove_source_branch, \
                       merge_commit_message, squash_commit_message, created_at";

fn from_row(row: &Row) -> StoreResult<AutoMerge> {
    Ok(AutoMerge {
        merge_request_id: row.i64(0)?,
        merge_user_id: row.opt_i64(1)?,
        sha: row.string(2)?,
        squash: row.bool(3)?,
        should_remove_source_branch: row.opt_bool(4)?,
        merge_commit_message: row.opt_string(5)?,
        squash_commit_message: row.opt_string(6)?,
        created_at: row.i64(7)?,
    })
}

/// Sets (or resets) the auto-merge of its merge request; whether it was not set before.
pub fn set(db: &mut Db, auto: &AutoMerge) -> StoreResult<bool> {
    let before = find(db, auto.merge_request_id)?.is_some();
    db.execute(
        "INSERT INTO merge_request_auto_merges (merge_request_id, merge_user_id, sha, squash,
             should_remove_source_branch, merge_commit_message, squash_commit_message, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (merge_request_id) DO UPDATE SET merge_user_id = excluded.merge_user_id,
             sha = excluded.sha, squash = excluded.squash,
             should_remove_source_branch = excluded.should_remove_source_branch,
             merge_commit_message = excluded.merge_commit_message,
             squash_commit_message = excluded.squash_commit_message",
        &[
            &auto.merge_request_id,
            &auto.merge_user_id,
            &auto.sha,
            &auto.squash,
            &auto.should_remove_source_branch,
            &auto.merge_commit_message,
            &auto.squash_commit_message,
            &auto.created_at,
        ],
    )?;
    Ok(!before)
}

pub fn find(db: &mut Db, merge_request_id: i64) -> StoreResult<Option<AutoMerge>> {
    db.row(
        &format!("SELECT {COLUMNS} FROM merge_request_auto_merges WHERE merge_request_id = $1"),
        &[&merge_request_id],
        from_row,
    )
}

/// The auto-merges of `merge_request_ids` (a page of entities), by merge request.
pub fn of(db: &mut Db, merge_request_ids: &[i64]) -> StoreResult<HashMap<i64, AutoMerge>> {
    let mut out = HashMap::new();
    for chunk in merge_request_ids.chunks(100) {
        let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
        let params: Vec<&dyn super::db::Param> = chunk.iter().map(|id| id as &dyn super::db::Param).collect();
        let rows = db.rows(
            &format!(
                "SELECT {COLUMNS} FROM merge_request_auto_merges WHERE merge_request_id IN ({})",
                marks.join(", ")
            ),
            &params,
            from_row,
        )?;
        out.extend(rows.into_iter().map(|a| (a.merge_request_id, a)));
    }
    Ok(out)
}

/// Deletes the auto-merge of `merge_request_id` and answers what it held; `None` when it was
/// not set (or another transaction took it first).
pub fn take(db: &mut Db, merge_request_id: i64) -> StoreResult<Option<AutoMerge>> {
    db.row(
        &format!("DELETE FROM merge_request_auto_merges WHERE merge_request_id = $1 RETURNING {COLUMNS}"),
        &[&merge_request_id],
        from_row,
    )
}

/// The auto-merges of open merge requests of `project_id` whose head is `sha`, waiting on its
/// pipeline.
pub fn waiting_on(db: &mut Db, project_id: i64, sha: &str) -> StoreResult<Vec<AutoMerge>> {
    let columns: Vec<String> = COLUMNS.split(", ").map(|c| format!("a.{}", c.trim())).collect();
    db.rows(
        &format!(
            "SELECT {} FROM merge_request_auto_merges a JOIN merge_requests m ON m.id = a.merge_request_id
             WHERE m.target_project_id = $1 AND m.head_sha = $2 AND m.state = 'opened' ORDER BY a.merge_request_id",
            columns.join(", ")
        ),
        &[&project_id, &sha],
        from_row,
    )
}
