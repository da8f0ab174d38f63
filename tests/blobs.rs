//! B2 (blob JSON) and B3 (raw blob) through the HTTP door (`fc_request`) and the typed exports,
//! compared with `git cat-file` on the fixture repositories (tests/fixtures/repo.sh).
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use base64::Engine;
use common::{cstr, FfiResponse, TestInstance};
use forgecore::ffi;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

const NOT_FOUND: &str = "404 Blob Not Found";
const TEN_MB: usize = 10 * 1024 * 1024;

/// Runs git in `dir` without any user or system configuration; its stdout.
fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    git_with_input(dir, args, None)
}

fn git_with_input(dir: &Path, args: &[&str], input: Option<&[u8]>) -> Vec<u8> {
    use std::io::Write;
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "T")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "T")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("git runs");
    {
        let mut stdin = child.stdin.take().unwrap();
        if let Some(input) = input {
            stdin.write_all(input).unwrap();
        }
    }
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    output.stdout
}

fn git_text(dir: &Path, args: &[&str]) -> String {
    String::from_utf8(git(dir, args)).unwrap().trim_end().to_string()
}

/// The fixture repositories, built under the instance's directory.
fn fixtures(instance: &TestInstance) -> PathBuf {
    let dir = instance.root_dir().join("fixtures");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repo.sh");
    let status = Command::new("bash").arg(script).arg(&dir).stdout(std::process::Stdio::null()).status().unwrap();
    assert!(status.success(), "repo.sh failed");
    dir
}

fn add_project(instance: &TestInstance, path: &str, repo: &Path, visibility: &str) -> u64 {
    let body =
        instance.admin_ok(json!({"command": "project_add", "path": path, "repo": repo, "visibility": visibility}));
    body["id"].as_u64().expect("project id")
}

/// An instance with group `top` and public projects `top/work` (the non-bare fixture),
/// `top/bare` (its bare clone) and `top/empty`.
struct World {
    instance: TestInstance,
    fixtures: PathBuf,
}

fn world(config: Value) -> World {
    let instance = common::open_instance(config);
    instance.user_with_token("root", true);
    instance.admin_ok(json!({"command": "group_add", "path": "top"}));
    let fixtures = fixtures(&instance);
    add_project(&instance, "top/work", &fixtures.join("work"), "public");
    add_project(&instance, "top/bare", &fixtures.join("bare.git"), "public");
    add_project(&instance, "top/empty", &fixtures.join("empty.git"), "public");
    World { instance, fixtures }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// Every blob of HEAD (`git ls-tree -r -z HEAD`): (mode, id, path bytes).
fn blobs_of_head(repo: &Path) -> Vec<(String, String, Vec<u8>)> {
    git(repo, &["ls-tree", "-r", "-z", "HEAD"])
        .split(|&b| b == 0)
        .filter(|record| !record.is_empty())
        .filter_map(|record| {
            let tab = record.iter().position(|&b| b == b'\t').unwrap();
            let meta = std::str::from_utf8(&record[..tab]).unwrap();
            let fields: Vec<&str> = meta.split(' ').collect();
            (fields[1] == "blob").then(|| (fields[0].to_string(), fields[2].to_string(), record[tab + 1..].to_vec()))
        })
        .collect()
}

fn get_json(instance: &TestInstance, target: &str, headers: &[(&str, &str)]) -> (u16, Vec<(String, String)>, Value) {
    let (status, headers, body) = instance.request("GET", target, headers, b"");
    let value = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("{target}: not JSON ({e}): {}", String::from_utf8_lossy(&body)));
    (status, headers, value)
}

fn assert_blob_not_found(instance: &TestInstance, target: &str) {
    let (status, headers, body) = get_json(instance, target, &[]);
    assert_eq!(status, 404, "{target}: {body}");
    assert_eq!(body, json!({"message": NOT_FOUND}), "{target}");
    assert_eq!(header(&headers, "Content-Type"), Some("application/json"), "{target}");
}

/// Checks B2 and B3 for blob `id` of `project` against `git cat-file` in `repo`.
fn check_blob(instance: &TestInstance, project: &str, repo: &Path, id: &str, what: &str) {
    let expected = git(repo, &["cat-file", "-p", id]);
    let size: usize = git_text(repo, &["cat-file", "-s", id]).parse().unwrap();
    assert_eq!(expected.len(), size, "{what}: cat-file -p and -s agree");

    // B2: GitLab's key order, strict Base64 (padding, no newlines), the full id.
    let (status, headers, body) =
        instance.request("GET", &format!("/api/v4/projects/{project}/repository/blobs/{id}"), &[], b"");
    assert_eq!(status, 200, "{what}: {}", String::from_utf8_lossy(&body));
    assert_eq!(header(&headers, "Content-Type"), Some("application/json"), "{what}");
    let text = String::from_utf8(body.clone()).unwrap();
    assert!(text.starts_with(&format!("{{\"size\":{size},\"encoding\":\"base64\",\"content\":\"")), "{what}: {text}");
    let value: Value = serde_json::from_slice(&body).unwrap();
    let object = value.as_object().unwrap();
    assert_eq!(object.keys().len(), 4, "{what}: {value}");
    assert_eq!(value["size"], json!(size), "{what}");
    assert_eq!(value["encoding"], json!("base64"), "{what}");
    assert_eq!(value["sha"], json!(id), "{what}");
    let content = value["content"].as_str().unwrap();
    assert_eq!(content.len() % 4, 0, "{what}: padded");
    assert!(!content.contains(['\n', '\r', '-', '_']), "{what}: standard alphabet, one line");
    assert_eq!(content, base64::engine::general_purpose::STANDARD.encode(&expected), "{what}");
    let decoded = base64::engine::general_purpose::STANDARD.decode(content).unwrap();
    assert_eq!(decoded, expected, "{what}: Base64 decodes to the exact bytes");

    // B3: the exact bytes, streamed, read in small chunks.
    let mut response =
        instance.request_response("GET", &format!("/api/v4/projects/{project}/repository/blobs/{id}/raw"), &[], b"");
    assert_eq!(response.status(), 200, "{what}");
    assert!(response.streamed(), "{what}: raw is streamed");
    assert!(response.body_in_memory().is_empty(), "{what}: no in-memory body for a stream");
    let headers = response.headers();
    assert_eq!(response.read_all(7), expected, "{what}: raw bytes");
    assert_eq!(response.read_all(7), Vec::<u8>::new(), "{what}: the end stays the end");
    assert_raw_headers(&headers, &expected, what);
}

fn assert_raw_headers(headers: &[(String, String)], expected: &[u8], what: &str) {
    let text = !expected[..expected.len().min(8000)].contains(&0) && std::str::from_utf8(expected).is_ok();
    let content_type = if text { "text/plain; charset=utf-8" } else { "application/octet-stream" };
    assert_eq!(header(headers, "Content-Type"), Some(content_type), "{what}");
    assert_eq!(header(headers, "Content-Length"), Some(expected.len().to_string().as_str()), "{what}");
    assert_eq!(header(headers, "Content-Disposition"), Some("inline"), "{what}");
    assert_eq!(
        header(headers, "Cache-Control"),
        Some("max-age=0, private, must-revalidate, no-store, no-cache"),
        "{what}"
    );
    assert_eq!(header(headers, "Expires"), Some("Fri, 01 Jan 1990 00:00:00 GMT"), "{what}");
    assert_eq!(header(headers, "X-Content-Type-Options"), Some("nosniff"), "{what}");
    assert_eq!(header(headers, "RateLimit-Limit"), None, "{what}");
}

#[test]
fn every_blob_of_the_fixture_matches_git_cat_file_in_both_repositories() {
    let w = world(json!({}));
    for (project, repo) in [("top%2Fwork", w.fixtures.join("work")), ("top%2Fbare", w.fixtures.join("bare.git"))] {
        let blobs = blobs_of_head(&repo);
        let paths: Vec<&[u8]> = blobs.iter().map(|(_, _, p)| p.as_slice()).collect();
        for special in [&b"bin.dat"[..], b"empty.txt", b"link", b"latin\xe9.txt", b"script.sh"] {
            assert!(paths.contains(&special), "the fixture has {}", String::from_utf8_lossy(special));
        }
        assert!(blobs.iter().any(|(mode, _, path)| mode == "120000" && path == b"link"), "link is a symlink blob");
        for (_, id, path) in &blobs {
            check_blob(&w.instance, project, &repo, id, &format!("{project} {}", String::from_utf8_lossy(path)));
        }
    }
    // The binary file is binary, the empty file text; both exactly as git has them.
    let work = w.fixtures.join("work");
    let bin = git_text(&work, &["rev-parse", "HEAD:bin.dat"]);
    let (_, headers, body) =
        w.instance.request("GET", &format!("/api/v4/projects/top%2Fwork/repository/blobs/{bin}/raw"), &[], b"");
    assert_eq!(header(&headers, "Content-Type"), Some("application/octet-stream"));
    assert_eq!(body, b"\x00\x01\x02binary\xff\xfe\x00");
    let empty = git_text(&work, &["rev-parse", "HEAD:empty.txt"]);
    let (_, _, value) = get_json(&w.instance, &format!("/api/v4/projects/top%2Fwork/repository/blobs/{empty}"), &[]);
    assert_eq!(value, json!({"size": 0, "encoding": "base64", "content": "", "sha": empty}));
    let (status, headers, body) =
        w.instance.request("GET", &format!("/api/v4/projects/top%2Fwork/repository/blobs/{empty}/raw"), &[], b"");
    assert_eq!((status, body.len()), (200, 0));
    assert_eq!(header(&headers, "Content-Type"), Some("text/plain; charset=utf-8"));
    assert_eq!(header(&headers, "Content-Length"), Some("0"));
    // The symlink blob holds its target.
    let link = git_text(&work, &["rev-parse", "HEAD:link"]);
    let (_, _, body) =
        w.instance.request("GET", &format!("/api/v4/projects/top%2Fwork/repository/blobs/{link}/raw"), &[], b"");
    assert_eq!(body, b"README.md");
}

#[test]
fn blobs_of_other_commits_and_projects_by_integer_id() {
    let w = world(json!({}));
    let work = w.fixtures.join("work");
    let project_id = get_json(&w.instance, "/api/v4/projects/top%2Fbare", &[]).2["id"].as_u64().unwrap();
    // A blob only on the orphan branch and one from an older README.
    for revision in ["orphan:orphan.txt", "v1.0.0:README.md", "feature:docs/feature-2.md"] {
        let id = git_text(&work, &["rev-parse", revision]);
        check_blob(&w.instance, &project_id.to_string(), &w.fixtures.join("bare.git"), &id, revision);
    }
}

#[test]
fn abbreviated_ids_and_revision_paths_name_blobs() {
    let w = world(json!({}));
    let work = w.fixtures.join("work");
    let readme = git_text(&work, &["rev-parse", "main:README.md"]);
    let expected = git(&work, &["cat-file", "-p", "main:README.md"]);
    let base = "/api/v4/projects/top%2Fwork/repository/blobs";
    for name in [
        readme[..7].to_string(),
        readme[..4].to_string(),
        readme[..39].to_string(),
        readme.to_ascii_uppercase(),
        readme[..8].to_ascii_uppercase(),
        "main:README.md".to_string(),
        "main%3AREADME.md".to_string(),
        "refs%2Fheads%2Fmain:README.md".to_string(),
        format!("{}:README.md", git_text(&work, &["rev-parse", "main"])),
    ] {
        let (status, _, value) = get_json(&w.instance, &format!("{base}/{name}"), &[]);
        assert_eq!(status, 200, "{name}: {value}");
        assert_eq!(value["sha"], json!(readme), "{name}: the full id");
        let (status, _, body) = w.instance.request("GET", &format!("{base}/{name}/raw"), &[], b"");
        assert_eq!((status, body), (200, expected.clone()), "{name}");
    }
    // Paths with encoded slashes, non-ASCII names, an annotated tag as the revision.
    for (name, revision) in [
        ("main:a%2Fb%2Fc%2Fdeep.txt", "main:a/b/c/deep.txt"),
        ("main:%C3%BCn%C3%AFcode%2Fna%C3%AFve.txt", "main:ünïcode/naïve.txt"),
        ("main:dir%20with%20space%2Ffile%2C%20comma.txt", "main:dir with space/file, comma.txt"),
        ("v1.0.0:README.md", "v1.0.0:README.md"),
        ("light:README.md", "light:README.md"),
        // Revision suffixes, as every ref parameter takes them (decisions D8).
        ("HEAD~1:README.md", "HEAD~1:README.md"),
    ] {
        let (status, _, body) = w.instance.request("GET", &format!("{base}/{name}/raw"), &[], b"");
        assert_eq!(status, 200, "{name}");
        assert_eq!(body, git(&work, &["cat-file", "-p", revision]), "{name}");
    }
}

#[test]
fn anything_but_a_blob_is_404_json_never_5xx() {
    let w = world(json!({}));
    let work = w.fixtures.join("work");
    let tree = git_text(&work, &["rev-parse", "HEAD^{tree}"]);
    let commit = git_text(&work, &["rev-parse", "HEAD"]);
    let tag = git_text(&work, &["rev-parse", "v1.0.0"]);
    let long = "a".repeat(10_000);
    let long_hex = "0".repeat(41);
    let names = [
        tree.as_str(),
        &tree[..8],
        commit.as_str(),
        &commit[..8],
        tag.as_str(),
        "0123456789abcdef0123456789abcdef01234567", // the submodule's commit: not in the repository
        "ffffffffffffffffffffffffffffffffffffffff",
        "deadbeef",
        long_hex.as_str(),
        "e69",
        "zzzz",
        "-v",
        "--batch",
        "-p",
        "%00",
        "e69de29b%00",
        "%0A",
        "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391%0Aabc",
        "%20",
        long.as_str(),
        "main",
        "HEAD",
        "v1.0.0",
        "main:docs",
        "main:",
        ":README.md",
        "main:vendor%2Flib",
        "main:missing.txt",
        "main:a%2F%2Fb%2Fc%2Fdeep.txt",
        "main:a%2Fb%2Fc%2Fdeep.txt%2F",
        "main:%2FREADME.md",
        "main:.%2FREADME.md",
        "main:a%2F..%2FREADME.md",
        "HEAD%5E%7Btree%7D:README.md",
        "nope:README.md",
        "-v:README.md",
        "main..feature",
        ":%2FInitial",
        "@",
        "*",
        "..",
    ];
    for name in names {
        for project in ["top%2Fwork", "top%2Fbare"] {
            for suffix in ["", "/raw"] {
                assert_blob_not_found(
                    &w.instance,
                    &format!("/api/v4/projects/{project}/repository/blobs/{name}{suffix}"),
                );
            }
        }
    }
    // Nothing is a blob in an empty repository.
    for suffix in ["", "/raw"] {
        assert_blob_not_found(
            &w.instance,
            &format!("/api/v4/projects/top%2Fempty/repository/blobs/e69de29bb2d1d6434b8b29ae775ad8c2e48c5391{suffix}"),
        );
        assert_blob_not_found(
            &w.instance,
            &format!("/api/v4/projects/top%2Fempty/repository/blobs/main:README.md{suffix}"),
        );
    }
    // A missing project is the project's 404.
    let (status, _, body) =
        get_json(&w.instance, &format!("/api/v4/projects/top%2Fnope/repository/blobs/{commit}"), &[]);
    assert_eq!((status, body), (404, json!({"message": "404 Project Not Found"})));
}

#[test]
fn an_ambiguous_abbreviation_is_404_and_a_longer_one_resolves() {
    let instance = common::open_instance(json!({}));
    let repo = instance.root_dir().join("amb.git");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "--bare"]);
    // Two blobs whose ids share their first four hex digits (59b7).
    let a = String::from_utf8(git_with_input(&repo, &["hash-object", "-w", "--stdin"], Some(b"blob 96\n"))).unwrap();
    let b = String::from_utf8(git_with_input(&repo, &["hash-object", "-w", "--stdin"], Some(b"blob 262\n"))).unwrap();
    let (a, b) = (a.trim(), b.trim());
    assert_eq!(&a[..4], &b[..4]);
    let common_len = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    add_project(&instance, "amb", &repo, "public");
    for suffix in ["", "/raw"] {
        assert_blob_not_found(
            &instance,
            &format!("/api/v4/projects/amb/repository/blobs/{}{suffix}", &a[..common_len]),
        );
    }
    let unique = &a[..(common_len + 1).max(4)];
    let (status, _, body) =
        instance.request("GET", &format!("/api/v4/projects/amb/repository/blobs/{unique}/raw"), &[], b"");
    assert_eq!((status, body), (200, b"blob 96\n".to_vec()));
}

#[test]
fn blob_json_over_the_configured_cap_asks_for_raw() {
    let w = world(json!({"limits": {"blob_json_max_bytes": 10}}));
    let work = w.fixtures.join("work");
    let readme = git_text(&work, &["rev-parse", "HEAD:README.md"]);
    let (status, headers, body) =
        get_json(&w.instance, &format!("/api/v4/projects/top%2Fwork/repository/blobs/{readme}"), &[]);
    assert_eq!(status, 400, "{body}");
    assert_eq!(header(&headers, "Content-Type"), Some("application/json"));
    let message = body["message"].as_str().unwrap();
    assert!(message.starts_with("400 Bad request - "), "{message}");
    assert!(message.contains("/projects/:id/repository/blobs/:sha/raw"), "{message}");
    // Raw is not capped; a blob within the cap still comes as JSON.
    let (status, _, raw) =
        w.instance.request("GET", &format!("/api/v4/projects/top%2Fwork/repository/blobs/{readme}/raw"), &[], b"");
    assert_eq!((status, raw), (200, git(&work, &["cat-file", "-p", &readme])));
    let small = git_text(&work, &["rev-parse", "HEAD:a/b/c/deep.txt"]);
    assert_eq!(get_json(&w.instance, &format!("/api/v4/projects/top%2Fwork/repository/blobs/{small}"), &[]).0, 200);
}

/// A repository with `big.bin` (10.5 MB), `exact.bin` (exactly 10 MiB, not "over") and a small file.
fn large_repo(instance: &TestInstance) -> PathBuf {
    let repo = instance.root_dir().join("large");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut bytes = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect()
    };
    std::fs::write(repo.join("big.bin"), bytes(TEN_MB + TEN_MB / 20)).unwrap();
    std::fs::write(repo.join("exact.bin"), bytes(TEN_MB)).unwrap();
    std::fs::write(repo.join("small.txt"), b"small\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "large"]);
    repo
}

#[test]
fn blobs_over_10_mb_are_rate_limited_per_project() {
    let instance = common::open_instance(json!({"rate_limits": {"large_blob": {"limit": 2, "period_seconds": 60}}}));
    let repo = large_repo(&instance);
    add_project(&instance, "large", &repo, "public");
    add_project(&instance, "large2", &repo, "public");
    let big = git_text(&repo, &["rev-parse", "HEAD:big.bin"]);
    let exact = git_text(&repo, &["rev-parse", "HEAD:exact.bin"]);
    let small = git_text(&repo, &["rev-parse", "HEAD:small.txt"]);
    let expected = std::fs::read(repo.join("big.bin")).unwrap();
    let json_url = |project: &str, id: &str| format!("/api/v4/projects/{project}/repository/blobs/{id}");

    // B2: two answers, then 429 with GitLab's message and an integer Retry-After.
    for _ in 0..2 {
        let (status, _, value) = get_json(&instance, &json_url("large", &big), &[]);
        assert_eq!(status, 200);
        assert_eq!(value["size"], json!(expected.len()));
        assert_eq!(
            base64::engine::general_purpose::STANDARD.decode(value["content"].as_str().unwrap()).unwrap(),
            expected
        );
    }
    let (status, headers, value) = get_json(&instance, &json_url("large", &big), &[]);
    assert_eq!(status, 429, "{value}");
    assert_eq!(
        value,
        json!({"message": {"error": "The requested blob is over the threshold size of 10485760.\nAccess this blob using '/projects/:id/repository/blobs/:sha/raw' to avoid this error.\n"}})
    );
    let retry_after: u64 = header(&headers, "Retry-After").expect("Retry-After").parse().expect("an integer");
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    assert_eq!(header(&headers, "RateLimit-Limit"), None);

    // Small blobs and a blob of exactly 10 MiB stay unlimited; another project has its own budget.
    for _ in 0..5 {
        assert_eq!(get_json(&instance, &json_url("large", &small), &[]).0, 200);
        assert_eq!(instance.request("GET", &format!("{}/raw", json_url("large", &small)), &[], b"").0, 200);
    }
    for _ in 0..3 {
        let (status, headers, body) = instance.request("GET", &format!("{}/raw", json_url("large", &exact)), &[], b"");
        assert_eq!((status, body.len()), (200, TEN_MB));
        assert_eq!(header(&headers, "Content-Type"), Some("application/octet-stream"));
    }
    assert_eq!(get_json(&instance, &json_url("large2", &big), &[]).0, 200);

    // B3 has its own counter, so B2's advice holds; past it, 429 in the same shape.
    for _ in 0..2 {
        let mut response = instance.request_response("GET", &format!("{}/raw", json_url("large", &big)), &[], b"");
        assert_eq!(response.status(), 200);
        assert!(response.streamed());
        assert_eq!(header(&response.headers(), "Content-Length"), Some(expected.len().to_string().as_str()));
        assert!(response.read_all(64 * 1024) == expected, "raw bytes of the large blob");
    }
    let (status, headers, value) = get_json(&instance, &format!("{}/raw", json_url("large", &big)), &[]);
    assert_eq!(status, 429, "{value}");
    assert!(value["message"]["error"].as_str().unwrap().contains("10485760"), "{value}");
    assert!(header(&headers, "Retry-After").unwrap().parse::<u64>().is_ok());
    // Still unknown things are 404 before any counting.
    assert_blob_not_found(&instance, &json_url("large", "ffffffffffffffffffffffffffffffffffffffff"));
}

#[test]
fn large_blob_limit_zero_turns_it_off() {
    let instance = common::open_instance(json!({"rate_limits": {"large_blob": {"limit": 0, "period_seconds": 60}}}));
    let repo = large_repo(&instance);
    add_project(&instance, "large", &repo, "public");
    let big = git_text(&repo, &["rev-parse", "HEAD:big.bin"]);
    for _ in 0..7 {
        let (status, _, _) =
            instance.request("GET", &format!("/api/v4/projects/large/repository/blobs/{big}/raw"), &[], b"");
        assert_eq!(status, 200);
    }
}

#[test]
fn private_projects_follow_the_visibility_matrix() {
    let w = world(json!({}));
    let common::Matrix { admin, guest, reader, reporter, outsider } =
        w.instance.visibility_matrix("admin2", &w.fixtures.join("bare.git"));
    let work = w.fixtures.join("work");
    let readme = git_text(&work, &["rev-parse", "HEAD:README.md"]);
    let expected = git(&work, &["cat-file", "-p", &readme]);
    for suffix in ["", "/raw"] {
        let target = format!("/api/v4/projects/corp%2Fsecret/repository/blobs/{readme}{suffix}");
        let project_not_found = json!({"message": "404 Project Not Found"});
        assert_eq!(get_json(&w.instance, &target, &[]).2, project_not_found, "anonymous");
        assert_eq!(get_json(&w.instance, &target, &[]).0, 404, "anonymous");
        let (status, _, body) = get_json(&w.instance, &target, &[("PRIVATE-TOKEN", &outsider)]);
        assert_eq!((status, body), (404, project_not_found.clone()), "outsider");
        let (status, _, body) = get_json(&w.instance, &target, &[("PRIVATE-TOKEN", &guest)]);
        assert_eq!((status, body), (403, json!({"message": "403 Forbidden"})), "guest");
        let (status, _, body) = get_json(&w.instance, &target, &[("PRIVATE-TOKEN", "glpat-not-a-token")]);
        assert_eq!((status, body), (401, json!({"message": "401 Unauthorized"})), "bad token");
        for (who, token) in [("custom read_code role", &reader), ("reporter", &reporter), ("admin", &admin)] {
            let (status, _, body) = w.instance.request("GET", &target, &[("PRIVATE-TOKEN", token)], b"");
            assert_eq!(status, 200, "{who}");
            if suffix.is_empty() {
                let value: Value = serde_json::from_slice(&body).unwrap();
                assert_eq!(
                    base64::engine::general_purpose::STANDARD.decode(value["content"].as_str().unwrap()).unwrap(),
                    expected
                );
            } else {
                assert_eq!(body, expected, "{who}");
            }
        }
    }
    // An unknown blob in a private project is still the project's 404 for an outsider.
    let target = "/api/v4/projects/corp%2Fsecret/repository/blobs/ffffffffffffffffffffffffffffffffffffffff";
    assert_eq!(get_json(&w.instance, target, &[]).2, json!({"message": "404 Project Not Found"}));
    assert_eq!(get_json(&w.instance, target, &[("PRIVATE-TOKEN", &guest)]).0, 403);
    assert_eq!(get_json(&w.instance, target, &[("PRIVATE-TOKEN", &reader)]).2, json!({"message": NOT_FOUND}));
}

#[test]
fn typed_exports_answer_what_the_http_route_answers() {
    let w = world(json!({}));
    let token = w.instance.user_with_token("alice", false);
    let work = w.fixtures.join("work");
    for path in ["README.md", "bin.dat", "empty.txt", "link"] {
        let id = git_text(&work, &["rev-parse", &format!("HEAD:{path}")]);
        let expected = git(&work, &["cat-file", "-p", &id]);
        let params = cstr(&json!({"project": "top/work", "sha": id}).to_string());
        let auth = cstr(&TestInstance::auth(&token).to_string());

        let mut raw =
            FfiResponse::new(ffi::fc_repository_raw_blob(w.instance.ffi_ctx(), auth.as_ptr(), params.as_ptr()));
        assert_eq!(raw.status(), 200, "{path}");
        assert!(raw.streamed(), "{path}");
        let headers = raw.headers();
        assert_eq!(raw.read_all(7), expected, "{path}");
        assert_raw_headers(&headers, &expected, path);
        let (_, mut http_headers, _) =
            w.instance.request("GET", &format!("/api/v4/projects/top%2Fwork/repository/blobs/{id}/raw"), &[], b"");
        // The HTTP door adds the request's correlation id (issue #29); the rest is the same.
        http_headers.retain(|(name, _)| name != "X-Request-Id");
        assert_eq!(headers, http_headers, "{path}: same headers on both doors");

        let mut blob = FfiResponse::new(ffi::fc_repository_blob(w.instance.ffi_ctx(), auth.as_ptr(), params.as_ptr()));
        assert_eq!(blob.status(), 200);
        let (_, _, http_body) =
            w.instance.request("GET", &format!("/api/v4/projects/top%2Fwork/repository/blobs/{id}"), &[], b"");
        assert_eq!(blob.body(), http_body, "{path}: same JSON on both doors");
    }
    let params = |sha: &str| json!({"project": "top/work", "sha": sha});
    assert_eq!(
        w.instance.typed(ffi::fc_repository_blob, json!({}), params("-v")),
        (404, json!({"message": NOT_FOUND}))
    );
    assert_eq!(
        w.instance.typed(ffi::fc_repository_raw_blob, json!({}), params("\u{0}")),
        (404, json!({"message": NOT_FOUND}))
    );
    assert_eq!(
        w.instance.typed(ffi::fc_repository_raw_blob, json!({}), json!({"project": "top/work"})),
        (400, json!({"error": "sha is missing"}))
    );
}

/// Issue #25: the large-blob limit counts per caller and project, as the archive limit does:
/// anonymous downloads that use up their budget lock out neither an administrator nor another
/// user, and each of those has a budget of their own.
#[test]
fn large_blob_limit_counts_per_caller_and_project() {
    let instance = common::open_instance(json!({"rate_limits": {"large_blob": {"limit": 2, "period_seconds": 60}}}));
    let repo = large_repo(&instance);
    add_project(&instance, "large", &repo, "public");
    let big = git_text(&repo, &["rev-parse", "HEAD:big.bin"]);
    let admin = instance.user_with_token("root2", true);
    let user = instance.user_with_token("alice", false);
    for suffix in ["", "/raw"] {
        let target = format!("/api/v4/projects/large/repository/blobs/{big}{suffix}");
        let status = |token: Option<&str>| {
            let headers: Vec<(&str, &str)> = token.map(|t| vec![("PRIVATE-TOKEN", t)]).unwrap_or_default();
            instance.request("GET", &target, &headers, b"").0
        };
        assert_eq!([status(None), status(None), status(None)], [200, 200, 429], "{suffix}: anonymous");
        assert_eq!([status(Some(&admin)), status(Some(&admin)), status(Some(&admin))], [200, 200, 429], "{suffix}");
        assert_eq!([status(Some(&user)), status(Some(&user)), status(Some(&user))], [200, 200, 429], "{suffix}");
    }
}

/// A repository whose large blobs are read piece by piece: text of multi-byte characters
/// (cut across every 64 KiB piece), text with one byte that is not UTF-8 at its very end, one
/// with a NUL at byte 7999, and after `git gc` a 300 KB blob stored as a delta of another.
fn streamed_repo(instance: &TestInstance) -> PathBuf {
    let repo = instance.root_dir().join("streamed");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    let text = "é€𝄞x".repeat(30_000);
    std::fs::write(repo.join("text.txt"), &text).unwrap();
    let mut invalid = text.clone().into_bytes();
    invalid.push(0xff);
    std::fs::write(repo.join("invalid.txt"), &invalid).unwrap();
    let mut nul = vec![b'a'; 200_000];
    nul[7999] = 0;
    std::fs::write(repo.join("nul.bin"), &nul).unwrap();
    let base: Vec<u8> = (0..300_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
    std::fs::write(repo.join("base.bin"), &base).unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    let mut changed = base.clone();
    changed[150_000] ^= 1;
    std::fs::write(repo.join("base.bin"), &changed).unwrap();
    git(&repo, &["commit", "-q", "-am", "two"]);
    git(&repo, &["gc", "-q", "--aggressive"]);
    repo
}

#[test]
fn large_blobs_are_streamed_in_both_forms_exactly_as_git_has_them() {
    let instance = common::open_instance(json!({}));
    let repo = streamed_repo(&instance);
    add_project(&instance, "streamed", &repo, "public");
    // git stores one of the two versions of base.bin as a delta of the other.
    let packs = std::fs::read_dir(repo.join(".git/objects/pack")).unwrap().flatten().map(|e| e.path());
    let index = packs.into_iter().find(|p| p.extension().is_some_and(|e| e == "idx")).unwrap();
    let verify = git_text(&repo, &["verify-pack", "-v", index.to_str().unwrap()]);
    let old = git_text(&repo, &["rev-parse", "HEAD~1:base.bin"]);
    let new = git_text(&repo, &["rev-parse", "HEAD:base.bin"]);
    // A delta's line has its depth and base after the sizes and offset.
    let is_delta =
        |line: &&str| (line.starts_with(&old) || line.starts_with(&new)) && line.split_whitespace().count() > 5;
    let deltas = verify.lines().filter(is_delta).count();
    assert_eq!(deltas, 1, "one of base.bin's versions is a delta: {verify}");
    for spec in ["HEAD:text.txt", "HEAD:invalid.txt", "HEAD:nul.bin", "HEAD~1:base.bin", "HEAD:base.bin"] {
        let id = git_text(&repo, &["rev-parse", spec]);
        let expected = git(&repo, &["cat-file", "blob", &id]);
        assert!(expected.len() as u64 >= forgecore_archive::BLOB_STREAM_FROM, "{spec}");
        // B2: a stream (nothing of the size of the answer in memory), with its exact length.
        let target = format!("/api/v4/projects/streamed/repository/blobs/{id}");
        let mut response = instance.request_response("GET", &target, &[], b"");
        assert_eq!(response.status(), 200, "{spec}");
        assert!(response.streamed(), "{spec}: blob JSON is streamed");
        let headers = response.headers();
        let body = response.read_all(1000);
        assert_eq!(header(&headers, "Content-Length"), Some(body.len().to_string().as_str()), "{spec}");
        assert_eq!(header(&headers, "ETag"), Some(format!("\"{id}\"").as_str()), "{spec}");
        let value: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            value,
            json!({"size": expected.len(), "encoding": "base64",
                   "content": base64::engine::general_purpose::STANDARD.encode(&expected), "sha": id}),
            "{spec}"
        );
        assert!(body
            .starts_with(format!("{{\"size\":{},\"encoding\":\"base64\",\"content\":\"", expected.len()).as_bytes()));
        // B3: the bytes, with the content type the whole content decides.
        let mut response = instance.request_response("GET", &format!("{target}/raw"), &[], b"");
        assert_eq!(response.status(), 200, "{spec}");
        let headers = response.headers();
        assert!(response.read_all(4096) == expected, "{spec}: raw bytes");
        assert_raw_headers(&headers, &expected, spec);
        // Unchanged: 304 before anything is read.
        let etag = format!("\"{id}\"");
        for suffix in ["", "/raw"] {
            let (status, _, body) =
                instance.request("GET", &format!("{target}{suffix}"), &[("If-None-Match", etag.as_str())], b"");
            assert_eq!((status, body.len()), (304, 0), "{spec}{suffix}");
        }
    }
}
