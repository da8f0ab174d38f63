//! Commit statuses and the external pipelines that hold them (issue #42, D12): GitLab makes one
//! pipeline (`source: external`) per sha and ref the first time a status is posted for them,
//! and each status is a job of it. A finished status is never changed: the next one of the
//! same name retries it (`retried`). Times are seconds since the epoch.

use super::db::{Db, Dialect, Row};
use super::error::StoreResult;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    pub id: i64,
    pub project_id: i64,
    pub iid: i64,
    pub sha: String,
    pub ref_name: String,
    pub status: String,
    pub source: String,
    pub user_id: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CommitStatus {
    pub id: i64,
    pub project_id: i64,
    pub pipeline_id: i64,
    pub sha: String,
    pub ref_name: String,
    pub name: String,
    pub status: String,
    pub target_url: Option<String>,
    pub description: Option<String>,
    /// A decimal number as text (both stores keep it exactly as given).
    pub coverage: Option<String>,
    pub user_id: Option<i64>,
    pub retried: bool,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
}

const PIPELINE_COLUMNS: &str =
    "id, project_id, iid, sha, ref_name, status, source, user_id, created_at, updated_at, started_at, finished_at";
const STATUS_COLUMNS: &str = "id, project_id, pipeline_id, sha, ref_name, name, status, target_url, description, \
                              coverage, user_id, retried, created_at, started_at, finished_at";

fn pipeline_from_row(row: &Row) -> StoreResult<Pipeline> {
    Ok(Pipeline {
        id: row.i64(0)?,
        project_id: row.i64(1)?,
        iid: row.i64(2)?,
        sha: row.string(3)?,
        ref_name: row.string(4)?,
        status: row.string(5)?,
        source: row.string(6)?,
        user_id: row.opt_i64(7)?,
        created_at: row.i64(8)?,
        updated_at: row.i64(9)?,
        started_at: row.opt_i64(10)?,
        finished_at: row.opt_i64(11)?,
    })
}

fn status_from_row(row: &Row) -> StoreResult<CommitStatus> {
    Ok(CommitStatus {
        id: row.i64(0)?,
        project_id: row.i64(1)?,
        pipeline_id: row.i64(2)?,
        sha: row.string(3)?,
        ref_name: row.string(4)?,
        name: row.string(5)?,
        status: row.string(6)?,
        target_url: row.opt_string(7)?,
        description: row.opt_string(8)?,
        coverage: row.opt_string(9)?,
        user_id: row.opt_i64(10)?,
        retried: row.bool(11)?,
        created_at: row.i64(12)?,
        started_at: row.opt_i64(13)?,
        finished_at: row.opt_i64(14)?,
    })
}

/// Holds the project's row until the transaction ends: GitLab's lease
/// `api:commit_statuses:project:<id>:sha:<sha>`, so that two hosts posting for one commit at
/// once find or make one pipeline and one job. SQLite's writes are already one at a time.
pub fn lock(db: &mut Db, project_id: i64) -> StoreResult<()> {
    if db.dialect() == Dialect::Postgres {
        db.rows("SELECT id FROM projects WHERE id = $1 FOR UPDATE", &[&project_id], |_| Ok(()))?;
    }
    Ok(())
}

/// The pipeline `id` of the project.
pub fn pipeline(db: &mut Db, project_id: i64, id: i64) -> StoreResult<Option<Pipeline>> {
    db.row(
        &format!("SELECT {PIPELINE_COLUMNS} FROM pipelines WHERE project_id = $1 AND id = $2"),
        &[&project_id, &id],
        pipeline_from_row,
    )
}

/// The newest pipeline of the project for `sha` (on `ref_name` when given).
pub fn latest_for_sha(
    db: &mut Db,
    project_id: i64,
    sha: &str,
    ref_name: Option<&str>,
) -> StoreResult<Option<Pipeline>> {
    match ref_name {
        Some(r) => db.row(
            &format!(
                "SELECT {PIPELINE_COLUMNS} FROM pipelines WHERE project_id = $1 AND sha = $2 AND ref_name = $3
                 ORDER BY id DESC"
            ),
            &[&project_id, &sha, &r],
            pipeline_from_row,
        ),
        None => db.row(
            &format!("SELECT {PIPELINE_COLUMNS} FROM pipelines WHERE project_id = $1 AND sha = $2 ORDER BY id DESC"),
            &[&project_id, &sha],
            pipeline_from_row,
        ),
    }
}

/// What the pipeline list is filtered by.
#[derive(Debug, Default)]
pub struct PipelineFilter<'a> {
    pub ref_name: Option<&'a str>,
    pub sha: Option<&'a str>,
    pub status: Option<&'a str>,
    pub source: Option<&'a str>,
}

/// The project's pipelines passing `filter`, newest first unless `ascending`.
pub fn pipelines(db: &mut Db, project_id: i64, filter: &PipelineFilter, ascending: bool) -> StoreResult<Vec<Pipeline>> {
    let direction = if ascending { "ASC" } else { "DESC" };
    let all = db.rows(
        &format!("SELECT {PIPELINE_COLUMNS} FROM pipelines WHERE project_id = $1 ORDER BY id {direction}"),
        &[&project_id],
        pipeline_from_row,
    )?;
    Ok(all
        .into_iter()
        .filter(|p| filter.ref_name.is_none_or(|r| p.ref_name == r))
        .filter(|p| filter.sha.is_none_or(|s| p.sha == s))
        .filter(|p| filter.status.is_none_or(|s| p.status == s))
        .filter(|p| filter.source.is_none_or(|s| p.source == s))
        .collect())
}

/// A new external pipeline, numbered after the project's last one.
pub fn insert_pipeline(
    db: &mut Db,
    project_id: i64,
    sha: &str,
    ref_name: &str,
    user_id: Option<i64>,
    now: i64,
) -> StoreResult<Pipeline> {
    let iid: i64 =
        db.one("SELECT COALESCE(MAX(iid), 0) + 1 FROM pipelines WHERE project_id = $1", &[&project_id], |r| r.i64(0))?;
    let id = db.one(
        "INSERT INTO pipelines (project_id, iid, sha, ref_name, status, source, user_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'created', 'external', $5, $6, $6) RETURNING id",
        &[&project_id, &iid, &sha, &ref_name, &user_id, &now],
        |r| r.i64(0),
    )?;
    Ok(Pipeline {
        id,
        project_id,
        iid,
        sha: sha.into(),
        ref_name: ref_name.into(),
        status: "created".into(),
        source: "external".into(),
        user_id,
        created_at: now,
        updated_at: now,
        started_at: None,
        finished_at: None,
    })
}

/// Writes a pipeline's status and times back.
pub fn update_pipeline(db: &mut Db, pipeline: &Pipeline) -> StoreResult<()> {
    db.execute(
        "UPDATE pipelines SET status = $1, updated_at = $2, started_at = $3, finished_at = $4 WHERE id = $5",
        &[&pipeline.status, &pipeline.updated_at, &pipeline.started_at, &pipeline.finished_at, &pipeline.id],
    )?;
    Ok(())
}

/// The statuses of a pipeline that are not retried, oldest first.
pub fn latest_of_pipeline(db: &mut Db, pipeline_id: i64) -> StoreResult<Vec<CommitStatus>> {
    db.rows(
        &format!("SELECT {STATUS_COLUMNS} FROM commit_statuses WHERE pipeline_id = $1 AND retried = $2 ORDER BY id"),
        &[&pipeline_id, &false],
        status_from_row,
    )
}

/// Every status of the project for `sha`, oldest first.
pub fn for_sha(db: &mut Db, project_id: i64, sha: &str) -> StoreResult<Vec<CommitStatus>> {
    db.rows(
        &format!("SELECT {STATUS_COLUMNS} FROM commit_statuses WHERE project_id = $1 AND sha = $2 ORDER BY id"),
        &[&project_id, &sha],
        status_from_row,
    )
}

/// The pending or running status named `name` on `ref_name` by `user_id` in the pipeline, which
/// a new post of the same name changes.
pub fn open_status(
    db: &mut Db,
    pipeline_id: i64,
    name: &str,
    ref_name: &str,
    user_id: Option<i64>,
) -> StoreResult<Option<CommitStatus>> {
    let open = db.rows(
        &format!(
            "SELECT {STATUS_COLUMNS} FROM commit_statuses
             WHERE pipeline_id = $1 AND name = $2 AND ref_name = $3 AND status IN ('pending', 'running')
             ORDER BY id DESC"
        ),
        &[&pipeline_id, &name, &ref_name],
        status_from_row,
    )?;
    Ok(open.into_iter().find(|s| s.user_id == user_id))
}

/// Adds a status to its pipeline; the pipeline's earlier statuses of the same name are retried.
pub fn insert_status(db: &mut Db, status: &CommitStatus) -> StoreResult<CommitStatus> {
    db.execute(
        "UPDATE commit_statuses SET retried = $1 WHERE pipeline_id = $2 AND name = $3",
        &[&true, &status.pipeline_id, &status.name],
    )?;
    let id = db.one(
        "INSERT INTO commit_statuses (project_id, pipeline_id, sha, ref_name, name, status, target_url, description,
                                      coverage, user_id, retried, created_at, started_at, finished_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id",
        &[
            &status.project_id,
            &status.pipeline_id,
            &status.sha,
            &status.ref_name,
            &status.name,
            &status.status,
            &status.target_url,
            &status.description,
            &status.coverage,
            &status.user_id,
            &false,
            &status.created_at,
            &status.started_at,
            &status.finished_at,
        ],
        |r| r.i64(0),
    )?;
    Ok(CommitStatus { id, retried: false, ..status.clone() })
}

/// Writes a status back.
pub fn update_status(db: &mut Db, status: &CommitStatus) -> StoreResult<()> {
    db.execute(
        "UPDATE commit_statuses SET status = $1, target_url = $2, description = $3, coverage = $4, started_at = $5,
                finished_at = $6 WHERE id = $7",
        &[
            &status.status,
            &status.target_url,
            &status.description,
            &status.coverage,
            &status.started_at,
            &status.finished_at,
            &status.id,
        ],
    )?;
    Ok(())
}
