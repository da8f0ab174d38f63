//! The repository files API through the HTTP door, compared with the git CLI on the fixture
//! repositories (tests/fixtures/repo.sh, archive.sh for LFS): every field of the entity and its
//! headers, raw bytes, blame against `git blame --porcelain`, and the writes (one commit each,
//! GitLab's refusals, the protected default branch, hostile paths, racing writers).
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use base64::Engine;
use common::{git, git_text, porcelain_lines, TestInstance};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

struct World {
    instance: TestInstance,
    /// The bare repository the project serves.
    repo: PathBuf,
    maintainer: String,
    developer: String,
    reporter: String,
}

/// A project `fx/files` on `repo` of the fixture `script` builds, public, with a Maintainer, a
/// Developer and a Reporter.
fn world_on(script: &str, repo: &str) -> World {
    let instance = common::open_instance(json!({"external_url": "http://forge.test"}));
    let repo = instance.run_fixture(script).join(repo);
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    instance.admin_ok(json!({"command": "project_add", "path": "fx/files", "repo": repo, "visibility": "public"}));
    let common::Writers { maintainer, developer, reporter } = instance.writers("fx/files");
    World { instance, repo, maintainer, developer, reporter }
}

fn world() -> World {
    world_on("repo.sh", "bare.git")
}

fn encode(path: &str) -> String {
    utf8_percent_encode(path, NON_ALPHANUMERIC).to_string()
}

fn files_url(path: &str, suffix: &str, query: &str) -> String {
    format!("/api/v4/projects/fx%2Ffiles/repository/files/{}{suffix}?{query}", encode(path))
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

impl World {
    fn get(&self, path: &str, query: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
        self.instance.request("GET", &files_url(path, "", query), &[], b"")
    }

    fn write(&self, method: &str, token: &str, path: &str, body: Value) -> (u16, Value) {
        let headers = [("PRIVATE-TOKEN", token), ("Content-Type", "application/json")];
        self.instance.request_json(method, &files_url(path, "", ""), &headers, body.to_string().as_bytes())
    }

    fn git(&self, args: &[&str]) -> String {
        git_text(&self.repo, args)
    }
}

/// Every regular file, executable and link at `rev` (gitlinks and non-UTF-8 names left out):
/// `(mode, path)`.
fn files_at(repo: &Path, rev: &str) -> Vec<(String, String)> {
    let listing = git(repo, &["ls-tree", "-r", "-z", rev]);
    listing
        .split(|b| *b == 0)
        .filter(|entry| !entry.is_empty())
        .filter_map(|entry| {
            let text = std::str::from_utf8(entry).ok()?;
            let (meta, path) = text.split_once('\t')?;
            let mode = meta.split(' ').next()?;
            (mode != "160000").then(|| (mode.to_string(), path.to_string()))
        })
        .collect()
}

#[test]
fn every_file_and_its_headers_match_git_at_every_kind_of_ref() {
    let w = world();
    for rev in ["main", "feature", "v1.0.0", "HEAD"] {
        let commit = w.git(&["rev-parse", &format!("{rev}^{{commit}}")]);
        let files = files_at(&w.repo, rev);
        assert!(files.len() >= 8, "the fixture has files at {rev}");
        for (mode, path) in files {
            let (status, headers, body) = w.get(&path, &format!("ref={rev}"));
            assert_eq!(status, 200, "{rev}:{path}: {}", String::from_utf8_lossy(&body));
            let entity: Value = serde_json::from_slice(&body).unwrap();
            let content = git(&w.repo, &["cat-file", "blob", &format!("{rev}:{path}")]);
            let decoded =
                base64::engine::general_purpose::STANDARD.decode(entity["content"].as_str().unwrap()).unwrap();
            assert_eq!(decoded, content, "{rev}:{path}");
            let last = w.git(&["log", "-1", "--format=%H", rev, "--", &path]);
            let sha256: String = Sha256::digest(&content).iter().map(|b| format!("{b:02x}")).collect();
            let expected = json!({
                "file_name": path.rsplit('/').next().unwrap(),
                "file_path": path,
                "size": content.len(),
                "encoding": "base64",
                "content_sha256": sha256,
                "ref": rev,
                "blob_id": w.git(&["rev-parse", &format!("{rev}:{path}")]),
                "commit_id": commit,
                "last_commit_id": last,
                "execute_filemode": mode == "100755",
            });
            for (key, value) in expected.as_object().unwrap() {
                assert_eq!(&entity[key], value, "{rev}:{path} {key}");
            }
            let keys: Vec<&str> = body_keys(&body);
            assert_eq!(
                keys,
                [
                    "file_name",
                    "file_path",
                    "size",
                    "encoding",
                    "content_sha256",
                    "ref",
                    "blob_id",
                    "commit_id",
                    "last_commit_id",
                    "execute_filemode",
                    "content"
                ],
                "GitLab's order"
            );
            let text = |v: &Value| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
            assert_eq!(header(&headers, "X-Gitlab-Last-Commit-Id"), Some(text(&expected["last_commit_id"]).as_str()));
            assert_eq!(header(&headers, "X-Gitlab-Content-Sha256"), Some(text(&expected["content_sha256"]).as_str()));
            assert_eq!(header(&headers, "X-Gitlab-Size"), Some(content.len().to_string().as_str()));
            assert_eq!(
                header(&headers, "X-Gitlab-Execute-Filemode"),
                Some(text(&expected["execute_filemode"]).as_str())
            );
            assert_eq!(header(&headers, "X-Gitlab-Ref"), Some(rev));
            // HEAD: the same headers, no body. Raw: the bytes, the same headers.
            let (status, head_headers, head_body) =
                w.instance.request("HEAD", &files_url(&path, "", &format!("ref={rev}")), &[], b"");
            assert_eq!((status, head_body.len()), (200, 0));
            assert_eq!(header(&head_headers, "X-Gitlab-Blob-Id"), header(&headers, "X-Gitlab-Blob-Id"));
            let (status, raw_headers, raw) =
                w.instance.request("GET", &files_url(&path, "/raw", &format!("ref={rev}")), &[], b"");
            assert_eq!((status, &raw), (200, &content), "{rev}:{path} raw");
            assert_eq!(header(&raw_headers, "X-Gitlab-Commit-Id"), Some(commit.as_str()));
        }
    }
}

/// The top-level keys of a JSON object, in the order they were written.
fn body_keys(body: &[u8]) -> Vec<&str> {
    let text = std::str::from_utf8(body).unwrap();
    let mut keys = Vec::new();
    let mut rest = text.strip_prefix('{').unwrap();
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        let end = after.find('"').unwrap();
        keys.push(&after[..end]);
        let value = &after[end + 2..];
        // Skip the value: a string (no escaped quotes in these fixtures' values matter: keys
        // only follow a comma at depth 0).
        let mut depth = 0;
        let mut in_string = false;
        let mut escaped = false;
        let mut cut = value.len();
        for (i, c) in value.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if in_string => escaped = true,
                '"' => in_string = !in_string,
                '{' | '[' if !in_string => depth += 1,
                '}' | ']' if !in_string && depth > 0 => depth -= 1,
                ',' if !in_string && depth == 0 => {
                    cut = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &value[cut..];
        if cut == value.len() {
            break;
        }
    }
    keys
}

#[test]
fn reads_refuse_and_miss_as_gitlab_does() {
    let w = world();
    let json = |(status, _, body): (u16, Vec<(String, String)>, Vec<u8>)| {
        (status, serde_json::from_slice::<Value>(&body).unwrap_or(Value::Null))
    };
    assert_eq!(json(w.get("README.md", "")), (400, json!({"error": "ref is missing"})));
    assert_eq!(json(w.get("README.md", "ref=")), (400, json!({"error": "ref is empty"})));
    assert_eq!(json(w.get("README.md", "ref=nope")), (404, json!({"message": "404 Commit Not Found"})));
    assert_eq!(json(w.get("missing.txt", "ref=main")), (404, json!({"message": "404 File Not Found"})));
    assert_eq!(json(w.get("a/b", "ref=main")), (404, json!({"message": "404 File Not Found"})), "a directory");
    assert_eq!(json(w.get("vendor/lib", "ref=main")), (404, json!({"message": "404 File Not Found"})), "a gitlink");
    let invalid = json!({"error": "file_path should be a valid file path"});
    for path in ["../README.md", "a/../README.md", "..", "/README.md", "a\\..\\README.md"] {
        assert_eq!(json(w.get(path, "ref=main")), (400, invalid.clone()), "{path}");
    }
    // Raw: `ref` optional (the default branch), a leading `/` allowed.
    let (status, headers, body) = w.instance.request("GET", &files_url("/README.md", "/raw", ""), &[], b"");
    assert_eq!(status, 200);
    assert_eq!(body, git(&w.repo, &["cat-file", "blob", "main:README.md"]));
    assert_eq!(header(&headers, "X-Gitlab-Ref"), Some("main"));
    let etag = header(&headers, "ETag").unwrap().to_string();
    let (status, _, body) =
        w.instance.request("GET", &files_url("README.md", "/raw", "ref=main"), &[("If-None-Match", &etag)], b"");
    assert_eq!((status, body.len()), (304, 0));
    // A private project is a 404 to anyone who may not see it; its Reporters read code.
    let private = json!({"command": "project_add", "path": "fx/private", "repo": w.repo, "visibility": "private"});
    w.instance.admin_ok(private);
    w.instance
        .admin_ok(json!({"command": "member_add", "username": "rita", "project": "fx/private", "access_level": 20}));
    let target = "/api/v4/projects/fx%2Fprivate/repository/files/README.md?ref=main";
    assert_eq!(w.instance.request_json("GET", target, &[], b"").0, 404);
    assert_eq!(w.instance.request_json("GET", target, &[("PRIVATE-TOKEN", &w.developer)], b"").0, 404);
    assert_eq!(w.instance.request_json("GET", target, &[("PRIVATE-TOKEN", &w.reporter)], b"").0, 200);
}

#[test]
fn blame_matches_git_blame_porcelain() {
    let w = world();
    let mut compared = 0;
    for (_, path) in files_at(&w.repo, "main") {
        let content = git(&w.repo, &["cat-file", "blob", &format!("main:{path}")]);
        if content.contains(&0) || std::str::from_utf8(&content).is_err() {
            continue;
        }
        let expected = porcelain_lines(&w.repo, "main", &path);
        let (status, headers, body) = w.instance.request("GET", &files_url(&path, "/blame", "ref=main"), &[], b"");
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
        assert!(header(&headers, "X-Gitlab-Blob-Id").is_some());
        let groups: Value = serde_json::from_slice(&body).unwrap();
        let mut got = Vec::new();
        let mut previous = String::new();
        for group in groups.as_array().unwrap() {
            let id = group["commit"]["id"].as_str().unwrap().to_string();
            assert_ne!(id, previous, "{path}: consecutive lines of one commit are one group");
            assert_eq!(
                group["commit"]["author_email"],
                json!(w.git(&["log", "-1", "--format=%ae", &id])),
                "{path}: the commit entity"
            );
            for line in group["lines"].as_array().unwrap() {
                got.push((id.clone(), line.as_str().unwrap().to_string()));
            }
            previous = id;
        }
        assert_eq!(got, expected, "{path}");
        compared += 1;
        if expected.len() >= 3 {
            let (status, body) = w.instance.request_json(
                "GET",
                &files_url(&path, "/blame", "ref=main&range[start]=2&range[end]=3"),
                &[],
                b"",
            );
            assert_eq!(status, 200);
            let lines: Vec<Value> =
                body.as_array().unwrap().iter().flat_map(|g| g["lines"].as_array().unwrap().clone()).collect();
            assert_eq!(lines, [json!(expected[1].1), json!(expected[2].1)], "{path} lines 2-3");
        }
    }
    assert!(compared >= 5, "blamed {compared} files");
    let (status, body) = w.instance.request_json(
        "GET",
        &files_url("README.md", "/blame", "ref=main&range[start]=3&range[end]=2"),
        &[],
        b"",
    );
    assert_eq!(status, 400);
    // GitLab's `render_api_error!` (lib/api/files.rb, `fetch_blame_range`), not `400 Bad
    // request - ...`.
    assert_eq!(body, json!({"message": "range[start] must be less than or equal to range[end]"}));
}

/// `(commit, line)` of every line of the blame answer `body`.
fn blamed_lines(body: &Value) -> Vec<(String, String)> {
    let groups = body.as_array().unwrap_or_else(|| panic!("not a list: {body}"));
    groups
        .iter()
        .flat_map(|group| {
            let id = group["commit"]["id"].as_str().unwrap().to_string();
            group["lines"].as_array().unwrap().iter().map(move |l| (id.clone(), l.as_str().unwrap().to_string()))
        })
        .collect()
}

#[test]
fn blame_of_long_histories_is_gits_as_built_and_maintained() {
    // The benchmark's generator: a file changed by 250 commits among 1,500 (merges of side
    // branches among them), files added, renamed and changed over the history. Blame shows
    // gix-blame trees holding the path alone where a commit and its parents have it
    // (src/git/blame/skip.rs); every answer must stay git's, at the tip, at a tag and on a
    // branch, with and without a commit-graph and its changed-path filters.
    let instance = common::open_instance(json!({}));
    let dir = instance.root_dir().join("long");
    std::fs::create_dir_all(&dir).unwrap();
    let plain = dir.join("plain.git");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/bench/make-repo.sh");
    let status = std::process::Command::new("bash")
        .arg(script)
        .args(["--files", "300", "--commits", "1500", "--hot-file", "250", "--tags", "3", "--big-blob-mib", "0"])
        .arg(&plain)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "make-repo.sh failed");
    let kept = dir.join("kept.git");
    git(&dir, &["clone", "-q", "--bare", "--no-local", &plain.to_string_lossy(), &kept.to_string_lossy()]);
    git(&kept, &["commit-graph", "write", "--reachable", "--changed-paths"]);
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    for (path, repo) in [("fx/plain", &plain), ("fx/kept", &kept)] {
        instance.admin_ok(json!({"command": "project_add", "path": path, "repo": repo, "visibility": "public"}));
    }

    let at_head = git_text(&plain, &["ls-tree", "-r", "--name-only", "main"]);
    let renamed = at_head.lines().find(|p| p.contains("moved")).expect("a renamed file").to_string();
    let added = at_head.lines().find(|p| p.contains("/new")).expect("a file added later").to_string();
    let changes = git_text(&plain, &["log", "--format=", "--name-only", "--no-merges", "main", "--", "dir*"]);
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    changes.lines().filter(|l| !l.is_empty()).for_each(|l| *counts.entry(l).or_default() += 1);
    let busiest = counts.iter().max_by_key(|(_, n)| **n).map(|(p, _)| p.to_string()).unwrap();
    let hot = "src/hot/history.c".to_string();
    let hot_commits = git_text(&plain, &["rev-list", "--count", "main", "--", &hot]);
    assert!(hot_commits.parse::<u32>().unwrap() >= 240, "the hot file has {hot_commits} commits");

    let cases = [("main", &hot), ("main", &busiest), ("main", &renamed), ("main", &added), ("v1.1.0", &hot)]
        .into_iter()
        .chain([("feature/unmerged", &hot), ("main~7", &renamed)]);
    let mut compared = 0;
    for (rev, path) in cases {
        let expected = porcelain_lines(&plain, rev, path);
        assert!(!expected.is_empty(), "{rev}:{path}");
        for project in ["fx%2Fplain", "fx%2Fkept"] {
            let target = format!("/api/v4/projects/{project}/repository/files/{}/blame?ref={rev}", encode(path));
            let (status, body) = instance.request_json("GET", &target, &[], b"");
            assert_eq!(status, 200, "{project} {rev}:{path}: {body}");
            assert_eq!(blamed_lines(&body), expected, "{project} {rev}:{path} against git blame");
            compared += 1;
        }
    }
    assert_eq!(compared, 14);
}

#[test]
fn raw_with_lfs_serves_the_object_and_without_it_the_pointer() {
    let w = world_on("archive.sh", "repo.git");
    let pointer = git(&w.repo, &["cat-file", "blob", "main:assets/model.bin"]);
    let (status, _, body) = w.instance.request("GET", &files_url("assets/model.bin", "/raw", "ref=main"), &[], b"");
    assert_eq!((status, &body), (200, &pointer), "without lfs=true: the pointer");
    let (status, headers, body) =
        w.instance.request("GET", &files_url("assets/model.bin", "/raw", "ref=main&lfs=true"), &[], b"");
    assert_eq!(status, 200);
    let text = String::from_utf8_lossy(&pointer).to_string();
    let oid = text.lines().find_map(|l| l.strip_prefix("oid sha256:")).unwrap();
    let object = std::fs::read(w.repo.join("lfs/objects").join(&oid[..2]).join(&oid[2..4]).join(oid)).unwrap();
    assert_eq!(body, object, "the LFS object");
    let etag = header(&headers, "ETag").unwrap().to_string();
    let (status, _, _) = w.instance.request(
        "GET",
        &files_url("assets/model.bin", "/raw", "ref=main&lfs=true"),
        &[("If-None-Match", &etag)],
        b"",
    );
    assert_eq!(status, 304);
}

fn tip(w: &World, branch: &str) -> String {
    w.git(&["rev-parse", &format!("refs/heads/{branch}")])
}

fn fsck(repo: &Path) {
    git(repo, &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn writes_commit_once_each_as_gitlab_does() {
    let w = world();
    let before = tip(&w, "main");
    // Create on the protected default branch: a Maintainer may, with GitLab's answer.
    let (status, body) = w.write(
        "POST",
        &w.maintainer,
        "new/dir/file.txt",
        json!({"branch": "main", "commit_message": "Add a file", "content": "hello\n"}),
    );
    assert_eq!((status, &body), (201, &json!({"file_path": "new/dir/file.txt", "branch": "main"})));
    let created = tip(&w, "main");
    assert_eq!(w.git(&["rev-parse", &format!("{created}^")]), before, "one commit on the old tip");
    assert_eq!(git(&w.repo, &["cat-file", "blob", "main:new/dir/file.txt"]), b"hello\n");
    assert_eq!(
        w.git(&["log", "-1", "--format=%an <%ae>|%cn <%ce>|%s", "main"]),
        "mona N <mona@example.com>|mona N <mona@example.com>|Add a file"
    );
    assert_eq!(
        w.git(&["diff-tree", "--no-commit-id", "--name-status", "-r", "main"]),
        "A\tnew/dir/file.txt",
        "only the path changed"
    );
    // Update with base64, the executable bit, another author, the right last_commit_id.
    let (status, body) = w.write(
        "PUT",
        &w.maintainer,
        "new/dir/file.txt",
        json!({"branch": "main", "commit_message": "Update", "content": "aGk=\n", "encoding": "base64",
               "execute_filemode": true, "author_name": "Other", "author_email": "other@example.com",
               "last_commit_id": created, "start_branch": null}),
    );
    assert_eq!((status, &body), (200, &json!({"file_path": "new/dir/file.txt", "branch": "main"})));
    assert_eq!(git(&w.repo, &["cat-file", "blob", "main:new/dir/file.txt"]), b"hi");
    assert!(w.git(&["ls-tree", "main", "new/dir/file.txt"]).starts_with("100755 "));
    assert_eq!(w.git(&["log", "-1", "--format=%an <%ae>|%cn", "main"]), "Other <other@example.com>|mona N");
    // A stale last_commit_id, a missing file, an existing file, a directory.
    let stale = w.write(
        "PUT",
        &w.maintainer,
        "new/dir/file.txt",
        json!({"branch": "main", "commit_message": "x", "content": "y", "last_commit_id": created}),
    );
    assert_eq!(
        stale,
        (400, json!({"message": "You are attempting to update a file that has changed since you started editing it."}))
    );
    let message = |text: &str| (400, json!({"message": text}));
    let body = json!({"branch": "main", "commit_message": "x", "content": "y"});
    assert_eq!(w.write("PUT", &w.maintainer, "nope.txt", body.clone()), message("A file with this name doesn't exist"));
    assert_eq!(
        w.write("POST", &w.maintainer, "README.md", body.clone()),
        message("A file with this name already exists")
    );
    assert_eq!(
        w.write("POST", &w.maintainer, "new/dir", body.clone()),
        message("A directory with this name already exists")
    );
    assert_eq!(
        w.write("DELETE", &w.maintainer, "nope.txt", json!({"branch": "main", "commit_message": "x"})),
        message("A file with this name doesn't exist")
    );
    // Parameters.
    assert_eq!(
        w.write("POST", &w.maintainer, "x.txt", json!({"commit_message": "x", "content": "y"})),
        (400, json!({"error": "branch is missing"}))
    );
    assert_eq!(
        w.write("POST", &w.maintainer, "x.txt", json!({"branch": "main", "commit_message": " ", "content": "y"})),
        (400, json!({"error": "commit_message is empty"}))
    );
    assert_eq!(
        w.write("POST", &w.maintainer, "x.txt", json!({"branch": "main", "commit_message": "x"})),
        (400, json!({"error": "content is missing"}))
    );
    assert_eq!(
        w.write(
            "POST",
            &w.maintainer,
            "x.txt",
            json!({"branch": "main", "commit_message": "x", "content": "y", "encoding": "hex"})
        ),
        (400, json!({"error": "encoding does not have a valid value"}))
    );
    // Branches: a new one from start_branch, a missing start branch, an existing one.
    let (status, _) = w.write(
        "POST",
        &w.developer,
        "feature-file.txt",
        json!({"branch": "topic", "start_branch": "main", "commit_message": "On a topic", "content": "t"}),
    );
    assert_eq!(status, 201, "a Developer creates a branch from main");
    assert_eq!(w.git(&["rev-parse", "topic^"]), tip(&w, "main"));
    assert_eq!(
        w.write(
            "POST",
            &w.developer,
            "f.txt",
            json!({"branch": "other", "start_branch": "nope", "commit_message": "x", "content": "y"})
        ),
        message("You can only create or edit files when you are on a branch")
    );
    assert_eq!(
        w.write("POST", &w.developer, "f.txt", json!({"branch": "nope", "commit_message": "x", "content": "y"})),
        message("You can only create or edit files when you are on a branch")
    );
    assert_eq!(
        w.write(
            "POST",
            &w.developer,
            "f.txt",
            json!({"branch": "topic", "start_branch": "main", "commit_message": "x", "content": "y"})
        ),
        message("A branch called 'topic' already exists. Switch to that branch in order to make changes")
    );
    // Protection and permissions: the default branch takes Maintainers only; Reporters and
    // anonymous callers push nothing.
    let main_before = tip(&w, "main");
    assert_eq!(
        w.write("POST", &w.developer, "d.txt", body.clone()),
        message("You are not allowed to push into this branch")
    );
    assert_eq!(w.write("POST", &w.reporter, "d.txt", body.clone()), (403, json!({"message": "403 Forbidden"})));
    let anonymous = w.instance.request_json(
        "POST",
        &files_url("d.txt", "", ""),
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    );
    assert_eq!(anonymous.0, 403);
    assert_eq!(tip(&w, "main"), main_before, "nothing was committed");
    // Delete: 204, the file gone, its empty directories too.
    let (status, _, _) = w.instance.request(
        "DELETE",
        &files_url("new/dir/file.txt", "", "branch=main&commit_message=Remove"),
        &[("PRIVATE-TOKEN", &w.maintainer)],
        b"",
    );
    assert_eq!(status, 204);
    assert_eq!(w.git(&["ls-tree", "-r", "--name-only", "main", "new"]), "");
    fsck(&w.repo);
}

#[test]
fn hostile_paths_are_refused_and_commit_nothing() {
    let w = world();
    let before = tip(&w, "main");
    let body = json!({"branch": "main", "commit_message": "x", "content": "y"});
    for path in [
        ".git/config",
        "a/.git/hooks/x",
        ".GIT/config",
        "x/.git./y",
        "GIT~1/config",
        "a//b",
        "./a",
        "x\\..\\.git\\config",
        ".git\\hooks\\x",
    ] {
        let (status, answer) = w.write("POST", &w.maintainer, path, body.clone());
        assert_eq!(status, 400, "{path}: {answer}");
    }
    for path in ["../x", "a/../../x", "/etc/passwd"] {
        assert_eq!(
            w.write("POST", &w.maintainer, path, body.clone()),
            (400, json!({"error": "file_path should be a valid file path"})),
            "{path}"
        );
    }
    assert_eq!(tip(&w, "main"), before);
    fsck(&w.repo);
}

#[test]
fn the_first_commit_of_an_empty_repository_makes_its_branch() {
    let w = world_on("repo.sh", "empty.git");
    let (status, body) = w.write(
        "POST",
        &w.developer,
        "README.md",
        json!({"branch": "start", "commit_message": "First", "content": "# New\n"}),
    );
    assert_eq!(status, 201, "{body}");
    assert_eq!(w.git(&["rev-list", "--count", "start"]), "1");
    assert_eq!(w.git(&["symbolic-ref", "HEAD"]), "refs/heads/start", "the first branch is the default one");
    fsck(&w.repo);
}

#[test]
fn racing_writers_from_two_contexts_lose_no_commit() {
    let w = world();
    let other = w.instance.reopen();
    let before: usize = w.git(&["rev-list", "--count", "main"]).parse().unwrap();
    let outcomes: Vec<(u16, Value, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..20)
            .map(|i| {
                let (instance, token) = if i % 2 == 0 { (&w.instance, &w.maintainer) } else { (&other, &w.maintainer) };
                scope.spawn(move || {
                    let content = format!("writer {i}\n");
                    let body = json!({"branch": "main", "commit_message": format!("writer {i}"), "content": content});
                    let headers = [("PRIVATE-TOKEN", token.as_str()), ("Content-Type", "application/json")];
                    let (status, answer) = instance.request_json(
                        "PUT",
                        &files_url("README.md", "", ""),
                        &headers,
                        body.to_string().as_bytes(),
                    );
                    (status, answer, content)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut won = 0;
    for (status, answer, _) in &outcomes {
        match status {
            200 => won += 1,
            400 => assert!(answer["message"].as_str().unwrap().ends_with("Please refresh and try again."), "{answer}"),
            other => panic!("{other}: {answer}"),
        }
    }
    let after: usize = w.git(&["rev-list", "--count", "main"]).parse().unwrap();
    assert_eq!(after, before + won, "one commit per success, none lost");
    let log = w.git(&["log", "--format=%s", &format!("-{won}"), "main"]);
    for (status, _, content) in &outcomes {
        if *status == 200 {
            assert!(log.contains(content.trim_end()), "{content} is in the history");
        }
    }
    assert!(won >= 1);
    fsck(&w.repo);
}

#[test]
fn typed_exports_answer_what_the_routes_answer() {
    let w = world();
    let auth = TestInstance::auth(&w.maintainer);
    let call = |export: common::TypedExport, params: Value| {
        let (auth, params) = (common::cstr(&auth.to_string()), common::cstr(&params.to_string()));
        common::FfiResponse::new(export(w.instance.ffi_ctx(), auth.as_ptr(), params.as_ptr()))
    };
    let mut typed = call(
        forgecore::ffi::fc_repository_file,
        json!({"project": "fx/files", "file_path": "a/b/c/deep.txt", "ref": "main"}),
    );
    let (status, headers, body) = w.get("a/b/c/deep.txt", "ref=main");
    assert_eq!(typed.status(), status);
    assert_eq!(typed.body(), body);
    assert_eq!(header(&typed.headers(), "X-Gitlab-Last-Commit-Id"), header(&headers, "X-Gitlab-Last-Commit-Id"));
    let mut raw =
        call(forgecore::ffi::fc_repository_file_raw, json!({"project": "fx/files", "file_path": "a/b/c/deep.txt"}));
    assert_eq!(raw.body(), git(&w.repo, &["cat-file", "blob", "main:a/b/c/deep.txt"]));
    let mut blame = call(
        forgecore::ffi::fc_repository_file_blame,
        json!({"project": "fx/files", "file_path": "README.md", "ref": "main", "range": {"start": 1, "end": 1}}),
    );
    let groups: Value = serde_json::from_slice(&blame.body()).unwrap();
    assert_eq!(groups[0]["lines"], json!([porcelain_lines(&w.repo, "main", "README.md")[0].1]));
    let write = json!({"project": "fx/files", "file_path": "typed.txt", "branch": "main", "commit_message": "Typed", "content": "t"});
    let mut created = call(forgecore::ffi::fc_repository_file_create, write);
    assert_eq!(created.status(), 201);
    let answer: Value = serde_json::from_slice(&created.body()).unwrap();
    assert_eq!(answer, json!({"file_path": "typed.txt", "branch": "main"}));
    let updated = call(
        forgecore::ffi::fc_repository_file_update,
        json!({"project": "fx/files", "file_path": "typed.txt", "branch": "main", "commit_message": "Again", "content": "u"}),
    );
    assert_eq!(updated.status(), 200);
    assert_eq!(git(&w.repo, &["cat-file", "blob", "main:typed.txt"]), b"u");
    let deleted = call(
        forgecore::ffi::fc_repository_file_delete,
        json!({"project": "fx/files", "file_path": "typed.txt", "branch": "main", "commit_message": "Gone"}),
    );
    assert_eq!(deleted.status(), 204);
    assert_eq!(w.git(&["log", "-3", "--format=%s", "main"]), "Gone\nAgain\nTyped");
}

#[test]
fn last_commit_ids_read_changed_path_bloom_filters_and_still_match_git() {
    let w = world();
    for version in ["1", "2"] {
        let copy = w.instance.root_dir().join(format!("bloom-v{version}.git"));
        git(
            w.instance.root_dir(),
            &["clone", "-q", "--bare", "--no-local", w.repo.to_str().unwrap(), copy.to_str().unwrap()],
        );
        git(
            &copy,
            &[
                "-c",
                &format!("commitGraph.changedPathsVersion={version}"),
                "commit-graph",
                "write",
                "--reachable",
                "--changed-paths",
            ],
        );
        let name = format!("fx/bloom{version}");
        w.instance.admin_ok(json!({"command": "project_add", "path": name, "repo": copy, "visibility": "public"}));
        // The filters are read: a commit that did not touch README.md is proven so by them,
        // and the one that last changed it is not.
        let repo = forgecore::git::open(&copy).unwrap();
        let filters = forgecore::git::bloom::load(repo.objects.store_ref().path()).expect("filters are read");
        let keys = forgecore::git::bloom::Keys::new(&[b"README.md".to_vec()]);
        let unchanged = |rev: &str| {
            let id = git_text(&copy, &["log", "-1", "--format=%H", "main", "--", rev]);
            filters.certainly_unchanged(&gix::ObjectId::from_hex(id.as_bytes()).unwrap(), &keys)
        };
        assert!(!unchanged("README.md"));
        assert!(unchanged("a/b/c/deep.txt"), "v{version}");
        for rev in ["main", "feature"] {
            for (_, path) in files_at(&copy, rev) {
                let target = format!("/api/v4/projects/{}/repository/files/{}?ref={rev}", encode(&name), encode(&path));
                let (status, body) = w.instance.request_json("HEAD", &target, &[], b"");
                assert_eq!(status, 200, "{body}");
                let (_, headers, _) = w.instance.request("HEAD", &target, &[], b"");
                let expected = git_text(&copy, &["log", "-1", "--format=%H", rev, "--", &path]);
                assert_eq!(
                    header(&headers, "X-Gitlab-Last-Commit-Id"),
                    Some(expected.as_str()),
                    "v{version} {rev}:{path}"
                );
            }
        }
    }
}

#[test]
fn large_files_are_streamed_with_their_sha256_first() {
    let w = world();
    let text: Vec<u8> = "é€𝄞 line\n".repeat(30_000).into_bytes();
    let binary: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
    for (path, content) in [("big/text.txt", &text), ("big/data.bin", &binary)] {
        let encoded = base64::engine::general_purpose::STANDARD.encode(content);
        let body = json!({"branch": "main", "commit_message": "big", "content": encoded, "encoding": "base64"});
        assert_eq!(w.write("POST", &w.maintainer, path, body).0, 201);
        assert_eq!(&git(&w.repo, &["cat-file", "blob", &format!("main:{path}")]), content);
        let sha256: String = Sha256::digest(content).iter().map(|b| format!("{b:02x}")).collect();
        let mut response = w.instance.request_response("GET", &files_url(path, "", "ref=main"), &[], b"");
        assert!(response.streamed(), "{path}: the JSON is streamed");
        let headers = response.headers();
        let body = response.body();
        assert_eq!(header(&headers, "Content-Length"), Some(body.len().to_string().as_str()));
        assert_eq!(header(&headers, "X-Gitlab-Content-Sha256"), Some(sha256.as_str()));
        let entity: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(entity["content_sha256"], json!(sha256));
        let decoded = base64::engine::general_purpose::STANDARD.decode(entity["content"].as_str().unwrap()).unwrap();
        assert_eq!(&decoded, content);
        assert_eq!(body_keys(&body).last(), Some(&"content"));
        let (status, head_headers, head_body) = w.instance.request("HEAD", &files_url(path, "", "ref=main"), &[], b"");
        assert_eq!((status, head_body.len()), (200, 0));
        assert_eq!(header(&head_headers, "X-Gitlab-Content-Sha256"), Some(sha256.as_str()));
        let mut raw = w.instance.request_response("GET", &files_url(path, "/raw", "ref=main"), &[], b"");
        assert!(raw.streamed());
        let raw_headers = raw.headers();
        assert_eq!(&raw.body(), content);
        assert_eq!(header(&raw_headers, "X-Gitlab-Content-Sha256"), Some(sha256.as_str()));
        let expected_type =
            if path.ends_with(".txt") { "text/plain; charset=utf-8" } else { "application/octet-stream" };
        assert_eq!(header(&raw_headers, "Content-Type"), Some(expected_type));
    }
}
