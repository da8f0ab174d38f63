//! Bench rows for requests during maintenance (issue 31): reads of a repository while
//! forgecore maintains it, against the same reads just before the run. The repository is a copy
//! of the benchmark's, as built and without its bitmap, so the run does what a first run does on
//! a repository a forge has just been given: a full repack with a bitmap (`repack -d --cruft
//! -b`) and a commit-graph with changed-path Bloom filters. Goal: the median during the run
//! within the spread (90th percentile) of the same reads before it.
//!
//! The run is made by a second context in this process over the fixture's data directory (as a
//! host's maintenance thread makes it beside its requests); the reads go through the fixture's,
//! which has maintenance off, so that only the run started here touches the copy.

use crate::fixture::{scratch_dir, Fixture};
use crate::harness::{self, Bench};
use forgecore::git::maintenance::{lock, Outcome};
use serde_json::json;
use std::cell::Cell;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The reads, one each of a small object, a large tree and a walk of every commit: none of
/// them reads the commit-graph, which appears during the run and would make the walks faster.
const READS: [(&str, &str); 3] = [
    ("blob README.md (JSON)", "/blobs/{readme}"),
    ("tree, recursive", "/tree?recursive=true&pagination=none"),
    ("contributors", "/contributors?per_page=100"),
];

fn row_name(read: &str) -> String {
    format!("{read} during maintenance, against before it")
}

pub fn rows(bench: &mut Bench, fx: &Fixture, repo: &Path) -> Result<(), String> {
    if !READS.iter().any(|(read, _)| bench.selected(&row_name(read))) {
        return Ok(());
    }
    let scratch = scratch_dir("maintenance")?;
    let result = measure(bench, fx, repo, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn measure(bench: &mut Bench, fx: &Fixture, repo: &Path, scratch: &Path) -> Result<(), String> {
    let copy = scratch.join("repo.git");
    let status = Command::new("cp").arg("-a").arg(repo).arg(&copy).status().map_err(|e| format!("cp: {e}"))?;
    if !status.success() {
        return Err(format!("cp -a {} failed", repo.display()));
    }
    for entry in std::fs::read_dir(copy.join("objects/pack")).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_some_and(|e| e == "bitmap") {
            std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    fx.project("bench-maintained-live", &copy)?;
    let readme = crate::git_out(&copy, &["rev-parse", "HEAD:README.md"])?;
    let targets: Vec<String> = READS
        .iter()
        .map(|(_, path)| {
            format!("/api/v4/projects/bench-maintained-live/repository{}", path.replace("{readme}", &readme))
        })
        .collect();
    for target in &targets {
        fx.expect(200, "GET", target, None).map(|_| ())?;
    }
    let failed = Cell::new(0u32);
    let mut reads: Vec<Box<dyn FnMut() + '_>> = targets
        .iter()
        .map(|target| {
            let failed = &failed;
            Box::new(move || failed.set(failed.get() + u32::from(fx.request("GET", target, None).0 != 200)))
                as Box<dyn FnMut()>
        })
        .collect();
    let mut ops: Vec<&mut dyn FnMut()> = reads.iter_mut().map(|read| &mut **read as &mut dyn FnMut()).collect();

    // Warm-up, as the other rows have: a few rounds, not counted.
    harness::measure_in_turn(&mut ops, |rounds| rounds < 3);
    // Before: as long as the other rows measure one side, three times over (each read is a
    // third of every round), and at least ten rounds.
    let budget = bench.settings.budget * 3;
    let started = Instant::now();
    let before = harness::measure_in_turn(&mut ops, |rounds| rounds < 10 || started.elapsed() < budget);

    let config = json!({"data_dir": fx.data_dir(), "maintenance": {"enabled": true}});
    let host = forgecore::Context::from_json(&config.to_string())?;
    let lock_file = copy.join("objects").join(lock::FILE);
    host.maintenance.after_refs_changed(&copy);
    let waited = Instant::now();
    while !lock_file.exists() {
        if waited.elapsed() > Duration::from_secs(30) || host.maintenance.last_outcome(&copy).is_some() {
            return Err(format!("the maintenance run did not start: {:?}", host.maintenance.last_outcome(&copy)));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let run_started = Instant::now();
    let during = harness::measure_in_turn(&mut ops, |_| lock_file.exists());
    let run_took = run_started.elapsed();
    if !host.maintenance.wait_idle(Duration::from_secs(600)) {
        return Err("the maintenance run did not end".into());
    }
    let tasks = match host.maintenance.last_outcome(&copy) {
        Some(Outcome::Done(tasks)) => tasks.join(", "),
        other => return Err(format!("the maintenance run: {other:?}")),
    };
    drop(host);
    drop(ops);
    if failed.get() > 0 {
        return Err(format!("{} reads before or during the maintenance run were not answered 200", failed.get()));
    }
    for (((read, _), before), during) in READS.iter().zip(before).zip(during) {
        bench
            .against_itself(&row_name(read), during, before)
            .note(format!("the git columns: before the run; the run took {:.1} s ({tasks})", run_took.as_secs_f64()));
    }
    Ok(())
}
