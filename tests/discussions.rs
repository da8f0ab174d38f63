//! Discussions and award emoji (decisions D10) through the HTTP door, on the fixture repository
//! of tests/fixtures/mr_review.sh (merge request `feature` -> `main`): the Discussion entity
//! (40-hex id, `individual_note`, notes oldest first), threads on issues, merge requests and
//! commits, replies (a note alone becomes a discussion; a commit's cannot), diff positions
//! checked against the diff their shas name (GitLab's 400 texts), resolving (who may, what
//! `blocking_discussions_resolved` and `detailed_merge_status` then say), commit comments, and
//! award emoji (one per user and name, GitLab's 404/401 texts, `upvotes`/`downvotes`). SQLite
//! under `cargo test`, PostgreSQL under `make test-rust-postgres`.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use serde_json::{json, Value};

const PROJECT: &str = "/api/v4/projects/fx%2Freview";
const ISSUE: &str = "/api/v4/projects/fx%2Freview/issues/1";
const MR: &str = "/api/v4/projects/fx%2Freview/merge_requests/1";

struct World {
    instance: TestInstance,
    maintainer: String,
    developer: String,
    reporter: String,
}

fn world() -> World {
    let instance = common::open_instance(json!({"external_url": "http://forge.test"}));
    let repo = instance.run_fixture("mr_review.sh").join("review.git");
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    instance.admin_ok(json!({"command": "project_add", "path": "fx/review", "repo": repo, "visibility": "public"}));
    let common::Writers { maintainer, developer, reporter } = instance.writers("fx/review");
    let w = World { instance, maintainer, developer, reporter };
    let (status, issue) = w.call("POST", &format!("{PROJECT}/issues"), Some(&w.reporter), json!({"title": "Crash"}));
    assert_eq!(status, 201, "{issue}");
    let (status, mr) = w.call(
        "POST",
        &format!("{PROJECT}/merge_requests"),
        Some(&w.developer),
        json!({"source_branch": "feature", "target_branch": "main", "title": "Feature"}),
    );
    assert_eq!(status, 201, "{mr}");
    w
}

impl World {
    fn call(&self, method: &str, target: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        let mut headers = vec![("Content-Type", "application/json")];
        if let Some(token) = token {
            headers.push(("PRIVATE-TOKEN", token));
        }
        let body = if body.is_null() { Vec::new() } else { body.to_string().into_bytes() };
        self.instance.request_json(method, target, &headers, &body)
    }

    fn ok(&self, method: &str, target: &str, token: &str, body: Value, want: u16) -> Value {
        let (status, got) = self.call(method, target, Some(token), body);
        assert_eq!(status, want, "{method} {target}: {got}");
        got
    }
}

fn is_discussion_id(id: &Value) -> bool {
    id.as_str().is_some_and(|s| s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[test]
fn issue_discussions_reply_update_and_delete() {
    let w = world();
    let url = format!("{ISSUE}/discussions");
    let (status, _) = w.call("GET", &url, None, Value::Null);
    assert_eq!(status, 401, "discussions need a signed-in caller");
    let d = w.ok("POST", &url, &w.reporter, json!({"body": "Discussion body"}), 201);
    assert!(is_discussion_id(&d["id"]), "{d}");
    assert_eq!(d["individual_note"], false);
    assert_eq!(d["notes"][0]["type"], "DiscussionNote");
    assert_eq!(d["notes"][0]["noteable_iid"], 1);
    assert_eq!(d["notes"][0]["resolvable"], true, "issue threads are resolvable in the newest GitLab");
    assert_eq!(d["notes"][0]["resolved"], false);
    let id = d["id"].as_str().unwrap().to_string();
    let reply = w.ok("POST", &format!("{url}/{id}/notes"), &w.developer, json!({"body": "first note"}), 201);
    assert_eq!(reply["type"], "DiscussionNote");
    let note_id = reply["id"].as_i64().unwrap();
    let got = w.ok("GET", &format!("{url}/{id}/notes/{note_id}"), &w.developer, Value::Null, 200);
    assert_eq!(got["body"], "first note");
    let updated =
        w.ok("PUT", &format!("{url}/{id}/notes/{note_id}"), &w.developer, json!({"body": "updated body"}), 200);
    assert_eq!(updated["body"], "updated body");
    let (status, body) = w.call("PUT", &format!("{url}/{id}/notes/{note_id}"), Some(&w.reporter), json!({"body": "x"}));
    assert_eq!((status, body["message"].clone()), (403, json!("403 Forbidden")), "not the author, not a Maintainer");
    let (status, body) = w.call("PUT", &format!("{url}/{id}/notes/{note_id}"), Some(&w.developer), json!({}));
    assert_eq!(status, 400);
    assert_eq!(body["error"], "body, resolved are missing, exactly one parameter must be provided");
    let got = w.ok("GET", &format!("{url}/{id}"), &w.reporter, Value::Null, 200);
    let bodies: Vec<_> = got["notes"].as_array().unwrap().iter().map(|n| n["body"].clone()).collect();
    assert_eq!(bodies, [json!("Discussion body"), json!("updated body")]);
    // A note made alone is a discussion of its own, and replying makes it a thread.
    let alone = w.ok("POST", &format!("{ISSUE}/notes"), &w.reporter, json!({"body": "alone"}), 201);
    let list = w.ok("GET", &url, &w.reporter, Value::Null, 200);
    assert_eq!(list.as_array().unwrap().len(), 2, "{list}");
    assert_eq!(list[0]["id"], json!(id), "oldest first");
    assert_eq!(list[1]["individual_note"], true);
    assert_eq!(list[1]["notes"][0]["id"], alone["id"]);
    let alone_id = list[1]["id"].as_str().unwrap().to_string();
    w.ok("POST", &format!("{url}/{alone_id}/notes"), &w.developer, json!({"body": "re"}), 201);
    let converted = w.ok("GET", &format!("{url}/{alone_id}"), &w.reporter, Value::Null, 200);
    assert_eq!(converted["individual_note"], false);
    assert_eq!(converted["notes"][0]["type"], "DiscussionNote");
    assert_eq!(converted["notes"].as_array().unwrap().len(), 2);
    let (status, body) = w.call("GET", &format!("{url}/{}", "0".repeat(40)), Some(&w.reporter), Value::Null);
    assert_eq!((status, body["message"].clone()), (404, json!("404 Discussion Not Found")));
    w.ok("DELETE", &format!("{url}/{id}/notes/{note_id}"), &w.developer, Value::Null, 204);
    let got = w.ok("GET", &format!("{url}/{id}"), &w.reporter, Value::Null, 200);
    assert_eq!(got["notes"].as_array().unwrap().len(), 1);
    // The issue's user notes count: the thread's first note, the note alone and its reply.
    let issue = w.ok("GET", ISSUE, &w.reporter, Value::Null, 200);
    assert_eq!(issue["user_notes_count"], 3);
}

#[test]
fn merge_request_diff_discussions_and_resolving() {
    let w = world();
    let mr = w.ok("GET", MR, &w.reporter, Value::Null, 200);
    let refs = mr["diff_refs"].clone();
    let url = format!("{MR}/discussions");
    let position = |old: Value, new: Value| {
        json!({
            "base_sha": refs["base_sha"], "start_sha": refs["start_sha"], "head_sha": refs["head_sha"],
            "position_type": "text", "old_path": "a.txt", "new_path": "a.txt", "old_line": old, "new_line": new
        })
    };
    // a.txt: "two" became "2" (line 2), "four" was added (line 4).
    let d =
        w.ok("POST", &url, &w.reporter, json!({"body": "Why 2?", "position": position(Value::Null, json!(2))}), 201);
    let note = &d["notes"][0];
    assert_eq!(note["type"], "DiffNote");
    assert_eq!(note["commit_id"], Value::Null);
    assert_eq!(note["position"]["new_line"], 2);
    assert_eq!(note["position"]["head_sha"], refs["head_sha"]);
    let keys: Vec<&str> = note["position"].as_object().unwrap().keys().map(String::as_str).collect();
    let mut expected = vec![
        "base_sha",
        "start_sha",
        "head_sha",
        "old_path",
        "new_path",
        "position_type",
        "old_line",
        "new_line",
        "line_range",
    ];
    expected.sort_unstable();
    let mut keys = keys;
    keys.sort_unstable();
    assert_eq!(keys, expected);
    for (old, new) in [(json!(2), Value::Null), (json!(1), json!(1)), (Value::Null, json!(4))] {
        w.ok("POST", &url, &w.reporter, json!({"body": "ok", "position": position(old, new)}), 201);
    }
    let (status, body) =
        w.call("POST", &url, Some(&w.reporter), json!({"body": "x", "position": position(Value::Null, json!(99))}));
    assert_eq!(status, 400);
    assert_eq!(
        body["message"],
        r#"400 Bad request - Note {:line_code=>["can't be blank", "must be a valid line code"]}"#
    );
    let (status, body) =
        w.call("POST", &url, Some(&w.reporter), json!({"body": "x", "position": position(Value::Null, Value::Null)}));
    assert_eq!(status, 400);
    assert_eq!(
        body["message"],
        r#"400 Bad request - Note {:line_code=>["can't be blank", "must be a valid line code"], :position=>["is incomplete"]}"#
    );
    let mut wrong = position(Value::Null, json!(2));
    wrong["head_sha"] = json!("f".repeat(40));
    let (status, _) = w.call("POST", &url, Some(&w.reporter), json!({"body": "x", "position": wrong}));
    assert_eq!(status, 400, "shas the repository lacks name no line");
    let (status, body) =
        w.call("POST", &url, Some(&w.reporter), json!({"body": "x", "position": {"position_type": "text"}}));
    assert_eq!(status, 400);
    assert_eq!(
        body["error"],
        "position[base_sha] is missing, position[start_sha] is missing, position[head_sha] is missing"
    );
    let (status, body) = w.call(
        "POST",
        &url,
        Some(&w.reporter),
        json!({"body": "x", "position": {"base_sha": "a", "start_sha": "b", "head_sha": "c", "position_type": "pdf"}}),
    );
    assert_eq!((status, body["error"].clone()), (400, json!("position[position_type] does not have a valid value")));

    // Resolving: a Reporter who wrote neither note nor merge request may not; a Developer may.
    let id = d["id"].as_str().unwrap();
    let note_id = d["notes"][0]["id"].as_i64().unwrap();
    let plain = w.ok("POST", &url, &w.maintainer, json!({"body": "general"}), 201);
    let (status, _) = w.call(
        "PUT",
        &format!("{url}/{}/notes/{}", plain["id"].as_str().unwrap(), plain["notes"][0]["id"]),
        Some(&w.reporter),
        json!({"resolved": true}),
    );
    assert_eq!(status, 403);
    let resolved = w.ok("PUT", &format!("{url}/{id}/notes/{note_id}"), &w.developer, json!({"resolved": true}), 200);
    assert_eq!(resolved["resolved"], true);
    assert_eq!(resolved["resolved_by"]["username"], "dev");
    assert!(resolved["resolved_at"].is_string());
    let single = w.ok("POST", &format!("{MR}/notes"), &w.developer, json!({"body": "plain"}), 201);
    assert_eq!(single["resolvable"], false);
    let (status, body) =
        w.call("PUT", &format!("{url}/{id}/notes/{}", single["id"]), Some(&w.developer), json!({"resolved": true}));
    assert_eq!((status, body["message"].clone()), (400, json!("400 Bad request - Note is not resolvable")));

    // The project asks for every thread resolved: the merge request is blocked until they are.
    w.ok("PUT", PROJECT, &w.maintainer, json!({"only_allow_merge_if_all_discussions_are_resolved": true}), 200);
    let mr = w.ok("GET", MR, &w.reporter, Value::Null, 200);
    assert_eq!(mr["blocking_discussions_resolved"], false);
    assert_eq!(mr["detailed_merge_status"], "discussions_not_resolved");
    assert_eq!(mr["user_notes_count"], 6);
    let list = w.ok("GET", &format!("{url}?per_page=100"), &w.developer, Value::Null, 200);
    for discussion in list.as_array().unwrap() {
        if discussion["individual_note"] == false {
            let id = discussion["id"].as_str().unwrap();
            let done = w.ok("PUT", &format!("{url}/{id}"), &w.developer, json!({"resolved": true}), 200);
            assert!(done["notes"].as_array().unwrap().iter().all(|n| n["resolved"] == true), "{done}");
        }
    }
    let mr = w.ok("GET", MR, &w.reporter, Value::Null, 200);
    assert_eq!(mr["blocking_discussions_resolved"], true);
    assert_ne!(mr["detailed_merge_status"], "discussions_not_resolved");
    let (status, _) = w.call("PUT", &format!("{url}/{id}"), Some(&w.reporter), json!({"resolved": false}));
    assert_eq!(status, 403, "a Reporter who did not open the merge request may not unresolve");
}

#[test]
fn commit_comments_and_discussions() {
    let w = world();
    let commit = format!("{PROJECT}/repository/commits/feature");
    let sha = w.ok("GET", &commit, &w.reporter, Value::Null, 200)["id"].as_str().unwrap().to_string();
    let c = w.ok("POST", &format!("{commit}/comments"), &w.reporter, json!({"note": "This is a commit comment"}), 201);
    assert_eq!(c["note"], "This is a commit comment");
    assert_eq!(c["path"], Value::Null);
    assert_eq!(c["author"]["username"], "rita");
    // "Rename old, delete b" changed bin.dat only as a binary; the first commit of feature
    // added new.txt's line 1.
    let first = format!("{PROJECT}/repository/commits/feature~1");
    let on_line = w.ok(
        "POST",
        &format!("{first}/comments"),
        &w.reporter,
        json!({"note": "nice", "path": "new.txt", "line": 1, "line_type": "new"}),
        201,
    );
    assert_eq!((on_line["path"].clone(), on_line["line"].clone()), (json!("new.txt"), json!(1)));
    assert_eq!(on_line["line_type"], "new");
    let off = w.ok(
        "POST",
        &format!("{first}/comments"),
        &w.reporter,
        json!({"note": "off", "path": "new.txt", "line": 7, "line_type": "new"}),
        201,
    );
    assert_eq!(off["path"], Value::Null, "no such line: a comment on the commit");
    let list = w.ok("GET", &format!("{PROJECT}/repository/commits/{sha}/comments"), &w.reporter, Value::Null, 200);
    assert_eq!(list.as_array().unwrap().len(), 1, "by SHA or by branch, one commit: {list}");
    let (status, body) =
        w.call("GET", &format!("{PROJECT}/repository/commits/nope/comments"), Some(&w.reporter), Value::Null);
    assert_eq!((status, body["message"].clone()), (404, json!("404 Commit Not Found")));

    let url = format!("{commit}/discussions");
    let d = w.ok("POST", &url, &w.reporter, json!({"body": "Discussion body"}), 201);
    assert_eq!(d["notes"][0]["noteable_type"], "Commit");
    assert_eq!(d["notes"][0]["noteable_id"], Value::Null);
    assert_eq!(d["notes"][0]["noteable_iid"], Value::Null);
    assert_eq!(d["notes"][0]["resolvable"], false);
    let id = d["id"].as_str().unwrap();
    let reply = w.ok("POST", &format!("{url}/{id}/notes"), &w.reporter, json!({"body": "first note"}), 201);
    w.ok("PUT", &format!("{url}/{id}/notes/{}", reply["id"]), &w.reporter, json!({"body": "updated body"}), 200);
    let list = w.ok("GET", &url, &w.reporter, Value::Null, 200);
    assert_eq!(list.as_array().unwrap().len(), 2, "the comment and the thread: {list}");
    let alone = list[0]["id"].as_str().unwrap();
    assert_eq!(list[0]["individual_note"], true);
    let (status, body) = w.call("POST", &format!("{url}/{alone}/notes"), Some(&w.reporter), json!({"body": "re"}));
    assert_eq!((status, body["message"].clone()), (400, json!("400 Bad request - Discussion can not be replied to.")));
    let comments = w.ok("GET", &format!("{commit}/comments"), &w.reporter, Value::Null, 200);
    assert_eq!(comments.as_array().unwrap().len(), 3);
    w.ok("DELETE", &format!("{url}/{id}/notes/{}", reply["id"]), &w.reporter, Value::Null, 204);
}

#[test]
fn award_emoji_on_issues_merge_requests_and_notes() {
    let w = world();
    let url = format!("{ISSUE}/award_emoji");
    let award = w.ok("POST", &url, &w.reporter, json!({"name": "thumbsup"}), 201);
    let keys: Vec<&str> = award.as_object().unwrap().keys().map(String::as_str).collect();
    let mut expected = vec!["id", "name", "user", "created_at", "updated_at", "awardable_id", "awardable_type", "url"];
    expected.sort_unstable();
    let mut keys = keys;
    keys.sort_unstable();
    assert_eq!(keys, expected);
    assert_eq!(award["awardable_type"], "Issue");
    assert_eq!(award["user"]["username"], "rita");
    let (status, body) = w.call("POST", &url, Some(&w.reporter), json!({"name": "thumbsup"}));
    assert_eq!(
        (status, body["message"].clone()),
        (404, json!("404 Award Emoji Name has already been taken Not Found"))
    );
    let (status, body) = w.call("POST", &url, Some(&w.reporter), json!({"name": "no_such_emoji"}));
    assert_eq!(
        (status, body["message"].clone()),
        (404, json!("404 Award Emoji Name is not a valid emoji name Not Found"))
    );
    let (status, body) = w.call("POST", &url, Some(&w.reporter), json!({}));
    assert_eq!((status, body["error"].clone()), (400, json!("name is missing")));
    let (status, body) = w.call("POST", &url, None, json!({"name": "tada"}));
    assert_eq!((status, body["message"].clone()), (404, json!("404 Award Emoji Not Found")));
    w.ok("POST", &url, &w.developer, json!({"name": "thumbsup"}), 201);
    w.ok("POST", &url, &w.developer, json!({"name": "thumbsdown"}), 201);
    let issue = w.ok("GET", ISSUE, &w.reporter, Value::Null, 200);
    assert_eq!((issue["upvotes"].clone(), issue["downvotes"].clone()), (json!(2), json!(1)));
    let (status, listed) = w.call("GET", &url, None, Value::Null);
    assert_eq!(status, 200, "a public issue's awards read anonymously");
    assert_eq!(listed.as_array().unwrap().len(), 3);
    let id = award["id"].as_i64().unwrap();
    assert_eq!(w.ok("GET", &format!("{url}/{id}"), &w.developer, Value::Null, 200)["name"], "thumbsup");
    let (status, body) = w.call("DELETE", &format!("{url}/{id}"), Some(&w.developer), Value::Null);
    assert_eq!((status, body["message"].clone()), (401, json!("401 Unauthorized")), "not the award's user");
    w.ok("DELETE", &format!("{url}/{id}"), &w.reporter, Value::Null, 204);
    let (status, body) = w.call("GET", &format!("{url}/{id}"), Some(&w.reporter), Value::Null);
    assert_eq!((status, body["message"].clone()), (404, json!("404 Not found")));

    // On a note, and on a merge request.
    let note = w.ok("POST", &format!("{ISSUE}/notes"), &w.reporter, json!({"body": "This is an issue note"}), 201);
    let on_note = format!("{ISSUE}/notes/{}/award_emoji", note["id"]);
    let tractor = w.ok("POST", &on_note, &w.developer, json!({"name": "tractor"}), 201);
    assert_eq!(
        (tractor["awardable_type"].clone(), tractor["awardable_id"].clone()),
        (json!("Note"), note["id"].clone())
    );
    assert_eq!(w.ok("GET", &on_note, &w.developer, Value::Null, 200).as_array().unwrap().len(), 1);
    w.ok("POST", &format!("{MR}/award_emoji"), &w.reporter, json!({"name": "thumbsup"}), 201);
    let mr = w.ok("GET", MR, &w.reporter, Value::Null, 200);
    assert_eq!((mr["upvotes"].clone(), mr["downvotes"].clone()), (json!(1), json!(0)));
    // Deleting the note takes its awards along.
    w.ok("DELETE", &format!("{ISSUE}/notes/{}", note["id"]), &w.reporter, Value::Null, 204);
    let (status, _) = w.call("GET", &on_note, Some(&w.developer), Value::Null);
    assert_eq!(status, 404);
}
