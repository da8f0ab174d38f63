//! Webhooks (issue #41): project hooks' routes, the outbound door's refusals (no packet sent),
//! and deliveries to real receivers on loopback: Push Hook and Tag Push Hook payloads checked
//! against git, GitLab's headers, branch filters, the per-push limit, retries with one
//! `Idempotency-Key`, auto-disabling, the logs and resending, a host dying mid-delivery, and
//! (on PostgreSQL) two contexts sharing one outbox delivering each event once.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::serve::serve_connection;
use common::{git, git_text, open_instance, TestInstance};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// One request a receiver got.
#[derive(Debug, Clone)]
struct Got {
    target: String,
    headers: Vec<(String, String)>,
    body: Value,
    raw: String,
}

/// Whether `keys` first appear in `text` (a JSON object's text) in this order: the top-level
/// keys' order, where each key's first `"key":` is its own.
fn assert_order(text: &str, keys: &[&str]) {
    let at: Vec<usize> = keys
        .iter()
        .map(|k| text.find(&format!("\"{k}\":")).unwrap_or_else(|| panic!("{k} missing in {text}")))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "keys out of GitLab's order: {keys:?} at {at:?} in {text}");
}

impl Got {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// A webhook receiver on loopback: answers each request with the next queued status (200 when
/// none is queued), or never when `hang` is set; every request it read comes out of `got`.
struct Receiver {
    url: String,
    got: mpsc::Receiver<Got>,
    statuses: Arc<Mutex<VecDeque<u16>>>,
    connections: Arc<AtomicUsize>,
}

fn read_request(stream: &mut TcpStream) -> Option<Got> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let target = lines.next()?.split(' ').nth(1)?.to_string();
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim().to_string(), v.trim().to_string())).collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let raw = String::from_utf8_lossy(&body).into_owned();
    Some(Got { target, headers, body: serde_json::from_slice(&body).unwrap_or(Value::Null), raw })
}

fn receiver(hang: bool) -> Receiver {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (send, got) = mpsc::channel();
    let statuses = Arc::new(Mutex::new(VecDeque::new()));
    let connections = Arc::new(AtomicUsize::new(0));
    let (queued, counted) = (Arc::clone(&statuses), Arc::clone(&connections));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            counted.fetch_add(1, Ordering::SeqCst);
            let (send, queued) = (send.clone(), Arc::clone(&queued));
            std::thread::spawn(move || {
                let mut stream = stream;
                let Some(request) = read_request(&mut stream) else { return };
                let _ = send.send(request);
                if hang {
                    std::thread::sleep(Duration::from_secs(30));
                    return;
                }
                let status = queued.lock().unwrap().pop_front().unwrap_or(200);
                let body = format!("answered {status}");
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    Receiver { url, got, statuses, connections }
}

impl Receiver {
    fn next(&self) -> Got {
        self.got.recv_timeout(Duration::from_secs(20)).expect("the receiver got a request")
    }

    fn none_within(&self, wait: Duration) {
        if let Ok(got) = self.got.recv_timeout(wait) {
            panic!("an unexpected delivery: {} {}", got.target, got.body);
        }
    }
}

/// Local deliveries allowed (the receivers are on loopback), polling fast, retrying at once.
fn settings() -> Value {
    with_store(json!({"hooks": {"allow_local_requests": true, "poll_millis": 50, "timeout_millis": 2000,
                     "connect_timeout_millis": 1000, "retry_seconds": 0, "attempts": 3, "lease_seconds": 4}}))
}

/// On PostgreSQL, a database of its own with a small pool: these tests open several contexts
/// each, and the test server takes a hundred connections.
fn with_store(mut config: Value) -> Value {
    if let Some(server) = common::postgres_server() {
        config["store"] = json!({"postgres": common::new_postgres_database(&server), "pool_size": 3});
    }
    config
}

/// A forge serving git over HTTP on loopback, with the project `grp/app` (a seeded bare
/// repository), its Maintainer `mona` and Developer `dev`.
struct Forge {
    instance: Arc<TestInstance>,
    url: String,
    maintainer: String,
    developer: String,
    work: PathBuf,
}

fn client(dir: &Path, args: &[&str]) -> String {
    let home = dir.join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("HOME", &home)
        .env("GIT_AUTHOR_NAME", "Ann Author")
        .env("GIT_AUTHOR_EMAIL", "ann@example.com")
        .env("GIT_COMMITTER_NAME", "Ann Author")
        .env("GIT_COMMITTER_EMAIL", "ann@example.com")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn forge_with(config: Value) -> Forge {
    let instance = Arc::new(open_instance(config));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    // The accept loop holds the instance weakly: when the test drops its forge, the context
    // closes and gives its PostgreSQL connections back (the test server's hundred are shared
    // by every test of this binary).
    let served = Arc::downgrade(&instance);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let Some(served) = served.upgrade() else { break };
            std::thread::spawn(move || {
                let _ = serve_connection(served.ctx(), stream);
            });
        }
    });
    let root = instance.root_dir().to_path_buf();
    let seed = root.join("seed");
    std::fs::create_dir_all(&seed).unwrap();
    client(&seed, &["init", "-q", "-b", "main"]);
    std::fs::write(seed.join("README.md"), "hello\n").unwrap();
    std::fs::write(seed.join("keep.txt"), "keep\n").unwrap();
    std::fs::write(seed.join("gone.txt"), "gone\n").unwrap();
    std::fs::write(seed.join("old-name.txt"), "a file that will be renamed, long enough to pair\n").unwrap();
    client(&seed, &["add", "."]);
    client(&seed, &["commit", "-q", "-m", "seed"]);
    let bare = root.join("app.git");
    client(&root, &["clone", "-q", "--bare", &seed.to_string_lossy(), &bare.to_string_lossy()]);
    instance.admin_ok(json!({"command": "group_add", "path": "grp", "visibility": "public"}));
    instance.admin_ok(json!({"command": "project_add", "path": "grp/app", "repo": bare, "visibility": "public"}));
    let mut tokens = Vec::new();
    for (user, level) in [("mona", 40), ("dev", 30)] {
        instance.admin_ok(json!({"command": "user_add", "username": user, "name": format!("{user} N"),
                                 "email": format!("{user}@example.com")}));
        instance
            .admin_ok(json!({"command": "member_add", "username": user, "project": "grp/app", "access_level": level}));
        tokens.push(
            instance.admin_ok(json!({"command": "token_add", "username": user}))["token"].as_str().unwrap().to_string(),
        );
    }
    let developer = tokens.pop().unwrap();
    let maintainer = tokens.pop().unwrap();
    let work = root.join("work");
    let remote = url.replacen("http://", &format!("http://mona:{maintainer}@"), 1) + "/grp/app.git";
    client(&root, &["clone", "-q", &remote, &work.to_string_lossy()]);
    Forge { instance, url, maintainer, developer, work }
}

fn forge() -> Forge {
    forge_with(settings())
}

const HOOKS: &str = "/api/v4/projects/grp%2Fapp/hooks";

impl Forge {
    fn call(&self, method: &str, target: &str, body: Value) -> (u16, Value) {
        self.instance.call(method, target, Some(&self.maintainer), body)
    }

    fn add_hook(&self, body: Value) -> Value {
        let (status, hook) = self.call("POST", HOOKS, body);
        assert_eq!(status, 201, "{hook}");
        hook
    }

    fn git(&self, args: &[&str]) -> String {
        client(&self.work, args)
    }

    fn commit(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
        self.git(&["rev-parse", "HEAD"])
    }
}

#[test]
fn hooks_are_made_read_edited_and_deleted_by_maintainers_only() {
    let forge = forge();
    let receiver = receiver(false);
    let hook = forge.add_hook(json!({"url": format!("{}/in", receiver.url), "token": "s3cret", "name": "ci",
        "tag_push_events": true, "push_events_branch_filter": "main",
        "custom_headers": [{"key": "X-Extra", "value": "v"}], "url_variables": [{"key": "x", "value": "1"}]}));
    let (_, _, raw) =
        forge.instance.request("GET", &format!("{HOOKS}/{}", hook["id"]), &[("PRIVATE-TOKEN", &forge.maintainer)], b"");
    assert_order(
        &String::from_utf8(raw).unwrap(),
        &[
            "id",
            "url",
            "name",
            "description",
            "created_at",
            "push_events",
            "tag_push_events",
            "merge_requests_events",
            "repository_update_events",
            "enable_ssl_verification",
            "alert_status",
            "disabled_until",
            "url_variables",
            "push_events_branch_filter",
            "branch_filter_strategy",
            "custom_webhook_template",
            "custom_headers",
            "project_id",
            "issues_events",
            "vulnerability_events",
        ],
    );
    assert!(hook.get("token").is_none(), "the token is never answered: {hook}");
    assert_eq!(hook["custom_headers"], json!([{"key": "X-Extra"}]));
    assert_eq!(hook["url_variables"], json!([{"key": "x"}]));
    assert_eq!((hook["push_events"].clone(), hook["tag_push_events"].clone()), (json!(true), json!(true)));
    assert_eq!(hook["alert_status"], "executable");
    assert_eq!(hook["branch_filter_strategy"], "wildcard");
    let id = hook["id"].as_i64().unwrap();
    let one = format!("{HOOKS}/{id}");

    let (status, list) = forge.call("GET", HOOKS, Value::Null);
    assert_eq!(status, 200);
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert!(list[0].get("custom_headers").is_none() && list[0].get("url_variables").is_none());
    assert_eq!(forge.call("GET", &one, Value::Null).1["name"], "ci");

    // Below Maintainer: 403; signed out: 401; another id: 404.
    let dev = forge.instance.call("GET", HOOKS, Some(&forge.developer), Value::Null);
    assert_eq!(dev.0, 403, "{}", dev.1);
    assert_eq!(forge.instance.call("POST", HOOKS, Some(&forge.developer), json!({"url": receiver.url})).0, 403);
    assert_eq!(forge.instance.call("GET", HOOKS, None, Value::Null).0, 401);
    assert_eq!(
        forge.call("GET", &format!("{HOOKS}/{}", id + 100), Value::Null),
        (404, json!({"message": "404 Not found"}))
    );

    let (status, body) = forge.call("PUT", &one, json!({}));
    assert_eq!((status, body), (400, json!({"error": "No parameters provided"})));
    let (status, edited) = forge.call(
        "PUT",
        &one,
        json!({"name": "renamed", "branch_filter_strategy": "regex",
                                                         "push_events_branch_filter": "^ma"}),
    );
    assert_eq!(status, 200, "{edited}");
    assert_eq!((edited["name"].clone(), edited["push_events_branch_filter"].clone()), (json!("renamed"), json!("^ma")));
    let (status, refused) = forge.call("PUT", &one, json!({"branch_filter_strategy": "other"}));
    assert_eq!(status, 400, "{refused}");
    let (status, refused) =
        forge.call("PUT", &one, json!({"branch_filter_strategy": "wildcard", "push_events_branch_filter": "a..b"}));
    assert_eq!((status, refused), (422, json!({"error": "Invalid branch filter given"})));
    assert_eq!(forge.call("POST", HOOKS, json!({"name": "no url"})).0, 400);
    let (status, missing) = forge.call("POST", HOOKS, json!({"url": format!("{}/{{missing}}", receiver.url)}));
    assert_eq!(status, 422, "{missing}");

    // A custom role with admin_web_hook on a Guest manages hooks.
    let admin = forge.instance.user_with_token("root", true);
    let (status, role) = forge.instance.call(
        "POST",
        "/api/v4/groups/grp/member_roles",
        Some(&admin),
        json!({"name": "Hooker", "base_access_level": 10, "admin_web_hook": true}),
    );
    assert_eq!(status, 201, "{role}");
    let guest = forge.instance.user_with_token("gwen", false);
    forge.instance.admin_ok(json!({"command": "member_add", "group": "grp", "username": "gwen", "access_level": 10,
                                   "member_role_id": role["id"]}));
    assert_eq!(forge.instance.call("GET", HOOKS, Some(&guest), Value::Null).0, 200);

    assert_eq!(forge.call("DELETE", &one, Value::Null).0, 204);
    assert_eq!(forge.call("GET", &one, Value::Null).0, 404);
}

#[test]
fn refused_urls_are_422_and_send_no_packet() {
    // Default rules: local requests refused.
    let instance = open_instance(with_store(json!({"hooks": {"poll_millis": 50}})));
    let admin = instance.user_with_token("root", true);
    let bare = instance.root_dir().join("r.git");
    git(instance.root_dir(), &["init", "-q", "--bare", &bare.to_string_lossy()]);
    instance.admin_ok(json!({"command": "group_add", "path": "g"}));
    instance.admin_ok(json!({"command": "project_add", "path": "g/r", "repo": bare}));
    let watch = receiver(false);
    let port = watch.url.rsplit(':').next().unwrap().to_string();
    let target = "/api/v4/projects/g%2Fr/hooks";
    for url in [
        format!("http://127.0.0.1:{port}/"),
        format!("http://localhost:{port}/"),
        format!("http://2130706433:{port}/"),
        format!("http://0x7f.1:{port}/"),
        format!("http://0177.0.0.1:{port}/"),
        format!("http://127.1:{port}/"),
        format!("http://[::1]:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        format!("http://0.0.0.0:{port}/"),
        format!("http://[::]:{port}/"),
        "http://10.0.0.1/".into(),
        "http://192.168.0.1/".into(),
        "http://172.16.5.4/".into(),
        "http://169.254.169.254/latest/meta-data".into(),
        "http://[fe80::1]/".into(),
        "http://[fd00::1]/".into(),
        "http://100.64.0.1/".into(),
        "http://224.0.0.1/".into(),
        "http://255.255.255.255/".into(),
        "ftp://example.com/".into(),
        "not a url".into(),
    ] {
        let (status, body) = instance.call("POST", target, Some(&admin), json!({"url": url}));
        assert_eq!((status, body), (422, json!({"error": "Invalid url given"})), "{url}");
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(watch.connections.load(Ordering::SeqCst), 0, "a refused URL was connected to");

    // The allowlist lets one address through.
    drop(instance);
    let allowed = open_instance(with_store(json!({"hooks": {"allowlist": ["127.0.0.1"], "poll_millis": 50}})));
    let admin = allowed.user_with_token("root", true);
    let bare = allowed.root_dir().join("r.git");
    git(allowed.root_dir(), &["init", "-q", "--bare", &bare.to_string_lossy()]);
    allowed.admin_ok(json!({"command": "group_add", "path": "g"}));
    allowed.admin_ok(json!({"command": "project_add", "path": "g/r", "repo": bare}));
    let (status, body) =
        allowed.call("POST", target, Some(&admin), json!({"url": format!("http://127.0.0.1:{port}/")}));
    assert_eq!(status, 201, "{body}");
    let (status, body) =
        allowed.call("POST", target, Some(&admin), json!({"url": format!("http://127.0.0.2:{port}/")}));
    assert_eq!((status, body), (422, json!({"error": "Invalid url given"})));
}

/// The commit fields GitLab sends, from git itself.
fn assert_commit_matches_git(repo: &Path, commit: &Value) {
    let id = commit["id"].as_str().unwrap();
    assert_eq!(git_text(repo, &["rev-parse", id]).trim(), id);
    let message = git_text(repo, &["log", "-1", "--format=%B", id]);
    assert_eq!(commit["message"].as_str().unwrap().trim_end(), message.trim_end());
    assert_eq!(commit["title"], git_text(repo, &["log", "-1", "--format=%s", id]).trim());
    assert_eq!(commit["author"], json!({"name": "Ann Author", "email": "ann@example.com"}));
    assert_eq!(commit["timestamp"], git_text(repo, &["log", "-1", "--format=%cI", id]).trim());
    let (mut added, mut modified, mut removed) = (Vec::new(), Vec::new(), Vec::new());
    let status = git_text(repo, &["diff-tree", "--root", "--no-commit-id", "-r", "-M", "--name-status", id]);
    for line in status.lines() {
        let parts: Vec<&str> = line.split('\t').collect();
        match parts[0].chars().next().unwrap() {
            'A' => added.push(parts[1].to_string()),
            'M' | 'T' => modified.push(parts[1].to_string()),
            'D' => removed.push(parts[1].to_string()),
            'R' => added.push(parts[2].to_string()),
            other => panic!("unexpected status {other}"),
        }
    }
    assert_eq!(commit["added"], json!(added), "{id}");
    assert_eq!(commit["modified"], json!(modified), "{id}");
    assert_eq!(commit["removed"], json!(removed), "{id}");
}

#[test]
fn a_git_push_delivers_push_and_tag_push_hooks_as_gitlab_builds_them() {
    let forge = forge();
    let receiver = receiver(false);
    forge.add_hook(json!({"url": format!("{}/push?x=1", receiver.url), "token": "s3cret", "tag_push_events": true,
                          "custom_headers": [{"key": "X-Extra", "value": "extra"}, {"key": "X-Gitlab-Event", "value": "forged"}]}));
    let before = forge.git(&["rev-parse", "HEAD"]);
    std::fs::write(forge.work.join("new.txt"), "new\n").unwrap();
    std::fs::write(forge.work.join("keep.txt"), "kept, changed\n").unwrap();
    std::fs::remove_file(forge.work.join("gone.txt")).unwrap();
    forge.commit("Change three files\n\nWith a body.");
    std::fs::rename(forge.work.join("old-name.txt"), forge.work.join("new-name.txt")).unwrap();
    let after = forge.commit("Rename one");
    let started = Instant::now();
    forge.git(&["push", "-q", "origin", "main"]);
    let got = receiver.next();
    assert!(started.elapsed() < Duration::from_secs(15));
    assert_eq!(got.target, "/push?x=1");
    assert_eq!(got.header("X-Gitlab-Event"), Some("Push Hook"));
    assert_eq!(got.header("X-Gitlab-Token"), Some("s3cret"));
    assert_eq!(got.header("X-Extra"), Some("extra"));
    assert_eq!(got.header("Content-Type"), Some("application/json"));
    assert!(got.header("User-Agent").unwrap().starts_with("GitLab/"));
    assert_eq!(got.header("X-Gitlab-Instance"), Some("http://localhost"));
    for name in ["Idempotency-Key", "X-Gitlab-Event-UUID", "X-Gitlab-Webhook-UUID"] {
        let value = got.header(name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(value.len(), 36, "{name}: {value}");
    }
    let body = &got.body;
    assert_order(
        &got.raw,
        &[
            "object_kind",
            "event_name",
            "before",
            "after",
            "ref",
            "ref_protected",
            "checkout_sha",
            "message",
            "user_id",
            "user_name",
            "user_username",
            "user_email",
            "user_avatar",
            "project_id",
            "project",
            "commits",
            "total_commits_count",
            "push_options",
            "repository",
        ],
    );
    assert_eq!(body["object_kind"], "push");
    assert_eq!((body["before"].as_str().unwrap(), body["after"].as_str().unwrap()), (before.as_str(), after.as_str()));
    assert_eq!(body["ref"], "refs/heads/main");
    assert_eq!(body["checkout_sha"], after.as_str());
    assert_eq!(body["ref_protected"], true, "main is the protected default branch");
    assert_eq!(body["user_username"], "mona");
    assert_eq!(body["user_name"], "mona N");
    assert_eq!(body["project"]["path_with_namespace"], "grp/app");
    assert_eq!(body["project"]["web_url"], "http://localhost/grp/app");
    assert_eq!(body["project"]["default_branch"], "main");
    assert_eq!(body["project"]["visibility_level"], 20);
    assert_eq!(body["repository"]["homepage"], "http://localhost/grp/app");
    assert_eq!(body["total_commits_count"], 2);
    let commits = body["commits"].as_array().unwrap();
    let range = git_text(&forge.work, &["rev-list", "--reverse", &format!("{before}..{after}")]);
    assert_eq!(
        commits.iter().map(|c| c["id"].as_str().unwrap()).collect::<Vec<_>>(),
        range.lines().collect::<Vec<_>>()
    );
    for commit in commits {
        assert_commit_matches_git(&forge.work, commit);
    }
    assert_eq!(commits[0]["removed"], json!(["gone.txt"]));
    assert_eq!(commits[1]["added"], json!(["new-name.txt"]));
    assert_eq!(commits[1]["url"], format!("http://localhost/grp/app/-/commit/{after}"));

    // An annotated tag: Tag Push Hook with the peeled commit.
    forge.git(&["tag", "-a", "v1.0", "-m", "Release one"]);
    forge.git(&["push", "-q", "origin", "v1.0"]);
    let tag = receiver.next();
    assert_eq!(tag.header("X-Gitlab-Event"), Some("Tag Push Hook"));
    assert_eq!(tag.body["object_kind"], "tag_push");
    assert_eq!(tag.body["ref"], "refs/tags/v1.0");
    assert_eq!(tag.body["after"], forge.git(&["rev-parse", "v1.0"]).as_str());
    assert_eq!(tag.body["checkout_sha"], after.as_str());
    assert_eq!(tag.body["message"].as_str().unwrap().trim(), "Release one");
    assert_eq!(tag.body["total_commits_count"], 1);
    assert_eq!(tag.body["commits"][0]["id"], after.as_str());

    // A deletion: no commits, checkout_sha null.
    forge.git(&["push", "-q", "origin", ":refs/tags/v1.0"]);
    let deleted = receiver.next();
    assert_eq!(deleted.body["after"], "0".repeat(40));
    assert_eq!(
        (deleted.body["checkout_sha"].clone(), deleted.body["total_commits_count"].clone()),
        (Value::Null, json!(0))
    );
    receiver.none_within(Duration::from_millis(300));
}

#[test]
fn rest_writes_fire_push_hooks_through_branch_filters() {
    let forge = forge();
    let (all, wild, regex) = (receiver(false), receiver(false), receiver(false));
    forge.add_hook(
        json!({"url": all.url, "push_events_branch_filter": "feature/*", "branch_filter_strategy": "all_branches"}),
    );
    forge.add_hook(json!({"url": wild.url, "push_events_branch_filter": "feature/*"}));
    forge.add_hook(json!({"url": regex.url, "push_events_branch_filter": "^ma", "branch_filter_strategy": "regex"}));
    let commits = "/api/v4/projects/grp%2Fapp/repository/commits";
    let (status, commit) = forge.call(
        "POST",
        commits,
        json!({"branch": "main", "commit_message": "Via the API",
        "actions": [{"action": "create", "file_path": "api.txt", "content": "x"}]}),
    );
    assert_eq!(status, 201, "{commit}");
    for receiver in [&all, &regex] {
        let got = receiver.next();
        assert_eq!(got.body["after"], commit["id"]);
        assert_eq!(got.body["commits"][0]["added"], json!(["api.txt"]));
        assert_eq!(got.body["total_commits_count"], 1);
    }
    let (status, branch) =
        forge.call("POST", "/api/v4/projects/grp%2Fapp/repository/branches?branch=feature/x&ref=main", Value::Null);
    assert_eq!(status, 201, "{branch}");
    for receiver in [&all, &wild] {
        let got = receiver.next();
        assert_eq!(got.body["ref"], "refs/heads/feature/x");
        assert_eq!(got.body["before"], "0".repeat(40));
        // A new branch without commits of its own sends none.
        assert_eq!((got.body["commits"].clone(), got.body["total_commits_count"].clone()), (json!([]), json!(0)));
    }
    regex.none_within(Duration::from_millis(300));
    wild.none_within(Duration::from_millis(10));
}

#[test]
fn a_push_of_more_refs_than_the_limit_fires_no_hooks_for_them() {
    let forge = forge();
    let receiver = receiver(false);
    forge.add_hook(json!({"url": receiver.url}));
    for name in ["a", "b", "c", "d"] {
        forge.git(&["branch", name]);
    }
    forge.git(&["push", "-q", "origin", "a", "b", "c", "d"]);
    receiver.none_within(Duration::from_millis(800));
    for name in ["e", "f", "g"] {
        forge.git(&["branch", name]);
    }
    forge.git(&["push", "-q", "origin", "e", "f", "g"]);
    let mut refs: Vec<String> = (0..3).map(|_| receiver.next().body["ref"].as_str().unwrap().to_string()).collect();
    refs.sort();
    assert_eq!(refs, ["refs/heads/e", "refs/heads/f", "refs/heads/g"]);
}

#[test]
fn failed_deliveries_retry_with_one_idempotency_key_and_are_logged() {
    let forge = forge();
    let receiver = receiver(false);
    receiver.statuses.lock().unwrap().extend([500, 502]);
    let hook = forge.add_hook(json!({"url": receiver.url, "token": "t0k"}));
    let id = hook["id"].as_i64().unwrap();
    std::fs::write(forge.work.join("retry.txt"), "r\n").unwrap();
    forge.commit("Retry me");
    forge.git(&["push", "-q", "origin", "main"]);
    let tries: Vec<Got> = (0..3).map(|_| receiver.next()).collect();
    let keys: Vec<&str> = tries.iter().map(|g| g.header("Idempotency-Key").unwrap()).collect();
    assert!(keys.iter().all(|k| *k == keys[0]), "one key for every try: {keys:?}");
    let uuids: Vec<&str> = tries.iter().map(|g| g.header("X-Gitlab-Webhook-UUID").unwrap()).collect();
    assert!(uuids[0] != uuids[1] && uuids[1] != uuids[2], "a new webhook UUID per request");
    receiver.none_within(Duration::from_millis(300));

    // Three logs, newest first: 200, 502, 500; the token redacted.
    let events = format!("{HOOKS}/{id}/events");
    let (status, logs) = forge.call("GET", &events, Value::Null);
    assert_eq!(status, 200, "{logs}");
    let statuses: Vec<&str> = logs.as_array().unwrap().iter().map(|l| l["response_status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["200", "502", "500"]);
    assert_eq!(logs[0]["trigger"], "push_hooks");
    assert_eq!(logs[0]["request_headers"]["X-Gitlab-Token"], "[REDACTED]");
    assert_eq!(logs[0]["request_data"]["object_kind"], "push");
    assert_eq!(logs[1]["response_body"], "answered 502");
    let (_, failures) = forge.call("GET", &format!("{events}?status=server_failure"), Value::Null);
    assert_eq!(failures.as_array().unwrap().len(), 2);
    assert_eq!(forge.call("GET", &format!("{events}?per_page=21"), Value::Null).0, 400);

    // Resend: the logged data again, with its key.
    let log_id = logs[2]["id"].as_i64().unwrap();
    let (status, body) = forge.call("POST", &format!("{events}/{log_id}/resend"), Value::Null);
    assert_eq!((status, body), (201, json!({"response_status": 200})));
    let again = receiver.next();
    assert_eq!(again.header("Idempotency-Key"), Some(keys[0]));
    assert_eq!(again.body, tries[0].body);
}

#[test]
fn tests_of_a_failing_hook_back_it_off_as_gitlab_does() {
    let forge = forge();
    let receiver = receiver(false);
    receiver.statuses.lock().unwrap().extend([500, 500, 500, 500]);
    let hook = forge.add_hook(json!({"url": receiver.url}));
    let one = format!("{HOOKS}/{}", hook["id"]);
    for n in 1..=4 {
        let (status, body) = forge.call("POST", &format!("{one}/test/push_events"), Value::Null);
        assert_eq!((status, body), (422, json!({"message": "answered 500"})), "try {n}");
        let got = receiver.next();
        assert_eq!(got.body["object_kind"], "push");
        assert_eq!(got.header("X-Gitlab-Event"), Some("Push Hook"));
        let alert = forge.call("GET", &one, Value::Null).1["alert_status"].clone();
        assert_eq!(alert, if n < 4 { "executable" } else { "temporarily_disabled" }, "after {n} failures");
    }
    // Disabled for a minute from the 4th failure; a test is sent anyway, and a success heals it.
    let (status, body) = forge.call("POST", &format!("{one}/test/push_events"), Value::Null);
    assert_eq!((status, body), (201, json!({"message": "201 Created"})));
    receiver.next();
    let healed = forge.call("GET", &one, Value::Null).1;
    assert_eq!((healed["alert_status"].clone(), healed["disabled_until"].clone()), (json!("executable"), Value::Null));
    assert_eq!(forge.call("POST", &format!("{one}/test/bogus"), Value::Null).0, 400);
    // Five tests a minute.
    assert_eq!(forge.call("POST", &format!("{one}/test/push_events"), Value::Null).0, 429);
}

#[test]
fn a_hanging_receiver_never_slows_a_push() {
    let forge = forge();
    let hanging = receiver(true);
    forge.add_hook(json!({"url": hanging.url}));
    for n in 0..3 {
        std::fs::write(forge.work.join("slow.txt"), format!("{n}\n")).unwrap();
        forge.commit(&format!("Slow {n}"));
        let started = Instant::now();
        forge.git(&["push", "-q", "origin", "main"]);
        assert!(started.elapsed() < Duration::from_millis(1500), "push {n} took {:?}", started.elapsed());
    }
    hanging.next();
}

#[test]
fn a_delivery_left_by_a_dead_host_is_made_after_its_lease() {
    let forge = forge_with(with_store(json!({"hooks": {"allow_local_requests": true, "poll_millis": 50,
        "delivery_threads": 0, "retry_seconds": 0, "lease_seconds": 4, "timeout_millis": 2000,
        "connect_timeout_millis": 1000}})));
    let receiver = receiver(false);
    let hook = forge.add_hook(json!({"url": receiver.url}));
    let id = hook["id"].as_i64().unwrap();
    std::fs::write(forge.work.join("lease.txt"), "l\n").unwrap();
    forge.commit("Leased");
    forge.git(&["push", "-q", "origin", "main"]);
    // This context delivers nothing; a "host" claims the delivery and dies with it.
    let store = &forge.instance.ctx().store;
    let now = forgecore::hooks::now_millis();
    let claimed = store.write(|db| forgecore::store::hooks::claim(db, "dead-host", now, 1_000, 10)).unwrap();
    assert_eq!(claimed.len(), 1);
    // Another host, on the same store, takes it over once the lease ran out.
    let mut config = forge.instance.config().clone();
    config["hooks"]["delivery_threads"] = json!(2);
    let other = forge.instance.reopen_with(config);
    let started = Instant::now();
    let got = receiver.next();
    assert!(started.elapsed() >= Duration::from_millis(500), "taken before the lease ended");
    assert_eq!(got.header("Idempotency-Key"), Some(claimed[0].idempotency_key.as_str()));
    // The dead host's late settle changes nothing.
    assert!(!store.write(|db| forgecore::store::hooks::settle(db, claimed[0].id, "dead-host", "failed", 0)).unwrap());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let states = store.read(|db| forgecore::store::hooks::deliveries(db, id)).unwrap();
        if states.iter().all(|(_, state, _)| state == "delivered") {
            assert_eq!(states.len(), 1);
            break;
        }
        assert!(Instant::now() < deadline, "{states:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    receiver.none_within(Duration::from_millis(300));
    drop(other);
}

#[test]
fn two_contexts_sharing_a_store_deliver_each_event_once() {
    let forge = forge();
    let other = forge.instance.reopen();
    let receiver = receiver(false);
    forge.add_hook(json!({"url": receiver.url}));
    let commits = "/api/v4/projects/grp%2Fapp/repository/commits";
    let mut ids = Vec::new();
    for n in 0..8 {
        let (status, commit) = forge.call(
            "POST",
            commits,
            json!({"branch": "main", "commit_message": format!("n{n}"),
            "actions": [{"action": "create", "file_path": format!("f{n}.txt"), "content": "x"}]}),
        );
        assert_eq!(status, 201, "{commit}");
        ids.push(commit["id"].as_str().unwrap().to_string());
    }
    let mut seen: Vec<String> = (0..8).map(|_| receiver.next().body["after"].as_str().unwrap().to_string()).collect();
    receiver.none_within(Duration::from_millis(1500));
    seen.sort();
    ids.sort();
    assert_eq!(seen, ids, "each event delivered once");
    drop(other);
}

#[test]
fn url_variables_custom_headers_and_templates_shape_the_request() {
    let forge = forge();
    let receiver = receiver(false);
    let hook = forge.add_hook(json!({"url": format!("{}/{{path}}", receiver.url),
                                     "url_variables": [{"key": "path", "value": "first"}]}));
    let one = format!("{HOOKS}/{}", hook["id"]);
    assert_eq!(forge.call("PUT", &format!("{one}/url_variables/path"), json!({"value": "second"})).0, 204);
    assert_eq!(
        forge.call("PUT", &format!("{one}/url_variables/bad-key"), json!({"value": "x"})),
        (422, json!({"error": "Illegal key or value"}))
    );
    assert_eq!(forge.call("PUT", &format!("{one}/custom_headers/X-Team"), json!({"value": "core"})).0, 204);
    assert_eq!(forge.call("PUT", &format!("{one}/custom_headers/X-Gone"), json!({"value": "x"})).0, 204);
    assert_eq!(forge.call("DELETE", &format!("{one}/custom_headers/X-Gone"), Value::Null).0, 204);
    assert_eq!(
        forge.call("DELETE", &format!("{one}/custom_headers/X-Gone"), Value::Null),
        (404, json!({"message": "404 Custom header Not Found"}))
    );
    assert_eq!(
        forge.call("DELETE", &format!("{one}/url_variables/nope"), Value::Null),
        (404, json!({"message": "404 URL variable Not Found"}))
    );
    let shown = forge.call("GET", &one, Value::Null).1;
    assert_eq!(
        (shown["url_variables"].clone(), shown["custom_headers"].clone()),
        (json!([{"key": "path"}]), json!([{"key": "X-Team"}]))
    );
    let (status, edited) = forge.call(
        "PUT",
        &one,
        json!({"custom_webhook_template": r#"{"branch":"{{ref}}","count":{{total_commits_count}}}"#}),
    );
    assert_eq!(status, 200, "{edited}");
    std::fs::write(forge.work.join("t.txt"), "t\n").unwrap();
    forge.commit("Templated");
    forge.git(&["push", "-q", "origin", "main"]);
    let got = receiver.next();
    assert_eq!(got.target, "/second");
    assert_eq!(got.header("X-Team"), Some("core"));
    assert_eq!(got.header("X-Gone"), None);
    assert_eq!(got.body, json!({"branch": "refs/heads/main", "count": 1}));
}

#[test]
fn system_hooks_are_for_administrators_and_get_every_push() {
    // Project hooks may not point at loopback here; system hooks may.
    let forge = forge_with(with_store(json!({"hooks": {"poll_millis": 50, "timeout_millis": 2000,
        "connect_timeout_millis": 1000, "lease_seconds": 4}})));
    let receiver = receiver(false);
    let admin = forge.instance.user_with_token("root", true);
    let (status, body) = forge.call("POST", HOOKS, json!({"url": receiver.url}));
    assert_eq!((status, body), (422, json!({"error": "Invalid url given"})));
    assert_eq!(forge.call("POST", "/api/v4/hooks", json!({"url": receiver.url})).0, 403);
    let (status, hook) = forge.instance.call(
        "POST",
        "/api/v4/hooks",
        Some(&admin),
        json!({"url": receiver.url, "push_events": true, "token": "sys"}),
    );
    assert_eq!(status, 201, "{hook}");
    assert_eq!((hook["push_events"].clone(), hook["repository_update_events"].clone()), (json!(true), json!(true)));
    assert!(hook.get("project_id").is_none() && hook.get("token").is_none(), "{hook}");
    let one = format!("/api/v4/hooks/{}", hook["id"]);
    let (status, list) = forge.instance.call("GET", "/api/v4/hooks", Some(&admin), Value::Null);
    assert_eq!((status, list.as_array().unwrap().len()), (200, 1));
    assert_eq!(forge.instance.call("GET", &format!("{HOOKS}/{}", hook["id"]), Some(&admin), Value::Null).0, 404);
    std::fs::write(forge.work.join("sys.txt"), "s\n").unwrap();
    let head = forge.commit("For the system hook");
    forge.git(&["push", "-q", "origin", "main"]);
    let got = receiver.next();
    assert_eq!(got.header("X-Gitlab-Event"), Some("System Hook"));
    assert_eq!(got.header("X-Gitlab-Token"), Some("sys"));
    assert_eq!((got.body["object_kind"].clone(), got.body["after"].clone()), (json!("push"), json!(head)));
    let (status, edited) = forge.instance.call("PUT", &one, Some(&admin), json!({"push_events": false}));
    assert_eq!((status, edited["push_events"].clone()), (200, json!(false)));
    assert_eq!(forge.instance.call("DELETE", &one, Some(&admin), Value::Null).0, 204);
    assert_eq!(forge.instance.call("GET", &one, Some(&admin), Value::Null).0, 404);
}

#[allow(dead_code)]
fn url_of(forge: &Forge) -> &str {
    &forge.url
}

/// A TLS receiver on loopback with a self-signed certificate for `localhost`, answering 200.
fn tls_receiver() -> String {
    use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
    let key = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let pkcs8 = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.signing_key.serialize_der()));
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![key.cert.der().clone()], pkcs8)
        .unwrap();
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for tcp in listener.incoming() {
            let Ok(mut tcp) = tcp else { continue };
            let Ok(mut conn) = rustls::ServerConnection::new(config.clone()) else { continue };
            let mut tls = rustls::Stream::new(&mut conn, &mut tcp);
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                match tls.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
            if !buf.is_empty() {
                let _ = tls.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
                tls.conn.send_close_notify();
                let _ = tls.flush();
            }
        }
    });
    format!("https://localhost:{port}/hook")
}

#[test]
fn https_hooks_verify_the_certificate_unless_told_not_to() {
    let forge = forge();
    let hook = forge.add_hook(json!({"url": tls_receiver()}));
    assert_eq!(hook["enable_ssl_verification"], true);
    let one = format!("{HOOKS}/{}", hook["id"]);
    let (status, body) = forge.call("POST", &format!("{one}/test/push_events"), Value::Null);
    assert_eq!(status, 422, "{body}");
    assert!(body["message"].as_str().unwrap().contains("certificate verify failed"), "{body}");
    let (status, _) = forge.call("PUT", &one, json!({"enable_ssl_verification": false}));
    assert_eq!(status, 200);
    let (status, body) = forge.call("POST", &format!("{one}/test/push_events"), Value::Null);
    assert_eq!((status, body), (201, json!({"message": "201 Created"})));
}

#[test]
fn issue_events_deliver_issue_hooks_and_confidential_ones_to_their_flag_only() {
    let forge = forge();
    let (issues, confidential, push_only) = (receiver(false), receiver(false), receiver(false));
    forge.add_hook(json!({"url": issues.url, "issues_events": true, "push_events": false}));
    forge.add_hook(json!({"url": confidential.url, "confidential_issues_events": true, "push_events": false}));
    forge.add_hook(json!({"url": push_only.url}));
    let (status, issue) =
        forge.call("POST", "/api/v4/projects/grp%2Fapp/issues", json!({"title": "Broken", "description": "It is"}));
    assert_eq!(status, 201, "{issue}");
    let got = issues.next();
    assert_eq!(got.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("x-gitlab-event")).unwrap().1, "Issue Hook");
    assert_order(&got.raw, &["object_kind", "event_type", "user", "project", "object_attributes", "repository"]);
    let body = &got.body;
    assert_eq!((body["object_kind"].clone(), body["event_type"].clone()), (json!("issue"), json!("issue")));
    assert_eq!(body["user"]["username"], "mona");
    assert_eq!(body["project"]["path_with_namespace"], "grp/app");
    let attrs = &body["object_attributes"];
    for key in ["id", "iid", "title", "description", "state", "created_at", "updated_at", "project_id"] {
        assert_eq!(attrs[key], issue[key], "{key}");
    }
    assert_eq!(attrs["action"], "open");
    assert_eq!(attrs["url"], issue["web_url"]);
    let (status, closed) = forge.call(
        "PUT",
        &format!("/api/v4/projects/grp%2Fapp/issues/{}", issue["iid"]),
        json!({"state_event": "close"}),
    );
    assert_eq!(status, 200, "{closed}");
    let got = issues.next();
    assert_eq!(got.body["object_attributes"]["action"], "close");
    assert_eq!(got.body["object_attributes"]["state"], "closed");
    assert_eq!(got.body["object_attributes"]["closed_at"], closed["closed_at"]);
    let (status, secret) =
        forge.call("POST", "/api/v4/projects/grp%2Fapp/issues", json!({"title": "Secret", "confidential": true}));
    assert_eq!(status, 201, "{secret}");
    let got = confidential.next();
    assert_eq!(
        got.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("x-gitlab-event")).unwrap().1,
        "Confidential Issue Hook"
    );
    assert_eq!(got.body["event_type"], "confidential_issue");
    assert_eq!(got.body["object_attributes"]["iid"], secret["iid"]);
    issues.none_within(Duration::from_millis(300));
    push_only.none_within(Duration::from_millis(10));
}

/// The payload's text from `key` on (where a nested object's keys come first).
fn from_key<'a>(raw: &'a str, key: &str) -> &'a str {
    &raw[raw.find(&format!("\"{key}\":")).unwrap()..]
}

/// A time to the millisecond, whichever zone notation it is in (`Z`, `+00:00`).
fn millis(value: &Value) -> String {
    value.as_str().unwrap().chars().take(23).collect()
}

fn event_of(got: &Got) -> &str {
    got.header("X-Gitlab-Event").unwrap_or("")
}

impl Forge {
    /// A commit on `branch` (made from `main` when `new`) through the commits API.
    fn commit_to(&self, branch: &str, new: bool, file: &str) -> String {
        let mut body = json!({"branch": branch, "commit_message": format!("Add {file}"),
                   "actions": [{"action": "create", "file_path": file, "content": "x\n"}]});
        if new {
            body["start_branch"] = json!("main");
        }
        let (status, commit) = self.call("POST", "/api/v4/projects/grp%2Fapp/repository/commits", body);
        assert_eq!(status, 201, "{commit}");
        commit["id"].as_str().unwrap().to_string()
    }

    fn bare(&self) -> PathBuf {
        self.instance.root_dir().join("app.git")
    }
}

/// The Merge Request Hook's object attributes: GitLab's columns in `safe_hook_attributes`
/// order, then the computed keys, then `action`.
const MR_ATTRIBUTES: [&str; 13] = [
    "assignee_id",
    "author_id",
    "created_at",
    "description",
    "draft",
    "id",
    "iid",
    "merge_status",
    "source_branch",
    "state_id",
    "target_branch",
    "title",
    "updated_at",
];

#[test]
fn merge_request_events_deliver_merge_request_hooks_as_gitlab_builds_them() {
    let forge = forge();
    let (mrs, push_only, system) = (receiver(false), receiver(false), receiver(false));
    let hook = forge.add_hook(json!({"url": mrs.url, "merge_requests_events": true, "push_events": false}));
    forge.add_hook(json!({"url": push_only.url}));
    // System hooks get merge request events too (`SystemHook`'s `merge_request_hooks`).
    let admin = forge.instance.user_with_token("root", true);
    let (status, sys) = forge.instance.call(
        "POST",
        "/api/v4/hooks",
        Some(&admin),
        json!({"url": system.url, "push_events": false, "merge_requests_events": true}),
    );
    assert_eq!(status, 201, "{sys}");
    let test = format!("{HOOKS}/{}/test/merge_requests_events", hook["id"]);
    let (status, refused) = forge.call("POST", &test, json!({}));
    assert_eq!((status, refused["message"].clone()), (422, json!("Ensure the project has merge requests.")));
    let first = forge.commit_to("feature", true, "one.txt");
    assert_eq!(push_only.next().body["after"], json!(first), "the branch's push hook");
    let mrs_url = "/api/v4/projects/grp%2Fapp/merge_requests";
    let (status, mr) = forge.call(
        "POST",
        mrs_url,
        json!({"source_branch": "feature", "target_branch": "main", "title": "Add one", "description": "Why"}),
    );
    assert_eq!(status, 201, "{mr}");
    let got = mrs.next();
    assert_eq!(event_of(&got), "Merge Request Hook");
    assert_order(
        &got.raw,
        &["object_kind", "event_type", "user", "project", "object_attributes", "labels", "changes", "repository"],
    );
    let attrs_text = from_key(&got.raw, "object_attributes");
    let mut order: Vec<&str> = MR_ATTRIBUTES.to_vec();
    order.extend(["assignee_ids", "detailed_merge_status", "last_commit", "reviewer_ids", "source", "state"]);
    order.extend(["target", "url", "work_in_progress", "action"]);
    // Nested objects repeat keys (`source.id`): those are left out.
    let top: Vec<&str> = order.iter().copied().filter(|k| !["id", "url"].contains(k)).collect();
    assert_order(attrs_text, &top);
    let body = &got.body;
    assert_eq!(
        (body["object_kind"].clone(), body["event_type"].clone()),
        (json!("merge_request"), json!("merge_request"))
    );
    assert_eq!(body["user"]["username"], "mona");
    let attrs = &body["object_attributes"];
    for key in ["id", "iid", "title", "description", "source_branch", "target_branch", "state", "created_at"] {
        assert_eq!(attrs[key], mr[key], "{key}");
    }
    assert_eq!(attrs["action"], "open");
    assert_eq!(attrs["url"], mr["web_url"]);
    assert_eq!(attrs["state_id"], 1);
    assert_eq!(attrs["last_commit"]["id"], json!(first));
    assert_eq!(attrs["last_commit"]["id"], mr["sha"]);
    assert_eq!(attrs["target"]["path_with_namespace"], "grp/app");
    assert!(attrs.get("oldrev").is_none(), "no oldrev on open");
    assert_eq!(body["changes"], json!({}));
    assert!(body.get("assignees").is_none(), "no assignees key without assignees");
    let got = system.next();
    assert_eq!(event_of(&got), "System Hook");
    assert_eq!(got.body["object_kind"], "merge_request");
    assert_eq!(got.body["object_attributes"]["iid"], mr["iid"]);

    // An update: what changed, with the assignees GitLab lists.
    let one = format!("{mrs_url}/{}", mr["iid"]);
    let (status, dev) = forge.instance.call("GET", "/api/v4/user", Some(&forge.developer), json!(null));
    assert_eq!(status, 200);
    let (status, updated) =
        forge.call("PUT", &one, json!({"title": "Add one file", "assignee_ids": [dev["id"]], "labels": "bug"}));
    assert_eq!(status, 200, "{updated}");
    let got = mrs.next();
    let body = &got.body;
    assert_eq!(body["object_attributes"]["action"], "update");
    assert_eq!(body["changes"]["title"], json!({"previous": "Add one", "current": "Add one file"}));
    assert_eq!(body["changes"]["assignees"]["previous"], json!([]));
    assert_eq!(body["changes"]["assignees"]["current"][0]["username"], "dev");
    assert_eq!(body["assignees"][0]["id"], dev["id"]);
    assert_eq!(body["object_attributes"]["assignee_ids"], json!([dev["id"]]));
    assert_eq!(body["labels"][0]["title"], "bug");
    assert_eq!(body["object_attributes"]["labels"], body["labels"]);
    assert_order(&got.raw, &["object_attributes", "labels", "changes", "repository"]);
    assert!(got.raw.rfind("\"assignees\":") > got.raw.find("\"repository\":"), "assignees come last");

    // A push to the source branch: an update with the old head as `oldrev`.
    let second = forge.commit_to("feature", false, "two.txt");
    let got = mrs.next();
    assert_eq!(got.body["object_attributes"]["action"], "update");
    assert_eq!(got.body["object_attributes"]["oldrev"], json!(first));
    assert_eq!(got.body["object_attributes"]["last_commit"]["id"], json!(second));

    for (event, action, state) in [("close", "close", "closed"), ("reopen", "reopen", "opened")] {
        let (status, answer) = forge.call("PUT", &one, json!({"state_event": event}));
        assert_eq!(status, 200, "{answer}");
        let got = mrs.next();
        assert_eq!(
            (got.body["object_attributes"]["action"].clone(), got.body["object_attributes"]["state"].clone()),
            (json!(action), json!(state))
        );
    }
    let (status, merged) = forge.call("PUT", &format!("{one}/merge"), json!({}));
    assert_eq!(status, 200, "{merged}");
    let got = mrs.next();
    let attrs = &got.body["object_attributes"];
    assert_eq!(
        (attrs["action"].clone(), attrs["state"].clone(), attrs["state_id"].clone()),
        (json!("merge"), json!("merged"), json!(3))
    );
    assert_eq!(attrs["merge_commit_sha"], merged["merge_commit_sha"]);
    assert_eq!(attrs["merge_commit_sha"].as_str(), Some(git_text(&forge.bare(), &["rev-parse", "main"]).trim()));

    // The test route sends the newest merge request, without an action.
    let (status, answer) = forge.call("POST", &test, json!({}));
    assert_eq!((status, answer), (201, json!({"message": "201 Created"})));
    let got = mrs.next();
    assert_eq!(event_of(&got), "Merge Request Hook");
    assert_eq!(got.body["object_attributes"]["iid"], mr["iid"]);
    assert!(got.body["object_attributes"].get("action").is_none());
    mrs.none_within(Duration::from_millis(300));
}

#[test]
fn notes_deliver_note_hooks_and_internal_ones_to_confidential_note_events_only() {
    let forge = forge();
    let (notes, confidential) = (receiver(false), receiver(false));
    forge.add_hook(json!({"url": notes.url, "note_events": true, "push_events": false}));
    let secret_hook =
        forge.add_hook(json!({"url": confidential.url, "confidential_note_events": true, "push_events": false}));
    let (status, issue) = forge.call("POST", "/api/v4/projects/grp%2Fapp/issues", json!({"title": "Broken"}));
    assert_eq!(status, 201, "{issue}");
    let issue_notes = format!("/api/v4/projects/grp%2Fapp/issues/{}/notes", issue["iid"]);
    let (status, note) = forge.call("POST", &issue_notes, json!({"body": "Seen it"}));
    assert_eq!(status, 201, "{note}");
    let got = notes.next();
    assert_eq!(event_of(&got), "Note Hook");
    assert_order(
        &got.raw,
        &["object_kind", "event_type", "user", "project_id", "project", "object_attributes", "repository", "issue"],
    );
    let attrs_text = from_key(&got.raw, "object_attributes");
    assert_order(
        attrs_text,
        &[
            "attachment",
            "author_id",
            "created_at",
            "id",
            "note",
            "noteable_id",
            "noteable_type",
            "project_id",
            "system",
            "updated_at",
            "description",
            "url",
            "action",
        ],
    );
    let body = &got.body;
    assert_eq!((body["object_kind"].clone(), body["event_type"].clone()), (json!("note"), json!("note")));
    let attrs = &body["object_attributes"];
    assert_eq!(attrs["id"], note["id"]);
    assert_eq!(attrs["note"], "Seen it");
    assert_eq!(attrs["noteable_type"], "Issue");
    assert_eq!(attrs["noteable_id"], issue["id"]);
    assert_eq!(attrs["author_id"], note["author"]["id"]);
    assert_eq!(attrs["created_at"], note["created_at"]);
    assert_eq!(attrs["action"], "create");
    assert_eq!(attrs["url"], json!(format!("{}#note_{}", issue["web_url"].as_str().unwrap(), note["id"])));
    assert_eq!(body["issue"]["iid"], issue["iid"]);
    assert_eq!(body["issue"]["title"], "Broken");
    assert_eq!(body["project_id"], body["project"]["id"]);

    // On a merge request: the merge request under `merge_request`.
    forge.commit_to("topic", true, "t.txt");
    let (status, mr) = forge.call(
        "POST",
        "/api/v4/projects/grp%2Fapp/merge_requests",
        json!({"source_branch": "topic", "target_branch": "main", "title": "Topic"}),
    );
    assert_eq!(status, 201, "{mr}");
    let mr_notes = format!("/api/v4/projects/grp%2Fapp/merge_requests/{}/notes", mr["iid"]);
    let (status, mr_note) = forge.call("POST", &mr_notes, json!({"body": "Looks good"}));
    assert_eq!(status, 201, "{mr_note}");
    let got = notes.next();
    assert_eq!(got.body["object_attributes"]["noteable_type"], "MergeRequest");
    assert_eq!(got.body["object_attributes"]["id"], mr_note["id"]);
    assert_eq!(got.body["merge_request"]["iid"], mr["iid"]);
    assert_eq!(got.body["merge_request"]["source_branch"], "topic");
    assert_eq!(got.body["merge_request"]["last_commit"]["id"], mr["sha"]);
    assert!(got.body.get("issue").is_none());

    // An internal note: Confidential Note Hook, to the confidential flag only.
    let (status, internal) = forge.call("POST", &issue_notes, json!({"body": "Between us", "internal": true}));
    assert_eq!(status, 201, "{internal}");
    let got = confidential.next();
    assert_eq!(event_of(&got), "Confidential Note Hook");
    assert_eq!(got.body["event_type"], "confidential_note");
    assert_eq!(got.body["object_attributes"]["id"], internal["id"]);
    notes.none_within(Duration::from_millis(300));
    confidential.none_within(Duration::from_millis(10));

    // The test route: the newest note.
    let (status, answer) =
        forge.call("POST", &format!("{HOOKS}/{}/test/confidential_note_events", secret_hook["id"]), json!({}));
    assert_eq!((status, answer), (201, json!({"message": "201 Created"})));
    let got = confidential.next();
    assert_eq!(event_of(&got), "Confidential Note Hook");
    assert_eq!(got.body["object_attributes"]["id"], internal["id"]);
}

#[test]
fn releases_deliver_release_hooks_on_create_update_and_delete() {
    let forge = forge();
    let releases = receiver(false);
    let hook = forge.add_hook(json!({"url": releases.url, "releases_events": true, "push_events": false}));
    let test = format!("{HOOKS}/{}/test/releases_events", hook["id"]);
    let (status, refused) = forge.call("POST", &test, json!({}));
    assert_eq!((status, refused["message"].clone()), (422, json!("Ensure the project has releases.")));
    let url = "/api/v4/projects/grp%2Fapp/releases";
    let (status, release) = forge.call(
        "POST",
        url,
        json!({"tag_name": "v1.0", "ref": "main", "name": "One", "description": "First",
               "assets": {"links": [{"name": "Notes", "url": "https://example.com/notes", "link_type": "runbook"}]}}),
    );
    assert_eq!(status, 201, "{release}");
    let got = releases.next();
    assert_eq!(event_of(&got), "Release Hook");
    assert_order(
        &got.raw,
        &[
            "id",
            "created_at",
            "description",
            "name",
            "released_at",
            "tag",
            "object_kind",
            "project",
            "url",
            "action",
            "assets",
            "commit",
        ],
    );
    let body = &got.body;
    let release_id = body["id"].clone();
    assert!(release_id.is_i64(), "{body}");
    assert_eq!(body["object_kind"], "release");
    assert_eq!(body["action"], "create");
    for (key, entity_key) in [("name", "name"), ("tag", "tag_name"), ("description", "description")] {
        assert_eq!(body[key], release[entity_key], "{key}");
    }
    for key in ["created_at", "released_at"] {
        assert_eq!(millis(&body[key]), millis(&release[key]), "{key}");
    }
    let head = git_text(&forge.bare(), &["rev-parse", "main"]);
    assert_eq!(body["commit"]["id"].as_str(), Some(head.trim()));
    assert_eq!(body["commit"]["title"], "seed");
    assert_eq!(body["assets"]["count"], 5);
    assert_eq!(body["assets"]["links"][0]["name"], "Notes");
    assert_eq!(body["assets"]["links"][0]["link_type"], "runbook");
    assert_eq!(body["assets"]["links"][0]["id"], release["assets"]["links"][0]["id"]);
    let formats: Vec<&str> =
        body["assets"]["sources"].as_array().unwrap().iter().map(|s| s["format"].as_str().unwrap()).collect();
    assert_eq!(formats, ["zip", "tar.gz", "tar.bz2", "tar"]);
    assert_eq!(body["assets"]["sources"], release["assets"]["sources"]);
    assert_eq!(body["project"]["path_with_namespace"], "grp/app");

    let (status, updated) = forge.call("PUT", &format!("{url}/v1.0"), json!({"description": "Better"}));
    assert_eq!(status, 200, "{updated}");
    let got = releases.next();
    assert_eq!((got.body["action"].clone(), got.body["description"].clone()), (json!("update"), json!("Better")));

    let (status, answer) = forge.call("POST", &test, json!({}));
    assert_eq!(status, 201, "{answer}");
    let got = releases.next();
    assert_eq!((got.body["action"].clone(), got.body["tag"].clone()), (json!("create"), json!("v1.0")));

    let (status, deleted) = forge.call("DELETE", &format!("{url}/v1.0"), json!(null));
    assert_eq!(status, 200, "{deleted}");
    let got = releases.next();
    assert_eq!((got.body["action"].clone(), got.body["id"].clone()), (json!("delete"), release_id));
    assert_eq!(got.body["assets"]["links"][0]["name"], "Notes", "the release as it was");
    releases.none_within(Duration::from_millis(300));
}

#[test]
fn group_hooks_are_for_owners_and_get_the_events_of_every_project_below() {
    let forge = forge();
    let (group, project_only) = (receiver(false), receiver(false));
    forge.instance.admin_ok(json!({"command": "user_add", "username": "olga", "name": "Olga O",
                                   "email": "olga@example.com"}));
    forge.instance.admin_ok(json!({"command": "member_add", "group": "grp", "username": "olga", "access_level": 50}));
    let owner = forge.instance.admin_ok(json!({"command": "token_add", "username": "olga"}))["token"]
        .as_str()
        .unwrap()
        .to_string();
    let as_owner = |method: &str, target: &str, body: Value| forge.instance.call(method, target, Some(&owner), body);
    let hooks = "/api/v4/groups/grp/hooks";
    // A project Maintainer who is no group Owner may not; nobody anonymous.
    let (status, _) = forge.call("POST", hooks, json!({"url": group.url}));
    assert_eq!(status, 403);
    assert_eq!(forge.instance.call("GET", hooks, None, Value::Null).0, 401);
    let (status, refused) = as_owner("POST", hooks, json!({"url": "ftp://x/"}));
    assert_eq!((status, refused), (422, json!({"error": "Invalid url given"})));
    let (status, hook) = as_owner(
        "POST",
        hooks,
        json!({"url": group.url, "push_events": true, "issues_events": true, "token": "grp-secret"}),
    );
    assert_eq!(status, 201, "{hook}");
    assert_eq!(hook["group_id"], 1);
    assert!(hook.get("project_id").is_none() && hook.get("token").is_none(), "{hook}");
    assert_eq!((hook["issues_events"].clone(), hook["subgroup_events"].clone()), (json!(true), json!(false)));
    let one = format!("{hooks}/{}", hook["id"]);
    let (status, list) = as_owner("GET", hooks, Value::Null);
    assert_eq!((status, list.as_array().unwrap().len()), (200, 1));
    assert_eq!(list[0]["id"], hook["id"]);
    let (status, got) = as_owner("GET", &one, Value::Null);
    assert_eq!((status, got["url"].clone()), (200, json!(group.url)));
    // A group hook is not a project's, nor a system hook.
    assert_eq!(forge.call("GET", &format!("{HOOKS}/{}", hook["id"]), Value::Null).0, 404);
    let admin = forge.instance.user_with_token("root", true);
    let (_, system) = forge.instance.call("GET", "/api/v4/hooks", Some(&admin), Value::Null);
    assert_eq!(system, json!([]));
    forge.add_hook(json!({"url": project_only.url}));

    // A push to grp/app: the project's hook and the group's each get it.
    let head = forge.commit_to("main", false, "group.txt");
    let got = group.next();
    assert_eq!((event_of(&got), got.header("X-Gitlab-Token")), ("Push Hook", Some("grp-secret")));
    assert_eq!(
        (got.body["after"].clone(), got.body["project"]["path_with_namespace"].clone()),
        (json!(head), json!("grp/app"))
    );
    assert_eq!(project_only.next().body["after"], json!(head));

    // A project of a subgroup: its issues reach the root group's hook.
    forge.instance.admin_ok(json!({"command": "group_add", "path": "grp/sub", "visibility": "public"}));
    let (status, sub) = forge.instance.call(
        "POST",
        "/api/v4/projects",
        Some(&admin),
        json!({"name": "lib", "path": "lib", "namespace_id": forge.instance.call("GET", "/api/v4/groups/grp%2Fsub", Some(&admin), Value::Null).1["id"]}),
    );
    assert_eq!(status, 201, "{sub}");
    let (status, issue) = forge.instance.call(
        "POST",
        &format!("/api/v4/projects/{}/issues", sub["id"]),
        Some(&admin),
        json!({"title": "Below"}),
    );
    assert_eq!(status, 201, "{issue}");
    let got = group.next();
    assert_eq!(event_of(&got), "Issue Hook");
    assert_eq!(got.body["project"]["path_with_namespace"], "grp/sub/lib");
    assert_eq!(got.body["object_attributes"]["id"], issue["id"]);
    project_only.none_within(Duration::from_millis(300));

    // Edited and deleted by the owner; deleted, it gets nothing more.
    let (status, edited) = as_owner("PUT", &one, json!({"issues_events": false}));
    assert_eq!((status, edited["issues_events"].clone()), (200, json!(false)));
    assert_eq!(as_owner("PUT", &one, json!({})).0, 400);
    assert_eq!(as_owner("DELETE", &one, Value::Null).0, 204);
    assert_eq!(as_owner("GET", &one, Value::Null).0, 404);
    forge.commit_to("main", false, "after.txt");
    assert!(project_only.next().body["after"].is_string());
    group.none_within(Duration::from_millis(500));
}
