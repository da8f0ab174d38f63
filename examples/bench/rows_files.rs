//! Bench rows for the repository files API against the git commands that do the same work on
//! the 100k-file repository: the JSON GET of a deep file that changed long ago (its
//! `last_commit_id` is the cost) against `git log -1 -- PATH` plus `git cat-file -p`; blame of
//! the file with the most history against `git blame --porcelain`; and an update of one deep
//! file against git's plumbing making the same commit (a temporary index read from the branch,
//! `update-index --cacheinfo`, `write-tree`, `commit-tree`, `update-ref` with the old value), and
//! a commit POST of ten files spread over the tree against the same plumbing for ten files.
//! Goal for each: at most half of git's time.

use crate::fixture::Fixture;
use crate::git_out;
use crate::harness::{Bench, Target};
use serde_json::json;
use std::cell::Cell;
use std::path::Path;

fn encode(path: &str) -> String {
    path.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The deepest file the root commit added that no later commit changed.
fn old_deep_file(repo: &Path) -> Result<String, String> {
    let root = git_out(repo, &["rev-list", "--max-parents=0", "HEAD"])?;
    let root = root.lines().next().ok_or("no root commit")?.to_string();
    let mut added: Vec<String> =
        git_out(repo, &["show", "--format=", "--name-only", &root])?.lines().map(str::to_string).collect();
    added.sort_by_key(|p| std::cmp::Reverse(p.matches('/').count()));
    for path in added.iter().take(50) {
        if git_out(repo, &["log", "-1", "--format=%H", "HEAD", "--", path])? == root {
            return Ok(path.clone());
        }
    }
    added.first().cloned().ok_or_else(|| "the root commit added no file".into())
}

/// The file changed by the most commits, and how many.
fn busiest_file(repo: &Path) -> Result<(String, usize), String> {
    let names = git_out(repo, &["log", "--format=", "--name-only", "--no-merges", "HEAD"])?;
    let mut counts = std::collections::HashMap::<&str, usize>::new();
    for name in names.lines().filter(|l| !l.is_empty()) {
        *counts.entry(name).or_default() += 1;
    }
    let (name, count) =
        counts.into_iter().max_by_key(|(name, count)| (*count, std::cmp::Reverse(*name))).ok_or("no history")?;
    Ok((name.to_string(), count))
}

pub fn rows(bench: &mut Bench, fx: &Fixture, repo: &Path) -> Result<(), String> {
    let dir = repo.to_str().ok_or("the repository path is not UTF-8")?;
    let project = "/api/v4/projects/bench/repository/files";
    let half = Target::RatioUnder(0.5);

    let name = "file JSON GET, deep and old (last_commit_id)";
    if bench.selected(name) {
        let path = old_deep_file(repo)?;
        let blob = git_out(repo, &["rev-parse", &format!("HEAD:{path}")])?;
        let target = format!("{project}/{}?ref=HEAD", encode(&path));
        fx.expect(200, "GET", &target, None)?;
        let script = format!("git -C '{dir}' log -1 --format=%H HEAD -- '{path}' && git -C '{dir}' cat-file -p {blob}");
        bench.compare(name, || fx.request("GET", &target, None), &["sh", "-c", &script]).target(half).note(path);
    }

    let name = "file blame, the file with the most history";
    if bench.selected(name) {
        let (path, commits) = busiest_file(repo)?;
        let target = format!("{project}/{}/blame?ref=HEAD", encode(&path));
        fx.expect(200, "GET", &target, None)?;
        bench
            .compare(
                name,
                || fx.request("GET", &target, None),
                &["git", "-C", dir, "blame", "--porcelain", "HEAD", "--", &path],
            )
            .target(half)
            .note(format!("{path}, {commits} commits"));
    }

    let update_row = "file update, one deep file (a commit)";
    let post_row = "commit POST, 10 files (one commit)";
    if !bench.selected(update_row) && !bench.selected(post_row) {
        return Ok(());
    }
    // Both sides commit to branches of their own in a shared clone, so the benchmark
    // repository itself is never written.
    let scratch = repo.with_file_name(format!(
        "{}-writes.git",
        repo.file_name().and_then(|n| n.to_str()).unwrap_or("bench").trim_end_matches(".git")
    ));
    let _ = std::fs::remove_dir_all(&scratch);
    let scratch_text = scratch.to_str().ok_or("not UTF-8")?;
    let status = std::process::Command::new("git")
        .args(["clone", "-q", "--bare", "--shared", dir, scratch_text])
        .status()
        .map_err(|e| format!("git clone: {e}"))?;
    if !status.success() {
        return Err("git clone --shared failed".into());
    }
    git_out(&scratch, &["branch", "-f", "fc-writes", "HEAD"])?;
    git_out(&scratch, &["branch", "-f", "git-writes", "HEAD"])?;
    fx.project("bench-writes", &scratch)?;
    let counter = Cell::new(0u64);

    if bench.selected(update_row) {
        let path = old_deep_file(repo)?;
        let target = format!("/api/v4/projects/bench-writes/repository/files/{}", encode(&path));
        let update = || {
            counter.set(counter.get() + 1);
            let body =
                json!({"branch": "fc-writes", "commit_message": "bench", "content": format!("{}\n", counter.get())});
            fx.request("PUT", &target, Some(&body))
        };
        let (status, answer) = update();
        if status != 200 {
            return Err(format!("PUT {target}: {status} {}", String::from_utf8_lossy(&answer)));
        }
        let script = format!(
            "set -e; cd '{scratch_text}'; old=$(git rev-parse refs/heads/git-writes); \
             blob=$(date +%s%N | git hash-object -w --stdin); export GIT_INDEX_FILE=$(mktemp -u); \
             git read-tree \"$old\"; git update-index --cacheinfo \"100644,$blob,{path}\"; tree=$(git write-tree); \
             rm -f \"$GIT_INDEX_FILE\"; commit=$(echo bench | git commit-tree \"$tree\" -p \"$old\"); \
             git update-ref refs/heads/git-writes \"$commit\" \"$old\""
        );
        bench.compare(update_row, update, &["sh", "-c", &script]).target(half).note(path);
    }

    if bench.selected(post_row) {
        // Ten files spread over the tree: every tenth of the listing, updated in one commit.
        let listing = git_out(repo, &["ls-tree", "-r", "--name-only", "HEAD"])?;
        let all: Vec<&str> = listing.lines().collect();
        let paths: Vec<String> = (0..10).map(|i| all[i * all.len() / 10].to_string()).collect();
        let post = || {
            counter.set(counter.get() + 1);
            let actions: Vec<_> = paths
                .iter()
                .map(|p| json!({"action": "update", "file_path": p, "content": format!("{}\n", counter.get())}))
                .collect();
            let body = json!({"branch": "fc-writes", "commit_message": "bench", "actions": actions});
            fx.request("POST", "/api/v4/projects/bench-writes/repository/commits", Some(&body))
        };
        let (status, answer) = post();
        if status != 201 {
            return Err(format!("POST commits: {status} {}", String::from_utf8_lossy(&answer)));
        }
        let updates: String = paths
            .iter()
            .map(|p| {
                format!("git update-index --cacheinfo \"100644,$(date +%s%N | git hash-object -w --stdin),{p}\"; ")
            })
            .collect();
        let script = format!(
            "set -e; cd '{scratch_text}'; old=$(git rev-parse refs/heads/git-writes); \
             export GIT_INDEX_FILE=$(mktemp -u); git read-tree \"$old\"; {updates}tree=$(git write-tree); \
             rm -f \"$GIT_INDEX_FILE\"; commit=$(echo bench | git commit-tree \"$tree\" -p \"$old\"); \
             git update-ref refs/heads/git-writes \"$commit\" \"$old\""
        );
        bench.compare(post_row, post, &["sh", "-c", &script]).target(half);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}
