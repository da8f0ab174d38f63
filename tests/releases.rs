//! Releases (issue #42, `gitlab-hooks-releases-statuses.md` §2): create from an existing tag
//! and from a `ref` (the tag checked with the git CLI), semantic-release's exact publish body,
//! the entity in GitLab's key order, GitLab's 409/422/400/404 texts, update, delete, links,
//! `permalink/latest`, who may do what, a deleted tag taking its release along, and the
//! events announced. Runs on SQLite and, with `FORGECORE_TEST_POSTGRES`, on PostgreSQL.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{git_text, TestInstance, Writers};
use forgecore::events::{Event, Listener, ReleaseAction};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

const RELEASES: &str = "/api/v4/projects/fx%2Fwork/releases";

struct World {
    instance: TestInstance,
    work: PathBuf,
    tokens: Writers,
    heard: Arc<Heard>,
}

#[derive(Default)]
struct Heard(Mutex<Vec<Event>>);

impl Listener for Heard {
    fn heard(&self, event: &Event) {
        self.0.lock().unwrap().push(event.clone());
    }
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
    /// A JSON call through the Rust context whose events the test hears.
    fn call(&self, method: &str, target: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        let headers: Vec<(&str, &str)> = token.map(|t| ("PRIVATE-TOKEN", t)).into_iter().collect();
        let body = if body.is_null() { Vec::new() } else { body.to_string().into_bytes() };
        let (status, _, bytes) = self.instance.handle(method, target, &headers, &body);
        (status, if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).unwrap() })
    }

    fn releases_heard(&self) -> Vec<(String, ReleaseAction)> {
        self.heard
            .0
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                Event::Release(r) => Some((r.tag_name.clone(), r.action)),
                _ => None,
            })
            .collect()
    }
}

/// The top-level keys of a JSON object's text, in the order written.
fn key_order(text: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let (mut depth, mut in_string, mut escaped, mut start) = (0, false, false, 0);
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                if depth == 1 && bytes.get(i + 1) == Some(&b':') {
                    keys.push(text[start + 1..i].to_string());
                }
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                start = i;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth -= 1,
            _ => {}
        }
    }
    keys
}

fn raw(w: &World, method: &str, target: &str, token: &str, body: Value) -> (u16, String) {
    let body = if body.is_null() { Vec::new() } else { body.to_string().into_bytes() };
    let (status, _, bytes) = w.instance.handle(method, target, &[("PRIVATE-TOKEN", token)], &body);
    (status, String::from_utf8(bytes).unwrap())
}

#[test]
fn semantic_release_publishes_on_its_pushed_tag() {
    let w = world();
    // semantic-release pushes the tag with git first, then POSTs exactly this body
    // (`@semantic-release/gitlab` lib/publish.js: `milestones` undefined is dropped by JSON).
    git_text(&w.work, &["tag", "v1.1.0", "main"]);
    let body = json!({
        "tag_name": "v1.1.0",
        "description": "## 1.1.0 (2024-01-01)\n\n### Features\n\n* a feature",
        "assets": {"links": [
            {"name": "dist.tgz", "url": "https://example.com/dist.tgz", "link_type": "package", "filepath": "/dist.tgz"},
            {"name": "docs", "url": "https://example.com/docs"}
        ]}
    });
    let (status, text) = raw(&w, "POST", RELEASES, &w.tokens.developer, body);
    assert_eq!(status, 201, "{text}");
    assert_eq!(
        key_order(&text),
        [
            "name",
            "tag_name",
            "description",
            "created_at",
            "released_at",
            "upcoming_release",
            "author",
            "commit",
            "commit_path",
            "tag_path",
            "assets",
            "evidences",
            "_links"
        ]
    );
    let release: Value = serde_json::from_str(&text).unwrap();
    let sha = git_text(&w.work, &["rev-parse", "v1.1.0^{commit}"]);
    assert_eq!(release["name"], "v1.1.0", "the name defaults to the tag");
    assert_eq!(release["commit"]["id"], sha.as_str());
    assert_eq!(release["commit_path"], format!("/fx/work/-/commit/{sha}"));
    assert_eq!(release["tag_path"], "/fx/work/-/tags/v1.1.0");
    assert_eq!(release["author"]["username"], "dev");
    assert_eq!(release["upcoming_release"], false);
    let assets = &release["assets"];
    assert_eq!(key_order(&assets.to_string()).len(), 3);
    assert_eq!(assets["count"], 6, "two links and four sources");
    let formats: Vec<&str> =
        assets["sources"].as_array().unwrap().iter().map(|s| s["format"].as_str().unwrap()).collect();
    assert_eq!(formats, ["zip", "tar.gz", "tar.bz2", "tar"]);
    let links = assets["links"].as_array().unwrap();
    assert_eq!(links.len(), 2);
    let dist = links.iter().find(|l| l["name"] == "dist.tgz").unwrap();
    assert_eq!(dist["link_type"], "package");
    assert!(dist["direct_asset_url"].as_str().unwrap().ends_with("/fx/work/-/releases/v1.1.0/downloads/dist.tgz"));
    assert_eq!(dist["external"], true);
    let docs = links.iter().find(|l| l["name"] == "docs").unwrap();
    assert_eq!(
        (docs["link_type"].clone(), docs["direct_asset_url"].clone()),
        (json!("other"), json!("https://example.com/docs"))
    );
    assert!(release["_links"]["self"].as_str().unwrap().ends_with("/fx/work/-/releases/v1.1.0"));
    assert!(release["_links"]["edit_url"].is_string());

    // The archive links are served, and archive the tag.
    let zip = assets["sources"][0]["url"].as_str().unwrap();
    let path = zip.split_once("://").unwrap().1.split_once('/').unwrap().1;
    let (status, _, bytes) =
        w.instance.handle("GET", &format!("/{path}"), &[("PRIVATE-TOKEN", &w.tokens.developer)], b"");
    assert_eq!(status, 200, "{zip}");
    assert!(bytes.starts_with(b"PK"), "a zip archive");

    // The second run's release, and the list newest first.
    git_text(&w.work, &["tag", "v1.2.0", "main"]);
    let (status, _) = w.call(
        "POST",
        RELEASES,
        Some(&w.tokens.developer),
        json!({"tag_name": "v1.2.0", "description": "next", "released_at": "2030-01-01T00:00:00Z", "assets": {"links": []}}),
    );
    assert_eq!(status, 201);
    // The tag shows its release (GitLab's TagRelease).
    let (_, tag) = w.call("GET", "/api/v4/projects/fx%2Fwork/repository/tags/v1.2.0", None, Value::Null);
    assert_eq!(tag["release"], json!({"tag_name": "v1.2.0", "description": "next"}));
    let (_, tags) = w.call("GET", "/api/v4/projects/fx%2Fwork/repository/tags?per_page=100", None, Value::Null);
    let light = tags.as_array().unwrap().iter().find(|t| t["name"] == "light").unwrap();
    assert_eq!(light["release"], Value::Null);
    assert!(tags.as_array().unwrap().iter().any(|t| t["release"]["description"] == "next"));
    let (status, list) = w.call("GET", RELEASES, Some(&w.tokens.reporter), Value::Null);
    assert_eq!(status, 200);
    let tags: Vec<&str> = list.as_array().unwrap().iter().map(|r| r["tag_name"].as_str().unwrap()).collect();
    assert_eq!(tags, ["v1.2.0", "v1.1.0"]);
    assert_eq!(list[0]["upcoming_release"], true);
    assert!(list[0]["_links"].get("edit_url").is_none(), "a reporter may not edit");
    let (_, asc) = w.call("GET", &format!("{RELEASES}?sort=asc"), Some(&w.tokens.reporter), Value::Null);
    assert_eq!(asc[0]["tag_name"], "v1.1.0");
    let (status, body) = w.call("GET", &format!("{RELEASES}?order_by=name"), None, Value::Null);
    assert_eq!((status, body), (400, json!({"error": "order_by does not have a valid value"})));
    assert_eq!(
        w.releases_heard(),
        [("v1.1.0".to_string(), ReleaseAction::Created), ("v1.2.0".into(), ReleaseAction::Created)]
    );
}

#[test]
fn a_release_with_ref_creates_its_tag_through_the_tag_writer() {
    let w = world();
    let main = git_text(&w.work, &["rev-parse", "main"]);
    let (status, body) = w.call(
        "POST",
        RELEASES,
        Some(&w.tokens.developer),
        json!({"tag_name": "v9.0.0", "name": "Nine", "ref": "main", "tag_message": "Version nine", "description": "d"}),
    );
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["name"], "Nine");
    assert_eq!(git_text(&w.work, &["cat-file", "-t", "v9.0.0"]), "tag", "an annotated tag");
    assert_eq!(git_text(&w.work, &["rev-parse", "v9.0.0^{commit}"]), main);
    let (status, body) =
        w.call("POST", RELEASES, Some(&w.tokens.developer), json!({"tag_name": "v9.1.0", "ref": "feature"}));
    assert_eq!(status, 201, "{body}");
    assert_eq!(git_text(&w.work, &["cat-file", "-t", "v9.1.0"]), "commit", "a lightweight tag");
    assert_eq!(git_text(&w.work, &["rev-parse", "v9.1.0"]), git_text(&w.work, &["rev-parse", "feature"]));
    assert!(w.heard.0.lock().unwrap().iter().any(|e| matches!(e, Event::RefsMoved(m)
        if m.updates.iter().any(|u| u.name == "refs/tags/v9.0.0" && u.old.is_none()))));

    // GitLab's refusals, in its order.
    let post = |body: Value| w.call("POST", RELEASES, Some(&w.tokens.developer), body);
    assert_eq!(post(json!({"tag_name": "v9.0.0"})), (409, json!({"message": "Release already exists"})));
    assert_eq!(post(json!({"tag_name": "v10"})), (422, json!({"message": "Ref is not specified"})));
    assert!(git_text(&w.work, &["tag", "-l", "v10"]).is_empty(), "no tag was made");
    assert_eq!(post(json!({"tag_name": "v10", "ref": "nope"})), (400, json!({"message": "Target nope is invalid"})));
    assert_eq!(post(json!({"tag_name": "bad..name", "ref": "main"})), (400, json!({"message": "Tag name invalid"})));
    assert_eq!(
        post(json!({"tag_name": "v10", "ref": "main", "milestones": ["m1", "m2"]})),
        (400, json!({"message": "Milestone(s) not found: m1, m2"}))
    );
    assert_eq!(
        post(
            json!({"tag_name": "v10", "ref": "main", "assets": {"links": [{"name": "x", "url": "javascript:alert(1)"}]}})
        ),
        (400, json!({"message": "Validation failed: Links url is blocked: Only allowed schemes are http, https, ftp"}))
    );
    assert!(git_text(&w.work, &["tag", "-l", "v10"]).is_empty(), "an invalid link makes no tag");
    assert_eq!(post(json!({})).0, 400);
    assert_eq!(post(json!({"tag_name": "v10", "released_at": "soon", "ref": "main"})).0, 400);
}

#[test]
fn who_may_read_and_write_releases() {
    let w = world();
    let (status, _) =
        w.call("POST", RELEASES, Some(&w.tokens.reporter), json!({"tag_name": "v1.0.0", "description": "x"}));
    assert_eq!(status, 403);
    let (status, _) = w.call("POST", RELEASES, None, json!({"tag_name": "v1.0.0"}));
    assert_eq!(status, 401);
    let (status, made) =
        w.call("POST", RELEASES, Some(&w.tokens.developer), json!({"tag_name": "v1.0.0", "description": "x"}));
    assert_eq!(status, 201, "{made}");
    // Anyone reads a public project's releases.
    let (status, one) = w.call("GET", &format!("{RELEASES}/v1.0.0"), None, Value::Null);
    assert_eq!(status, 200);
    assert_eq!(one["description"], "x");
    assert!(one.get("description_html").is_none());
    let (_, html) = w.call("GET", &format!("{RELEASES}/v1.0.0?include_html_description=true"), None, Value::Null);
    assert_eq!(html["description_html"], "<p dir=\"auto\">x</p>");
    let (status, body) = w.call("GET", &format!("{RELEASES}/nope"), None, Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Not Found"})));
    let (status, _) = w.call("PUT", &format!("{RELEASES}/v1.0.0"), Some(&w.tokens.reporter), json!({"name": "n"}));
    assert_eq!(status, 403);
    let (status, _) = w.call("DELETE", &format!("{RELEASES}/v1.0.0"), Some(&w.tokens.reporter), Value::Null);
    assert_eq!(status, 403);
}

/// A private project: outsiders get the 404 of a missing project, guests read the list but
/// not one release (GitLab's `authorize_read_code!`), and see no commit or sources.
#[test]
fn private_projects_releases() {
    let instance = common::open_instance(json!({}));
    let work = instance.fixture_repos().join("work");
    let matrix = instance.visibility_matrix("root", &work);
    let private = "/api/v4/projects/corp%2Fsecret/releases";
    let (status, made) =
        instance.call("POST", private, Some(&matrix.admin), json!({"tag_name": "v1.0.0", "description": "p"}));
    assert_eq!(status, 201, "{made}");
    let (status, body) = instance.call("GET", private, Some(&matrix.outsider), Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Project Not Found"})));
    let (status, body) = instance.call("GET", private, None, Value::Null);
    assert_eq!(status, 404, "{body}");
    let (status, list) = instance.call("GET", private, Some(&matrix.guest), Value::Null);
    assert_eq!(status, 200);
    assert!(list[0].get("commit").is_none() && list[0]["assets"].get("sources").is_none());
    assert_eq!(list[0]["assets"]["count"], 0);
    let (status, _) = instance.call("GET", &format!("{private}/v1.0.0"), Some(&matrix.guest), Value::Null);
    assert_eq!(status, 403);
    let (status, one) = instance.call("GET", &format!("{private}/v1.0.0"), Some(&matrix.reporter), Value::Null);
    assert_eq!(status, 200);
    assert!(one["commit"]["id"].is_string());
}

#[test]
fn update_delete_links_and_latest() {
    let w = world();
    let dev = Some(w.tokens.developer.as_str());
    git_text(&w.work, &["tag", "v2.0.0", "main"]);
    for (tag, at) in [("v1.0.0", "2020-01-01T00:00:00Z"), ("v2.0.0", "2021-01-01T00:00:00+02:00")] {
        let (status, body) = w.call("POST", RELEASES, dev, json!({"tag_name": tag, "released_at": at}));
        assert_eq!(status, 201, "{body}");
    }
    let (_, got) = w.call("GET", &format!("{RELEASES}/v2.0.0"), None, Value::Null);
    assert_eq!(got["released_at"], "2020-12-31T22:00:00.000+00:00");

    // Update.
    let (status, body) =
        w.call("PUT", &format!("{RELEASES}/v1.0.0"), dev, json!({"name": "One", "description": "new"}));
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["name"].clone(), body["description"].clone()), (json!("One"), json!("new")));
    let (status, body) = w.call("PUT", &format!("{RELEASES}/v1.0.0"), dev, json!({}));
    assert_eq!((status, body), (400, json!({"message": "params is empty"})));
    let (status, body) = w.call("PUT", &format!("{RELEASES}/nope"), dev, json!({"name": "x"}));
    assert_eq!((status, body), (404, json!({"message": "Tag does not exist"})));
    let (status, body) = w.call("PUT", &format!("{RELEASES}/light"), dev, json!({"name": "x"}));
    assert_eq!((status, body), (404, json!({"message": "Release does not exist"})));

    // Latest: a redirect to the newest by released_at, the query kept but `order_by`.
    let (status, headers, _) = w.instance.handle(
        "GET",
        &format!("{RELEASES}/permalink/latest?order_by=x&include_html_description=true"),
        &[],
        b"",
    );
    assert_eq!(status, 302);
    let location = headers.iter().find(|(n, _)| n == "Location").unwrap().1.clone();
    assert!(location.ends_with("/releases/v2.0.0?include_html_description=true"), "{location}");

    // Links.
    let links = format!("{RELEASES}/v1.0.0/assets/links");
    let (status, link) = w.call(
        "POST",
        &links,
        dev,
        json!({"name": "bin", "url": "https://example.com/bin", "direct_asset_path": "/bin/app", "link_type": "runbook"}),
    );
    assert_eq!(status, 201, "{link}");
    assert_eq!(link["link_type"], "runbook");
    let (status, body) = w.call("POST", &links, dev, json!({"name": "bin", "url": "https://example.com/other"}));
    assert_eq!((status, body), (400, json!({"message": "Validation failed: Links name has already been taken"})));
    let (status, _) = w.call("POST", &links, Some(&w.tokens.reporter), json!({"name": "x", "url": "https://x.y"}));
    assert_eq!(status, 403);
    let one = format!("{links}/{}", link["id"]);
    let (status, changed) = w.call("PUT", &one, dev, json!({"name": "binary"}));
    assert_eq!((status, changed["name"].clone()), (200, json!("binary")));
    let (_, listed) = w.call("GET", &links, None, Value::Null);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let (_, release) = w.call("GET", &format!("{RELEASES}/v1.0.0"), None, Value::Null);
    assert_eq!(release["assets"]["links"][0]["name"], "binary");
    assert_eq!(release["assets"]["count"], 5);
    let (status, gone) = w.call("DELETE", &one, dev, Value::Null);
    assert_eq!((status, gone["name"].clone()), (200, json!("binary")));
    let (status, body) = w.call("GET", &one, None, Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Not found"})));

    // Delete answers the release; the tag stays.
    let (status, deleted) = w.call("DELETE", &format!("{RELEASES}/v1.0.0"), dev, Value::Null);
    assert_eq!((status, deleted["tag_name"].clone()), (200, json!("v1.0.0")));
    assert_eq!(git_text(&w.work, &["cat-file", "-t", "v1.0.0"]), "tag");
    let (status, _) = w.call("GET", &format!("{RELEASES}/v1.0.0"), None, Value::Null);
    assert_eq!(status, 404);

    // Deleting a tag removes its release, as GitLab does.
    let (status, _) = w.call("DELETE", "/api/v4/projects/fx%2Fwork/repository/tags/v2.0.0", dev, Value::Null);
    assert_eq!(status, 204);
    let (status, _) = w.call("GET", &format!("{RELEASES}/v2.0.0"), None, Value::Null);
    assert_eq!(status, 404);
    let (status, _) = w.call("GET", &format!("{RELEASES}/permalink/latest"), None, Value::Null);
    assert_eq!(status, 404);
    let heard = w.releases_heard();
    assert!(heard.contains(&("v1.0.0".into(), ReleaseAction::Updated)));
    assert!(heard.contains(&("v1.0.0".into(), ReleaseAction::Deleted)));

    // The group's releases.
    let (status, body) = w.call("POST", RELEASES, dev, json!({"tag_name": "v3.0.0", "ref": "main"}));
    assert_eq!(status, 201, "{body}");
    let (status, group) = w.call("GET", "/api/v4/groups/fx/releases", None, Value::Null);
    assert_eq!(status, 200);
    let tags: Vec<&str> = group.as_array().unwrap().iter().map(|r| r["tag_name"].as_str().unwrap()).collect();
    assert_eq!(tags, ["v3.0.0"]);
}
