//! Repository health reports (B10): the last one generated for each project, kept as the JSON
//! text it is served as, with the time it was generated (milliseconds since the epoch).

use super::db::Db;
use super::error::StoreResult;

/// Stores `report` as the project's report unless a newer one is already there (two concurrent
/// generations: the later one wins, whichever commits last).
pub fn save(db: &mut Db, project_id: i64, report: &str, updated_at_millis: i64) -> StoreResult<()> {
    db.execute(
        "INSERT INTO health_reports (project_id, report, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (project_id) DO UPDATE SET report = excluded.report, updated_at = excluded.updated_at
         WHERE excluded.updated_at >= health_reports.updated_at",
        &[&project_id, &report, &updated_at_millis],
    )?;
    Ok(())
}

/// The project's last report, if one was ever generated.
pub fn find(db: &mut Db, project_id: i64) -> StoreResult<Option<String>> {
    db.row("SELECT report FROM health_reports WHERE project_id = $1", &[&project_id], |r| r.string(0))
}
