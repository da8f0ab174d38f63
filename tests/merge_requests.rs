//! Merge requests (issue #39, decisions D10) through the HTTP door, against git on the fixture
//! repository of tests/fixtures/mr_review.sh: create, get, list and its filters, update,
//! delete, commits (`git log base..head`), diffs and changes (`git diff base...head`), raw diffs
//! (`git diff --full-index`), versions, `refs/merge-requests/:iid/head`, and the refresh after
//! REST writes and pushes. SQLite always; PostgreSQL under `make test-rust-postgres`.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::serve::serve_connection;
use common::{git, git_text, TestInstance};
use serde_json::{json, Value};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

const MRS: &str = "/api/v4/projects/fx%2Freview/merge_requests";

struct World {
    instance: Arc<TestInstance>,
    repo: PathBuf,
    admin: String,
    maintainer: String,
    developer: String,
    reporter: String,
    outsider: String,
}

fn world() -> World {
    let instance = common::open_instance(json!({"external_url": "http://forge.test"}));
    let repo = instance.run_fixture("mr_review.sh").join("review.git");
    let admin = instance.user_with_token("root", true);
    let outsider = instance.user_with_token("otto", false);
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    instance.admin_ok(json!({"command": "project_add", "path": "fx/review", "repo": repo, "visibility": "public"}));
    let common::Writers { maintainer, developer, reporter } = instance.writers("fx/review");
    World { instance: Arc::new(instance), repo, admin, maintainer, developer, reporter, outsider }
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

    fn get(&self, target: &str, token: &str) -> (u16, Value) {
        self.call("GET", target, Some(token), Value::Null)
    }

    /// Opens a merge request from `source` into `main` as `token`; its entity.
    fn open(&self, token: &str, source: &str, title: &str) -> Value {
        let (status, mr) = self.call(
            "POST",
            MRS,
            Some(token),
            json!({"source_branch": source, "target_branch": "main", "title": title}),
        );
        assert_eq!(status, 201, "{mr}");
        mr
    }

    fn git(&self, args: &[&str]) -> String {
        git_text(&self.repo, args)
    }

    fn tip(&self, branch: &str) -> String {
        self.git(&["rev-parse", &format!("refs/heads/{branch}")])
    }
}

/// GitLab's `MergeRequestBasic` keys, in its order (with the EE field last).
const BASIC_KEYS: [&str; 51] = [
    "id",
    "iid",
    "project_id",
    "title",
    "description",
    "state",
    "created_at",
    "updated_at",
    "merged_by",
    "merge_user",
    "merged_at",
    "closed_by",
    "closed_at",
    "target_branch",
    "source_branch",
    "user_notes_count",
    "upvotes",
    "downvotes",
    "author",
    "assignees",
    "assignee",
    "reviewers",
    "source_project_id",
    "target_project_id",
    "labels",
    "draft",
    "imported",
    "imported_from",
    "work_in_progress",
    "milestone",
    "merge_when_pipeline_succeeds",
    "merge_status",
    "detailed_merge_status",
    "merge_after",
    "sha",
    "merge_commit_sha",
    "squash_commit_sha",
    "discussion_locked",
    "should_remove_source_branch",
    "force_remove_source_branch",
    "prepared_at",
    "reference",
    "references",
    "web_url",
    "time_stats",
    "squash",
    "squash_on_merge",
    "task_completion_status",
    "has_conflicts",
    "blocking_discussions_resolved",
    "approvals_before_merge",
];

/// What `MergeRequest` adds, in order, before `approvals_before_merge`.
const FULL_KEYS: [&str; 11] = [
    "subscribed",
    "changes_count",
    "latest_build_started_at",
    "latest_build_finished_at",
    "first_deployed_to_production_at",
    "pipeline",
    "head_pipeline",
    "diff_refs",
    "merge_error",
    "first_contribution",
    "user",
];

/// The keys of a JSON object's text, in the order they are written.
struct KeyOrder(Vec<String>);

impl<'de> serde::Deserialize<'de> for KeyOrder {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<KeyOrder, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = KeyOrder;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<KeyOrder, A::Error> {
                let mut keys = Vec::new();
                while let Some((key, _)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                    keys.push(key);
                }
                Ok(KeyOrder(keys))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// The key order of the object `target` answers (the first of a list).
fn keys(w: &World, target: &str, token: &str) -> Vec<String> {
    let (status, _, body) = w.instance.request("GET", target, &[("PRIVATE-TOKEN", token)], b"");
    assert_eq!(status, 200);
    let text = String::from_utf8(body).unwrap();
    if text.starts_with('[') {
        let items: Vec<KeyOrder> = serde_json::from_str(&text).unwrap();
        items.into_iter().next().unwrap().0
    } else {
        serde_json::from_str::<KeyOrder>(&text).unwrap().0
    }
}

#[test]
fn create_answers_gitlabs_entity_with_the_diff_refs_git_computes() {
    let w = world();
    let mr = w.open(&w.developer, "feature", "Add the feature");
    let base = w.git(&["merge-base", "main", "feature"]);
    assert_ne!(base, w.tip("main"), "the fixture's target moved on");
    assert_eq!(mr["iid"], 1);
    assert_eq!(mr["state"], "opened");
    assert_eq!(mr["author"]["username"], "dev");
    assert_eq!(mr["sha"], json!(w.tip("feature")));
    assert_eq!(mr["diff_refs"], json!({"base_sha": base, "head_sha": w.tip("feature"), "start_sha": w.tip("main")}));
    let files = w.git(&["diff", "--name-only", "main...feature"]).lines().count();
    assert_eq!(mr["changes_count"], json!(files.to_string()));
    // feature merges cleanly into main (`git merge-tree --write-tree main feature` exits 0):
    // helper D's mergeability (tests/merges.rs checks it against git case by case).
    assert_eq!(mr["merge_status"], "can_be_merged");
    assert_eq!(mr["detailed_merge_status"], "mergeable");
    assert_eq!(mr["has_conflicts"], false);
    assert_eq!(mr["draft"], false);
    assert_eq!(mr["web_url"], "http://forge.test/fx/review/-/merge_requests/1");
    assert_eq!(mr["references"], json!({"short": "!1", "relative": "!1", "full": "fx/review!1"}));
    assert!(mr["created_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(mr["user"], json!({"can_merge": false}), "main is protected: Maintainers merge");
    let (_, as_maintainer) = w.get(&format!("{MRS}/1"), &w.maintainer);
    assert_eq!(as_maintainer["user"], json!({"can_merge": true}));
    // The head ref is written with the merge request.
    assert_eq!(w.git(&["rev-parse", "refs/merge-requests/1/head"]), w.tip("feature"));

    let (status, got) = w.get(&format!("{MRS}/1"), &w.reporter);
    assert_eq!(status, 200, "{got}");
    assert_eq!(got["id"], mr["id"]);
    assert_eq!(got["first_contribution"], true);
    assert_eq!(got["user"], json!({"can_merge": false}), "a Reporter may not merge");
    let mut expected: Vec<&str> = BASIC_KEYS[..BASIC_KEYS.len() - 1].to_vec();
    expected.extend(FULL_KEYS);
    expected.push("approvals_before_merge");
    assert_eq!(keys(&w, &format!("{MRS}/1"), &w.reporter), expected);
    let (_, diverged) = w.get(&format!("{MRS}/1?include_diverged_commits_count=true"), &w.reporter);
    let behind = w.git(&["rev-list", "--count", "feature..main"]);
    assert_eq!(diverged["diverged_commits_count"], json!(behind.parse::<u64>().unwrap()));

    // The second iid follows; a branch into itself and a second open MR are GitLab's errors.
    let other = w.open(&w.maintainer, "other", "Other");
    assert_eq!(other["iid"], 2);
    let (status, body) = w.call(
        "POST",
        MRS,
        Some(&w.developer),
        json!({"source_branch": "feature", "target_branch": "main", "title": "Again"}),
    );
    assert_eq!(
        (status, body),
        (409, json!({"message": ["Another open merge request already exists for this source branch: !1"]}))
    );
    let (status, body) = w.call(
        "POST",
        MRS,
        Some(&w.developer),
        json!({"source_branch": "main", "target_branch": "main", "title": "x"}),
    );
    assert_eq!((status, body), (422, json!({"message": ["You can't use same project/branch for source and target"]})));
    let (status, body) = w.call("POST", MRS, Some(&w.developer), json!({"source_branch": "feature"}));
    assert_eq!((status, body), (400, json!({"error": "title is missing, target_branch is missing"})));
    let (status, _) =
        w.call("POST", MRS, Some(&w.reporter), json!({"source_branch": "same", "target_branch": "main", "title": "x"}));
    assert_eq!(status, 403, "a Reporter may not open merge requests");
    let (status, body) =
        w.call("POST", MRS, None, json!({"source_branch": "same", "target_branch": "main", "title": "x"}));
    assert_eq!((status, body), (401, json!({"message": "401 Unauthorized"})));
    let (status, body) = w.get(&format!("{MRS}/99"), &w.reporter);
    assert_eq!((status, body), (404, json!({"message": "404 Not found"})));
    let (status, _) = w.get(&format!("{MRS}/{}", mr["id"].as_i64().unwrap() + 100), &w.reporter);
    assert_eq!(status, 404, "the global id is no path number");
}

#[test]
fn commits_diffs_and_versions_are_gits() {
    let w = world();
    let mr = w.open(&w.developer, "feature", "Feature");
    let base = mr["diff_refs"]["base_sha"].as_str().unwrap().to_string();
    let head = w.tip("feature");

    let (status, commits) = w.get(&format!("{MRS}/1/commits"), &w.reporter);
    assert_eq!(status, 200);
    let ids: Vec<&str> = commits.as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    let log = w.git(&["log", "--format=%H", &format!("{base}..{head}")]);
    assert_eq!(ids, log.lines().collect::<Vec<_>>());
    assert_eq!(commits[0]["title"], "Rename old, delete b");

    let (status, diffs) = w.get(&format!("{MRS}/1/diffs"), &w.reporter);
    assert_eq!(status, 200);
    let listed: Vec<String> = diffs
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let status = if d["new_file"] == true {
                "A"
            } else if d["deleted_file"] == true {
                "D"
            } else if d["renamed_file"] == true {
                "R"
            } else {
                "M"
            };
            if status == "R" {
                format!("{status}\t{}\t{}", d["old_path"].as_str().unwrap(), d["new_path"].as_str().unwrap())
            } else {
                format!("{status}\t{}", d["new_path"].as_str().unwrap())
            }
        })
        .collect();
    let git_status: Vec<String> = w
        .git(&["diff", "--name-status", "-M", &format!("{base}...{head}")])
        .lines()
        .map(|l| if l.starts_with('R') { format!("R{}", &l[l.find('\t').unwrap()..]) } else { l.to_string() })
        .collect();
    assert_eq!(listed, git_status);
    let a = diffs.as_array().unwrap().iter().find(|d| d["new_path"] == "a.txt").unwrap();
    let patch = w.git(&["diff", &format!("{base}...{head}"), "--", "a.txt"]);
    let hunks = &patch[patch.find("@@").unwrap()..];
    assert_eq!(a["diff"].as_str().unwrap().trim_end(), hunks.trim_end());

    let (_, page) = w.call("GET", &format!("{MRS}/1/diffs?per_page=2&page=2"), Some(&w.reporter), Value::Null);
    assert_eq!(page.as_array().unwrap().len(), 2);
    assert_eq!(page[0]["new_path"], diffs[2]["new_path"]);

    let (status, changes) = w.get(&format!("{MRS}/1/changes"), &w.reporter);
    assert_eq!(status, 200);
    assert_eq!(changes["changes"].as_array().unwrap().len(), git_status.len());
    assert_eq!(changes["overflow"], false);
    assert_eq!(changes["iid"], 1);

    let (status, _, raw) =
        w.instance.request("GET", &format!("{MRS}/1/raw_diffs"), &[("PRIVATE-TOKEN", &w.reporter)], b"");
    assert_eq!(status, 200);
    assert_eq!(
        String::from_utf8(raw).unwrap(),
        String::from_utf8(git(&w.repo, &["diff", "--full-index", &base, &head])).unwrap()
    );

    let (status, versions) = w.get(&format!("{MRS}/1/versions"), &w.reporter);
    assert_eq!(status, 200);
    assert_eq!(versions.as_array().unwrap().len(), 1);
    let version = &versions[0];
    assert_eq!(version["head_commit_sha"], json!(head));
    assert_eq!(version["base_commit_sha"], json!(base));
    assert_eq!(version["start_commit_sha"], json!(w.tip("main")));
    assert_eq!(version["merge_request_id"], mr["id"]);
    assert_eq!(version["real_size"], json!(git_status.len().to_string()));
    let (status, full) = w.get(&format!("{MRS}/1/versions/{}", version["id"]), &w.reporter);
    assert_eq!(status, 200);
    assert_eq!(full["commits"].as_array().unwrap().len(), ids.len());
    assert_eq!(full["diffs"].as_array().unwrap().len(), git_status.len());
    let (status, _) = w.get(&format!("{MRS}/1/versions/999"), &w.reporter);
    assert_eq!(status, 404);

    // A merge request of no commits has an empty version.
    w.open(&w.developer, "same", "Nothing");
    let (_, commits) = w.get(&format!("{MRS}/2/commits"), &w.reporter);
    assert_eq!(commits, json!([]));
    let (_, diffs) = w.get(&format!("{MRS}/2/diffs"), &w.reporter);
    assert_eq!(diffs, json!([]));
}

#[test]
fn lists_filter_order_and_page_as_gitlab() {
    let w = world();
    let feature = w.open(&w.developer, "feature", "Add the feature");
    let (status, other) = w.call(
        "POST",
        MRS,
        Some(&w.maintainer),
        json!({"source_branch": "other", "target_branch": "main", "title": "Draft: other thing", "labels": "deps,renovate"}),
    );
    assert_eq!(status, 201, "{other}");
    assert_eq!(other["labels"], json!(["deps", "renovate"]));
    let same = w.open(&w.developer, "same", "Nothing to see");
    assert_eq!(other["draft"], true);
    let iids =
        |body: &Value| -> Vec<i64> { body.as_array().unwrap().iter().map(|m| m["iid"].as_i64().unwrap()).collect() };

    // Renovate's exact call: its own merge requests, newest change first.
    let renovate = format!("{MRS}?per_page=100&order_by=updated_at&sort=desc&scope=created_by_me");
    let (status, mine) = w.get(&renovate, &w.developer);
    assert_eq!(status, 200, "{mine}");
    assert_eq!(iids(&mine), [3, 1]);
    assert_eq!(keys(&w, &renovate, &w.developer), BASIC_KEYS);
    let (_, all) = w.get(MRS, &w.reporter);
    assert_eq!(iids(&all), [3, 2, 1], "a project lists every author's, newest first");
    let (status, headers, _) =
        w.instance.request("GET", &format!("{MRS}?per_page=2"), &[("PRIVATE-TOKEN", &w.reporter)], b"");
    assert_eq!(status, 200);
    let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    assert_eq!(header("X-Total").as_deref(), Some("3"));
    assert_eq!(header("X-Next-Page").as_deref(), Some("2"));

    for (query, expected) in [
        ("source_branch=other", vec![2]),
        ("target_branch=main&sort=asc", vec![1, 2, 3]),
        ("search=FEATURE", vec![1]),
        ("search=feature&in=description", vec![]),
        ("iids[]=1&iids[]=3", vec![3, 1]),
        ("draft=true", vec![2]),
        ("wip=no", vec![3, 1]),
        ("order_by=title&sort=asc", vec![1, 2, 3]),
        ("state=closed", vec![]),
        ("state=opened", vec![3, 2, 1]),
        ("author_username=mona", vec![2]),
        ("assignee_id=None", vec![3, 2, 1]),
        ("assignee_id=Any", vec![]),
        ("labels=renovate", vec![2]),
        ("labels=Any", vec![2]),
        (&format!("not[author_id]={}", feature["author"]["id"]), vec![2]),
        (&format!("created_after={}", other["created_at"].as_str().unwrap()), vec![3, 2]),
        (&format!("updated_before={}", feature["updated_at"].as_str().unwrap()), vec![1]),
    ] {
        let (status, body) = w.get(&format!("{MRS}?{query}"), &w.reporter);
        assert_eq!(status, 200, "{query}: {body}");
        assert_eq!(iids(&body), expected, "{query}");
    }
    assert_eq!(
        keys(&w, &format!("{MRS}?view=simple"), &w.reporter),
        ["id", "iid", "project_id", "title", "description", "state", "created_at", "updated_at", "web_url"]
    );
    for bad in ["state=nope", "order_by=nope", "sort=up", "scope=mine", "created_after=yesterday"] {
        let (status, _) = w.get(&format!("{MRS}?{bad}"), &w.reporter);
        assert_eq!(status, 400, "{bad}");
    }

    // The instance list: the caller's own by default, 401 anonymously unless `scope=all`.
    let (_, global) = w.get("/api/v4/merge_requests", &w.developer);
    assert_eq!(iids(&global), [3, 1]);
    let (status, _) = w.call("GET", "/api/v4/merge_requests", None, Value::Null);
    assert_eq!(status, 401);
    let (status, everyone) = w.call("GET", "/api/v4/merge_requests?scope=all", None, Value::Null);
    assert_eq!(status, 200);
    assert_eq!(iids(&everyone), [3, 2, 1]);
    assert_eq!(everyone[0]["references"]["relative"], "fx/review!3");
    let (_, group) = w.get("/api/v4/groups/fx/merge_requests", &w.outsider);
    assert_eq!(iids(&group), [3, 2, 1]);
    assert_eq!(group[0]["references"]["relative"], "review!3");
    // A group lists no archived project's merge requests unless asked (`non_archived=false`).
    let (status, _) = w.call("POST", "/api/v4/projects/fx%2Freview/archive", Some(&w.admin), Value::Null);
    assert_eq!(status, 201);
    let (_, group) = w.get("/api/v4/groups/fx/merge_requests", &w.outsider);
    assert_eq!(group, json!([]));
    let (_, group) = w.get("/api/v4/groups/fx/merge_requests?non_archived=false", &w.outsider);
    assert_eq!(iids(&group), [3, 2, 1]);
    let (_, global) = w.get("/api/v4/merge_requests?scope=all", &w.outsider);
    assert_eq!(iids(&global), [3, 2, 1]);
    let _ = same;
}

#[test]
fn updates_close_reopen_retarget_and_people() {
    let w = world();
    let mr = w.open(&w.developer, "feature", "Feature");
    let target = format!("{MRS}/1");
    let (status, body) = w.call("PUT", &target, Some(&w.developer), json!({}));
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().ends_with("at least one parameter must be provided"), "{body}");
    let (status, _) = w.call("PUT", &target, Some(&w.reporter), json!({"title": "Mine"}));
    assert_eq!(status, 403);
    let (status, _) = w.call("PUT", &target, None, json!({"title": "Mine"}));
    assert_eq!(status, 401);

    let (mona, rita) = (
        w.get("/api/v4/users?username=mona", &w.admin).1[0]["id"].clone(),
        w.get("/api/v4/users?username=rita", &w.admin).1[0]["id"].clone(),
    );
    let (status, changed) = w.call(
        "PUT",
        &target,
        Some(&w.developer),
        json!({"title": "Draft: Feature", "description": "- [x] done\n- [ ] todo", "assignee_ids": [mona], "reviewer_ids": [rita], "squash": true}),
    );
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["draft"], true);
    assert_eq!(changed["work_in_progress"], true);
    assert_eq!(changed["assignee"]["username"], "mona");
    assert_eq!(changed["reviewers"][0]["username"], "rita");
    assert_eq!(changed["task_completion_status"], json!({"count": 2, "completed_count": 1}));
    assert_eq!(changed["squash"], true);
    assert!(changed["updated_at"].as_str().unwrap() >= mr["updated_at"].as_str().unwrap());
    let (_, reviewers) = w.get(&format!("{target}/reviewers"), &w.reporter);
    assert_eq!(reviewers[0]["user"]["username"], "rita");
    assert_eq!(reviewers[0]["state"], "unreviewed");
    let (_, participants) = w.get(&format!("{target}/participants"), &w.reporter);
    let names: Vec<&str> = participants.as_array().unwrap().iter().map(|u| u["username"].as_str().unwrap()).collect();
    assert_eq!(names, ["dev", "mona", "rita"]);
    let (_, assigned) = w.get(&format!("{MRS}?scope=assigned_to_me"), &w.maintainer);
    assert_eq!(assigned.as_array().unwrap().len(), 1);
    // Renovate's assignees: `assignee_ids[]` in the query, no body.
    let (status, cleared) = w.call("PUT", &format!("{target}?assignee_ids[]=0"), Some(&w.developer), Value::Null);
    assert_eq!(status, 200, "{cleared}");
    assert_eq!(cleared["assignees"], json!([]));

    let (status, closed) = w.call("PUT", &target, Some(&w.developer), json!({"state_event": "close"}));
    assert_eq!(status, 200);
    assert_eq!(closed["state"], "closed");
    assert_eq!(closed["closed_by"]["username"], "dev");
    // A closed merge request leaves its branches free; reopening into a duplicate is a 409.
    let second = w.open(&w.developer, "feature", "Again");
    assert_eq!(second["iid"], 2);
    let (status, body) = w.call("PUT", &target, Some(&w.developer), json!({"state_event": "reopen"}));
    assert_eq!(
        (status, body),
        (409, json!({"message": ["Another open merge request already exists for this source branch: !2"]}))
    );
    let (status, _) = w.call("PUT", &format!("{MRS}/2"), Some(&w.developer), json!({"state_event": "close"}));
    assert_eq!(status, 200);
    let (status, reopened) = w.call("PUT", &target, Some(&w.developer), json!({"state_event": "reopen"}));
    assert_eq!(status, 200);
    assert_eq!(reopened["state"], "opened");
    assert_eq!(reopened["closed_at"], Value::Null);

    // Labels: set as Renovate sends them (a comma string), added and removed as arrays, by title.
    let (status, labelled) = w.call("PUT", &target, Some(&w.developer), json!({"labels": "ui,bug"}));
    assert_eq!(status, 200, "{labelled}");
    assert_eq!(labelled["labels"], json!(["bug", "ui"]));
    let (_, labelled) =
        w.call("PUT", &target, Some(&w.developer), json!({"add_labels": ["deps"], "remove_labels": ["ui"]}));
    assert_eq!(labelled["labels"], json!(["bug", "deps"]));
    for (query, expected) in [("labels=bug,deps", 1), ("labels=bug,ui", 0), ("labels=None", 1), ("not[labels]=bug", 1)]
    {
        let (_, listed) = w.get(&format!("{MRS}?{query}"), &w.reporter);
        assert_eq!(listed.as_array().unwrap().len(), expected, "{query}: {listed}");
    }
    let (_, detailed) = w.get(&format!("{MRS}?labels=deps&with_labels_details=true"), &w.reporter);
    assert_eq!(detailed[0]["labels"][0]["name"], "bug");
    let (_, cleared) = w.call("PUT", &target, Some(&w.developer), json!({"labels": ""}));
    assert_eq!(cleared["labels"], json!([]));

    // Retargeting reloads the diff: a new version against the new target.
    let (status, retargeted) = w.call("PUT", &target, Some(&w.developer), json!({"target_branch": "other"}));
    assert_eq!(status, 200, "{retargeted}");
    assert_eq!(retargeted["target_branch"], "other");
    assert_eq!(retargeted["diff_refs"]["start_sha"], json!(w.tip("other")));
    let (_, versions) = w.get(&format!("{target}/versions"), &w.reporter);
    assert_eq!(versions.as_array().unwrap().len(), 2);
    let (status, body) = w.call("PUT", &target, Some(&w.developer), json!({"target_branch": "feature"}));
    assert_eq!((status, body), (422, json!({"message": ["You can't use same project/branch for source and target"]})));
}

#[test]
fn only_owners_delete_and_private_projects_hide_them() {
    let w = world();
    w.open(&w.developer, "feature", "Feature");
    for token in [&w.developer, &w.maintainer] {
        let (status, _) = w.call("DELETE", &format!("{MRS}/1"), Some(token), Value::Null);
        assert_eq!(status, 403);
    }
    let (status, body) = w.call("DELETE", &format!("{MRS}/1"), Some(&w.admin), Value::Null);
    assert_eq!((status, body), (204, Value::Null));
    let (status, _) = w.get(&format!("{MRS}/1"), &w.reporter);
    assert_eq!(status, 404);
    // The iid is never given again.
    assert_eq!(w.open(&w.developer, "feature", "Again")["iid"], 2);

    let (status, _) = w.call("PUT", "/api/v4/projects/fx%2Freview", Some(&w.admin), json!({"visibility": "private"}));
    assert_eq!(status, 200);
    let (status, body) = w.get(&format!("{MRS}/2"), &w.outsider);
    assert_eq!((status, body), (404, json!({"message": "404 Project Not Found"})));
    let (_, listed) = w.get("/api/v4/merge_requests?scope=all", &w.outsider);
    assert_eq!(listed, json!([]));
    let guest = w.instance.user_with_token("gus", false);
    w.instance
        .admin_ok(json!({"command": "member_add", "username": "gus", "project": "fx/review", "access_level": 10}));
    let (status, _) = w.get(&format!("{MRS}/2"), &guest);
    assert_eq!(status, 403, "a Guest of a private project may not read merge requests");
    let (status, _) = w.get(&format!("{MRS}/2"), &w.reporter);
    assert_eq!(status, 200);

    // A Guest whose custom role grants `admin_merge_request` reads and opens merge requests.
    let (status, role) = w.call(
        "POST",
        "/api/v4/groups/fx/member_roles",
        Some(&w.admin),
        json!({"name": "MR admin", "base_access_level": 10, "admin_merge_request": true}),
    );
    assert_eq!(status, 201, "{role}");
    let reviewer = w.instance.user_with_token("rev", false);
    w.instance.admin_ok(json!({"command": "member_add", "group": "fx", "username": "rev", "access_level": 10,
                               "member_role_id": role["id"]}));
    let (status, _) = w.get(&format!("{MRS}/2"), &reviewer);
    assert_eq!(status, 200);
    let (status, opened) =
        w.call("POST", MRS, Some(&reviewer), json!({"source_branch": "other", "target_branch": "main", "title": "x"}));
    assert_eq!(status, 201, "{opened}");
    let (status, _) = w.call("PUT", &format!("{MRS}/2"), Some(&reviewer), json!({"title": "not mine"}));
    assert_eq!(status, 403, "admin_merge_request does not grant update_merge_request");
}

/// Hears the merge request events of the context, as the webhooks listener will.
#[derive(Default)]
struct Heard(std::sync::Mutex<Vec<(String, i64, String)>>);

impl forgecore::events::Listener for Heard {
    fn heard(&self, event: &forgecore::events::Event) {
        if let forgecore::events::Event::MergeRequest(changed) = event {
            let action = format!("{:?}", changed.action);
            let mr = &changed.merge_request;
            self.0.lock().unwrap().push((action, mr.iid, mr.state.clone()));
        }
    }
}

#[test]
fn every_change_is_announced_once_from_where_it_is_made() {
    let w = world();
    let heard = Arc::new(Heard::default());
    w.instance.ctx().events.listen(Arc::clone(&heard) as Arc<dyn forgecore::events::Listener>);
    let take = || std::mem::take(&mut *heard.0.lock().unwrap());
    let event = |action: &str, iid: i64, state: &str| (action.to_string(), iid, state.to_string());
    // Through the context the listener hears (the FFI door opens one of its own).
    let call = |method: &str, target: &str, token: &str, body: Value| -> u16 {
        let headers = [("Content-Type", "application/json"), ("PRIVATE-TOKEN", token)];
        let body = if body.is_null() { Vec::new() } else { body.to_string().into_bytes() };
        w.instance.handle(method, target, &headers, &body).0
    };
    let body = json!({"source_branch": "feature", "target_branch": "main", "title": "Feature"});
    assert_eq!(call("POST", MRS, &w.developer, body), 201);
    assert_eq!(take(), [event("Opened", 1, "opened")]);
    call("PUT", &format!("{MRS}/1"), &w.developer, json!({"title": "Feature!"}));
    assert_eq!(take(), [event("Updated", 1, "opened")]);
    call("PUT", &format!("{MRS}/1"), &w.developer, json!({"state_event": "close"}));
    assert_eq!(take(), [event("Closed", 1, "closed")]);
    call("PUT", &format!("{MRS}/1"), &w.developer, json!({"state_event": "reopen"}));
    assert_eq!(take(), [event("Reopened", 1, "opened")]);
    let status = call(
        "POST",
        "/api/v4/projects/fx%2Freview/repository/commits",
        &w.developer,
        json!({"branch": "feature", "commit_message": "More", "actions": [{"action": "create", "file_path": "m.txt", "content": "m\n"}]}),
    );
    assert_eq!(status, 201);
    assert_eq!(take(), [event("Updated", 1, "opened")], "a push to the source is a new version");
    let status = call("DELETE", "/api/v4/projects/fx%2Freview/repository/branches/feature", &w.maintainer, Value::Null);
    assert_eq!(status, 204);
    assert_eq!(take(), [event("Closed", 1, "closed")]);
    // Nothing is announced for a change that changes nothing.
    call("PUT", &format!("{MRS}/1"), &w.developer, json!({"title": "Feature!"}));
    assert_eq!(take(), []);
}

/// Serves the instance over HTTP for git; the base URL.
fn serve(instance: &Arc<TestInstance>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let served = Arc::clone(instance);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let instance = Arc::clone(&served);
            std::thread::spawn(move || {
                let _ = serve_connection(instance.ctx(), stream);
            });
        }
    });
    url
}

/// The git client, isolated from this machine's configuration, in `cwd`.
fn client(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    std::fs::create_dir_all(home).unwrap();
    Command::new("git")
        .current_dir(cwd)
        .args(["-c", "user.name=Tester", "-c", "user.email=t@example.com"])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("HOME", home)
        .output()
        .unwrap()
}

#[test]
fn rest_writes_and_pushes_refresh_merge_requests() {
    let w = world();
    w.open(&w.developer, "feature", "Feature");
    w.open(&w.developer, "other", "Other");

    // A commit on the source through the API: a new version, the head ref moved.
    let (status, commit) = w.call(
        "POST",
        "/api/v4/projects/fx%2Freview/repository/commits",
        Some(&w.developer),
        json!({"branch": "feature", "commit_message": "More", "actions": [{"action": "create", "file_path": "more.txt", "content": "more\n"}]}),
    );
    assert_eq!(status, 201, "{commit}");
    let (_, mr) = w.get(&format!("{MRS}/1"), &w.reporter);
    assert_eq!(mr["sha"], commit["id"]);
    assert_eq!(mr["diff_refs"]["head_sha"], commit["id"]);
    assert_eq!(w.git(&["rev-parse", "refs/merge-requests/1/head"]), commit["id"].as_str().unwrap());
    let (_, versions) = w.get(&format!("{MRS}/1/versions"), &w.reporter);
    assert_eq!(versions.as_array().unwrap().len(), 2);
    assert_eq!(versions[0]["head_commit_sha"], commit["id"], "newest first");
    let (_, commits) = w.get(&format!("{MRS}/1/commits"), &w.reporter);
    assert_eq!(commits.as_array().unwrap().len(), 3);

    // Deleting the source branch closes its merge request.
    let (status, _) =
        w.call("DELETE", "/api/v4/projects/fx%2Freview/repository/branches/other", Some(&w.maintainer), Value::Null);
    assert_eq!(status, 204);
    let (_, other) = w.get(&format!("{MRS}/2"), &w.reporter);
    assert_eq!(other["state"], "closed");
    assert_eq!(other["closed_by"]["username"], "mona");

    // Over git: the head ref is fetchable, never pushable; a merge pushed to main merges.
    let url = serve(&w.instance);
    let home = w.instance.root_dir().join("client-home");
    let remote = url.replacen("http://", &format!("http://oauth2:{}@", w.maintainer), 1) + "/fx/review.git";
    let clone = w.instance.root_dir().join("clone");
    let out = client(&home, w.instance.root_dir(), &["clone", "-q", &remote, &clone.to_string_lossy()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = client(&home, &clone, &["fetch", "-q", "origin", "refs/merge-requests/1/head"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(git_text(&clone, &["rev-parse", "FETCH_HEAD"]), commit["id"].as_str().unwrap());
    let out = client(&home, &clone, &["push", "origin", "HEAD:refs/merge-requests/1/head"]);
    assert!(!out.status.success(), "a push to a merge request ref is refused");
    assert_eq!(w.git(&["rev-parse", "refs/merge-requests/1/head"]), commit["id"].as_str().unwrap());

    let out = client(&home, &clone, &["merge", "-q", "--no-ff", "-m", "Merge feature", "origin/feature"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let merge = git_text(&clone, &["rev-parse", "HEAD"]);
    let out = client(&home, &clone, &["push", "-q", "origin", "main"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (_, merged) = w.get(&format!("{MRS}/1"), &w.reporter);
    assert_eq!(merged["state"], "merged", "{merged}");
    assert_eq!(merged["merge_commit_sha"], json!(merge));
    assert_eq!(merged["merged_by"]["username"], "mona");
    assert!(merged["merged_at"].is_string());

    // semantic-release's lookup: the merge commit's merge request, and a commit inside it.
    let (status, by_merge) =
        w.get(&format!("/api/v4/projects/fx%2Freview/repository/commits/{merge}/merge_requests"), &w.reporter);
    assert_eq!(status, 200);
    assert_eq!(by_merge.as_array().unwrap().iter().map(|m| m["iid"].as_i64().unwrap()).collect::<Vec<_>>(), [1]);
    let inner = w.git(&["rev-parse", "feature~1"]);
    let (_, by_inner) = w.get(
        &format!("/api/v4/projects/fx%2Freview/repository/commits/{inner}/merge_requests?state=merged"),
        &w.reporter,
    );
    assert_eq!(by_inner.as_array().unwrap().len(), 1);
    let (status, body) = w.get(
        &format!("/api/v4/projects/fx%2Freview/repository/commits/{}/merge_requests", "0".repeat(40)),
        &w.reporter,
    );
    assert_eq!((status, body), (404, json!({"message": "404 Commit Not Found"})));
}

#[test]
fn concurrent_creates_get_distinct_iids() {
    let w = world();
    let branches: Vec<String> = (0..6).map(|i| format!("b{i}")).collect();
    for branch in &branches {
        w.git(&["branch", branch, "refs/heads/feature"]);
    }
    let iids: Vec<i64> = std::thread::scope(|scope| {
        let handles: Vec<_> = branches
            .iter()
            .map(|branch| {
                let w = &w;
                scope.spawn(move || {
                    let (status, mr) = w.call(
                        "POST",
                        MRS,
                        Some(&w.developer),
                        json!({"source_branch": branch, "target_branch": "main", "title": branch}),
                    );
                    assert_eq!(status, 201, "{mr}");
                    mr["iid"].as_i64().unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut sorted = iids.clone();
    sorted.sort();
    assert_eq!(sorted, (1..=6).collect::<Vec<_>>());
}

#[test]
fn label_events_of_merge_requests_and_issues_from_every_route() {
    let w = world();
    let (status, mr) = w.call(
        "POST",
        MRS,
        Some(&w.developer),
        json!({"source_branch": "feature", "target_branch": "main", "title": "Labelled", "labels": "bug"}),
    );
    assert_eq!(status, 201, "{mr}");
    let target = format!("{MRS}/{}", mr["iid"]);
    let (status, _) = w.call("PUT", &target, Some(&w.developer), json!({"add_labels": "ux", "remove_labels": "bug"}));
    assert_eq!(status, 200);
    let (status, events) = w.get(&format!("{target}/resource_label_events"), &w.developer);
    assert_eq!(status, 200, "{events}");
    let seen: Vec<(&str, &str)> = events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["action"].as_str().unwrap(), e["label"]["name"].as_str().unwrap()))
        .collect();
    assert_eq!(seen, [("add", "bug"), ("add", "ux"), ("remove", "bug")]);
    let first = &events[0];
    assert_eq!(first["resource_type"], "MergeRequest");
    assert_eq!(first["resource_id"], mr["id"]);
    assert_eq!(first["user"]["username"], mr["author"]["username"]);
    assert_eq!(first["label"]["color"], "#6699cc");
    let (_, _, raw) = w.instance.request(
        "GET",
        &format!("{target}/resource_label_events/{}", first["id"]),
        &[("PRIVATE-TOKEN", w.developer.as_str())],
        b"",
    );
    let raw = String::from_utf8(raw).unwrap();
    let order: Vec<usize> =
        ["\"id\"", "\"user\"", "\"created_at\"", "\"resource_type\"", "\"resource_id\"", "\"label\"", "\"action\""]
            .iter()
            .map(|k| raw.find(k).unwrap_or_else(|| panic!("{k} in {raw}")))
            .collect();
    assert!(order.windows(2).all(|p| p[0] < p[1]), "GitLab's key order: {raw}");
    let (status, body) = w.get(&format!("{target}/resource_label_events/999999"), &w.developer);
    assert_eq!((status, body), (404, json!({"message": "404 Not found"})));
    let (status, _) = w.call("GET", &format!("{target}/resource_label_events"), None, Value::Null);
    assert_eq!(status, 401, "GitLab's `authenticate!`");
    // A deleted label leaves its events, without it.
    let (status, _) = w.call("DELETE", "/api/v4/projects/fx%2Freview/labels/bug", Some(&w.maintainer), Value::Null);
    assert_eq!(status, 204);
    let (_, events) = w.get(&format!("{target}/resource_label_events"), &w.developer);
    assert_eq!(events[0]["label"], Value::Null);
    assert_eq!(events[1]["label"]["name"], "ux");

    // Issues: create, `labels`, `add_labels` and `remove_labels` each record theirs.
    let issues = "/api/v4/projects/fx%2Freview/issues";
    let (status, issue) = w.call("POST", issues, Some(&w.developer), json!({"title": "Tracked", "labels": "a,b"}));
    assert_eq!(status, 201, "{issue}");
    let one = format!("{issues}/{}", issue["iid"]);
    w.call("PUT", &one, Some(&w.developer), json!({"labels": "b,c"}));
    w.call("PUT", &one, Some(&w.developer), json!({"remove_labels": "c"}));
    let (_, events) = w.get(&format!("{one}/resource_label_events"), &w.developer);
    let seen: Vec<(&str, &str)> = events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["action"].as_str().unwrap(), e["label"]["name"].as_str().unwrap()))
        .collect();
    assert_eq!(seen, [("add", "a"), ("add", "b"), ("add", "c"), ("remove", "a"), ("remove", "c")]);
    assert_eq!(events[0]["resource_type"], "Issue");
    let (status, event) = w.get(&format!("{one}/resource_label_events/{}", events[3]["id"]), &w.developer);
    assert_eq!(status, 200);
    assert_eq!(event["action"], "remove");
    // An event of another target is not found through this one.
    let (status, _) = w.get(&format!("{target}/resource_label_events/{}", events[3]["id"]), &w.developer);
    assert_eq!(status, 404);
}

#[test]
fn issue_participants_closing_and_related_merge_requests() {
    let w = world();
    let issues = "/api/v4/projects/fx%2Freview/issues";
    let (status, issue) = w.call("POST", issues, Some(&w.developer), json!({"title": "Broken"}));
    assert_eq!(status, 201, "{issue}");
    let one = format!("{issues}/{}", issue["iid"]);
    let (status, mr) = w.call(
        "POST",
        MRS,
        Some(&w.maintainer),
        json!({"source_branch": "feature", "target_branch": "main", "title": "Fix it",
               "description": format!("Fixes #{}", issue["iid"])}),
    );
    assert_eq!(status, 201, "{mr}");
    let (status, closing) = w.get(&format!("{one}/closed_by"), &w.developer);
    assert_eq!(status, 200, "{closing}");
    assert_eq!(closing.as_array().unwrap().iter().map(|m| m["iid"].clone()).collect::<Vec<_>>(), [mr["iid"].clone()]);
    assert_eq!(closing[0]["references"]["short"], format!("!{}", mr["iid"]));
    // Nothing refers to a merge request yet; then a note does.
    let (_, related) = w.get(&format!("{one}/related_merge_requests"), &w.developer);
    assert_eq!(related, json!([]));
    let (status, _) = w.call(
        "POST",
        &format!("{one}/notes"),
        Some(&w.reporter),
        json!({"body": format!("See !{} and !999", mr["iid"])}),
    );
    assert_eq!(status, 201);
    let (_, related) = w.get(&format!("{one}/related_merge_requests"), &w.developer);
    assert_eq!(related.as_array().unwrap().len(), 1, "{related}");
    assert_eq!(related[0]["iid"], mr["iid"]);
    assert!(related[0].get("subscribed").is_none(), "GitLab's `include_subscribed: false`");
    assert!(related[0].get("diff_refs").is_some(), "the full MergeRequest entity");
    // The author, then the note's author.
    let (status, people) = w.get(&format!("{one}/participants"), &w.developer);
    assert_eq!(status, 200);
    let names: Vec<&str> = people.as_array().unwrap().iter().map(|u| u["username"].as_str().unwrap()).collect();
    let author = issue["author"]["username"].as_str().unwrap();
    let (_, me) = w.get("/api/v4/user", &w.reporter);
    assert_eq!(names, [author, me["username"].as_str().unwrap()]);
    assert_eq!(people[0].as_object().unwrap().len(), 7, "UserBasic: {people}");
    // Another issue: closed by nothing.
    let (_, other) = w.call("POST", issues, Some(&w.developer), json!({"title": "Other"}));
    let (_, none) = w.get(&format!("{issues}/{}/closed_by", other["iid"]), &w.developer);
    assert_eq!(none, json!([]));
    let (status, _) = w.get(&format!("{issues}/999/participants"), &w.developer);
    assert_eq!(status, 404);
}
