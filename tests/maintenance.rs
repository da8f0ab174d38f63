//! Housekeeping (`src/git/maintenance`): a repository forgecore serves and writes to becomes
//! maintained (a split commit-graph with changed-path Bloom filters, a bitmap; the health report
//! says what ran and when); one run per repository at a time across hosts (two contexts on one
//! store, as two hosts are, and git's own `git maintenance` as another process); requests are
//! answered while a run holds the repository, and their answers stay git's.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{git, git_text, TestInstance};
use forgecore::git::maintenance::{lock, Outcome};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Waits up to a minute for `ready`.
fn eventually(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn chain(repo: &Path) -> PathBuf {
    repo.join("objects/info/commit-graphs/commit-graph-chain")
}

/// An instance with maintenance on (and `extra` configuration), a public project `fx/<name>`
/// on a fresh copy of `tests/fixtures/repo.sh`'s bare repository, and a Maintainer's token.
fn world(extra: Value) -> (TestInstance, PathBuf, String) {
    let mut config = json!({"maintenance": {"enabled": true, "check_interval_seconds": 3600}});
    if let Value::Object(extra) = extra {
        config.as_object_mut().unwrap().extend(extra);
    }
    let instance = common::open_instance(config);
    let repo = instance.run_fixture("repo.sh").join("bare.git");
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    instance.admin_ok(json!({"command": "project_add", "path": "fx/m", "repo": repo, "visibility": "public"}));
    let maintainer = instance.writers("fx/m").maintainer;
    (instance, repo, maintainer)
}

fn write_file(instance: &TestInstance, token: &str, path: &str) {
    let body = json!({"branch": "main", "content": "new\n", "commit_message": format!("Add {path}")});
    let headers = [("PRIVATE-TOKEN", token), ("Content-Type", "application/json")];
    let target = format!("/api/v4/projects/fx%2Fm/repository/files/{}", path.replace('/', "%2F"));
    let (status, answer) = instance.request_json("POST", &target, &headers, body.to_string().as_bytes());
    assert_eq!(status, 201, "{answer}");
}

fn health(instance: &TestInstance, token: &str) -> Value {
    let target = "/api/v4/projects/fx%2Fm/repository/health?generate=true";
    let (status, report) = instance.request_json("GET", target, &[("PRIVATE-TOKEN", token)], b"");
    assert_eq!(status, 200, "{report}");
    report
}

/// The commits list for `path` and the blame of `path` answer as git does.
fn reads_are_gits(instance: &TestInstance, repo: &Path, path: &str) {
    let target = format!("/api/v4/projects/fx%2Fm/repository/commits?per_page=100&path={}", path.replace('/', "%2F"));
    let (status, list) = instance.request_json("GET", &target, &[], b"");
    assert_eq!(status, 200, "{list}");
    let ids: Vec<&str> = list.as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    let expected = git_text(repo, &["log", "--format=%H", "main", "--", path]);
    assert_eq!(ids, expected.lines().collect::<Vec<_>>(), "commits?path={path}");
    let target = format!("/api/v4/projects/fx%2Fm/repository/files/{}/blame?ref=main", path.replace('/', "%2F"));
    let (status, groups) = instance.request_json("GET", &target, &[], b"");
    assert_eq!(status, 200, "{groups}");
    let blamed: Vec<&str> = groups.as_array().unwrap().iter().map(|g| g["commit"]["id"].as_str().unwrap()).collect();
    let porcelain = git_text(repo, &["blame", "--porcelain", "main", "--", path]);
    let first = porcelain.lines().next().unwrap();
    assert_eq!(blamed.first().copied(), Some(&first[..40]), "blame of {path}");
}

#[test]
fn a_repository_served_and_written_to_becomes_maintained() {
    let (instance, repo, maintainer) = world(json!({}));
    assert!(!chain(&repo).exists() && !repo.join("objects/info/commit-graph").exists(), "the fixture has no graph");
    let before = health(&instance, &maintainer);
    assert_eq!(before["commit_graph"], Value::Null);
    assert_eq!(before["maintenance"], json!({"runs": [], "last_checked_at": null}));

    // A write through the API queues a run, and the answer does not wait for it.
    write_file(&instance, &maintainer, "docs/maintained.md");
    eventually("a maintained repository", || {
        chain(&repo).exists() && repo.join(forgecore::git::maintenance::record::FILE).exists()
    });
    eventually("the run's end", || !repo.join("objects").join(lock::FILE).exists());

    let report = health(&instance, &maintainer);
    assert_eq!(report["commit_graph"]["has_bloom_filters"], json!(true), "{report}");
    assert!(report["commit_graph"]["commit_graph_chain_length"].as_u64().unwrap() >= 1, "{report}");
    assert_ne!(report["bitmap"], Value::Null, "a full repack with a bitmap: {report}");
    // Not "no loose objects": the write's objects can land while the first run repacks, and a
    // handful of loose objects is below every threshold of Gitaly's heuristics, as it should be.
    assert!(report["objects"]["packfile_count"].as_u64().unwrap() >= 1, "{report}");
    // A request opening the repository queued a look before the write's own run: one run or
    // two, each done, together a full repack and a new commit-graph.
    let runs = report["maintenance"]["runs"].as_array().unwrap();
    assert!(!runs.is_empty(), "{report}");
    let mut tasks = Vec::new();
    for run in runs {
        assert_eq!(run["outcome"], json!("done"), "{report}");
        assert!(run["finished_at"].as_str().unwrap() >= run["started_at"].as_str().unwrap(), "{run}");
        tasks.extend(run["tasks"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()));
    }
    assert!(tasks.contains(&"repack_full") && tasks.contains(&"commit_graph_replace"), "{tasks:?}");
    assert_eq!(runs[0]["reason"], json!("changed"), "the write's run is the last: {report}");
    assert!(report["maintenance"]["last_checked_at"].is_string(), "{report}");

    // git agrees the repository is whole, and reads its filters as forgecore does.
    git(&repo, &["commit-graph", "verify"]);
    git(&repo, &["fsck", "--no-progress", "--connectivity-only"]);
    assert!(forgecore::git::bloom::load(&repo.join("objects")).is_some(), "changed-path filters are read");
    reads_are_gits(&instance, &repo, "docs/maintained.md");
    reads_are_gits(&instance, &repo, "README.md");

    // A second write: the new commit gets a layer of its own (with its filter).
    write_file(&instance, &maintainer, "docs/second.md");
    eventually("the new commit in the graph", || {
        let text = git_text(&repo, &["log", "-1", "--format=%H", "main"]);
        let graph = forgecore::git::bloom::load(&repo.join("objects"));
        let id = gix::ObjectId::from_hex(text.as_bytes()).unwrap();
        let keys = forgecore::git::bloom::Keys::new(&[b"README.md".to_vec()]);
        graph.is_some_and(|g| g.certainly_unchanged(&id, &keys))
    });
    eventually("the run's end", || !repo.join("objects").join(lock::FILE).exists());
    git(&repo, &["commit-graph", "verify"]);
    reads_are_gits(&instance, &repo, "docs/second.md");
}

#[test]
fn a_repository_found_unmaintained_when_served_is_maintained() {
    let (instance, repo, maintainer) = world(json!({}));
    let (status, _) = instance.request_json("GET", "/api/v4/projects/fx%2Fm/repository/tree", &[], b"");
    assert_eq!(status, 200);
    eventually("a maintained repository", || chain(&repo).exists());
    eventually("the run's end", || !repo.join("objects").join(lock::FILE).exists());
    let report = health(&instance, &maintainer);
    assert_eq!(report["maintenance"]["runs"][0]["reason"], json!("served"), "{report}");
    assert_eq!(report["commit_graph"]["has_bloom_filters"], json!(true), "{report}");
}

#[test]
fn maintenance_off_leaves_the_repository_as_it_is() {
    let (instance, repo, maintainer) = world(json!({"maintenance": {"enabled": false}}));
    write_file(&instance, &maintainer, "docs/untouched.md");
    let (status, _) = instance.request_json("GET", "/api/v4/projects/fx%2Fm/repository/tree", &[], b"");
    assert_eq!(status, 200);
    let ctx = instance.ctx();
    assert!(!ctx.maintenance.enabled());
    ctx.maintenance.after_refs_changed(&repo);
    assert!(ctx.maintenance.wait_idle(Duration::from_secs(5)));
    assert!(!chain(&repo).exists() && !repo.join(forgecore::git::maintenance::record::FILE).exists());
}

/// A git that takes its time over `commit-graph`: a maintenance run then holds its repository
/// for a few seconds, long enough to be seen doing so.
fn slow_git(dir: &Path) -> PathBuf {
    let real =
        String::from_utf8(std::process::Command::new("sh").args(["-c", "command -v git"]).output().unwrap().stdout)
            .unwrap();
    let script = dir.join("slow-git");
    let text = format!(
        "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = commit-graph ] && sleep 5; done\nexec {} \"$@\"\n",
        real.trim()
    );
    std::fs::write(&script, text).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

#[test]
fn two_hosts_never_maintain_one_repository_at_once_and_requests_are_answered_meanwhile() {
    let scripts = common::TempDir::new();
    let git_binary = slow_git(scripts.path());
    let (instance, repo, maintainer) = world(json!({"git_binary": git_binary}));
    let lock_file = repo.join("objects").join(lock::FILE);

    // Host A (the instance) starts a run with a write; it holds the repository's lock.
    write_file(&instance, &maintainer, "docs/a.md");
    eventually("host A's run to start", || lock_file.exists());
    let holder = std::fs::read_to_string(&lock_file).unwrap();
    assert!(holder.starts_with("forgecore "), "{holder}");

    // Meanwhile: reads on host A are answered, as git answers them, while the run goes on.
    reads_are_gits(&instance, &repo, "README.md");
    let (status, _) = instance.request_json("GET", "/api/v4/projects/fx%2Fm/repository/tree?recursive=true", &[], b"");
    assert_eq!(status, 200);
    // Host B (a second context on the same store, as a second host is) asked to maintain the
    // same repository finds it held, and does nothing.
    let host_b = instance.ctx();
    host_b.maintenance.after_refs_changed(&repo);
    assert!(host_b.maintenance.wait_idle(Duration::from_secs(30)));
    assert!(
        matches!(host_b.maintenance.last_outcome(&repo), Some(Outcome::Busy(_))),
        "host B: {:?}",
        host_b.maintenance.last_outcome(&repo)
    );
    assert_eq!(std::fs::read_to_string(&lock_file).unwrap_or_default(), holder, "host A still runs");

    eventually("host A's run to end", || !lock_file.exists());
    let report = health(&instance, &maintainer);
    assert_eq!(report["maintenance"]["runs"][0]["outcome"], json!("done"), "{report}");
    assert_eq!(report["commit_graph"]["has_bloom_filters"], json!(true), "{report}");

    // Now host B may: a run that finds the repository maintained has nothing to do.
    host_b.maintenance.after_refs_changed(&repo);
    assert!(host_b.maintenance.wait_idle(Duration::from_secs(60)));
    let outcome = host_b.maintenance.last_outcome(&repo);
    assert!(matches!(outcome, Some(Outcome::Nothing | Outcome::Done(_))), "{outcome:?}");
}

#[test]
fn gits_own_maintenance_and_forgecores_exclude_each_other() {
    let (instance, repo, _) = world(json!({}));
    let host = instance.ctx();
    let lock_file = repo.join("objects").join(lock::FILE);
    // git's own lock (as `git maintenance run` holds it: an empty file): forgecore skips.
    std::fs::write(&lock_file, "").unwrap();
    host.maintenance.after_refs_changed(&repo);
    assert!(host.maintenance.wait_idle(Duration::from_secs(30)));
    assert!(matches!(host.maintenance.last_outcome(&repo), Some(Outcome::Busy(_))));
    assert!(!chain(&repo).exists());
    std::fs::remove_file(&lock_file).unwrap();

    // A lock left by a process of this host that is gone is stale: broken, and the run made.
    let dead = format!("forgecore {} {} 0\n", lock::host_name(), i32::MAX - 3);
    std::fs::write(&lock_file, dead).unwrap();
    host.maintenance.after_refs_changed(&repo);
    assert!(host.maintenance.wait_idle(Duration::from_secs(60)));
    let outcome = host.maintenance.last_outcome(&repo);
    assert!(matches!(outcome, Some(Outcome::Done(_))), "{outcome:?}");
    assert!(chain(&repo).exists() && !lock_file.exists());

    // forgecore holds the lock (as a run does) of a repository without a graph: git's own
    // maintenance, another process, writes nothing; once it is released, git does.
    let other = instance.root_dir().join("other.git");
    git(instance.root_dir(), &["clone", "-q", "--bare", "--no-local", repo.to_str().unwrap(), other.to_str().unwrap()]);
    let graph_written = || chain(&other).exists() || other.join("objects/info/commit-graph").exists();
    let git_maintenance = || {
        let status = std::process::Command::new("git")
            .args(["-C", other.to_str().unwrap(), "maintenance", "run", "--task=commit-graph"])
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap();
        assert!(status.success());
    };
    assert!(!graph_written());
    let held = lock::Lock::acquire(&other.join("objects"), Duration::from_secs(3600)).unwrap();
    git_maintenance();
    assert!(!graph_written(), "git's maintenance ran while forgecore held the repository");
    drop(held);
    git_maintenance();
    assert!(graph_written(), "git's maintenance, once the lock is free");
}
