//! Bench row for mergeability (#39): a 1,000-commit source (`main`) merged into a target that
//! forked from `main~1000` and changed one file of its own, in-process
//! (`git::merge::mergeability`, what a merge request's status needs) against
//! `git merge-tree --write-tree` on the same pair. Goal: at most half of git's time.

use crate::git_out as git;
use crate::harness::{Bench, Target};
use std::path::Path;

/// The branch the row makes once in the benchmark repository (the target side).
const TARGET: &str = "refs/heads/bench/merge-target";
/// How far back the target forks from `main`.
const SOURCE_COMMITS: usize = 1000;

/// `TARGET`: one commit on `main~1000` adding a file, written with git's plumbing under fixed
/// dates so every build of the repository gets the same commit.
fn target(repo: &Path) -> Result<String, String> {
    if let Ok(id) = git(repo, &["rev-parse", "--verify", "--quiet", TARGET]) {
        return Ok(id);
    }
    let fork = format!("main~{SOURCE_COMMITS}");
    let dir = repo.to_str().ok_or("the repository path is not UTF-8")?;
    let script = r#"set -e
blob=$(printf 'the target side of the mergeability benchmark\n' | git -C "$1" hash-object -w --stdin)
tree=$( { git -C "$1" ls-tree "$2"; printf '100644 blob %s\tbench-merge-target.txt\n' "$blob"; } | git -C "$1" mktree)
GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_AUTHOR_DATE='1700000000 +0000' \
GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com GIT_COMMITTER_DATE='1700000000 +0000' \
  git -C "$1" commit-tree "$tree" -p "$2" -m 'The target side of the mergeability benchmark'"#;
    let output = std::process::Command::new("sh")
        .args(["-c", script, "sh", dir, &fork])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .map_err(|e| format!("sh: {e}"))?;
    if !output.status.success() {
        return Err(format!("making {TARGET}: {}", String::from_utf8_lossy(&output.stderr)));
    }
    let id = String::from_utf8_lossy(&output.stdout).trim().to_string();
    git(repo, &["update-ref", TARGET, &id])?;
    Ok(id)
}

pub fn rows(bench: &mut Bench, repo: &Path) -> Result<(), String> {
    use forgecore::git::merge::{self, Mergeability};
    let dir = repo.to_str().ok_or("the repository path is not UTF-8")?;
    let target_hex = target(repo)?;
    let source_hex = git(repo, &["rev-parse", "main"])?;
    let commits = git(repo, &["rev-list", "--count", &format!("{target_hex}..{source_hex}")])?;
    let handle = forgecore::git::open(repo).map_err(|e| format!("open: {e}"))?;
    let id = |hex: &str| gix::ObjectId::from_hex(hex.as_bytes()).map_err(|e| format!("{hex}: {e}"));
    let (target_id, source_id) = (id(&target_hex)?, id(&source_hex)?);
    // The verdict must be git's before it is timed.
    let git_tree = git(repo, &["merge-tree", "--write-tree", &target_hex, &source_hex])?;
    let git_tree_id = id(&git_tree)?;
    match merge::mergeability(&handle, target_id, source_id).map_err(|e| format!("mergeability: {e}"))? {
        Mergeability::Clean { tree, .. } if tree == git_tree_id => {}
        other => return Err(format!("mergeability answered {other:?}, git merge-tree {git_tree}")),
    }
    bench
        .compare(
            &format!("mergeability, {commits}-commit source"),
            || merge::mergeability(&handle, target_id, source_id).map(|m| m.can_be_merged()).unwrap_or(false),
            &["git", "-C", dir, "merge-tree", "--write-tree", &target_hex, &source_hex],
        )
        .target(Target::RatioUnder(0.5))
        .note("gix tree merge in memory vs git merge-tree --write-tree (writes its objects)");
    Ok(())
}
