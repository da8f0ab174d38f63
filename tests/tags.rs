//! Tags (issue 28, `gitlab-repository-families.md` §4) against the git CLI on the fixture
//! repositories: the list as `git for-each-ref` and `git tag --sort=version:refname` see it,
//! annotated and lightweight tags as `git cat-file` shows them, GitLab's 400 texts, and who
//! may see and write.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{git_text, names, TestInstance};
use serde_json::{json, Value};
use std::path::PathBuf;

const TAGS: &str = "/api/v4/projects/fx%2Fwork/repository/tags";

struct World {
    instance: TestInstance,
    work: PathBuf,
    rita: String,
    dev: String,
}

fn world() -> World {
    let instance = common::open_instance(json!({}));
    let work = instance.fixture_repos().join("work");
    let rita = instance.user_with_token("rita", false);
    let dev = instance.user_with_token("dev", false);
    instance.user_with_token("otto", false);
    for (user, level) in [("rita", 20), ("dev", 30)] {
        instance.admin_ok(json!({"command": "member_add", "group": "fx", "username": user, "access_level": level}));
    }
    World { instance, work, rita, dev }
}

fn git_lines(w: &World, args: &[&str]) -> Vec<String> {
    git_text(&w.work, args).lines().map(str::to_string).collect()
}

/// Tags at several commits and dates, lightweight and annotated, with version-like names.
fn more_tags(w: &World) {
    for (name, at) in [("v1.2.0", "main~3"), ("v1.10.0", "main~1"), ("v2.0.0", "main"), ("v1.9.0", "feature")] {
        git_text(&w.work, &["tag", name, at]);
    }
    git_text(
        &w.work,
        &["-c", "user.name=T", "-c", "user.email=t@example.com", "tag", "-a", "v3.0.0-rc1", "-m", "RC", "orphan"],
    );
}

#[test]
fn the_list_is_what_git_lists() {
    let w = world();
    more_tags(&w);
    let (status, body) =
        w.instance.call("GET", &format!("{TAGS}?order_by=name&sort=asc&per_page=100"), None, Value::Null);
    assert_eq!(status, 200, "{body}");
    let expected =
        git_lines(&w, &["for-each-ref", "--format=%(refname:short) %(objectname) %(*objectname)", "refs/tags"]);
    let got: Vec<String> = body
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let (target, commit) = (t["target"].as_str().unwrap(), t["commit"]["id"].as_str().unwrap());
            // for-each-ref's `*objectname` is the peeled commit of an annotated tag, empty otherwise.
            let peeled = if target == commit { String::new() } else { commit.to_string() };
            format!("{} {target} {peeled}", t["name"].as_str().unwrap())
        })
        .collect();
    assert_eq!(got, expected.iter().map(|l| l.to_string()).collect::<Vec<_>>());

    // version order is git's version:refname order.
    let (_, by_version) = w.instance.call("GET", &format!("{TAGS}?order_by=version&sort=asc"), None, Value::Null);
    assert_eq!(names(&by_version), git_lines(&w, &["tag", "-l", "--sort=version:refname"]));
    let (_, by_version_desc) = w.instance.call("GET", &format!("{TAGS}?order_by=version"), None, Value::Null);
    assert_eq!(names(&by_version_desc), git_lines(&w, &["tag", "-l", "--sort=-version:refname"]));

    // The default order, `updated`, is git's `creatordate` as Gitaly sorts by it: an annotated
    // tag's own (tagger) date, not its commit's; equal dates (two tags of one commit) by name
    // ascending in both directions.
    git_text(&w.work, &["tag", "same-commit-a", "main~3"]);
    git_text(&w.work, &["tag", "same-commit-b", "main~3"]);
    let creatordate = |sort: &str| {
        git_lines(&w, &["for-each-ref", &format!("--sort={sort}creatordate"), "--format=%(refname:short)", "refs/tags"])
    };
    let (_, default_order) = w.instance.call("GET", &format!("{TAGS}?per_page=100"), None, Value::Null);
    assert_eq!(names(&default_order), creatordate("-"));
    let (_, oldest_first) = w.instance.call("GET", &format!("{TAGS}?sort=asc&per_page=100"), None, Value::Null);
    assert_eq!(names(&oldest_first), creatordate(""));
    let annotated_dates_differ =
        git_lines(&w, &["for-each-ref", "--format=%(creatordate:unix) %(*committerdate:unix)", "refs/tags"])
            .iter()
            .any(|l| l.split(' ').nth(1).is_some_and(|c| !c.is_empty() && Some(c) != l.split(' ').next()));
    assert!(annotated_dates_differ, "the fixture has an annotated tag dated apart from its commit");
    git_text(&w.work, &["tag", "-d", "same-commit-a", "same-commit-b"]);

    let (_, search) =
        w.instance.call("GET", &format!("{TAGS}?search=%5Ev1.&order_by=name&sort=asc"), None, Value::Null);
    assert_eq!(names(&search), ["v1.0.0", "v1.10.0", "v1.2.0", "v1.9.0"]);
    let (status, body) = w.instance.call("GET", &format!("{TAGS}?order_by=date"), None, Value::Null);
    assert_eq!((status, body), (400, json!({"error": "order_by does not have a valid value"})));

    // Keyset pages and a bad token.
    let (status, headers, body) =
        w.instance.request("GET", &format!("{TAGS}?order_by=name&sort=asc&pagination=keyset&per_page=2"), &[], b"");
    assert_eq!(status, 200);
    assert_eq!(names(&serde_json::from_slice(&body).unwrap()), ["light", "v1.0.0"]);
    let link = headers.iter().find(|(n, _)| n == "Link").unwrap().1.clone();
    assert!(link.contains("page_token=v1.0.0") && link.ends_with("rel=\"next\""), "{link}");
    let (status, _) = w.instance.call("GET", &format!("{TAGS}?pagination=keyset&page_token=nope"), None, Value::Null);
    assert_eq!(status, 422);
}

#[test]
fn annotated_and_lightweight_tags() {
    let w = world();
    let (status, annotated) = w.instance.call("GET", &format!("{TAGS}/v1.0.0"), None, Value::Null);
    assert_eq!(status, 200);
    assert_eq!(annotated["message"], "Release 1.0.0");
    assert_eq!(annotated["target"], git_text(&w.work, &["rev-parse", "v1.0.0"]));
    assert_eq!(annotated["commit"]["id"], git_text(&w.work, &["rev-parse", "v1.0.0^{commit}"]));
    assert_eq!(annotated["release"], Value::Null);
    assert_eq!(annotated["protected"], false);
    assert!(annotated["created_at"].is_string());
    let (_, light) = w.instance.call("GET", &format!("{TAGS}/light"), None, Value::Null);
    assert_eq!((light["message"].clone(), light["created_at"].clone()), (json!(""), Value::Null));
    assert_eq!(light["target"], light["commit"]["id"]);
    let (status, body) = w.instance.call("GET", &format!("{TAGS}/nope"), None, Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Tag Not Found"})));
}

/// A tag named like the default branch would shadow it for every read by name (git finds
/// `refs/tags/main` before `refs/heads/main`): GitLab refuses it, and the other names its tag
/// check prohibits.
#[test]
fn tags_gitlab_prohibits_are_refused_with_its_words() {
    let w = world();
    let sha = git_text(&w.work, &["rev-parse", "main"]);
    for (name, message) in [
        ("main", "You cannot use default branch name to create a tag"),
        ("refs/tags/x", "You cannot create a tag with a prohibited pattern."),
        (sha.as_str(), "You cannot create a tag with a SHA-1 or SHA-256 tag name."),
        ("HEAD", "Tag name invalid"),
        ("refs/heads/x", "Tag name invalid"),
    ] {
        let (status, body) = w.instance.call("POST", TAGS, Some(&w.dev), json!({"tag_name": name, "ref": "feature"}));
        assert_eq!((status, body), (400, json!({"message": message})), "{name}");
    }
    assert!(git_text(&w.work, &["for-each-ref", "refs/tags/main", "refs/tags/HEAD"]).is_empty());
    let (status, body) =
        w.instance.call("GET", "/api/v4/projects/fx%2Fwork/repository/commits/main", Some(&w.dev), Value::Null);
    assert_eq!((status, body["id"].as_str()), (200, Some(sha.as_str())), "main still reads the branch");
}

#[test]
fn creating_and_deleting_tags() {
    let w = world();
    let (status, body) =
        w.instance.call("POST", TAGS, Some(&w.dev), json!({"tag_name": "v9.0.0", "ref": "feature", "message": "Nine"}));
    assert_eq!(status, 201, "{body}");
    assert_eq!(git_text(&w.work, &["cat-file", "-t", "v9.0.0"]), "tag");
    let object = git_text(&w.work, &["cat-file", "-p", "v9.0.0"]);
    assert!(object.contains("tagger dev <") && object.ends_with("Nine"), "{object}");
    assert_eq!(body["target"], git_text(&w.work, &["rev-parse", "v9.0.0"]));
    assert_eq!(body["commit"]["id"], git_text(&w.work, &["rev-parse", "feature"]));
    assert_eq!(body["message"], "Nine");

    let (status, body) = w.instance.call("POST", &format!("{TAGS}?tag_name=plain&ref=main"), Some(&w.dev), Value::Null);
    assert_eq!(status, 201, "{body}");
    assert_eq!(git_text(&w.work, &["cat-file", "-t", "plain"]), "commit");
    assert_eq!(body["target"], git_text(&w.work, &["rev-parse", "main"]));
    git_text(&w.work, &["fsck", "--strict", "--no-dangling"]);

    for (params, expected) in [
        (json!({"tag_name": "plain", "ref": "main"}), json!({"message": "Tag plain already exists"})),
        (json!({"tag_name": "bad..name", "ref": "main"}), json!({"message": "Tag name invalid"})),
        (json!({"tag_name": "ok", "ref": "nope"}), json!({"message": "Target nope is invalid"})),
        (json!({"ref": "main"}), json!({"error": "tag_name is missing"})),
    ] {
        let (status, body) = w.instance.call("POST", TAGS, Some(&w.dev), params.clone());
        assert_eq!((status, body), (400, expected), "{params}");
    }
    let (status, _) = w.instance.call("POST", TAGS, Some(&w.rita), json!({"tag_name": "r", "ref": "main"}));
    assert_eq!(status, 403);
    let (status, _) = w.instance.call("POST", TAGS, None, json!({"tag_name": "r", "ref": "main"}));
    assert_eq!(status, 401);

    let (status, _) = w.instance.call("DELETE", &format!("{TAGS}/v9.0.0"), Some(&w.rita), Value::Null);
    assert_eq!(status, 403);
    for name in ["v9.0.0", "plain"] {
        let (status, body) = w.instance.call("DELETE", &format!("{TAGS}/{name}"), Some(&w.dev), Value::Null);
        assert_eq!((status, body), (204, Value::Null));
        assert!(git_text(&w.work, &["for-each-ref", &format!("refs/tags/{name}")]).is_empty());
    }
    let (status, body) = w.instance.call("DELETE", &format!("{TAGS}/plain"), Some(&w.dev), Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Tag Not Found"})));
}

#[test]
fn private_tags_are_404_to_whoever_may_not_see_them() {
    let w = world();
    w.instance.admin_ok(json!({"command": "group_add", "path": "priv"}));
    w.instance.admin_ok(json!({"command": "project_add", "path": "priv/app", "repo": w.work}));
    let otto =
        w.instance.admin_ok(json!({"command": "token_add", "username": "otto"}))["token"].as_str().unwrap().to_string();
    for token in [None, Some(otto.as_str()), Some(w.dev.as_str())] {
        for (method, target) in [
            ("GET", "/api/v4/projects/priv%2Fapp/repository/tags"),
            ("GET", "/api/v4/projects/priv%2Fapp/repository/tags/v1.0.0"),
            ("DELETE", "/api/v4/projects/priv%2Fapp/repository/tags/v1.0.0"),
        ] {
            let (status, body) = w.instance.call(method, target, token, Value::Null);
            assert_eq!((status, body), (404, json!({"message": "404 Project Not Found"})), "{method} {target}");
        }
    }
}
