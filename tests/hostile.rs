//! Hostile repositories (tests/fixtures/hostile.py) against every repository endpoint: each
//! answers 4xx or a safe 200, never a 5xx, never runs a program and never writes a file.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use serde_json::{json, Value};
use std::path::Path;

const REPOS: [&str; 6] = ["names", "links", "deep", "hugeblob", "badpack", "config"];

/// Every file under `dir` with its length, to see that nothing was written.
fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, u64)> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                pending.push(entry.path());
            } else {
                out.push((entry.path(), meta.len()));
            }
        }
    }
    out.sort();
    out
}

/// The whole body through `fc_response_read`, or `None` when the stream reports an error.
fn read_body(response: &mut common::FfiResponse) -> Option<Vec<u8>> {
    let (mut out, mut buf) = (Vec::new(), vec![0u8; 64 * 1024]);
    loop {
        match forgecore::ffi::fc_response_read(response.as_ptr(), buf.as_mut_ptr(), buf.len()) {
            0 => return Some(out),
            n if n > 0 => out.extend_from_slice(&buf[..n as usize]),
            _ => return None,
        }
    }
}

/// The requests to make of one project: every read, and every blob the tree lists.
fn requests(instance: &common::TestInstance, project: &str) -> Vec<String> {
    let base = format!("/api/v4/projects/{project}");
    let mut targets: Vec<String> = [
        "",
        "/repository/tree",
        "/repository/tree?recursive=true",
        "/repository/tree?recursive=true&pagination=none",
        "/repository/tree?recursive=true&pagination=keyset&per_page=2",
        "/repository/tree?path=..",
        "/repository/tree?path=sub/..",
        "/repository/tree?path=.git",
        "/repository/tree?path=a%2Fb",
        "/repository/contributors",
        "/repository/merge_base?refs[]=main&refs[]=main",
        "/repository/compare?from=main&to=main",
        "/repository/changelog?version=1.0.0&from=main",
        "/repository/health?generate=true",
        "/repository/commits",
        "/repository/commits?path=..&with_stats=true",
        "/repository/commits?all=true&order=topo&trailers=true",
        "/repository/commits/main",
        "/repository/commits/main/diff",
        "/repository/commits/main/refs",
        "/repository/commits/main/sequence",
        "/repository/files/..?ref=main",
        "/repository/files/.git%2Fconfig/raw?ref=main",
        "/repository/branches",
        "/repository/branches?sort=updated_desc",
        "/repository/branches/main",
        "/repository/tags",
        "/repository/tags?order_by=updated",
        "/protected_branches",
    ]
    .iter()
    .map(|suffix| format!("{base}{suffix}"))
    .collect();
    for format in ["", ".tar", ".tar.gz", ".tar.bz2", ".zip"] {
        targets.push(format!("{base}/repository/archive{format}"));
        targets.push(format!("{base}/repository/archive{format}?path=sub"));
    }
    let (_, listing) =
        instance.request_json("GET", &format!("{base}/repository/tree?recursive=true&per_page=100"), &[], b"");
    for entry in listing.as_array().into_iter().flatten() {
        if let Some(id) = entry["id"].as_str() {
            targets.push(format!("{base}/repository/blobs/{id}"));
            targets.push(format!("{base}/repository/blobs/{id}/raw"));
        }
        if let (Some(path), Some("blob")) = (entry["path"].as_str(), entry["type"].as_str()) {
            let path = percent_encoding::utf8_percent_encode(path, percent_encoding::NON_ALPHANUMERIC);
            for suffix in ["", "/raw", "/blame"] {
                targets.push(format!("{base}/repository/files/{path}{suffix}?ref=main"));
            }
        }
    }
    targets
}

#[test]
fn hostile_repositories_get_4xx_or_safe_answers_and_run_nothing() {
    let instance = common::open_instance(json!({}));
    let admin = instance.user_with_token("root", true);
    let dir = instance.root_dir().join("hostile");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile.py");
    let status = std::process::Command::new("python3").arg(script).arg(&dir).status().unwrap();
    assert!(status.success());
    for name in REPOS {
        instance.admin_ok(json!({"command": "project_add", "path": name, "repo": dir.join(format!("{name}.git")), "visibility": "public"}));
    }
    let before = snapshot(&dir);
    let mut answered = 0;
    for name in REPOS {
        for target in requests(&instance, name) {
            let mut response = instance.request_response("GET", &target, &[("PRIVATE-TOKEN", &admin)], b"");
            let (status, headers) = (response.status(), response.headers());
            let body = match read_body(&mut response) {
                Some(body) => body,
                // An archive is streamed: an object found unreadable after the first byte (a
                // corrupt pack, a lying header) ends the stream with an error, never a clean end.
                None if target.contains("/repository/archive") && status == 200 => continue,
                None => panic!("{target}: the body could not be read"),
            };
            assert!(status < 500, "{target}: {status} {}", String::from_utf8_lossy(&body[..body.len().min(300)]));
            let is_json = headers.iter().any(|(n, v)| n == "Content-Type" && v.starts_with("application/json"));
            if status >= 400 || is_json {
                assert!(serde_json::from_slice::<Value>(&body).is_ok(), "{target}: not JSON");
            }
            answered += 1;
        }
    }
    assert!(answered > 100, "only {answered} requests");
    assert!(!dir.join("PWNED").exists(), "a repository made forgecore run a program");
    let after: Vec<_> = snapshot(&dir).into_iter().filter(|(path, _)| !path.ends_with("PWNED")).collect();
    assert_eq!(before, after, "a read wrote into a repository");
}

#[test]
fn hostile_names_are_listed_as_data_without_a_crash() {
    let instance = common::open_instance(json!({}));
    let dir = instance.root_dir().join("hostile");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile.py");
    assert!(std::process::Command::new("python3").arg(script).arg(&dir).status().unwrap().success());
    instance.admin_ok(
        json!({"command": "project_add", "path": "names", "repo": dir.join("names.git"), "visibility": "public"}),
    );
    let (status, body) =
        instance.request_json("GET", "/api/v4/projects/names/repository/tree?recursive=true&pagination=none", &[], b"");
    assert_eq!(status, 200);
    // The listing reports what the tree holds; it is data, and no path in it is used to reach a
    // file. What matters is that nothing crashed and every name came back as given.
    let paths: Vec<&str> = body.as_array().unwrap().iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert!(paths.contains(&"ok.txt"));
}

#[test]
fn writes_to_hostile_repositories_are_answered_below_500() {
    let instance = common::open_instance(json!({}));
    let admin = instance.user_with_token("root", true);
    let dir = instance.root_dir().join("hostile");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile.py");
    assert!(std::process::Command::new("python3").arg(script).arg(&dir).status().unwrap().success());
    let headers = [("PRIVATE-TOKEN", admin.as_str()), ("Content-Type", "application/json")];
    for name in REPOS {
        let repo = dir.join(format!("{name}.git"));
        instance.admin_ok(json!({"command": "project_add", "path": name, "repo": repo, "visibility": "public"}));
        let file = json!({"branch": "main", "commit_message": "x", "content": "x"});
        let target = format!("/api/v4/projects/{name}/repository/files/added.txt");
        let (status, body) = instance.request_json("POST", &target, &headers, file.to_string().as_bytes());
        assert!(status < 500, "{name} files: {status} {body}");
        let actions = json!({"branch": "side", "start_branch": "main", "commit_message": "x", "actions": [
            {"action": "create", "file_path": "sub/new.txt", "content": "x"},
            {"action": "delete", "file_path": "ok.txt"},
        ]});
        let target = format!("/api/v4/projects/{name}/repository/commits");
        let (status, body) = instance.request_json("POST", &target, &headers, actions.to_string().as_bytes());
        assert!(status < 500, "{name} commits: {status} {body}");
    }
    assert!(!dir.join("PWNED").exists(), "a repository made forgecore run a program");
}
