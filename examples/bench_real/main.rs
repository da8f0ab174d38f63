//! `make bench-real REPO=/path/to/clone` (`cargo run --release --example bench_real -- PATH`):
//! forgecore against the git CLI on any real repository, answers and times.
//!
//! It serves the repository at PATH (a bare repository or a work tree; `FC_BENCH_REAL_REPO`
//! when no argument is given) from a throw-away forgecore instance (instance.rs), picks its
//! revisions from the repository itself (revisions.rs: the tip of `HEAD`, a tag about a third
//! of the history back, the newest tag), and for each row
//! 1. asks forgecore once and checks the answer against git's output, the way the tests
//!    check it (each rows_*.rs says how; the git side is git.rs);
//! 2. times forgecore's request and the git command doing the same work (report.rs, with
//!    `measure` of examples/bench/harness.rs), and prints both medians and their ratio.
//!
//! Rows: tree, blobs, archives in every format, compare, merge base and
//! contributors. Every mismatch is printed after the table with the request and the git
//! command that reproduce it, and makes the run exit 1 once every row has run; a setup that
//! fails (no repository, the instance does not open) exits 2.
//!
//! Environment: `FC_BENCH_SECONDS` (measuring time per side of a row, default 1),
//! `FC_BENCH_MIN_ITERS` (samples at least, default 3 here: some rows take seconds),
//! `FC_BENCH_MAX_ITERS`, `FC_BENCH_FILTER` (only rows whose name contains it).
//! Nothing is written to the repository; the instance's data directory is removed at the end.

mod commits;
mod git;
#[path = "../bench/harness.rs"]
mod harness;
mod instance;
mod report;
mod revisions;
mod rows_archive;
mod rows_blobs;
mod rows_compare;
mod rows_contributors;
mod rows_merge_base;
mod rows_tree;

use git::Git;
use harness::Settings;
use instance::Instance;
use report::Report;
use revisions::Revisions;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("bench-real: {message}");
            ExitCode::from(2)
        }
    }
}

/// The repository to serve: the first argument, or `FC_BENCH_REAL_REPO`.
fn repository() -> Result<PathBuf, String> {
    std::env::args_os()
        .nth(1)
        .or_else(|| std::env::var_os("FC_BENCH_REAL_REPO"))
        .filter(|path| !path.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| "usage: bench_real /path/to/repository (or FC_BENCH_REAL_REPO)".into())
}

/// The harness's settings, with fewer samples by default: a row can take seconds.
fn settings() -> Settings {
    let mut settings = Settings::from_env();
    if std::env::var_os("FC_BENCH_MIN_ITERS").is_none() {
        settings.min_iters = 3;
    }
    settings.min_warmup_calls = 1;
    settings
}

/// Runs every row; whether every answer was equal to git's.
fn run() -> Result<bool, String> {
    let path = repository()?;
    let git = Git::open(&path)?;
    let settings = settings();
    println!(
        "forgecore bench-real ({} build)",
        if cfg!(debug_assertions) { "DEBUG: the times are meaningless" } else { "release" }
    );
    println!("machine: {}", harness::machine());
    println!(
        "per side: warm-up {:?}, then {:?} or {} samples (at least {}); medians",
        settings.warmup, settings.budget, settings.max_iters, settings.min_iters
    );
    eprintln!("picking revisions of {} ...", git.git_dir().display());
    let revs = Revisions::pick(&git)?;
    println!(
        "repository: {} ({} commits reachable from {}, {} tags)",
        git.git_dir().display(),
        revs.commits,
        revs.branch,
        revs.tags
    );
    println!("tip: {} = {}", revs.branch, revs.tip);
    for (what, rev) in [("old", &revs.old), ("newest", &revs.newest)] {
        println!("{what}: {} = {} ({} commits behind the tip)", rev.label(), rev.commit, rev.behind);
    }
    println!();

    let fx = Instance::open(&path)?;
    let mut report = Report::new(settings);
    eprintln!("checking and measuring:");
    rows_tree::rows(&mut report, &fx, &git, &revs);
    rows_blobs::rows(&mut report, &fx, &git, &revs);
    rows_archive::rows(&mut report, &fx, &git, &revs);
    rows_compare::rows(&mut report, &fx, &git, &revs);
    rows_merge_base::rows(&mut report, &fx, &git, &revs);
    rows_contributors::rows(&mut report, &fx, &git, &revs);

    println!("{}", report.table());
    if report.failed() {
        println!("MISMATCHES (forgecore's answer is not git's):\n{}", report.mismatches());
        return Ok(false);
    }
    println!("every answer equals git's");
    Ok(true)
}
