//! `POST /projects/:id/repository/commits`: several actions as one commit or none, compared with
//! the git CLI on a copy of the fixture repository (tests/fixtures/repo.sh): the tree after the
//! commit, its parent, author and committer, the stats against `git show --numstat`, GitLab's
//! refusals and status codes, start branches and SHAs, force, and an empty repository.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{git, git_text, TestInstance};
use serde_json::{json, Value};
use std::path::PathBuf;

struct World {
    instance: TestInstance,
    repo: PathBuf,
    maintainer: String,
    developer: String,
    reporter: String,
}

fn world_on(repo_name: &str) -> World {
    let instance = common::open_instance(json!({"external_url": "http://forge.test"}));
    let repo = instance.run_fixture("repo.sh").join(repo_name);
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    instance.admin_ok(json!({"command": "project_add", "path": "fx/c", "repo": repo, "visibility": "public"}));
    let common::Writers { maintainer, developer, reporter } = instance.writers("fx/c");
    World { instance, repo, maintainer, developer, reporter }
}

const TARGET: &str = "/api/v4/projects/fx%2Fc/repository/commits";

impl World {
    fn post(&self, token: Option<&str>, body: Value) -> (u16, Value) {
        let mut headers = vec![("Content-Type", "application/json")];
        if let Some(token) = token {
            headers.push(("PRIVATE-TOKEN", token));
        }
        self.instance.request_json("POST", TARGET, &headers, body.to_string().as_bytes())
    }

    fn git(&self, args: &[&str]) -> String {
        git_text(&self.repo, args)
    }

    fn tip(&self, branch: &str) -> String {
        self.git(&["rev-parse", &format!("refs/heads/{branch}")])
    }
}

fn message(text: &str) -> (u16, Value) {
    (400, json!({"message": text}))
}

#[test]
fn every_action_in_one_commit_matches_git() {
    let w = world_on("bare.git");
    let before = w.tip("main");
    let readme_last = w.git(&["log", "-1", "--format=%H", "main", "--", "README.md"]);
    let body = json!({
        "branch": "main",
        "commit_message": "Many actions\n\nIn one commit.",
        "author_name": "Ann Author",
        "author_email": "ann@example.com",
        "actions": [
            {"action": "create", "file_path": "/new/one.txt", "content": "one\ntwo\n"},
            {"action": "create", "file_path": "new/tool.sh", "content": "IyEvYmluL3NoCg==", "encoding": "base64", "execute_filemode": true},
            {"action": "update", "file_path": "README.md", "content": "# Changed\n", "last_commit_id": readme_last},
            {"action": "move", "previous_path": "a/b/c/deep.txt", "file_path": "moved/deep.txt"},
            {"action": "move", "previous_path": "empty.txt", "file_path": "moved/empty.txt", "content": "filled\n"},
            {"action": "delete", "file_path": "bin.dat"},
            {"action": "chmod", "file_path": "script.sh", "execute_filemode": false},
        ],
    });
    let (status, commit) = w.post(Some(&w.maintainer), body);
    assert_eq!(status, 201, "{commit}");
    let tip = w.tip("main");
    assert_eq!(commit["id"], json!(tip));
    assert_eq!(commit["parent_ids"], json!([before]));
    assert_eq!(commit["title"], json!("Many actions"));
    assert_eq!(commit["message"], json!("Many actions\n\nIn one commit."));
    assert_eq!(
        w.git(&["log", "-1", "--format=%an <%ae>|%cn <%ce>", "main"]),
        "Ann Author <ann@example.com>|mona N <mona@example.com>"
    );
    assert_eq!(commit["status"], Value::Null);
    assert_eq!(commit["last_pipeline"], Value::Null);
    assert!(commit["project_id"].is_i64());
    // The stats are git's numstat of the commit.
    let (mut additions, mut deletions) = (0, 0);
    for line in w.git(&["show", "--numstat", "--format=", "main"]).lines() {
        let mut parts = line.split('\t');
        additions += parts.next().unwrap().parse::<u64>().unwrap_or(0);
        deletions += parts.next().unwrap().parse::<u64>().unwrap_or(0);
    }
    assert_eq!(
        commit["stats"],
        json!({"additions": additions, "deletions": deletions, "total": additions + deletions})
    );
    // The tree: what the actions say, nothing else.
    let changed = w.git(&["diff-tree", "-r", "--no-commit-id", "--name-status", "-M", &before, &tip]);
    let mut changed: Vec<&str> = changed.lines().collect();
    changed.sort();
    assert_eq!(
        changed,
        [
            "A\tmoved/empty.txt",
            "A\tnew/one.txt",
            "A\tnew/tool.sh",
            "D\tbin.dat",
            "D\tempty.txt",
            "M\tREADME.md",
            "M\tscript.sh",
            "R100\ta/b/c/deep.txt\tmoved/deep.txt",
        ]
    );
    assert_eq!(git(&w.repo, &["cat-file", "blob", "main:new/tool.sh"]), b"#!/bin/sh\n");
    assert!(w.git(&["ls-tree", "main", "new/tool.sh"]).starts_with("100755 "));
    assert!(w.git(&["ls-tree", "main", "script.sh"]).starts_with("100644 "));
    assert_eq!(git(&w.repo, &["cat-file", "blob", "main:moved/empty.txt"]), b"filled\n");
    assert_eq!(w.git(&["ls-tree", "main", "a"]), "", "the emptied directory is gone");
    git(&w.repo, &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn all_or_nothing_and_gitlabs_refusals() {
    let w = world_on("bare.git");
    let before = w.tip("main");
    let create = |path: &str| json!({"action": "create", "file_path": path, "content": "x"});
    let body = |actions: Value| json!({"branch": "main", "commit_message": "x", "actions": actions});
    // The second action fails: nothing is committed, not even the first.
    let failing = body(json!([create("fine.txt"), {"action": "update", "file_path": "nope.txt", "content": "y"}]));
    assert_eq!(w.post(Some(&w.maintainer), failing), message("A file with this name doesn't exist"));
    assert_eq!(w.tip("main"), before);
    assert_eq!(
        w.post(Some(&w.maintainer), body(json!([create("README.md")]))),
        message("A file with this name already exists")
    );
    assert_eq!(
        w.post(Some(&w.maintainer), body(json!([create("a/b")]))),
        message("A directory with this name already exists")
    );
    let stale = body(json!([{"action": "delete", "file_path": "README.md", "last_commit_id": before}]));
    let last = w.git(&["log", "-1", "--format=%H", "main", "--", "README.md"]);
    if last != before {
        assert_eq!(
            w.post(Some(&w.maintainer), stale),
            message("The file has changed since you started editing it: README.md")
        );
    }
    assert_eq!(
        w.post(Some(&w.maintainer), body(json!([create("../x")]))),
        message("Path cannot include directory traversal")
    );
    assert_eq!(
        w.post(Some(&w.maintainer), body(json!([create(".git/config")]))),
        message("invalid path: '.git/config'")
    );
    // Parameters.
    let error = |text: &str| (400, json!({"error": text}));
    assert_eq!(
        w.post(Some(&w.maintainer), json!({"branch": "main", "commit_message": "x"})),
        error("actions is missing")
    );
    assert_eq!(w.post(Some(&w.maintainer), json!({"commit_message": "x", "actions": []})), error("branch is missing"));
    assert_eq!(
        w.post(Some(&w.maintainer), body(json!([{"action": "rename", "file_path": "x"}]))),
        error("actions[0][action] does not have a valid value")
    );
    assert_eq!(
        w.post(Some(&w.maintainer), body(json!([{"action": "create"}]))),
        error("actions[0][file_path] is missing")
    );
    assert_eq!(
        w.post(Some(&w.maintainer), body(json!([{"action": "chmod", "file_path": "README.md"}]))),
        error("actions[0][execute_filemode] is missing")
    );
    let both = json!({"branch": "x", "commit_message": "x", "start_branch": "main", "start_sha": before, "actions": [create("a.txt")]});
    assert_eq!(w.post(Some(&w.maintainer), both), error("start_branch, start_sha are mutually exclusive"));
    // Who may: anonymous 401, Reporter 403, a Developer not on the protected main.
    assert_eq!(w.post(None, body(json!([create("z.txt")]))), (401, json!({"message": "401 Unauthorized"})));
    let forbidden = (403, json!({"message": "403 Forbidden - You are not allowed to push into this branch"}));
    assert_eq!(w.post(Some(&w.reporter), body(json!([create("z.txt")]))), forbidden);
    assert_eq!(w.post(Some(&w.developer), body(json!([create("z.txt")]))), forbidden);
    assert_eq!(w.tip("main"), before, "nothing was committed");
    git(&w.repo, &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn start_branches_start_shas_and_force() {
    let w = world_on("bare.git");
    let main = w.tip("main");
    let first = w.git(&["rev-list", "--max-parents=0", "main"]);
    let create = |path: &str| json!([{"action": "create", "file_path": path, "content": "x"}]);
    // A Developer makes a new branch from main.
    let (status, commit) = w.post(
        Some(&w.developer),
        json!({"branch": "topic", "start_branch": "main", "commit_message": "t", "actions": create("t.txt")}),
    );
    assert_eq!(status, 201, "{commit}");
    assert_eq!(commit["parent_ids"], json!([main]));
    assert_eq!(
        w.post(
            Some(&w.developer),
            json!({"branch": "topic", "start_branch": "main", "commit_message": "t", "actions": create("u.txt")})
        ),
        message("A branch called 'topic' already exists. Switch to that branch in order to make changes")
    );
    assert_eq!(
        w.post(
            Some(&w.developer),
            json!({"branch": "other", "start_branch": "nope", "commit_message": "t", "actions": create("u.txt")})
        ),
        message("You can only create or edit files when you are on a branch")
    );
    // start_sha: full and existing, else GitLab's texts; with force the branch is reset onto it.
    let abbreviated = &first[..8];
    assert_eq!(
        w.post(
            Some(&w.developer),
            json!({"branch": "old", "start_sha": abbreviated, "commit_message": "t", "actions": create("o.txt")})
        ),
        message(&format!("Invalid start_sha '{abbreviated}'"))
    );
    let missing = "0".repeat(40);
    assert_eq!(
        w.post(
            Some(&w.developer),
            json!({"branch": "old", "start_sha": missing, "commit_message": "t", "actions": create("o.txt")})
        ),
        message(&format!("Cannot find start_sha '{missing}'"))
    );
    let (status, commit) = w.post(
        Some(&w.developer),
        json!({"branch": "old", "start_sha": first, "commit_message": "o", "actions": create("o.txt")}),
    );
    assert_eq!(status, 201, "{commit}");
    assert_eq!(commit["parent_ids"], json!([first]));
    assert_eq!(
        w.post(
            Some(&w.developer),
            json!({"branch": "topic", "start_sha": first, "commit_message": "f", "actions": create("f.txt")})
        ),
        message("A branch called 'topic' already exists. Switch to that branch in order to make changes")
    );
    let (status, commit) = w.post(
        Some(&w.developer),
        json!({"branch": "topic", "start_sha": first, "force": true, "commit_message": "f", "actions": create("f.txt")}),
    );
    assert_eq!(status, 201, "{commit}");
    assert_eq!(w.git(&["rev-parse", "topic^"]), first, "force reset topic onto start_sha");
    // Force on the protected default branch: nobody force-pushes, Maintainers included.
    let (status, answer) = w.post(
        Some(&w.maintainer),
        json!({"branch": "main", "start_sha": first, "force": true, "commit_message": "f", "actions": create("f.txt")}),
    );
    assert_eq!(status, 403, "{answer}");
    assert_eq!(w.tip("main"), main);
}

#[test]
fn an_empty_repository_takes_its_first_commit() {
    let w = world_on("empty.git");
    let (status, commit) = w.post(
        Some(&w.maintainer),
        json!({"branch": "main", "commit_message": "First", "actions": [{"action": "create", "file_path": "README.md", "content": "# Hi\n"}]}),
    );
    assert_eq!(status, 201, "{commit}");
    assert_eq!(commit["parent_ids"], json!([]));
    assert_eq!(commit["stats"], json!({"additions": 1, "deletions": 0, "total": 1}));
    assert_eq!(w.git(&["rev-list", "--count", "main"]), "1");
    git(&w.repo, &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn the_typed_export_answers_what_the_route_answers() {
    let w = world_on("bare.git");
    let params = json!({"project": "fx/c", "branch": "typed", "start_branch": "main", "commit_message": "Typed",
                        "actions": [{"action": "create", "file_path": "typed.txt", "content": "t"}]});
    let (status, commit) =
        w.instance.typed(forgecore::ffi::fc_repository_commit_create, TestInstance::auth(&w.developer), params);
    assert_eq!(status, 201, "{commit}");
    assert_eq!(commit["id"], json!(w.tip("typed")));
    let (status, _) = w.instance.request_json(
        "GET",
        &format!("/api/v4/projects/fx%2Fc/repository/commits/{}", w.tip("typed")),
        &[],
        b"",
    );
    assert_eq!(status, 200);
}

#[test]
fn racing_commit_posts_from_two_contexts_lose_nothing() {
    let w = world_on("bare.git");
    let other = w.instance.reopen();
    let before: usize = w.git(&["rev-list", "--count", "main"]).parse().unwrap();
    let outcomes: Vec<(u16, Value)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..20)
            .map(|i| {
                let instance = if i % 2 == 0 { &w.instance } else { &other };
                let token = w.maintainer.as_str();
                scope.spawn(move || {
                    let body = json!({"branch": "main", "commit_message": format!("racer {i}"), "actions": [
                        {"action": "create", "file_path": format!("race/{i}.txt"), "content": format!("{i}\n")},
                        {"action": "update", "file_path": "README.md", "content": format!("racer {i}\n")},
                    ]});
                    let headers = [("PRIVATE-TOKEN", token), ("Content-Type", "application/json")];
                    instance.request_json("POST", TARGET, &headers, body.to_string().as_bytes())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut landed = Vec::new();
    for (i, (status, answer)) in outcomes.iter().enumerate() {
        match status {
            201 => landed.push(i),
            400 => assert!(answer["message"].as_str().unwrap().ends_with("Please refresh and try again."), "{answer}"),
            other => panic!("{other}: {answer}"),
        }
    }
    let after: usize = w.git(&["rev-list", "--count", "main"]).parse().unwrap();
    assert_eq!(after, before + landed.len(), "one commit per success");
    let files = w.git(&["ls-tree", "--name-only", "main", "race/"]);
    for i in &landed {
        assert!(files.lines().any(|f| f == format!("race/{i}.txt")), "racer {i}'s file is on main");
    }
    git(&w.repo, &["fsck", "--strict", "--no-dangling"]);
}

/// The last-commit walk behind every `last_commit_id` check stops at the deadline it is given:
/// several checks of one write share one deadline (`last_commit::BUDGET` from the write's
/// start), so a write with many stale-checked paths is bounded as one walk is. A history
/// longer than the walk's deadline interval, a path only its root commit touches: with time
/// left the walk finds the root commit; with the deadline passed it gives up as an error
/// instead of reading the whole history.
#[test]
fn the_last_commit_walk_stops_at_its_deadline() {
    use forgecore::git::last_commit;
    use std::io::Write;
    use std::time::{Duration, Instant};
    let dir = common::TempDir::new();
    git(dir.path(), &["init", "-q", "--bare", "big.git"]);
    let repo_dir = dir.path().join("big.git");
    let mut script = String::new();
    for n in 1..=1500 {
        let file = if n == 1 { "only-in-root.txt" } else { "churn.txt" };
        let content = format!("{n}\n");
        let when = 1_700_000_000 + n;
        let length = content.len();
        script.push_str(&format!(
            "commit refs/heads/main\ncommitter C <c@x> {when} +0000\ndata 2\nc\nM 100644 inline {file}\ndata {length}\n{content}\n"
        ));
    }
    let mut import = std::process::Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(&repo_dir)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    import.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    assert!(import.wait().unwrap().success());
    let root = git_text(&repo_dir, &["rev-list", "--max-parents=0", "main"]);
    let repo = forgecore::git::open(&repo_dir).unwrap();
    let tip = gix::ObjectId::from_hex(git_text(&repo_dir, &["rev-parse", "main"]).as_bytes()).unwrap();
    let found = last_commit::find_before(&repo, tip, "only-in-root.txt", Instant::now() + Duration::from_secs(60));
    assert_eq!(found.unwrap().map(|id| id.to_string()), Some(root), "git log -1 -- only-in-root.txt");
    let past = Instant::now().checked_sub(Duration::from_millis(1)).unwrap();
    assert!(last_commit::find_before(&repo, tip, "only-in-root.txt", past).is_err(), "a passed deadline is an error");
}
