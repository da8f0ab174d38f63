//! B10: `GET /projects/:id/repository/health[?generate=true]`: the project's last repository
//! health report, or a new one with `generate=true` (decisions D4, D5).
//!
//! GitLab's order of checks: the project must be visible (404 "Project Not Found") and its code
//! readable (403); `generate` must be a boolean (400); the `features.repository_health` switch
//! must be on (404); the caller must be a Maintainer or an administrator (403); generating counts
//! against the per-project rate limit (429). Without `generate`, the stored report or 404. The
//! report is GitLab's `RepositoryHealth` entity, in its key order, sizes in bytes; it is stored as
//! the JSON it is served as, so a stored report reads back byte for byte. forgecore adds one key
//! at the end, `maintenance`: what its housekeeping last did to the repository and when
//! (`src/git/maintenance/record.rs`), where GitLab shows Gitaly's housekeeping only through
//! `last_full_repack`.

use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::git::health::{self as facts, Bitmap, Health, ReferenceBackend};
use crate::git::maintenance::{self, record};
use crate::params::Params;
use crate::response::{Body, Response};
use crate::store;
use forgecore_date::rfc3339;
use serde::Serialize;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// GitLab's message when `generate` is asked for too often.
pub const THROTTLED: &str = "Repository health has been requested too many times. Try again later.";

pub fn get(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadCode)?;
    let generate = params.bool("generate")?.unwrap_or(false);
    if !call.ctx.config.features.repository_health {
        return Err(ApiError::NotFound(""));
    }
    call.ctx.store.read(|db| permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ReadHealth))?;
    let report = if generate {
        let key = format!("health_generate:{}", project.id);
        call.ctx.throttle(call.ctx.config.rate_limits.health_generate, &key, THROTTLED)?;
        let (report, millis) = generate_report(&call.git_dir(&project)?)?;
        call.ctx.store.write(|db| store::health_reports::save(db, project.id, &report, millis))?;
        report
    } else {
        call.ctx.store.read(|db| store::health_reports::find(db, project.id))?.ok_or(ApiError::NotFound(""))?
    };
    Ok(Response {
        status: 200,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: Body::Bytes(report.into_bytes()),
    })
}

/// A new report of the repository at `git_dir` as JSON text, and its time in milliseconds.
pub fn generate_report(git_dir: &Path) -> ApiResult<(String, i64)> {
    let now = SystemTime::now();
    let health = facts::collect(git_dir, now).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ApiError::NotFound(""),
        _ => ApiError::internal(e),
    })?;
    let millis = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    let record = record::load(&maintenance::common_dir(git_dir));
    let report = serde_json::to_string(&entity(&health, &record, millis)).map_err(ApiError::internal)?;
    Ok((report, millis))
}

/// GitLab's `RepositoryHealth` entity (Gitaly's `RepositoryInfoResponse` plus `updated_at`).
#[derive(Serialize)]
struct Entity<'a> {
    size: u64,
    references: References,
    objects: Objects,
    commit_graph: Option<CommitGraph>,
    bitmap: Option<BitmapEntity>,
    multi_pack_index: Option<MultiPackIndex>,
    multi_pack_index_bitmap: Option<BitmapEntity>,
    alternates: Option<Alternates<'a>>,
    is_object_pool: bool,
    last_full_repack: Option<Timestamp>,
    updated_at: String,
    maintenance: Maintenance,
}

/// forgecore's housekeeping of the repository: its last runs that did something (or failed),
/// newest first, and when it last looked.
#[derive(Serialize)]
struct Maintenance {
    runs: Vec<MaintenanceRun>,
    last_checked_at: Option<String>,
}

#[derive(Serialize)]
struct MaintenanceRun {
    started_at: String,
    finished_at: String,
    reason: String,
    tasks: Vec<String>,
    outcome: String,
    error: Option<String>,
    host: String,
}

#[derive(Serialize)]
struct References {
    loose_count: u64,
    packed_size: u64,
    reference_backend: &'static str,
}

#[derive(Serialize)]
struct Objects {
    size: u64,
    recent_size: u64,
    stale_size: u64,
    keep_size: u64,
    packfile_count: u64,
    reverse_index_count: u64,
    cruft_count: u64,
    keep_count: u64,
    loose_objects_count: u64,
    stale_loose_objects_count: u64,
    loose_objects_garbage_count: u64,
}

#[derive(Serialize)]
struct CommitGraph {
    commit_graph_chain_length: u64,
    has_bloom_filters: bool,
    has_generation_data: bool,
    has_generation_data_overflow: bool,
}

#[derive(Serialize)]
struct BitmapEntity {
    has_hash_cache: bool,
    has_lookup_table: bool,
    version: u16,
}

#[derive(Serialize)]
struct MultiPackIndex {
    packfile_count: u32,
    version: u8,
}

#[derive(Serialize)]
struct Alternates<'a> {
    object_directories: &'a [String],
    last_modified: String,
}

/// A protobuf `Timestamp`, as GitLab passes Gitaly's through: whole seconds (Gitaly drops the
/// fraction, so `nanos` is always 0).
#[derive(Serialize)]
struct Timestamp {
    seconds: i64,
    nanos: u32,
}

fn entity<'a>(health: &'a Health, record: &record::Record, millis: i64) -> Entity<'a> {
    let (loose, packs) = (&health.loose, &health.packs);
    let bitmap = |b: &Bitmap| BitmapEntity {
        has_hash_cache: b.has_hash_cache,
        has_lookup_table: b.has_lookup_table,
        version: b.version,
    };
    Entity {
        size: health.size,
        references: References {
            loose_count: health.references.loose_count,
            packed_size: health.references.packed_size,
            reference_backend: match health.references.backend {
                ReferenceBackend::Files => "REFERENCE_BACKEND_FILES",
                ReferenceBackend::Reftable => "REFERENCE_BACKEND_REFTABLE",
            },
        },
        // As Gitaly's `convertRepositoryInfo`: stale = old loose objects and cruft packs.
        objects: Objects {
            size: loose.size + packs.size,
            recent_size: loose.size.saturating_sub(loose.stale_size) + packs.size.saturating_sub(packs.cruft_size),
            stale_size: loose.stale_size + packs.cruft_size,
            keep_size: packs.keep_size,
            packfile_count: packs.count,
            reverse_index_count: packs.reverse_index_count,
            cruft_count: packs.cruft_count,
            keep_count: packs.keep_count,
            loose_objects_count: loose.count,
            stale_loose_objects_count: loose.stale_count,
            loose_objects_garbage_count: loose.garbage_count,
        },
        commit_graph: health.commit_graph.map(|g| CommitGraph {
            commit_graph_chain_length: g.chain_length,
            has_bloom_filters: g.has_bloom_filters,
            has_generation_data: g.has_generation_data,
            has_generation_data_overflow: g.has_generation_data_overflow,
        }),
        bitmap: packs.bitmap.as_ref().map(bitmap),
        multi_pack_index: packs
            .multi_pack_index
            .map(|m| MultiPackIndex { packfile_count: m.packfile_count, version: m.version }),
        multi_pack_index_bitmap: packs.multi_pack_index_bitmap.as_ref().map(bitmap),
        alternates: health.alternates.as_ref().map(|a| Alternates {
            object_directories: &a.object_directories,
            last_modified: iso_millis(epoch_millis(a.last_modified)),
        }),
        is_object_pool: health.is_object_pool,
        last_full_repack: health
            .last_full_repack
            .map(|t| Timestamp { seconds: epoch_millis(t).div_euclid(1000), nanos: 0 }),
        updated_at: iso_millis(millis),
        maintenance: Maintenance {
            runs: record
                .runs
                .iter()
                .map(|run| MaintenanceRun {
                    started_at: iso_millis(run.started_at),
                    finished_at: iso_millis(run.finished_at),
                    reason: run.reason.clone(),
                    tasks: run.tasks.clone(),
                    outcome: run.outcome.clone(),
                    error: run.error.clone(),
                    host: run.host.clone(),
                })
                .collect(),
            last_checked_at: record.last_checked_at.map(iso_millis),
        },
    }
}

/// Milliseconds since the epoch (negative before it).
fn epoch_millis(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_millis().min(i64::MAX as u128) as i64,
        Err(before) => -(before.duration().as_millis().min(i64::MAX as u128) as i64),
    }
}

/// `2025-05-14T02:31:08.022Z`: UTC with milliseconds, as GitLab renders times.
fn iso_millis(millis: i64) -> String {
    let seconds = millis.div_euclid(1000);
    let text = rfc3339(seconds, 0);
    // rfc3339 gives `YYYY-MM-DDTHH:MM:SS.000+00:00`; keep the date and time.
    let date_time = text.get(..19).unwrap_or(&text);
    format!("{date_time}.{:03}Z", millis.rem_euclid(1000))
}

#[cfg(test)]
mod tests {
    use super::iso_millis;

    #[test]
    fn times_are_utc_with_milliseconds() {
        assert_eq!(iso_millis(1_747_189_868_022), "2025-05-14T02:31:08.022Z");
        assert_eq!(iso_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_millis(-1), "1969-12-31T23:59:59.999Z");
    }
}
