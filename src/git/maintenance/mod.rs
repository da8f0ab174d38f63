//! Housekeeping, as Gitaly's `OptimizeRepository` does it for GitLab: from what lies in the
//! repository ([`super::health`], Gitaly's `RepositoryInfo`), decide what to run ([`plan`],
//! Gitaly's heuristical strategy), and run git's own commands ([`run`], through
//! [`super::command`]): `pack-refs`, `repack` (full with a bitmap, or of the loose objects
//! alone), `commit-graph write` (split, with changed-path Bloom filters). One run per
//! repository at a time, across hosts ([`lock`]); what the last one did is kept in the
//! repository ([`record`]) for the health report; runs are queued and made on a thread of
//! their own ([`worker`]), never on a request's.
//!
//! Nothing is ever deleted that git would keep: the full repack packs unreachable objects into
//! a cruft pack without an expiry date, so objects a concurrent write has made but not yet
//! referenced survive; loose objects are never pruned.
//!
//! Bounds: the whole run has a time limit (each command gets what is left, and is killed with
//! its process group past it); git packs on one thread with bounded windows and caches
//! (`pack.threads`, `pack.windowMemory`, `pack.deltaCacheSize`, `core.deltaBaseCacheLimit`),
//! so a run takes one core and a bounded amount of memory besides git's own mappings.

pub mod lock;
pub mod record;
pub mod worker;

use super::command::{Git, Spec};
use super::health::{self, Health, ReferenceBackend};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Gitaly's `looseObjectLimit`: more loose objects than this are packed.
pub const LOOSE_OBJECT_LIMIT: u64 = 1024;
/// Captured output of one command (its stdout is not read).
const OUTPUT_LIMIT: usize = 64 * 1024;

/// How the objects are repacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repack {
    /// Everything into one pack (unreachable objects into a cruft pack), with a bitmap when
    /// the repository has no alternates.
    Full { bitmap: bool },
    /// The loose objects into a new pack.
    Incremental,
}

/// How the commit-graph is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphWrite {
    /// The whole chain written anew (none yet, a single file, or one without Bloom filters or
    /// generation data).
    Replace,
    /// A layer for the commits the graph does not hold yet.
    Extend,
}

/// What a run does, in this order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Plan {
    pub pack_refs: bool,
    pub repack: Option<Repack>,
    pub commit_graph: Option<GraphWrite>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        *self == Plan::default()
    }

    /// The tasks' names, as the record and the health report show them.
    pub fn tasks(&self) -> Vec<&'static str> {
        let mut tasks = Vec::new();
        if self.pack_refs {
            tasks.push("pack_refs");
        }
        match self.repack {
            Some(Repack::Full { .. }) => tasks.push("repack_full"),
            Some(Repack::Incremental) => tasks.push("repack_incremental"),
            None => {}
        }
        match self.commit_graph {
            Some(GraphWrite::Replace) => tasks.push("commit_graph_replace"),
            Some(GraphWrite::Extend) => tasks.push("commit_graph"),
            None => {}
        }
        tasks
    }
}

/// Gitaly's heuristics for `health`; `refs_moved` says the references changed since the
/// commit-graph was written (then its new commits get a layer, with their filters).
pub fn plan(health: &Health, refs_moved: bool) -> Plan {
    let repack = repack(health);
    Plan { pack_refs: pack_refs(health), repack, commit_graph: commit_graph(health, repack.is_some(), refs_moved) }
}

/// `ShouldRepackObjects`: a full repack when alternates changed since the last one, when there
/// are too many packs for the repository's size (`log(size in MiB) / log(1.3)`, at least 5),
/// or when there is no bitmap; the loose objects alone when there are more than
/// [`LOOSE_OBJECT_LIMIT`].
fn repack(health: &Health) -> Option<Repack> {
    let (packs, loose) = (&health.packs, &health.loose);
    if packs.count == 0 && loose.count == 0 {
        return None;
    }
    let bitmap = health.alternates.is_none();
    let full = Some(Repack::Full { bitmap });
    // Alternates changed since the last full repack (or there never was one): likely a pool
    // joined, whose objects a full repack drops from this repository's packs.
    if let Some(alternates) = &health.alternates {
        if health.last_full_repack.is_none_or(|last| alternates.last_modified > last) {
            return full;
        }
    }
    let size_mib = (packs.size / 1024 / 1024) as f64;
    let allowed = (size_mib.ln() / 1.3f64.ln()).max(5.0);
    if packs.count as f64 >= allowed {
        return full;
    }
    if bitmap && packs.bitmap.is_none() && packs.multi_pack_index_bitmap.is_none() {
        return full;
    }
    if loose.count > LOOSE_OBJECT_LIMIT {
        return Some(Repack::Incremental);
    }
    None
}

/// `ShouldRepackReferences`: when the loose references outnumber
/// `log(packed-refs bytes / 100) / log(1.15)`, at least 16.
fn pack_refs(health: &Health) -> bool {
    let references = &health.references;
    if references.backend != ReferenceBackend::Files || references.loose_count == 0 {
        return false;
    }
    let allowed = ((references.packed_size as f64 / 100.0).ln() / 1.15f64.ln()).max(16.0);
    references.loose_count as f64 >= allowed
}

/// `ShouldWriteCommitGraph`: nothing without references; the whole chain when it is missing or
/// lacks what walks read (split layers, Bloom filters, generation data); a layer after a repack,
/// and (forgecore's addition) after references moved.
fn commit_graph(health: &Health, repacking: bool, refs_moved: bool) -> Option<GraphWrite> {
    let references = &health.references;
    if references.backend == ReferenceBackend::Files && references.loose_count == 0 && references.packed_size == 0 {
        return None;
    }
    match health.commit_graph {
        None => Some(GraphWrite::Replace),
        Some(graph) if graph.chain_length == 0 || !graph.has_bloom_filters || !graph.has_generation_data => {
            Some(GraphWrite::Replace)
        }
        Some(_) if repacking || refs_moved => Some(GraphWrite::Extend),
        Some(_) => None,
    }
}

/// The repository's common directory (where `objects` and `refs` are) for `git_dir`.
pub fn common_dir(git_dir: &Path) -> PathBuf {
    match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) if !text.trim().is_empty() => git_dir.join(text.trim()),
        _ => git_dir.to_path_buf(),
    }
}

/// Whether a reference changed after the commit-graph was written: `packed-refs` or a file
/// under `refs/` newer than the graph's chain (or single file).
pub fn refs_moved(common: &Path) -> bool {
    let info = common.join("objects/info");
    let graph = [info.join("commit-graphs/commit-graph-chain"), info.join("commit-graph")]
        .iter()
        .find_map(|f| std::fs::metadata(f).and_then(|m| m.modified()).ok());
    let Some(graph) = graph else { return true };
    let newer = |path: &Path| std::fs::symlink_metadata(path).and_then(|m| m.modified()).is_ok_and(|t| t > graph);
    if newer(&common.join("packed-refs")) {
        return true;
    }
    let mut pending = vec![common.join("refs")];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => pending.push(entry.path()),
                Ok(_) if newer(&entry.path()) => return true,
                _ => {}
            }
        }
    }
    false
}

/// What a run came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The plan was run; these tasks, all done.
    Done(Vec<&'static str>),
    /// Nothing to do.
    Nothing,
    /// Another run holds the repository's lock.
    Busy(String),
    /// A task failed (the ones before it were done); why.
    Failed { tasks: Vec<&'static str>, error: String },
}

/// Limits of one run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The whole run, every command included.
    pub run: Duration,
}

impl Limits {
    /// A lock older than this is a dead holder's: the longest run, and a margin.
    pub fn stale_after(&self) -> Duration {
        self.run + Duration::from_secs(600)
    }
}

/// Takes the repository's lock, reads its state, plans and runs the plan; records what was
/// done in the repository. `changed` says forgecore just changed its references.
pub fn run(git: &Git, git_dir: &Path, changed: bool, limits: Limits, reason: &str) -> Outcome {
    let started = Instant::now();
    let started_at = SystemTime::now();
    let common = common_dir(git_dir);
    let lock = match lock::Lock::acquire(&common.join("objects"), limits.stale_after()) {
        Ok(lock) => lock,
        Err(lock::Error::Busy(holder)) => return Outcome::Busy(holder),
        Err(e) => return Outcome::Failed { tasks: Vec::new(), error: error_text(&e) },
    };
    let outcome = match health::collect(&common, started_at) {
        Err(e) => Outcome::Failed { tasks: Vec::new(), error: format!("cannot read the repository: {e}") },
        Ok(health) => {
            let plan = plan(&health, changed || refs_moved(&common));
            if plan.is_empty() {
                Outcome::Nothing
            } else {
                execute(git, &common, plan, started + limits.run)
            }
        }
    };
    record::save(&common, &record::Run::new(started_at, SystemTime::now(), reason, &outcome));
    drop(lock);
    outcome
}

fn error_text(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Runs `plan`'s commands in order, each within what is left until `deadline`.
fn execute(git: &Git, common: &Path, plan: Plan, deadline: Instant) -> Outcome {
    let mut done = Vec::new();
    let mut steps: Vec<(&'static str, Vec<&str>)> = Vec::new();
    if plan.pack_refs {
        steps.push(("pack_refs", vec!["pack-refs", "--all"]));
    }
    match plan.repack {
        // -d: the packs made redundant go, and loose objects now packed (prune-packed).
        Some(Repack::Full { bitmap: true }) => steps.push(("repack_full", vec!["repack", "-d", "--cruft", "-b"])),
        Some(Repack::Full { bitmap: false }) => steps.push(("repack_full", vec!["repack", "-d", "--cruft", "-l"])),
        Some(Repack::Incremental) => steps.push(("repack_incremental", vec!["repack", "-d"])),
        None => {}
    }
    let graph = ["commit-graph", "write", "--reachable", "--changed-paths", "--size-multiple=4"];
    match plan.commit_graph {
        Some(GraphWrite::Replace) => {
            steps.push(("commit_graph_replace", graph.iter().copied().chain(["--split=replace"]).collect()))
        }
        Some(GraphWrite::Extend) => steps.push(("commit_graph", graph.iter().copied().chain(["--split"]).collect())),
        None => {}
    }
    for (task, args) in steps {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Outcome::Failed { tasks: done, error: format!("{task}: the run's time limit was reached") };
        }
        let spec = Spec::new(common, &args, left)
            .background()
            .config("pack.threads", "1")
            .config("pack.windowMemory", "64m")
            .config("pack.deltaCacheSize", "32m")
            .config("core.deltaBaseCacheLimit", "32m")
            .config("repack.writeBitmaps", "false")
            .config("commitGraph.generationVersion", "2");
        let started = SystemTime::now();
        match git.run(&spec, OUTPUT_LIMIT) {
            Ok(output) if output.status.success() => done.push(task),
            Ok(output) => {
                let stderr = String::from_utf8_lossy(&output.stderr);
                let error = format!("{task}: git {} ({})", output.status, stderr.trim());
                return Outcome::Failed { tasks: done, error };
            }
            Err(e) => {
                if task.starts_with("commit_graph") {
                    remove_own_graph_locks(common, started);
                }
                return Outcome::Failed { tasks: done, error: format!("{task}: {}", error_text(&e)) };
            }
        }
    }
    Outcome::Done(done)
}

/// A `commit-graph write` killed at its time limit leaves its lock behind, which would fail
/// every later write: only maintenance writes commit-graphs, and it holds the repository's
/// lock, so a graph lock made since `started` is the killed program's.
fn remove_own_graph_locks(common: &Path, started: SystemTime) {
    let info = common.join("objects/info");
    for lock in [info.join("commit-graphs/commit-graph-chain.lock"), info.join("commit-graph.lock")] {
        if std::fs::metadata(&lock).and_then(|m| m.modified()).is_ok_and(|t| t >= started) {
            let _ = std::fs::remove_file(&lock);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::health::{Alternates, Bitmap, CommitGraph, LooseObjects, Packfiles, References};

    fn health() -> Health {
        Health {
            size: 0,
            references: References { loose_count: 3, packed_size: 0, backend: ReferenceBackend::Files },
            loose: LooseObjects::default(),
            packs: Packfiles {
                count: 1,
                size: 200 << 20,
                bitmap: Some(Bitmap { version: 1, has_hash_cache: true, has_lookup_table: false }),
                ..Packfiles::default()
            },
            commit_graph: Some(CommitGraph {
                chain_length: 1,
                has_bloom_filters: true,
                has_generation_data: true,
                has_generation_data_overflow: false,
            }),
            alternates: None,
            is_object_pool: false,
            last_full_repack: None,
        }
    }

    #[test]
    fn a_maintained_repository_needs_nothing() {
        assert!(plan(&health(), false).is_empty());
        assert_eq!(plan(&health(), true).commit_graph, Some(GraphWrite::Extend), "new commits get a layer");
    }

    #[test]
    fn gitalys_heuristics() {
        let mut h = health();
        h.commit_graph = None;
        assert_eq!(plan(&h, false).commit_graph, Some(GraphWrite::Replace));
        h.commit_graph = Some(CommitGraph { has_bloom_filters: false, ..health().commit_graph.unwrap() });
        assert_eq!(plan(&h, false).commit_graph, Some(GraphWrite::Replace), "no filters: rewritten");
        h.commit_graph = Some(CommitGraph { chain_length: 0, ..health().commit_graph.unwrap() });
        assert_eq!(plan(&h, false).commit_graph, Some(GraphWrite::Replace), "not split: rewritten");
        h.references = References { loose_count: 0, packed_size: 0, backend: ReferenceBackend::Files };
        assert_eq!(plan(&h, false).commit_graph, None, "no references, no graph");

        let mut h = health();
        h.packs.bitmap = None;
        assert_eq!(plan(&h, false).repack, Some(Repack::Full { bitmap: true }));
        assert_eq!(plan(&h, false).commit_graph, Some(GraphWrite::Extend), "a repack extends the graph");
        h.alternates = Some(Alternates { object_directories: vec!["/x".into()], last_modified: SystemTime::now() });
        assert_eq!(plan(&h, false).repack, Some(Repack::Full { bitmap: false }), "no bitmap with alternates");

        let mut h = health();
        h.loose.count = LOOSE_OBJECT_LIMIT;
        assert_eq!(plan(&h, false).repack, None);
        h.loose.count = LOOSE_OBJECT_LIMIT + 1;
        assert_eq!(plan(&h, false).repack, Some(Repack::Incremental));
        // 200 MiB allow log(200)/log(1.3) = 20.2 packs.
        h.packs.count = 20;
        assert_eq!(plan(&h, false).repack, Some(Repack::Incremental));
        h.packs.count = 21;
        assert_eq!(plan(&h, false).repack, Some(Repack::Full { bitmap: true }));
        h.packs.size = 1 << 20;
        h.packs.count = 5;
        assert_eq!(plan(&h, false).repack, Some(Repack::Full { bitmap: true }), "at least 5 packs allowed");

        let mut h = health();
        h.references.loose_count = 15;
        assert!(!plan(&h, false).pack_refs);
        h.references.loose_count = 16;
        assert!(plan(&h, false).pack_refs);
        // 1 MB of packed refs (about 10k) allow 66 loose ones.
        h.references.packed_size = 1_000_000;
        h.references.loose_count = 65;
        assert!(!plan(&h, false).pack_refs);
        h.references.loose_count = 66;
        assert!(plan(&h, false).pack_refs);
    }
}
