//! What maintenance last did to a repository, kept in the repository itself
//! (`forgecore-maintenance.json` beside `objects`), so that every host serving it reads the
//! same: the last runs that had something to do (when, which tasks, how each ended), newest
//! first, and when the repository was last looked at. Written by the holder of the repository's maintenance lock
//! only, through a temporary file and a rename, so a reader sees a whole record or the last one.

use super::Outcome;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// The record's file, in the repository's common directory.
pub const FILE: &str = "forgecore-maintenance.json";

/// One run, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    /// Milliseconds since the epoch.
    pub started_at: i64,
    pub finished_at: i64,
    /// Why it ran: `changed` (forgecore changed the references) or `served`.
    pub reason: String,
    /// The tasks done, in order.
    pub tasks: Vec<String>,
    /// `done`, `nothing` or `failed`.
    pub outcome: String,
    pub error: Option<String>,
    pub host: String,
}

/// Runs kept in the record.
pub const RUNS_KEPT: usize = 10;

/// The file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The last runs that did something, or failed, newest first.
    pub runs: Vec<Run>,
    /// The last run at all (one that found nothing to do included).
    pub last_checked_at: Option<i64>,
}

fn millis(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis().min(i64::MAX as u128) as i64)
}

impl Run {
    pub fn new(started: SystemTime, finished: SystemTime, reason: &str, outcome: &Outcome) -> Run {
        let (tasks, name, error) = match outcome {
            Outcome::Done(tasks) => (tasks.clone(), "done", None),
            Outcome::Nothing => (Vec::new(), "nothing", None),
            Outcome::Busy(_) => (Vec::new(), "busy", None),
            Outcome::Failed { tasks, error } => (tasks.clone(), "failed", Some(error.clone())),
        };
        Run {
            started_at: millis(started),
            finished_at: millis(finished),
            reason: reason.to_string(),
            tasks: tasks.into_iter().map(String::from).collect(),
            outcome: name.into(),
            error,
            host: super::lock::host_name(),
        }
    }
}

/// The record of the repository whose common directory is `common`; an empty one when there
/// is none or it cannot be read.
pub fn load(common: &Path) -> Record {
    std::fs::read(common.join(FILE)).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()).unwrap_or_default()
}

/// Adds `run` to the record (the caller holds the maintenance lock). Failing to write it loses
/// a report, never the repository, so errors are left out.
pub fn save(common: &Path, run: &Run) {
    let mut record = load(common);
    record.last_checked_at = Some(run.finished_at);
    if run.outcome != "nothing" {
        record.runs.insert(0, run.clone());
        record.runs.truncate(RUNS_KEPT);
    }
    let Ok(text) = serde_json::to_vec_pretty(&record) else { return };
    let temporary = common.join(format!("{FILE}.{}.tmp", std::process::id()));
    if std::fs::write(&temporary, text).and_then(|()| std::fs::rename(&temporary, common.join(FILE))).is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
}
