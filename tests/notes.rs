//! Notes on issues (issue #40) through the HTTP door: the Note entity in GitLab's key order,
//! create/list/get/update/delete, `sort` and `order_by`, 401 for anonymous reads, who may edit
//! (the author, Maintainers and above; never a system note), internal notes (hidden from
//! guests, written by Reporters and above), `user_notes_count`. SQLite under `cargo test`,
//! PostgreSQL under `make test-rust-postgres`.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use serde_json::{json, Value};

struct World {
    instance: TestInstance,
    maintainer: String,
    reporter: String,
    guest: String,
    guest2: String,
}

const ISSUE: &str = "/api/v4/projects/top%2Fapp/issues/1";

/// Project `top/app` with issue 1 (by the guest), a Maintainer, a Reporter and two guests.
fn world() -> World {
    let instance = common::open_instance(json!({}));
    let root = instance.user_with_token("root", true);
    let maintainer = instance.user_with_token("max", false);
    let reporter = instance.user_with_token("rita", false);
    let guest = instance.user_with_token("gus", false);
    let guest2 = instance.user_with_token("gina", false);
    let top = instance.admin_ok(json!({"command": "group_add", "path": "top"}));
    let (status, _) =
        instance.call("POST", "/api/v4/projects", Some(&root), json!({"path": "app", "namespace_id": top["id"]}));
    assert_eq!(status, 201);
    for (user, level) in [("max", 40), ("rita", 20), ("gus", 10), ("gina", 10)] {
        instance.admin_ok(json!({"command": "member_add", "group": "top", "username": user, "access_level": level}));
    }
    let (status, _) =
        instance.call("POST", "/api/v4/projects/top%2Fapp/issues", Some(&guest), json!({"title": "Release failed"}));
    assert_eq!(status, 201);
    World { instance, maintainer, reporter, guest, guest2 }
}

impl World {
    fn call(&self, method: &str, target: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        self.instance.call(method, target, token, body)
    }

    fn bodies(&self, query: &str, token: &str) -> Vec<String> {
        let (status, body) = self.call("GET", &format!("{ISSUE}/notes{query}"), Some(token), Value::Null);
        assert_eq!(status, 200, "{body}");
        body.as_array().unwrap().iter().map(|n| n["body"].as_str().unwrap().to_string()).collect()
    }
}

#[test]
fn notes_as_gitlab_writes_them() {
    let w = world();
    let (status, note) = w.call("POST", &format!("{ISSUE}/notes"), Some(&w.guest2), json!({"body": "first"}));
    assert_eq!(status, 201, "{note}");
    assert_eq!(note["body"], "first");
    assert_eq!(note["author"]["username"], "gina");
    assert_eq!(note["noteable_type"], "Issue");
    assert_eq!(note["noteable_iid"], 1);
    assert_eq!((note["system"].clone(), note["internal"].clone()), (json!(false), json!(false)));
    let id = note["id"].as_i64().unwrap();
    let (_, _, raw) =
        w.instance.request("GET", &format!("{ISSUE}/notes/{id}"), &[("PRIVATE-TOKEN", w.guest.as_str())], b"");
    let text = String::from_utf8(raw).unwrap();
    let order = [
        "\"id\"",
        "\"type\"",
        "\"body\"",
        "\"attachment\"",
        "\"author\"",
        "\"created_at\"",
        "\"updated_at\"",
        "\"system\"",
        "\"noteable_id\"",
        "\"noteable_type\"",
        "\"project_id\"",
        "\"resolvable\"",
        "\"confidential\"",
        "\"internal\"",
        "\"imported\"",
        "\"imported_from\"",
        "\"noteable_iid\"",
        "\"commands_changes\"",
    ];
    // Positions after the author object (whose own keys repeat `id` and friends).
    let after_author = text.find("\"created_at\"").unwrap();
    let head: Vec<usize> = order[..5].iter().map(|k| text.find(k).unwrap()).collect();
    let tail: Vec<usize> = order[5..].iter().map(|k| after_author + text[after_author..].find(k).unwrap()).collect();
    assert!(head.windows(2).all(|p| p[0] < p[1]) && tail.windows(2).all(|p| p[0] < p[1]), "{text}");

    std::thread::sleep(std::time::Duration::from_millis(5));
    w.call("POST", &format!("{ISSUE}/notes"), Some(&w.guest), json!({"body": "second"}));
    assert_eq!(w.bodies("", &w.guest), ["second", "first"], "newest first by default");
    assert_eq!(w.bodies("?sort=asc", &w.guest), ["first", "second"]);
    std::thread::sleep(std::time::Duration::from_millis(5));
    let (status, edited) = w.call("PUT", &format!("{ISSUE}/notes/{id}"), Some(&w.guest2), json!({"body": "first!"}));
    assert_eq!((status, edited["body"].clone()), (200, json!("first!")));
    assert_eq!(w.bodies("?order_by=updated_at", &w.guest), ["first!", "second"]);
    let (_, issue) = w.call("GET", ISSUE, Some(&w.guest), Value::Null);
    assert_eq!(issue["user_notes_count"], 2);

    let (status, body) = w.call("POST", &format!("{ISSUE}/notes"), Some(&w.guest), json!({}));
    assert_eq!((status, body), (400, json!({"error": "body is missing"})));
    let (status, _) = w.call("POST", &format!("{ISSUE}/notes"), Some(&w.guest), json!({"body": "  "}));
    assert_eq!(status, 400);
    let (status, _) = w.call("GET", &format!("{ISSUE}/notes?sort=sideways"), Some(&w.guest), Value::Null);
    assert_eq!(status, 400);
    let (status, body) = w.call("GET", &format!("{ISSUE}/notes/999999"), Some(&w.guest), Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Not found"})));
    let (status, body) = w.call("GET", "/api/v4/projects/top%2Fapp/issues/7/notes", Some(&w.guest), Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Issue Not Found"})));
    // Reads need a signed-in caller, as GitLab's `authenticate!`.
    let (status, _) = w.call("GET", &format!("{ISSUE}/notes"), None, Value::Null);
    assert_eq!(status, 401);
}

#[test]
fn who_changes_notes() {
    let w = world();
    let (_, note) = w.call("POST", &format!("{ISSUE}/notes"), Some(&w.guest2), json!({"body": "mine"}));
    let url = format!("{ISSUE}/notes/{}", note["id"]);
    let (status, _) = w.call("PUT", &url, Some(&w.guest), json!({"body": "theirs"}));
    assert_eq!(status, 403, "another guest");
    let (status, _) = w.call("PUT", &url, Some(&w.reporter), json!({"body": "theirs"}));
    assert_eq!(status, 403, "a reporter");
    let (status, _) = w.call("PUT", &url, Some(&w.maintainer), json!({"body": "moderated"}));
    assert_eq!(status, 200);
    let (status, _) = w.call("DELETE", &url, Some(&w.guest), Value::Null);
    assert_eq!(status, 403);
    let (status, _) = w.call("DELETE", &url, Some(&w.guest2), Value::Null);
    assert_eq!(status, 204);
    let (status, _) = w.call("GET", &url, Some(&w.guest2), Value::Null);
    assert_eq!(status, 404);
    // System notes belong to no one.
    let (status, _) = w.call("PUT", ISSUE, Some(&w.guest), json!({"state_event": "close"}));
    assert_eq!(status, 200);
    let (_, notes) = w.call("GET", &format!("{ISSUE}/notes"), Some(&w.guest), Value::Null);
    let system = notes.as_array().unwrap().iter().find(|n| n["system"] == true).unwrap().clone();
    assert_eq!(system["body"], "closed");
    let (status, _) =
        w.call("PUT", &format!("{ISSUE}/notes/{}", system["id"]), Some(&w.maintainer), json!({"body": "x"}));
    assert_eq!(status, 403);
}

#[test]
fn internal_notes_are_for_reporters_and_above() {
    let w = world();
    let (status, _) =
        w.call("POST", &format!("{ISSUE}/notes"), Some(&w.guest), json!({"body": "psst", "internal": true}));
    assert_eq!(status, 403, "a guest writes no internal note");
    let (status, note) =
        w.call("POST", &format!("{ISSUE}/notes"), Some(&w.reporter), json!({"body": "psst", "internal": true}));
    assert_eq!(status, 201);
    assert_eq!((note["internal"].clone(), note["confidential"].clone()), (json!(true), json!(true)));
    w.call("POST", &format!("{ISSUE}/notes"), Some(&w.guest), json!({"body": "hello"}));
    assert_eq!(w.bodies("?sort=asc", &w.reporter), ["psst", "hello"]);
    assert_eq!(w.bodies("?sort=asc", &w.guest), ["hello"]);
    let (status, body) = w.call("GET", &format!("{ISSUE}/notes/{}", note["id"]), Some(&w.guest), Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Note Not Found"})));
    let (_, issue) = w.call("GET", ISSUE, Some(&w.guest), Value::Null);
    assert_eq!(issue["user_notes_count"], 1, "internal notes are not counted for everyone");
    // The older `confidential` flag makes an internal note too.
    let (_, old) =
        w.call("POST", &format!("{ISSUE}/notes"), Some(&w.maintainer), json!({"body": "old", "confidential": true}));
    assert_eq!(old["internal"], true);
}

#[test]
fn merge_requests_take_notes_through_the_same_operations() {
    let w = world();
    let root = w.instance.user_with_token("admin2", true);
    let (status, project) = w.call(
        "POST",
        "/api/v4/projects",
        Some(&root),
        json!({"path": "web", "initialize_with_readme": true, "visibility": "private"}),
    );
    assert_eq!(status, 201, "{project}");
    let base = format!("/api/v4/projects/{}", project["id"]);
    let branch = project["default_branch"].as_str().unwrap_or("main").to_string();
    let (status, body) = w.call(
        "POST",
        &format!("{base}/repository/branches"),
        Some(&root),
        json!({"branch": "feature", "ref": branch}),
    );
    assert_eq!(status, 201, "{body}");
    let (status, body) = w.call(
        "POST",
        &format!("{base}/repository/files/NEW.md"),
        Some(&root),
        json!({"branch": "feature", "content": "new", "commit_message": "Add NEW.md"}),
    );
    assert_eq!(status, 201, "{body}");
    let (status, mr) = w.call(
        "POST",
        &format!("{base}/merge_requests"),
        Some(&root),
        json!({"source_branch": "feature", "target_branch": branch, "title": "Feature"}),
    );
    assert_eq!(status, 201, "{mr}");
    let notes = format!("{base}/merge_requests/{}/notes", mr["iid"]);
    let (status, note) = w.call("POST", &notes, Some(&root), json!({"body": "LGTM"}));
    assert_eq!(status, 201, "{note}");
    assert_eq!(
        (note["noteable_type"].clone(), note["noteable_iid"].clone()),
        (json!("MergeRequest"), mr["iid"].clone())
    );
    assert_eq!(note["noteable_id"], mr["id"]);
    let (status, listed) = w.call("GET", &notes, Some(&root), Value::Null);
    assert_eq!((status, listed.as_array().unwrap().len()), (200, 1));
    let (status, edited) = w.call("PUT", &format!("{notes}/{}", note["id"]), Some(&root), json!({"body": "LGTM!"}));
    assert_eq!((status, edited["body"].clone()), (200, json!("LGTM!")));
    let (status, body) = w.call("GET", &format!("{base}/merge_requests/99/notes"), Some(&root), Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 MergeRequest Not Found"})));
    // An issue's notes and the merge request's are apart.
    let (_, issue_notes) = w.call("GET", &format!("{ISSUE}/notes"), Some(&w.guest), Value::Null);
    assert_eq!(issue_notes, json!([]));
    let (status, _) = w.call("DELETE", &format!("{notes}/{}", note["id"]), Some(&root), Value::Null);
    assert_eq!(status, 204);
}
