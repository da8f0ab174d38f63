//! Project topics through the HTTP door: the Topics API (list for anyone in GitLab's order,
//! search, `without_projects`; get; create, update, delete and merge for administrators, with
//! the model's validations) and the topics of projects (`topics` on create and update make and
//! link topics, spelled as the topic is; `GET /projects?topic=` and `topic_id`; a topic renamed,
//! merged or deleted changes the projects that had it). SQLite under `cargo test`, PostgreSQL
//! under `make test-rust-postgres`.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use serde_json::{json, Value};

struct World {
    instance: TestInstance,
    root: String,
    user: String,
}

fn world() -> World {
    let instance = common::open_instance(json!({}));
    let root = instance.user_with_token("root", true);
    let user = instance.user_with_token("uma", false);
    World { instance, root, user }
}

impl World {
    fn call(&self, method: &str, target: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        self.instance.call(method, target, token, body)
    }

    fn ok(&self, method: &str, target: &str, body: Value) -> Value {
        let (status, value) = self.call(method, target, Some(&self.root), body);
        assert!(status < 300, "{method} {target}: {status} {value}");
        value
    }

    fn project(&self, path: &str, visibility: &str, topics: &[&str]) -> Value {
        let (status, project) = self.call(
            "POST",
            "/api/v4/projects",
            Some(&self.root),
            json!({"path": path, "visibility": visibility, "topics": topics}),
        );
        assert_eq!(status, 201, "{project}");
        project
    }

    fn names(&self, target: &str) -> Vec<String> {
        let list = self.ok("GET", target, json!(null));
        list.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
    }

    fn project_paths(&self, target: &str) -> Vec<String> {
        let list = self.ok("GET", target, json!(null));
        let mut paths: Vec<String> =
            list.as_array().unwrap().iter().map(|p| p["path"].as_str().unwrap().into()).collect();
        paths.sort();
        paths
    }
}

#[test]
fn administrators_manage_topics_with_gitlab_entity_and_validations() {
    let w = world();
    let (status, list) = w.call("GET", "/api/v4/topics", None, json!(null));
    assert_eq!((status, list), (200, json!([])), "an empty instance has no topics, and anyone may list");

    let (status, topic) = w.call(
        "POST",
        "/api/v4/topics",
        Some(&w.root),
        json!({"name": "my-topic", "title": "My topic", "description": "About it"}),
    );
    assert_eq!(status, 201, "{topic}");
    let id = topic["id"].as_i64().unwrap();
    assert_eq!(
        topic,
        json!({"id": id, "name": "my-topic", "title": "My topic", "description": "About it",
               "total_projects_count": 0, "organization_id": 1, "avatar_url": null})
    );
    let (_, _, raw) = w.instance.request("GET", &format!("/api/v4/topics/{id}"), &[], b"");
    let text = String::from_utf8(raw).unwrap();
    let keys =
        ["\"id\"", "\"name\"", "\"title\"", "\"description\"", "\"total_projects_count\"", "\"organization_id\""];
    let at: Vec<usize> = keys.iter().map(|k| text.find(k).unwrap()).collect();
    assert!(at.windows(2).all(|p| p[0] < p[1]), "GitLab's key order: {text}");

    // Who may write, and what the model refuses.
    let body = json!({"name": "other", "title": "Other"});
    assert_eq!(w.call("POST", "/api/v4/topics", None, body.clone()).0, 401);
    assert_eq!(w.call("POST", "/api/v4/topics", Some(&w.user), body.clone()).0, 403);
    assert_eq!(w.call("PUT", &format!("/api/v4/topics/{id}"), Some(&w.user), body.clone()).0, 403);
    assert_eq!(w.call("DELETE", &format!("/api/v4/topics/{id}"), Some(&w.user), json!(null)).0, 403);
    let (status, error) = w.call("POST", "/api/v4/topics", Some(&w.root), json!({"name": "x"}));
    assert_eq!((status, error), (400, json!({"error": "title is missing"})));
    let (status, error) = w.call("POST", "/api/v4/topics", Some(&w.root), json!({"name": "MY-TOPIC", "title": "t"}));
    assert_eq!((status, error), (400, json!({"message": {"name": ["has already been taken"]}})));
    let (status, error) = w.call("POST", "/api/v4/topics", Some(&w.root), json!({"name": "café", "title": "t"}));
    assert_eq!((status, error), (400, json!({"message": {"name": ["must only include ASCII characters"]}})));
    let (status, error) = w.call(
        "POST",
        "/api/v4/topics",
        Some(&w.root),
        json!({"name": "long", "title": "t", "description": "d".repeat(1025)}),
    );
    assert_eq!(
        (status, error),
        (400, json!({"message": {"description": ["is too long (maximum is 1024 characters)"]}}))
    );
    assert_eq!(w.call("GET", "/api/v4/topics/999", None, json!(null)), (404, json!({"message": "404 Not found"})));
    assert_eq!(w.call("GET", "/api/v4/topics/abc", None, json!(null)), (400, json!({"error": "id is invalid"})));

    // Update: each attribute alone.
    let updated = w.ok("PUT", &format!("/api/v4/topics/{id}"), json!({"description": "Updated"}));
    assert_eq!((updated["name"].clone(), updated["description"].clone()), (json!("my-topic"), json!("Updated")));
    let (_, got) = w.call("GET", &format!("/api/v4/topics/{id}"), None, json!(null));
    assert_eq!(got["description"], "Updated");

    // Merge: the same topic twice is refused; otherwise the source is gone.
    let second = w.ok("POST", "/api/v4/topics", json!({"name": "my-second-topic", "title": "Second"}));
    let second_id = second["id"].as_i64().unwrap();
    let (status, error) =
        w.call("POST", "/api/v4/topics/merge", Some(&w.root), json!({"source_topic_id": id, "target_topic_id": id}));
    assert_eq!((status, error), (400, json!({"message": "The source topic and the target topic are identical."})));
    let merged = w.ok("POST", "/api/v4/topics/merge", json!({"source_topic_id": id, "target_topic_id": second_id}));
    assert_eq!(merged["id"], second_id);
    assert_eq!(w.call("GET", &format!("/api/v4/topics/{id}"), None, json!(null)).0, 404);
    let (status, _) = w.call("DELETE", &format!("/api/v4/topics/{second_id}"), Some(&w.root), json!(null));
    assert_eq!(status, 204);
    assert_eq!(w.names("/api/v4/topics"), Vec::<String>::new());
}

#[test]
fn projects_topics_make_link_and_follow_their_topics() {
    let w = world();
    w.ok("POST", "/api/v4/topics", json!({"name": "Rust", "title": "Rust"}));
    let alpha = w.project("alpha", "public", &["rust", "cli", "cli"]);
    assert_eq!(alpha["topics"], json!(["Rust", "cli"]), "the topic's spelling, each once: {alpha}");
    assert_eq!(alpha["tag_list"], alpha["topics"]);
    w.project("beta", "public", &["cli"]);
    w.project("gamma", "private", &["cli", "web"]);
    w.project("delta", "public", &[]);

    // Counts from the links; the order is most public and internal projects first, then id.
    let topics = w.ok("GET", "/api/v4/topics", json!(null));
    let counts: Vec<(String, i64)> = topics
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap().into(), t["total_projects_count"].as_i64().unwrap()))
        .collect();
    assert_eq!(counts, vec![("cli".into(), 3), ("Rust".into(), 1), ("web".into(), 1)]);
    let (_, cli) = w.call("GET", "/api/v4/topics?search=cli", None, json!(null));
    let cli_id = cli[0]["id"].as_i64().unwrap();
    assert_eq!(cli[0]["title"], "cli", "a topic made by a project's list is titled as named");
    assert_eq!(w.names("/api/v4/topics?search=cl"), Vec::<String>::new(), "under three characters: whole names only");
    assert_eq!(w.names("/api/v4/topics?search=WEB"), vec!["web"]);
    assert_eq!(w.names("/api/v4/topics?search=rus"), vec!["Rust"]);
    assert_eq!(w.names("/api/v4/topics?per_page=1&page=2"), vec!["Rust"]);
    w.ok("POST", "/api/v4/topics", json!({"name": "lonely", "title": "Lonely"}));
    assert_eq!(w.names("/api/v4/topics?without_projects=true"), vec!["lonely"]);

    // Project lists by topic: every named topic, by name or id; visibility still applies.
    assert_eq!(w.project_paths("/api/v4/projects?topic=cli"), vec!["alpha", "beta", "gamma"]);
    assert_eq!(w.project_paths("/api/v4/projects?topic=CLI,rust"), vec!["alpha"]);
    assert_eq!(w.project_paths(&format!("/api/v4/projects?topic_id={cli_id}")), vec!["alpha", "beta", "gamma"]);
    assert_eq!(w.project_paths("/api/v4/projects?topic=nope"), Vec::<String>::new());
    let (_, seen) = w.call("GET", "/api/v4/projects?topic=cli", Some(&w.user), json!(null));
    assert_eq!(seen.as_array().unwrap().len(), 2, "the private one is not the user's: {seen}");

    // An update replaces the list and the links.
    let beta = w.ok("PUT", "/api/v4/projects/root%2Fbeta", json!({"topics": ["web"]}));
    assert_eq!(beta["topics"], json!(["web"]));
    assert_eq!(w.project_paths("/api/v4/projects?topic=cli"), vec!["alpha", "gamma"]);

    // Renamed, merged, deleted: the projects follow.
    w.ok("PUT", &format!("/api/v4/topics/{cli_id}"), json!({"name": "command-line"}));
    let alpha = w.ok("GET", "/api/v4/projects/root%2Falpha", json!(null));
    assert_eq!(alpha["topics"], json!(["Rust", "command-line"]));
    let (_, web) = w.call("GET", "/api/v4/topics?search=web", None, json!(null));
    let web_id = web[0]["id"].as_i64().unwrap();
    w.ok("POST", "/api/v4/topics/merge", json!({"source_topic_id": web_id, "target_topic_id": cli_id}));
    let gamma = w.ok("GET", "/api/v4/projects/root%2Fgamma", json!(null));
    assert_eq!(gamma["topics"], json!(["command-line"]), "gamma had both: the target once");
    let beta = w.ok("GET", "/api/v4/projects/root%2Fbeta", json!(null));
    assert_eq!(beta["topics"], json!(["command-line"]));
    let (_, merged) = w.call("GET", &format!("/api/v4/topics/{cli_id}"), None, json!(null));
    assert_eq!(merged["total_projects_count"], 3);
    let (status, _) = w.call("DELETE", &format!("/api/v4/topics/{cli_id}"), Some(&w.root), json!(null));
    assert_eq!(status, 204);
    let alpha = w.ok("GET", "/api/v4/projects/root%2Falpha", json!(null));
    assert_eq!(alpha["topics"], json!(["Rust"]));
    assert_eq!(w.project_paths(&format!("/api/v4/projects?topic_id={cli_id}")), Vec::<String>::new());
}
