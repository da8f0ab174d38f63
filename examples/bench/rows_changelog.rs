//! Bench rows for the changelog (B9): generating the notes of a 5,000-commit range against
//! `git log` reading the same range's `Changelog` trailers.

use crate::fixture::Fixture;
use crate::harness::{Bench, Target};
use std::path::Path;
use std::process::Command;

/// Commits in the measured range (about; merges make the count inexact).
const RANGE: usize = 5_000;

fn git(repo: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git").arg("-C").arg(repo).args(args).output().map_err(|e| format!("git: {e}"))?;
    if !output.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&output.stderr)));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// A first-parent ancestor of `main` such that `<it>..main` has about `RANGE` commits, and the
/// exact count.
fn start_of_range(repo: &Path) -> Result<(String, usize), String> {
    let chain = git(repo, &["rev-list", "--first-parent", "main"])?;
    let chain: Vec<&str> = chain.lines().collect();
    let count = |i: usize| -> Result<usize, String> {
        git(repo, &["rev-list", "--count", &format!("{}..main", chain[i])])?.parse().map_err(|e| format!("{e}"))
    };
    let (mut lo, mut hi) = (0usize, chain.len().saturating_sub(1));
    while lo < hi {
        let mid = (lo + hi) / 2;
        if count(mid)? < RANGE {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Ok((chain[lo].to_string(), count(lo)?))
}

pub fn rows(bench: &mut Bench, fx: &Fixture, repo: &Path) -> Result<(), String> {
    let name = "changelog notes, 5,000-commit range";
    if !bench.selected(name) {
        return Ok(());
    }
    let dir = repo.to_str().ok_or("the repository path is not UTF-8")?;
    let (from, count) = start_of_range(repo)?;
    let target =
        format!("/api/v4/projects/bench/repository/changelog?version=9.0.0&date=2024-01-02&from={from}&to=main");
    let notes = fx.expect(200, "GET", &target, None)?;
    let entries = notes["notes"].as_str().unwrap_or("").lines().filter(|l| l.starts_with("- [")).count();
    let range = format!("{from}..main");
    bench
        .compare(
            name,
            || fx.request("GET", &target, None),
            &["git", "-C", dir, "log", "--no-merges", "--format=%H%x00%(trailers:key=Changelog,valueonly)", &range],
        )
        .target(Target::RatioUnder(1.0))
        .note(format!("{count} commits, {entries} entries"));
    Ok(())
}
