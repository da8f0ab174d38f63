//! Commit statuses and their external pipelines (issue #42, `gitlab-hooks-releases-statuses.md`
//! §3): what Renovate and Atlantis post and read, GitLab's state machine and its refusal texts,
//! one pipeline per sha and ref with its composite status, retried statuses, the commit's
//! `last_pipeline`, the pipelines routes, the merge gate, who may post and read, and the
//! events. Runs on SQLite and, with `FORGECORE_TEST_POSTGRES`, on PostgreSQL.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{git_text, TestInstance, Writers};
use forgecore::api::statuses::{self, Gate};
use forgecore::events::{Event, Listener};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

const PROJECT: &str = "/api/v4/projects/fx%2Fwork";

#[derive(Default)]
struct Heard(Mutex<Vec<Event>>);

impl Listener for Heard {
    fn heard(&self, event: &Event) {
        self.0.lock().unwrap().push(event.clone());
    }
}

struct World {
    instance: TestInstance,
    work: PathBuf,
    tokens: Writers,
    heard: Arc<Heard>,
}

fn world() -> World {
    let instance = common::open_instance(json!({}));
    let work = instance.fixture_repos().join("work");
    let tokens = instance.writers("fx/work");
    let heard = Arc::new(Heard::default());
    instance.ctx().events.listen(heard.clone());
    World { instance, work, tokens, heard }
}

impl World {
    fn call(&self, method: &str, target: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        let headers: Vec<(&str, &str)> = token.map(|t| ("PRIVATE-TOKEN", t)).into_iter().collect();
        let body = if body.is_null() { Vec::new() } else { body.to_string().into_bytes() };
        let (status, _, bytes) = self.instance.handle(method, target, &headers, &body);
        (status, if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).unwrap() })
    }

    fn post(&self, sha: &str, body: Value) -> (u16, Value) {
        self.call("POST", &format!("{PROJECT}/statuses/{sha}"), Some(&self.tokens.developer), body)
    }

    fn statuses(&self, sha: &str, query: &str) -> Vec<Value> {
        let (status, body) = self.call(
            "GET",
            &format!("{PROJECT}/repository/commits/{sha}/statuses{query}"),
            Some(&self.tokens.reporter),
            Value::Null,
        );
        assert_eq!(status, 200, "{body}");
        body.as_array().unwrap().clone()
    }

    fn gate(&self, sha: &str) -> Gate {
        let project_id = self.call("GET", PROJECT, None, Value::Null).1["id"].as_i64().unwrap();
        self.instance.ctx().store.read(|db| statuses::merge_gate(db, project_id, sha)).unwrap()
    }
}

#[test]
fn renovate_and_atlantis_post_and_read_statuses() {
    let w = world();
    let sha = git_text(&w.work, &["rev-parse", "main"]);
    // No status: no pipeline, the merge gate open at once (D10), `last_pipeline` null.
    let (_, commit) = w.call("GET", &format!("{PROJECT}/repository/commits/{sha}"), None, Value::Null);
    assert_eq!((commit["last_pipeline"].clone(), commit["status"].clone()), (Value::Null, Value::Null));
    assert!(w.statuses(&sha, "").is_empty());
    assert_eq!(w.gate(&sha), Gate::NoPipeline);

    // Renovate: pending with a context; the ref is the first branch containing the commit.
    let (status, text) = {
        let body = json!({"state": "pending", "context": "renovate/stability-days", "description": "waiting",
                          "target_url": "https://example.com/x"})
        .to_string();
        let (status, _, bytes) = w.instance.handle(
            "POST",
            &format!("{PROJECT}/statuses/{sha}"),
            &[("PRIVATE-TOKEN", &w.tokens.developer)],
            body.as_bytes(),
        );
        (status, String::from_utf8(bytes).unwrap())
    };
    assert_eq!(status, 201, "{text}");
    let keys = [
        "id",
        "sha",
        "ref",
        "status",
        "name",
        "target_url",
        "description",
        "created_at",
        "started_at",
        "finished_at",
        "allow_failure",
        "coverage",
        "pipeline_id",
        "author",
    ];
    let positions: Vec<usize> = keys.iter().map(|k| text.find(&format!("\"{k}\":")).unwrap()).collect();
    assert!(positions.windows(2).all(|p| p[0] < p[1]), "CommitStatus keys in GitLab's order: {text}");
    let pending: Value = serde_json::from_str(&text).unwrap();
    let first = git_text(&w.work, &["branch", "--contains", &sha, "--format=%(refname:short)"]);
    let first = first.lines().next().unwrap().to_string();
    assert_eq!(pending["ref"], first.as_str(), "the first branch by name containing the commit");
    assert_eq!(pending["name"], "renovate/stability-days");
    assert_eq!((pending["status"].clone(), pending["allow_failure"].clone()), (json!("pending"), json!(false)));
    assert_eq!(pending["author"]["username"], "dev");
    assert_eq!(pending["coverage"], Value::Null);

    // The same again: GitLab's refusal, which Renovate ignores by its prefix.
    let (status, body) = w.post(&sha, json!({"state": "pending", "context": "renovate/stability-days"}));
    assert_eq!(status, 400);
    assert_eq!(
        body["message"],
        "Cannot transition status via :enqueue from :pending (Reason(s): Status cannot transition via \"enqueue\")"
    );

    // Renovate reads `last_pipeline.id` and posts with it.
    let (_, commit) = w.call("GET", &format!("{PROJECT}/repository/commits/{sha}"), None, Value::Null);
    let pipeline_id = commit["last_pipeline"]["id"].as_i64().unwrap();
    assert_eq!(pipeline_id, pending["pipeline_id"].as_i64().unwrap());
    assert_eq!(
        (commit["status"].clone(), commit["last_pipeline"]["source"].clone()),
        (json!("pending"), json!("external"))
    );
    assert_eq!(commit["project_id"], w.call("GET", PROJECT, None, Value::Null).1["id"]);

    // Atlantis: running, running again (its success case), then success, with `ref` and a coverage.
    let atlantis = json!({"state": "running", "context": "atlantis/plan", "ref": first, "coverage": 87.5});
    let (status, running) = w.post(&sha, atlantis.clone());
    assert_eq!(status, 201, "{running}");
    assert_eq!(running["pipeline_id"].as_i64().unwrap(), pipeline_id, "one pipeline per sha and ref");
    assert!(running["started_at"].is_string());
    assert_eq!(running["coverage"], 87.5);
    let (status, body) = w.post(&sha, atlantis);
    assert_eq!(status, 400);
    assert!(body["message"].as_str().unwrap().starts_with("Cannot transition status via :run from :running"));
    assert_eq!(w.gate(&sha), Gate::Waiting);
    let (status, done) = w.post(&sha, json!({"state": "success", "context": "atlantis/plan", "ref": first}));
    assert_eq!((status, done["id"].clone()), (201, running["id"].clone()), "the running job is reused");
    assert!(done["finished_at"].is_string());
    assert_eq!(w.gate(&sha), Gate::Waiting, "renovate's status is still pending");
    let (_, _) =
        w.post(&sha, json!({"state": "success", "context": "renovate/stability-days", "pipeline_id": pipeline_id}));
    assert_eq!(w.gate(&sha), Gate::Succeeded);
    let (_, pipeline) =
        w.call("GET", &format!("{PROJECT}/pipelines/{pipeline_id}"), Some(&w.tokens.reporter), Value::Null);
    assert_eq!((pipeline["status"].clone(), pipeline["coverage"].clone()), (json!("success"), json!("87.50")));
    assert_eq!(pipeline["user"]["username"], "dev");
    assert!(pipeline["web_url"].as_str().unwrap().ends_with(&format!("/fx/work/-/pipelines/{pipeline_id}")));

    // A finished status is never changed: a failure after success is a new job retrying it.
    let (status, failed) = w.post(&sha, json!({"state": "failed", "name": "atlantis/plan", "ref": first}));
    assert_eq!(status, 201);
    assert_ne!(failed["id"], done["id"]);
    assert_eq!(w.gate(&sha), Gate::Failed);
    let latest = w.statuses(&sha, "");
    assert_eq!(latest.len(), 2, "the latest of each name");
    assert_eq!(w.statuses(&sha, "?all=true").len(), 3);
    let named = w.statuses(&sha, "?name=atlantis/plan&all=true&sort=desc");
    assert_eq!(named.iter().map(|s| s["status"].as_str().unwrap()).collect::<Vec<_>>(), ["failed", "success"]);
    assert!(w.statuses(&sha, "?ref=nope").is_empty());
    assert!(w.statuses(&sha, "?stage=test").is_empty());
    assert_eq!(w.statuses(&sha, "?stage=external").len(), 2);

    // Another ref is another pipeline.
    let (status, other) = w.post(&sha, json!({"state": "skipped", "name": "ci", "ref": "v1.0.0"}));
    assert_eq!(status, 201);
    assert_ne!(other["pipeline_id"].as_i64().unwrap(), pipeline_id);
    let (_, list) = w.call("GET", &format!("{PROJECT}/pipelines"), Some(&w.tokens.reporter), Value::Null);
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!((list[0]["ref"].clone(), list[0]["status"].clone()), (json!("v1.0.0"), json!("skipped")));
    let (_, tags) = w.call("GET", &format!("{PROJECT}/pipelines?scope=tags"), Some(&w.tokens.reporter), Value::Null);
    assert_eq!(tags.as_array().unwrap().len(), 1);
    assert_eq!(list[1]["iid"], 1);
    let (_, by_sha) =
        w.call("GET", &format!("{PROJECT}/pipelines?sha={sha}&status=failed"), Some(&w.tokens.reporter), Value::Null);
    assert_eq!(by_sha.as_array().unwrap().len(), 1);
    let (status, latest) = w.call("GET", &format!("{PROJECT}/pipelines/latest"), Some(&w.tokens.reporter), Value::Null);
    assert_eq!((status, latest["ref"].clone()), (200, json!("main")), "the default branch's");
    assert_eq!(latest["id"].as_i64().unwrap(), pipeline_id);
    let (status, jobs) =
        w.call("GET", &format!("{PROJECT}/pipelines/{pipeline_id}/jobs"), Some(&w.tokens.reporter), Value::Null);
    assert_eq!((status, jobs), (200, json!([])));
    let (status, body) = w.call("GET", &format!("{PROJECT}/pipelines/999"), Some(&w.tokens.reporter), Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Pipeline Not Found"})));

    // Every post was announced, with the pipeline's status before and after.
    let changes: Vec<(String, String, String)> = w
        .heard
        .0
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            Event::CommitStatus(c) => Some((c.status.clone(), c.pipeline_before.clone(), c.pipeline_status.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(changes.len(), 6, "{changes:?}");
    assert_eq!(changes[0], ("pending".into(), "created".into(), "pending".into()));
    assert_eq!(changes[4], ("failed".into(), "success".into(), "failed".into()));
}

#[test]
fn bad_posts_answer_gitlabs_errors() {
    let w = world();
    let sha = git_text(&w.work, &["rev-parse", "main"]);
    assert_eq!(w.post(&sha, json!({})), (400, json!({"error": "state is missing"})));
    assert_eq!(w.post(&sha, json!({"state": "done"})), (400, json!({"error": "state does not have a valid value"})));
    assert_eq!(
        w.post(&sha, json!({"state": "success", "target_url": "not a url"})),
        (400, json!({"message": {"target_url": ["must be a valid URL"]}}))
    );
    assert_eq!(w.post(&sha, json!({"state": "success", "coverage": "lots"})).0, 400);
    assert_eq!(w.post(&sha, json!({"state": "success", "ref": "x".repeat(256)})).0, 400);
    let unknown = "0123456789012345678901234567890123456789";
    assert_eq!(w.post(unknown, json!({"state": "success"})), (404, json!({"message": "404 Commit Not Found"})));
    assert_eq!(
        w.post(&sha, json!({"state": "success", "pipeline_id": 42})),
        (404, json!({"message": "404 Pipeline for pipeline_id, sha and ref Not Found"}))
    );
    // A commit that no branch holds has no ref to post for.
    let loose = git_text(
        &w.work,
        &["-c", "user.name=T", "-c", "user.email=t@example.com", "commit-tree", "main^{tree}", "-m", "loose"],
    );
    assert_eq!(
        w.post(&loose, json!({"state": "success"})),
        (404, json!({"message": "404 References for commit Not Found"}))
    );
    assert_eq!(w.post(&loose, json!({"state": "success", "ref": "anything"})).0, 201);
    let (status, body) = w.call(
        "GET",
        &format!("{PROJECT}/repository/commits/{unknown}/statuses"),
        Some(&w.tokens.reporter),
        Value::Null,
    );
    assert_eq!((status, body), (404, json!({"message": "404 Commit Not Found"})));
}

#[test]
fn who_may_post_and_read() {
    let w = world();
    let sha = git_text(&w.work, &["rev-parse", "main"]);
    let target = format!("{PROJECT}/statuses/{sha}");
    let (status, _) = w.call("POST", &target, Some(&w.tokens.reporter), json!({"state": "success"}));
    assert_eq!(status, 403, "Reporters may not post (create_commit_status is Developer)");
    let (status, _) = w.call("POST", &target, None, json!({"state": "success"}));
    assert_eq!(status, 401);
    let (status, _) = w.call("POST", &target, Some(&w.tokens.maintainer), json!({"state": "success"}));
    assert_eq!(status, 201);
    let reads = format!("{PROJECT}/repository/commits/{sha}/statuses");
    let (status, _) = w.call("GET", &reads, None, Value::Null);
    assert_eq!(status, 401, "GitLab's authenticate!");

    // A private project: guests may not read statuses or pipelines, outsiders see nothing.
    let instance = common::open_instance(json!({}));
    let work = instance.fixture_repos().join("work");
    let matrix = instance.visibility_matrix("root", &work);
    let private = "/api/v4/projects/corp%2Fsecret";
    let (status, body) =
        instance.call("POST", &format!("{private}/statuses/{sha}"), Some(&matrix.admin), json!({"state": "running"}));
    assert_eq!(status, 201, "{body}");
    let reads = format!("{private}/repository/commits/{sha}/statuses");
    assert_eq!(instance.call("GET", &reads, Some(&matrix.guest), Value::Null).0, 403);
    assert_eq!(instance.call("GET", &reads, Some(&matrix.outsider), Value::Null).0, 404);
    assert_eq!(instance.call("GET", &format!("{private}/pipelines"), Some(&matrix.guest), Value::Null).0, 403);
    let (status, list) = instance.call("GET", &reads, Some(&matrix.reporter), Value::Null);
    assert_eq!((status, list.as_array().unwrap().len()), (200, 1));
    let (status, _) = instance.call(
        "POST",
        &format!("{private}/statuses/{sha}"),
        Some(&matrix.reporter),
        json!({"state": "success"}),
    );
    assert_eq!(status, 403);
}

/// Posts racing for one commit make one pipeline and one job of each name (GitLab's lease per
/// project and sha), on either store.
#[test]
fn racing_posts_make_one_pipeline() {
    let w = world();
    let sha = git_text(&w.work, &["rev-parse", "main"]);
    std::thread::scope(|scope| {
        for i in 0..4 {
            let w = &w;
            let sha = &sha;
            scope.spawn(move || {
                let (status, body) = w.post(sha, json!({"state": "running", "name": format!("job{i}"), "ref": "main"}));
                assert_eq!(status, 201, "{body}");
            });
        }
    });
    let (_, list) = w.call("GET", &format!("{PROJECT}/pipelines"), Some(&w.tokens.reporter), Value::Null);
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["status"], "running");
    assert_eq!(w.statuses(&sha, "").len(), 4);
}
