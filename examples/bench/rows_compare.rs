//! Bench rows for the compare operation: two release tags at least 500 commits apart, in the
//! default (merge-base) mode, against `git diff <from>...<to>` plus `git log <base>..<to>` (the
//! diff and the commit list a service shelling out to git would run).

use crate::fixture::Fixture;
use crate::harness::{Bench, Target};
use std::path::Path;
use std::process::Command;

/// The compared range must hold at least this many commits.
const MIN_COMMITS: usize = 500;

fn git(repo: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git").arg("-C").arg(repo).args(args).output().map_err(|e| format!("git: {e}"))?;
    if !output.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&output.stderr)));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// Two consecutive stable `v*` tags with at least `MIN_COMMITS` commits between them, or the
/// first and last stable tags.
fn tags(repo: &Path) -> Result<(String, String), String> {
    let listed = git(repo, &["tag", "--list", "v*", "--sort=v:refname"])?;
    let stable: Vec<&str> = listed.lines().filter(|t| !t.contains('-')).collect();
    for pair in stable.windows(2) {
        let count: usize = git(repo, &["rev-list", "--count", &format!("{}..{}", pair[0], pair[1])])?
            .parse()
            .map_err(|e| format!("rev-list --count: {e}"))?;
        if count >= MIN_COMMITS {
            return Ok((pair[0].to_string(), pair[1].to_string()));
        }
    }
    match (stable.first(), stable.last()) {
        (Some(first), Some(last)) if first != last => Ok((first.to_string(), last.to_string())),
        _ => Err("the benchmark repository needs two stable v* tags".into()),
    }
}

pub fn rows(bench: &mut Bench, fx: &Fixture, repo: &Path) -> Result<(), String> {
    let dir = repo.to_str().ok_or("the repository path is not UTF-8")?;
    let (from, to) = tags(repo)?;
    let base = git(repo, &["merge-base", &from, &to])?;
    let commits = git(repo, &["rev-list", "--count", &format!("{base}..{to}")])?;
    let files = git(repo, &["diff", "--name-only", &format!("{from}...{to}")])?.lines().count();
    let target = format!("/api/v4/projects/bench/repository/compare?from={from}&to={to}");
    let answer = fx.expect(200, "GET", &target, None)?;
    let listed = answer["commits"].as_array().map_or(0, Vec::len);
    if listed.to_string() != commits {
        return Err(format!("compare listed {listed} commits, git rev-list counts {commits}"));
    }
    let diffs = answer["diffs"].as_array().map_or(0, Vec::len);
    let script = format!("git -C '{dir}' diff {from}...{to} && git -C '{dir}' log {base}..{to}");
    bench
        .compare(
            &format!("compare {from}...{to} ({commits} commits)"),
            || fx.request("GET", &target, None),
            &["sh", "-c", &script],
        )
        .target(Target::RatioUnder(1.0))
        .note(format!(
            "{files} files changed, {diffs} listed (compare_timeout {}), git prints every patch",
            answer["compare_timeout"]
        ));
    Ok(())
}
