//! Issues (issue #40, decisions D10) through the HTTP door: the entity in GitLab's key order,
//! iids per project (concurrent creates included), Renovate's exact calls, every list filter,
//! updates with `state_event` and their system notes, labels created on the fly, delete by
//! Owners only, the visibility matrix of confidential issues (author, assignee, Reporters,
//! administrators see them; other guests and outsiders get 404 and never find them in a
//! list), the group and global lists, and the events announced. SQLite under `cargo test`,
//! PostgreSQL under `make test-rust-postgres`.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use forgecore::events::{Event, IssueAction, Listener};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

pub struct World {
    pub instance: TestInstance,
    pub root: String,
    pub owner: String,
    pub dev: String,
    pub reporter: String,
    pub guest: String,
    pub guest2: String,
    pub outsider: String,
}

/// Group `top` (private) with project `top/app`, and its owner, developer, reporter and two
/// guests; an outsider; a public group `open` with the public project `open/site`.
fn world() -> World {
    let instance = common::open_instance(json!({}));
    let root = instance.user_with_token("root", true);
    let owner = instance.user_with_token("olivia", false);
    let dev = instance.user_with_token("dave", false);
    let reporter = instance.user_with_token("rita", false);
    let guest = instance.user_with_token("gus", false);
    let guest2 = instance.user_with_token("gina", false);
    let outsider = instance.user_with_token("otto", false);
    let top = instance.admin_ok(json!({"command": "group_add", "path": "top"}));
    let open = instance.admin_ok(json!({"command": "group_add", "path": "open", "visibility": "public"}));
    for (path, group, visibility) in [("app", &top, "private"), ("site", &open, "public")] {
        let (status, project) = instance.call(
            "POST",
            "/api/v4/projects",
            Some(&root),
            json!({"path": path, "namespace_id": group["id"], "visibility": visibility}),
        );
        assert_eq!(status, 201, "{project}");
    }
    for (user, level) in [("olivia", 50), ("dave", 30), ("rita", 20), ("gus", 10), ("gina", 10)] {
        instance.admin_ok(json!({"command": "member_add", "group": "top", "username": user, "access_level": level}));
    }
    World { instance, root, owner, dev, reporter, guest, guest2, outsider }
}

const APP: &str = "/api/v4/projects/top%2Fapp";

impl World {
    fn call(&self, method: &str, target: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        self.instance.call(method, target, token, body)
    }

    fn create(&self, token: &str, body: Value) -> Value {
        let (status, issue) = self.call("POST", &format!("{APP}/issues"), Some(token), body);
        assert_eq!(status, 201, "{issue}");
        issue
    }

    fn iids(&self, query: &str, token: Option<&str>) -> Vec<i64> {
        let (status, body) = self.call("GET", &format!("{APP}/issues{query}"), token, Value::Null);
        assert_eq!(status, 200, "{query}: {body}");
        body.as_array().unwrap().iter().map(|i| i["iid"].as_i64().unwrap()).collect()
    }

    fn user_id(&self, token: &str) -> i64 {
        self.call("GET", "/api/v4/user", Some(token), Value::Null).1["id"].as_i64().unwrap()
    }
}

/// The keys of the JSON object `text` holds at its top level, in order.
fn top_keys(text: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut depth = 0;
    let mut chars = text.char_indices().peekable();
    let bytes = text.as_bytes();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            '"' => {
                let start = i + 1;
                let mut end = start;
                while let Some((j, c)) = chars.next() {
                    if c == '\\' {
                        chars.next();
                    } else if c == '"' {
                        end = j;
                        break;
                    }
                }
                let next = text[end + 1..].trim_start();
                if depth == 1 && next.starts_with(':') && bytes[start - 2] != b':' {
                    keys.push(text[start..end].to_string());
                }
            }
            _ => {}
        }
    }
    keys
}

#[test]
fn the_issue_entity_as_gitlab_writes_it() {
    let w = world();
    let issue = w.create(
        &w.dev,
        json!({"title": "Dependency Dashboard", "description": "- [ ] a\n- [x] b", "labels": "renovate,dependencies"}),
    );
    assert_eq!(issue["iid"], 1);
    assert_eq!(issue["state"], "opened");
    assert_eq!(issue["labels"], json!(["dependencies", "renovate"]));
    assert_eq!(issue["author"]["username"], "dave");
    assert_eq!(issue["references"], json!({"short": "#1", "relative": "#1", "full": "top/app#1"}));
    assert!(issue["web_url"].as_str().unwrap().ends_with("/top/app/-/issues/1"), "{issue}");
    assert!(issue["_links"]["notes"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/api/v4/projects/{}/issues/1/notes", issue["project_id"])));
    assert_eq!(issue["task_completion_status"], json!({"count": 2, "completed_count": 1}));
    assert_eq!(issue["has_tasks"], true);
    assert_eq!(issue["user_notes_count"], 0);
    assert_eq!(issue["type"], "ISSUE");
    assert!(issue["created_at"].as_str().unwrap().ends_with('Z'));
    // Labels named on an issue are created, with GitLab's default color.
    let (_, label) = w.call("GET", &format!("{APP}/labels/renovate"), Some(&w.dev), Value::Null);
    assert_eq!(label["color"], "#6699cc");

    let (_, _, raw) = w.instance.request("GET", &format!("{APP}/issues/1"), &[("PRIVATE-TOKEN", w.dev.as_str())], b"");
    let keys = top_keys(&String::from_utf8(raw).unwrap());
    let expected = [
        "id",
        "iid",
        "project_id",
        "title",
        "description",
        "state",
        "created_at",
        "updated_at",
        "closed_at",
        "closed_by",
        "labels",
        "milestone",
        "assignees",
        "author",
        "type",
        "assignee",
        "user_notes_count",
        "merge_requests_count",
        "upvotes",
        "downvotes",
        "due_date",
        "confidential",
        "discussion_locked",
        "issue_type",
        "web_url",
        "time_stats",
        "task_completion_status",
        "has_tasks",
        "task_status",
        "_links",
        "references",
        "severity",
        "subscribed",
        "moved_to_id",
        "imported",
        "imported_from",
        "service_desk_reply_to",
    ];
    assert_eq!(keys, expected);
    // A list's entities have no `subscribed`.
    let (_, _, raw) = w.instance.request("GET", &format!("{APP}/issues"), &[("PRIVATE-TOKEN", w.dev.as_str())], b"");
    let text = String::from_utf8(raw).unwrap();
    assert!(!text.contains("\"subscribed\""), "{text}");
    // `with_labels_details`.
    let (_, detailed) = w.call("GET", &format!("{APP}/issues/1?with_labels_details=true"), Some(&w.dev), Value::Null);
    assert_eq!(detailed["labels"][0]["name"], "dependencies");
    assert_eq!(detailed["labels"][0]["color"], "#6699cc");
    // Unknown iid, a global id, bad input.
    let (status, body) = w.call("GET", &format!("{APP}/issues/99"), Some(&w.dev), Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Not found"})));
    let (status, _) = w.call("GET", &format!("{APP}/issues/abc"), Some(&w.dev), Value::Null);
    assert_eq!(status, 400);
    let (status, body) = w.call("POST", &format!("{APP}/issues"), Some(&w.dev), json!({}));
    assert_eq!((status, body), (400, json!({"error": "title is missing"})));
    let (status, body) = w.call("POST", &format!("{APP}/issues"), Some(&w.dev), json!({"title": " "}));
    assert_eq!((status, body), (400, json!({"message": {"title": ["can't be blank"]}})));
}

#[test]
fn renovates_calls_answer() {
    let w = world();
    let bot = &w.dev;
    // The dashboard lookup before anything exists.
    assert_eq!(w.iids("?state=opened&scope=created_by_me", Some(bot)), Vec::<i64>::new());
    let dashboard =
        w.create(bot, json!({"title": "Dependency Dashboard", "description": "v1", "labels": ["renovate"]}));
    w.create(&w.reporter, json!({"title": "Someone else's"}));
    assert_eq!(w.iids("?state=opened&scope=created_by_me", Some(bot)), [1]);
    assert_eq!(w.iids("?state=opened&scope=created_by_me&search=Dependency%20Dashboard", Some(bot)), [1]);
    assert_eq!(w.iids("?state=opened&scope=created_by_me&search=nothing", Some(bot)), Vec::<i64>::new());
    let (status, updated) = w.call(
        "PUT",
        &format!("{APP}/issues/{}", dashboard["iid"]),
        Some(bot),
        json!({"title": "Dependency Dashboard", "description": "v2"}),
    );
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["description"], "v2");
    // Updated in place: still one issue of the bot's.
    assert_eq!(w.iids("?state=opened&scope=created_by_me", Some(bot)), [1]);
    // Query-string arrays as Renovate and client-go send them.
    assert_eq!(w.iids("?iids[]=2&iids[]=1&sort=asc", Some(bot)), [1, 2]);
}

#[test]
fn list_filters_and_order() {
    let w = world();
    let gus = w.user_id(&w.guest);
    w.create(&w.dev, json!({"title": "alpha bug", "labels": "bug", "assignee_ids": [gus]}));
    w.create(&w.reporter, json!({"title": "beta", "description": "mentions alpha", "labels": ["bug", "ui"]}));
    let third = w.create(&w.dev, json!({"title": "gamma"}));
    let (status, _) =
        w.call("PUT", &format!("{APP}/issues/{}", third["iid"]), Some(&w.dev), json!({"state_event": "close"}));
    assert_eq!(status, 200);
    let t = Some(w.dev.as_str());
    assert_eq!(w.iids("", t), [3, 2, 1], "newest first by default");
    assert_eq!(w.iids("?sort=asc", t), [1, 2, 3]);
    assert_eq!(w.iids("?order_by=title&sort=asc", t), [1, 2, 3]);
    assert_eq!(w.iids("?order_by=updated_at", t)[0], 3, "the closed one changed last");
    assert_eq!(w.iids("?state=opened", t), [2, 1]);
    assert_eq!(w.iids("?state=closed", t), [3]);
    assert_eq!(w.iids("?labels=bug", t), [2, 1]);
    assert_eq!(w.iids("?labels=bug,ui", t), [2]);
    assert_eq!(w.iids("?labels=None", t), [3]);
    assert_eq!(w.iids("?labels=Any&sort=asc", t), [1, 2]);
    assert_eq!(w.iids("?search=ALPHA", t), [2, 1]);
    assert_eq!(w.iids("?search=alpha&in=title", t), [1]);
    assert_eq!(w.iids("?search=alpha&in=description", t), [2]);
    assert_eq!(w.iids("?author_username=rita", t), [2]);
    assert_eq!(w.iids(&format!("?author_id={}", w.user_id(&w.dev)), t), [3, 1]);
    assert_eq!(w.iids(&format!("?assignee_id={gus}"), t), [1]);
    assert_eq!(w.iids("?assignee_id=None", t), [3, 2]);
    assert_eq!(w.iids("?assignee_id=Any", t), [1]);
    assert_eq!(w.iids("?scope=assigned_to_me", Some(&w.guest)), [1]);
    assert_eq!(w.iids("?scope=created-by-me", Some(&w.reporter)), [2]);
    assert_eq!(w.iids("?iids[]=1&iids[]=3", t), [3, 1]);
    assert_eq!(w.iids("?created_after=2000-01-01T00:00:00Z", t).len(), 3);
    assert_eq!(w.iids("?created_after=2999-01-01", t), Vec::<i64>::new());
    assert_eq!(w.iids("?updated_before=2000-01-01", t), Vec::<i64>::new());
    assert_eq!(w.iids("?confidential=true", t), Vec::<i64>::new());
    for bad in ["?state=nope", "?scope=mine", "?order_by=size", "?sort=up", "?created_after=soon", "?iids[]=x"] {
        let (status, body) = w.call("GET", &format!("{APP}/issues{bad}"), t, Value::Null);
        assert_eq!(status, 400, "{bad}: {body}");
    }
    // Pagination headers.
    let (_, headers, _) = w.instance.request(
        "GET",
        &format!("{APP}/issues?per_page=2&page=2"),
        &[("PRIVATE-TOKEN", w.dev.as_str())],
        b"",
    );
    let header = |name: &str| headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
    assert_eq!(header("x-total").as_deref(), Some("3"));
    assert_eq!(header("x-page").as_deref(), Some("2"));
    assert_eq!(w.iids("?per_page=2&page=2", t), [1]);
}

#[test]
fn updates_close_reopen_and_their_system_notes() {
    let w = world();
    let issue = w.create(&w.guest, json!({"title": "Release failed", "labels": "semantic-release"}));
    assert_eq!(issue["labels"], json!([]), "a guest sets no labels");
    let url = format!("{APP}/issues/{}", issue["iid"]);
    let (status, body) = w.call("PUT", &url, Some(&w.dev), json!({}));
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].as_str().unwrap().ends_with("are missing, at least one parameter must be provided"));
    let (status, _) = w.call("PUT", &url, Some(&w.dev), json!({"state_event": "shut"}));
    assert_eq!(status, 400);
    // Another guest may not change it; its author may.
    let (status, _) = w.call("PUT", &url, Some(&w.guest2), json!({"title": "x"}));
    assert_eq!(status, 403);
    let (status, closed) = w.call("PUT", &url, Some(&w.guest), json!({"state_event": "close"}));
    assert_eq!(status, 200, "{closed}");
    assert_eq!(closed["state"], "closed");
    assert_eq!(closed["closed_by"]["username"], "gus");
    assert!(closed["closed_at"].is_string());
    let (status, reopened) = w.call("PUT", &url, Some(&w.dev), json!({"state_event": "reopen"}));
    assert_eq!(status, 200);
    assert_eq!((reopened["state"].clone(), reopened["closed_by"].clone()), (json!("opened"), Value::Null));
    let (_, notes) = w.call("GET", &format!("{url}/notes?sort=asc"), Some(&w.dev), Value::Null);
    let bodies: Vec<(&str, bool)> = notes
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["body"].as_str().unwrap(), n["system"].as_bool().unwrap()))
        .collect();
    assert_eq!(bodies, [("closed", true), ("reopened", true)]);
    assert_eq!(reopened["user_notes_count"], 0, "system notes are not user notes");
    // Labels: replace, add, remove.
    let put = |body: Value| w.call("PUT", &url, Some(&w.reporter), body).1["labels"].clone();
    assert_eq!(put(json!({"labels": "a,b"})), json!(["a", "b"]));
    assert_eq!(put(json!({"add_labels": "c"})), json!(["a", "b", "c"]));
    assert_eq!(put(json!({"remove_labels": ["a", "c"]})), json!(["b"]));
    assert_eq!(put(json!({"labels": ""})), json!([]));
    // Assignees.
    let gina = w.user_id(&w.guest2);
    let (_, assigned) = w.call("PUT", &url, Some(&w.reporter), json!({"assignee_ids": [gina]}));
    assert_eq!(assigned["assignee"]["username"], "gina");
    assert_eq!(assigned["assignees"].as_array().unwrap().len(), 1);
    let (_, cleared) = w.call("PUT", &url, Some(&w.reporter), json!({"assignee_id": 0}));
    assert_eq!(cleared["assignees"], json!([]));
    // Anonymous writes are 401; outsiders of a private project 404.
    let (status, _) = w.call("PUT", &url, None, json!({"title": "x"}));
    assert_eq!(status, 401);
    let (status, _) = w.call("PUT", &url, Some(&w.outsider), json!({"title": "x"}));
    assert_eq!(status, 404);
}

#[test]
fn owners_and_administrators_delete() {
    let w = world();
    w.create(&w.dev, json!({"title": "one"}));
    w.create(&w.dev, json!({"title": "two"}));
    let (status, _) = w.call("DELETE", &format!("{APP}/issues/1"), Some(&w.dev), Value::Null);
    assert_eq!(status, 403);
    let (status, _) = w.call("DELETE", &format!("{APP}/issues/1"), Some(&w.owner), Value::Null);
    assert_eq!(status, 204);
    let (status, body) = w.call("DELETE", &format!("{APP}/issues/1"), Some(&w.owner), Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Issue Not Found"})));
    let (status, _) = w.call("DELETE", &format!("{APP}/issues/2"), Some(&w.root), Value::Null);
    assert_eq!(status, 204);
    // iids are never reused.
    assert_eq!(w.create(&w.dev, json!({"title": "three"}))["iid"], 3);
}

#[test]
fn confidential_issues_are_seen_only_by_those_gitlab_lets() {
    let w = world();
    let gina = w.user_id(&w.guest2);
    w.create(&w.dev, json!({"title": "public one"}));
    let secret = w.create(&w.guest, json!({"title": "secret", "confidential": true}));
    assert_eq!(secret["confidential"], true, "anyone opening an issue may make it confidential");
    let other = w.create(&w.dev, json!({"title": "assigned secret", "confidential": true, "assignee_ids": [gina]}));
    let (s, o) = (secret["iid"].as_i64().unwrap(), other["iid"].as_i64().unwrap());
    let cases: [(&str, &str, bool, bool); 6] = [
        ("author", &w.guest, true, false),
        ("assignee", &w.guest2, false, true),
        ("reporter", &w.reporter, true, true),
        ("developer", &w.dev, true, true),
        ("admin", &w.root, true, true),
        ("outsider", &w.outsider, false, false),
    ];
    for (who, token, sees_secret, sees_other) in cases {
        for (iid, sees) in [(s, sees_secret), (o, sees_other)] {
            let (status, _) = w.call("GET", &format!("{APP}/issues/{iid}"), Some(token), Value::Null);
            let expected = if sees { 200 } else { 404 };
            assert_eq!(status, expected, "{who} GET issue {iid}");
            let (status, _) = w.call("GET", &format!("{APP}/issues/{iid}/notes"), Some(token), Value::Null);
            assert_eq!(status, expected, "{who} GET notes of {iid}");
            let (status, _) = w.call("POST", &format!("{APP}/issues/{iid}/notes"), Some(token), json!({"body": "hi"}));
            assert_eq!(status, if sees { 201 } else { 404 }, "{who} POST a note on {iid}");
            let (status, _) = w.call("PUT", &format!("{APP}/issues/{iid}"), Some(token), json!({"title": "t"}));
            assert_eq!(status, if sees { 200 } else { 404 }, "{who} PUT {iid}");
        }
        if who == "outsider" {
            let (status, _) = w.call("GET", &format!("{APP}/issues"), Some(token), Value::Null);
            assert_eq!(status, 404);
            continue;
        }
        let listed = w.iids("?sort=asc", Some(token));
        let mut expected = vec![1];
        if sees_secret {
            expected.push(s);
        }
        if sees_other {
            expected.push(o);
        }
        assert_eq!(listed, expected, "{who}'s list");
        let (_, global) = w.call("GET", "/api/v4/issues?scope=all&sort=asc", Some(token), Value::Null);
        let global: Vec<i64> = global.as_array().unwrap().iter().map(|i| i["iid"].as_i64().unwrap()).collect();
        assert_eq!(global, expected, "{who}'s global list");
        let (_, group) = w.call("GET", "/api/v4/groups/top/issues?sort=asc", Some(token), Value::Null);
        assert_eq!(group.as_array().unwrap().len(), expected.len(), "{who}'s group list");
    }
    // Making an issue confidential takes it out of a guest's sight.
    let (status, _) = w.call("PUT", &format!("{APP}/issues/1"), Some(&w.reporter), json!({"confidential": true}));
    assert_eq!(status, 200);
    let (status, _) = w.call("GET", &format!("{APP}/issues/1"), Some(&w.guest2), Value::Null);
    assert_eq!(status, 404);
}

#[test]
fn global_and_group_lists() {
    let w = world();
    w.create(&w.dev, json!({"title": "private"}));
    let (status, public) =
        w.call("POST", "/api/v4/projects/open%2Fsite/issues", Some(&w.outsider), json!({"title": "from outside"}));
    assert_eq!(status, 201, "anyone signed in opens issues on a public project: {public}");
    let (status, _) = w.call("POST", "/api/v4/projects/open%2Fsite/issues", None, json!({"title": "anon"}));
    assert_eq!(status, 401);
    // `/issues` is the caller's own by default.
    let (status, mine) = w.call("GET", "/api/v4/issues", Some(&w.outsider), Value::Null);
    assert_eq!(status, 200);
    assert_eq!(mine.as_array().unwrap().len(), 1);
    assert_eq!(mine[0]["references"]["relative"], "open/site#1", "full outside a project");
    let (status, _) = w.call("GET", "/api/v4/issues", None, Value::Null);
    assert_eq!(status, 401);
    let (status, all) = w.call("GET", "/api/v4/issues?scope=all", None, Value::Null);
    assert_eq!(status, 200);
    assert_eq!(all.as_array().unwrap().iter().map(|i| i["title"].clone()).collect::<Vec<_>>(), [json!("from outside")]);
    let (_, all) = w.call("GET", "/api/v4/issues?scope=all", Some(&w.dev), Value::Null);
    assert_eq!(all.as_array().unwrap().len(), 2);
    let (status, group) = w.call("GET", "/api/v4/groups/top/issues", Some(&w.dev), Value::Null);
    assert_eq!(status, 200);
    assert_eq!(group.as_array().unwrap().iter().map(|i| i["title"].clone()).collect::<Vec<_>>(), [json!("private")]);
    let (status, _) = w.call("GET", "/api/v4/groups/top/issues", Some(&w.outsider), Value::Null);
    assert_eq!(status, 404);
    // Anyone may list a public project's issues, anonymously too.
    let (status, listed) = w.call("GET", "/api/v4/projects/open%2Fsite/issues", None, Value::Null);
    assert_eq!((status, listed.as_array().unwrap().len()), (200, 1));
}

#[test]
fn concurrent_creates_take_distinct_iids() {
    let w = world();
    let threads = 8;
    let each = 5;
    std::thread::scope(|scope| {
        for n in 0..threads {
            let w = &w;
            scope.spawn(move || {
                for k in 0..each {
                    let (status, body) =
                        w.call("POST", &format!("{APP}/issues"), Some(&w.dev), json!({"title": format!("{n}-{k}")}));
                    assert_eq!(status, 201, "{body}");
                }
            });
        }
    });
    let mut iids = w.iids("?per_page=100&sort=asc", Some(&w.dev));
    iids.sort();
    assert_eq!(iids, (1..=(threads * each) as i64).collect::<Vec<_>>());
    // Another project's iids start at 1.
    let (_, other) = w.call("POST", "/api/v4/projects/open%2Fsite/issues", Some(&w.dev), json!({"title": "x"}));
    assert_eq!(other["iid"], 1);
}

#[derive(Default)]
struct Heard(Mutex<Vec<Event>>);

impl Listener for Heard {
    fn heard(&self, event: &Event) {
        self.0.lock().unwrap().push(event.clone());
    }
}

#[test]
fn issue_changes_and_notes_are_announced() {
    let w = world();
    let heard = Arc::new(Heard::default());
    w.instance.ctx().events.listen(heard.clone());
    // The listener hears what the Rust context serves (`handle`, not the FFI's own context).
    let call = |method: &str, target: &str, body: Value| {
        let (status, _, _) = w.instance.handle(
            method,
            target,
            &[("PRIVATE-TOKEN", w.dev.as_str()), ("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        );
        status
    };
    assert_eq!(call("POST", &format!("{APP}/issues"), json!({"title": "t"})), 201);
    assert_eq!(call("PUT", &format!("{APP}/issues/1"), json!({"title": "u"})), 200);
    assert_eq!(call("PUT", &format!("{APP}/issues/1"), json!({"state_event": "close"})), 200);
    assert_eq!(call("PUT", &format!("{APP}/issues/1"), json!({"state_event": "reopen"})), 200);
    assert_eq!(call("PUT", &format!("{APP}/issues/1"), json!({"title": "u"})), 200, "no change, no event");
    assert_eq!(call("POST", &format!("{APP}/issues/1/notes"), json!({"body": "hi"})), 201);
    let events = heard.0.lock().unwrap().clone();
    let actions: Vec<IssueAction> =
        events.iter().filter_map(|e| if let Event::Issue(i) = e { Some(i.action) } else { None }).collect();
    assert_eq!(actions, [IssueAction::Opened, IssueAction::Updated, IssueAction::Closed, IssueAction::Reopened]);
    let notes: Vec<&Event> = events.iter().filter(|e| matches!(e, Event::NoteCreated(_))).collect();
    assert_eq!(notes.len(), 1);
    let Event::NoteCreated(note) = notes[0] else { unreachable!() };
    assert_eq!(note.noteable_type, "Issue");
}
