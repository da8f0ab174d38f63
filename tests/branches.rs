//! Branches (issue 28, `gitlab-repository-families.md` §3) against the git CLI on the fixture
//! repositories: the list as `git for-each-ref` sees it, `merged` as `git branch --merged`
//! says, creates and deletes as `git show-ref` then finds them, GitLab's 400 texts, the
//! protection of the default branch, and who may see and write.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{git_text, names, TestInstance};
use serde_json::{json, Value};
use std::path::PathBuf;

const BRANCHES: &str = "/api/v4/projects/fx%2Fwork/repository/branches";

struct World {
    instance: TestInstance,
    work: PathBuf,
    rita: String,
    dev: String,
    max: String,
    root: String,
    otto: String,
}

/// The fixtures, with `rita` Reporter, `dev` Developer and `max` Maintainer of the group `fx`,
/// the administrator `root` and the outsider `otto`.
fn world() -> World {
    let instance = common::open_instance(json!({}));
    let work = instance.fixture_repos().join("work");
    let root = instance.user_with_token("root", true);
    let otto = instance.user_with_token("otto", false);
    let mut tokens = Vec::new();
    for (user, level) in [("rita", 20), ("dev", 30), ("max", 40)] {
        tokens.push(instance.user_with_token(user, false));
        instance.admin_ok(json!({"command": "member_add", "group": "fx", "username": user, "access_level": level}));
    }
    let [rita, dev, max]: [String; 3] = tokens.try_into().unwrap();
    World { instance, work, rita, dev, max, root, otto }
}

fn git_lines(w: &World, args: &[&str]) -> Vec<String> {
    git_text(&w.work, args).lines().map(|l| l.trim().trim_start_matches("* ").to_string()).collect()
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

#[test]
fn the_list_is_what_git_for_each_ref_lists() {
    let w = world();
    // More branches, some merged into main and some not.
    git_text(&w.work, &["branch", "old-topic", "main~2"]);
    git_text(&w.work, &["branch", "release/1.0", "v1.0.0"]);
    let (status, body) = w.instance.call("GET", &format!("{BRANCHES}?per_page=100"), None, Value::Null);
    assert_eq!(status, 200, "{body}");
    let expected = git_lines(&w, &["for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads"]);
    let got: Vec<String> = body
        .as_array()
        .unwrap()
        .iter()
        .map(|b| format!("{} {}", b["name"].as_str().unwrap(), b["commit"]["id"].as_str().unwrap()))
        .collect();
    assert_eq!(got, expected);
    let merged = git_lines(&w, &["branch", "--merged", "main"]);
    for branch in body.as_array().unwrap() {
        let name = branch["name"].as_str().unwrap();
        let is_main = name == "main";
        assert_eq!(branch["merged"], !is_main && merged.contains(&name.to_string()), "{name}");
        assert_eq!(branch["default"], is_main, "{name}");
        assert_eq!(branch["protected"], is_main, "{name}");
        assert_eq!(branch["can_push"], false, "anonymous callers push nowhere");
        assert_eq!(branch["developers_can_push"], false);
        assert_eq!(branch["web_url"], format!("http://localhost/fx/work/-/tree/{name}"));
    }
    assert!(merged.contains(&"feature".to_string()) && !merged.contains(&"orphan".to_string()));

    // can_push for the caller: Developers push to unprotected branches only, Maintainers to main.
    let (_, dev_view) = w.instance.call("GET", BRANCHES, Some(&w.dev), Value::Null);
    for branch in dev_view.as_array().unwrap() {
        assert_eq!(branch["can_push"], branch["name"] != "main", "{branch}");
    }
    let (_, max_view) = w.instance.call("GET", &format!("{BRANCHES}/main"), Some(&w.max), Value::Null);
    assert_eq!(max_view["can_push"], true);
    let (_, rita_view) = w.instance.call("GET", &format!("{BRANCHES}/feature"), Some(&w.rita), Value::Null);
    assert_eq!(rita_view["can_push"], false);
}

#[test]
fn search_regex_sort_and_both_paginations() {
    let w = world();
    for name in ["alpha", "beta/one", "beta/two", "Gamma"] {
        git_text(&w.work, &["branch", name, "main"]);
    }
    let list = |query: &str| names(&w.instance.call("GET", &format!("{BRANCHES}?{query}"), None, Value::Null).1);
    assert_eq!(list("search=beta"), ["beta/one", "beta/two"]);
    assert_eq!(list("search=%5Ebe"), ["beta/one", "beta/two"]);
    assert_eq!(list("search=one%24"), ["beta/one"]);
    assert_eq!(list("search=gamma"), ["Gamma"], "search ignores case");
    assert_eq!(list("search=%5Emain%24"), ["main"]);
    assert_eq!(list("regex=%5E(a|o)"), ["alpha", "orphan"]);
    let (status, body) = w.instance.call("GET", &format!("{BRANCHES}?regex=%28"), None, Value::Null);
    assert_eq!((status, body), (400, json!({"error": "regex is invalid"})));
    let (status, body) = w.instance.call("GET", &format!("{BRANCHES}?sort=sideways"), None, Value::Null);
    assert_eq!((status, body), (400, json!({"error": "sort does not have a valid value"})));

    // updated_desc is git's committer-date order (ties by name).
    let by_date = git_lines(
        &w,
        &["for-each-ref", "--sort=refname", "--sort=-committerdate", "--format=%(refname:short)", "refs/heads"],
    );
    assert_eq!(list("sort=updated_desc&per_page=100"), by_date);

    // Offset pages with totals.
    let (status, headers, body) = w.instance.request("GET", &format!("{BRANCHES}?per_page=2&page=2"), &[], b"");
    assert_eq!(status, 200);
    let all = git_lines(&w, &["for-each-ref", "--format=%(refname:short)", "refs/heads"]);
    assert_eq!(names(&serde_json::from_slice(&body).unwrap()), all[2..4]);
    assert_eq!(header(&headers, "X-Total"), Some(all.len().to_string().as_str()));
    assert_eq!(header(&headers, "X-Next-Page"), Some("3"));

    // Keyset pages: page_token is the last name, Link rel="next" only.
    let mut seen = Vec::new();
    let mut target = format!("{BRANCHES}?pagination=keyset&per_page=3");
    loop {
        let (status, headers, body) = w.instance.request("GET", &target, &[], b"");
        assert_eq!(status, 200);
        assert!(header(&headers, "X-Total").is_none());
        seen.extend(names(&serde_json::from_slice(&body).unwrap()));
        match header(&headers, "Link") {
            Some(link) => {
                assert!(link.ends_with("rel=\"next\""), "{link}");
                let url = link.trim_start_matches('<').split('>').next().unwrap();
                target = url.strip_prefix("http://localhost").unwrap().to_string();
            }
            None => break,
        }
    }
    assert_eq!(seen, all);
}

#[test]
fn one_branch_and_its_absence() {
    let w = world();
    let (status, body) = w.instance.call("GET", &format!("{BRANCHES}/feature"), None, Value::Null);
    assert_eq!(status, 200);
    assert_eq!(body["commit"]["id"], git_text(&w.work, &["rev-parse", "feature"]));
    assert_eq!(body["merged"], true);
    let (status, body) = w.instance.call("GET", &format!("{BRANCHES}/nope"), None, Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Branch Not Found"})));
    // HEAD says only whether it exists, as GitLab's `no_content!`.
    let (status, _, body) = w.instance.request("HEAD", &format!("{BRANCHES}/feature"), &[], b"");
    assert_eq!((status, body.len()), (204, 0));
    let (status, _, _) = w.instance.request("HEAD", &format!("{BRANCHES}/nope"), &[], b"");
    assert_eq!(status, 404);
    // A name with a slash arrives encoded.
    git_text(&w.work, &["branch", "team/topic", "main"]);
    let (status, body) = w.instance.call("GET", &format!("{BRANCHES}/team%2Ftopic"), None, Value::Null);
    assert_eq!((status, body["name"].as_str()), (200, Some("team/topic")));
}

#[test]
fn creating_branches() {
    let w = world();
    let (status, body) = w.instance.call("POST", BRANCHES, Some(&w.dev), json!({"branch": "topic", "ref": "v1.0.0"}));
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["name"], "topic");
    let tagged = git_text(&w.work, &["rev-parse", "v1.0.0^{commit}"]);
    assert_eq!(git_text(&w.work, &["rev-parse", "refs/heads/topic"]), tagged);
    assert_eq!(body["commit"]["id"], tagged);
    assert_eq!(body["can_push"], true);
    git_text(&w.work, &["fsck", "--strict", "--no-dangling"]);

    // From a SHA, by query parameters.
    let (status, body) =
        w.instance.call("POST", &format!("{BRANCHES}?branch=from-sha&ref={tagged}"), Some(&w.dev), Value::Null);
    assert_eq!(status, 201, "{body}");

    for (params, expected) in [
        (json!({"branch": "topic", "ref": "main"}), json!({"message": "Branch already exists"})),
        (json!({"branch": "a..b", "ref": "main"}), json!({"message": "Branch name is invalid"})),
        (json!({"branch": "-x", "ref": "main"}), json!({"message": "Branch name is invalid"})),
        (json!({"branch": "HEAD", "ref": "main"}), json!({"message": "Branch name is invalid"})),
        (
            json!({"branch": "new", "ref": "nope"}),
            json!({"message": "Failed to create branch 'new': invalid reference name 'nope'"}),
        ),
        (
            json!({"branch": "topic/sub", "ref": "main"}),
            json!({"message": "Failed to create branch 'topic/sub': cannot lock ref 'refs/heads/topic/sub': 'refs/heads/topic' exists"}),
        ),
        (json!({"ref": "main"}), json!({"error": "branch is missing"})),
        (json!({"branch": "x"}), json!({"error": "ref is missing"})),
        (json!({"branch": " ", "ref": "main"}), json!({"error": "branch is empty"})),
    ] {
        let (status, body) = w.instance.call("POST", BRANCHES, Some(&w.dev), params.clone());
        assert_eq!((status, body), (400, expected), "{params}");
    }
    assert_eq!(git_text(&w.work, &["for-each-ref", "--format=%(refname)", "refs/heads/topic*"]), "refs/heads/topic");

    // Who may: Reporters are refused, anonymous callers must sign in, outsiders of a private
    // project do not see it.
    let (status, _) = w.instance.call("POST", BRANCHES, Some(&w.rita), json!({"branch": "r", "ref": "main"}));
    assert_eq!(status, 403);
    let (status, _) = w.instance.call("POST", BRANCHES, None, json!({"branch": "r", "ref": "main"}));
    assert_eq!(status, 401);
    w.instance.admin_ok(json!({"command": "group_add", "path": "priv"}));
    w.instance.admin_ok(json!({"command": "project_add", "path": "priv/app", "repo": w.work}));
    let (status, body) = w.instance.call(
        "POST",
        "/api/v4/projects/priv%2Fapp/repository/branches",
        Some(&w.otto),
        json!({"branch": "r", "ref": "main"}),
    );
    assert_eq!((status, body), (404, json!({"message": "404 Project Not Found"})));
    let (status, _) =
        w.instance.call("GET", "/api/v4/projects/priv%2Fapp/repository/branches", Some(&w.otto), Value::Null);
    assert_eq!(status, 404);
    let (status, _) = w.instance.call("GET", "/api/v4/projects/priv%2Fapp/repository/branches", None, Value::Null);
    assert_eq!(status, 404);
    let (status, _) =
        w.instance.call("GET", "/api/v4/projects/priv%2Fapp/repository/branches", Some(&w.root), Value::Null);
    assert_eq!(status, 200);
    assert!(git_text(&w.work, &["for-each-ref", "refs/heads/r"]).is_empty());
}

#[test]
fn deleting_branches() {
    let w = world();
    git_text(&w.work, &["branch", "gone", "main"]);
    let (status, body) = w.instance.call("DELETE", &format!("{BRANCHES}/gone"), Some(&w.dev), Value::Null);
    assert_eq!((status, body), (204, Value::Null));
    assert!(git_text(&w.work, &["for-each-ref", "refs/heads/gone"]).is_empty());
    let (status, body) = w.instance.call("DELETE", &format!("{BRANCHES}/gone"), Some(&w.dev), Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Branch Not Found"})));

    // The default branch is never deleted, not even by an administrator.
    for token in [&w.dev, &w.max, &w.root] {
        let (status, body) = w.instance.call("DELETE", &format!("{BRANCHES}/main"), Some(token), Value::Null);
        assert_eq!((status, body), (400, json!({"message": "The default branch of a project cannot be deleted."})));
    }
    let (status, _) = w.instance.call("DELETE", &format!("{BRANCHES}/feature"), Some(&w.rita), Value::Null);
    assert_eq!(status, 403);
    assert_eq!(git_text(&w.work, &["rev-parse", "--verify", "-q", "refs/heads/feature"]).len(), 40);
    // A packed branch goes away from packed-refs too.
    git_text(&w.work, &["pack-refs", "--all"]);
    let (status, _) = w.instance.call("DELETE", &format!("{BRANCHES}/orphan"), Some(&w.dev), Value::Null);
    assert_eq!(status, 204);
    assert!(git_text(&w.work, &["for-each-ref", "refs/heads/orphan"]).is_empty());
    git_text(&w.work, &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn deleting_merged_branches_keeps_the_default_protected_and_unmerged_ones() {
    let w = world();
    for (name, at) in [("done-1", "main~1"), ("done-2", "feature"), ("wip", "orphan")] {
        git_text(&w.work, &["branch", name, at]);
    }
    let (status, body) =
        w.instance.call("DELETE", "/api/v4/projects/fx%2Fwork/repository/merged_branches", Some(&w.dev), Value::Null);
    assert_eq!((status, body), (202, json!({"message": "202 Accepted"})));
    let left = git_lines(&w, &["for-each-ref", "--format=%(refname:short)", "refs/heads"]);
    assert_eq!(left, ["main", "orphan", "wip"]);
    let (status, _) =
        w.instance.call("DELETE", "/api/v4/projects/fx%2Fwork/repository/merged_branches", Some(&w.rita), Value::Null);
    assert_eq!(status, 403);
}

const PROTECTED: &str = "/api/v4/projects/fx%2Fwork/protected_branches";

#[test]
fn protected_branches_are_managed_by_maintainers_and_hold_on_every_branch_write() {
    let w = world();
    // A new project's default branch is protected as GitLab protects it by default.
    let (status, list) = w.instance.call("GET", PROTECTED, Some(&w.max), Value::Null);
    assert_eq!(status, 200, "{list}");
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["name"], "main");
    assert_eq!(list[0]["push_access_levels"][0]["access_level"], 40);
    assert_eq!(list[0]["merge_access_levels"][0]["access_level"], 40);
    assert_eq!(list[0]["allow_force_push"], false);
    // Developers and below do not manage protections; outsiders of a private project do not see it.
    for token in [&w.dev, &w.rita] {
        let (status, _) = w.instance.call("GET", PROTECTED, Some(token), Value::Null);
        assert_eq!(status, 403);
        let (status, _) = w.instance.call("POST", PROTECTED, Some(token), json!({"name": "x"}));
        assert_eq!(status, 403);
    }
    let (status, _) = w.instance.call("GET", PROTECTED, None, Value::Null);
    assert_eq!(status, 401);

    // A wildcard rule: Maintainers push, Developers merge.
    let (status, rule) = w.instance.call(
        "POST",
        PROTECTED,
        Some(&w.max),
        json!({"name": "release/*", "push_access_level": 40, "merge_access_level": 30}),
    );
    assert_eq!(status, 201, "{rule}");
    assert_eq!(rule["name"], "release/*");
    let (status, body) = w.instance.call("POST", PROTECTED, Some(&w.max), json!({"name": "release/*"}));
    assert_eq!((status, body), (409, json!({"message": "Protected branch 'release/*' already exists"})));
    let (status, body) =
        w.instance.call("POST", PROTECTED, Some(&w.max), json!({"name": "y", "push_access_level": 35}));
    assert_eq!((status, body), (400, json!({"error": "push_access_level does not have a valid value"})));
    let (status, one) = w.instance.call("GET", &format!("{PROTECTED}/release%2F*"), Some(&w.max), Value::Null);
    assert_eq!((status, one["name"].as_str()), (200, Some("release/*")));

    // Developers may not create or delete a protected branch; Maintainers and administrators may.
    let create = |token: &str, name: &str| {
        w.instance.call("POST", BRANCHES, Some(token), json!({"branch": name, "ref": "main"}))
    };
    let (status, body) = create(&w.dev, "release/1.0");
    assert_eq!(
        (status, body),
        (400, json!({"message": "You are not allowed to create protected branches on this project."}))
    );
    assert!(git_text(&w.work, &["for-each-ref", "refs/heads/release"]).is_empty());
    assert_eq!(create(&w.max, "release/1.0").0, 201);
    assert_eq!(create(&w.root, "release/2.0").0, 201);
    assert_eq!(create(&w.dev, "topic").0, 201, "unprotected names stay open to Developers");
    let (_, branch) = w.instance.call("GET", &format!("{BRANCHES}/release%2F1.0"), Some(&w.dev), Value::Null);
    assert_eq!(
        (branch["protected"].clone(), branch["can_push"].clone(), branch["developers_can_merge"].clone()),
        (json!(true), json!(false), json!(true))
    );
    let (status, body) = w.instance.call("DELETE", &format!("{BRANCHES}/release%2F1.0"), Some(&w.dev), Value::Null);
    assert_eq!(
        (status, body),
        (
            400,
            json!({"message": "You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch."})
        )
    );
    let (status, _) = w.instance.call("DELETE", &format!("{BRANCHES}/release%2F1.0"), Some(&w.max), Value::Null);
    assert_eq!(status, 204);
    // Protected branches survive merged_branches, even merged ones.
    let (status, _) =
        w.instance.call("DELETE", "/api/v4/projects/fx%2Fwork/repository/merged_branches", Some(&w.max), Value::Null);
    assert_eq!(status, 202);
    assert_eq!(git_text(&w.work, &["rev-parse", "--verify", "-q", "refs/heads/release/2.0"]).len(), 40);

    // Nobody may push to a branch whose push level is "no one", administrators included.
    assert_eq!(
        w.instance.call("POST", PROTECTED, Some(&w.max), json!({"name": "frozen", "push_access_level": 0})).0,
        201
    );
    let (status, _) = create(&w.root, "frozen");
    assert_eq!(status, 400);

    // Unprotecting opens the names to Developers again.
    let (status, _) = w.instance.call("DELETE", &format!("{PROTECTED}/release%2F*"), Some(&w.max), Value::Null);
    assert_eq!(status, 204);
    let (status, body) = w.instance.call("DELETE", &format!("{PROTECTED}/release%2F*"), Some(&w.max), Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Protected Branch Not Found"})));
    assert_eq!(create(&w.dev, "release/3.0").0, 201);
    // Even unprotected, the default branch is never deleted.
    let (status, _) = w.instance.call("DELETE", &format!("{PROTECTED}/main"), Some(&w.max), Value::Null);
    assert_eq!(status, 204);
    let (status, _) = w.instance.call("DELETE", &format!("{BRANCHES}/main"), Some(&w.max), Value::Null);
    assert_eq!(status, 400);
}

/// The rule itself, for the changes no route here makes (force updates come with pushes).
#[test]
fn the_protection_rule_for_force_updates_and_projects_made_before_protections_were_stored() {
    use forgecore::auth::protection::{check, RefChange, Refusal};
    let w = world();
    let ctx = w.instance.ctx();
    let caller = |token: &str| {
        let mut credentials = forgecore::auth::Credentials::default();
        credentials.personal.push(token.to_string());
        forgecore::auth::identify(ctx, &credentials).unwrap()
    };
    let project = || ctx.store.project(&forgecore::store::projects::Name::FullPath("fx/work".into())).unwrap().unwrap();
    let ask = |token: &str, branch: &str, change: RefChange| {
        ctx.store.read(|db| check(db, &caller(token), &project(), Some("main"), branch, change)).unwrap()
    };
    assert_eq!(ask(&w.max, "main", RefChange::Update), Ok(()));
    assert_eq!(ask(&w.dev, "main", RefChange::Update), Err(Refusal::Push));
    assert_eq!(ask(&w.max, "main", RefChange::ForceUpdate), Err(Refusal::ForcePush));
    assert_eq!(ask(&w.root, "main", RefChange::ForceUpdate), Err(Refusal::ForcePush));
    assert_eq!(ask(&w.dev, "topic", RefChange::ForceUpdate), Ok(()));
    assert_eq!(ask(&w.rita, "topic", RefChange::Update), Err(Refusal::Push));
    let (status, _) = w.instance.call(
        "POST",
        PROTECTED,
        Some(&w.max),
        json!({"name": "hot*", "push_access_level": 30, "allow_force_push": true}),
    );
    assert_eq!(status, 201);
    assert_eq!(ask(&w.dev, "hotfix", RefChange::ForceUpdate), Ok(()));
    assert_eq!(ask(&w.rita, "hotfix", RefChange::ForceUpdate), Err(Refusal::Push));

    // A project made before protections were stored: its default branch is protected by the
    // implicit rule, shown with a null id, and becomes a stored row on the first change.
    ctx.store
        .write(|db| -> Result<(), forgecore::store::StoreError> {
            db.execute("DELETE FROM protected_branches", &[])?;
            db.execute("UPDATE projects SET protections_stored = FALSE", &[])?;
            Ok(())
        })
        .unwrap();
    assert_eq!(ask(&w.dev, "main", RefChange::Update), Err(Refusal::Push));
    assert_eq!(ask(&w.dev, "hotfix", RefChange::ForceUpdate), Ok(()));
    let (_, list) = w.instance.call("GET", PROTECTED, Some(&w.max), Value::Null);
    assert_eq!((list[0]["id"].clone(), list[0]["name"].clone()), (Value::Null, json!("main")));
    assert_eq!(w.instance.call("POST", PROTECTED, Some(&w.max), json!({"name": "stable"})).0, 201);
    let (_, list) = w.instance.call("GET", PROTECTED, Some(&w.max), Value::Null);
    let names: Vec<&str> = list.as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["main", "stable"]);
    assert!(list[0]["id"].is_i64());
    assert_eq!(ask(&w.dev, "main", RefChange::Update), Err(Refusal::Push));
}

/// Every new repository route on a private project, for each kind of caller: 404 for those who
/// may not see the project, 403 for those who see it but may not do this, never a leak.
#[test]
fn the_visibility_matrix_over_branch_tag_and_protection_routes() {
    let instance = common::open_instance(json!({}));
    let work = instance.fixture_repos().join("work");
    let m = instance.visibility_matrix("root", &work);
    let dev = instance.user_with_token("dev", false);
    instance.admin_ok(json!({"command": "member_add", "group": "corp", "username": "dev", "access_level": 30}));
    let base = "/api/v4/projects/corp%2Fsecret";
    let reads = [
        format!("{base}/repository/branches"),
        format!("{base}/repository/branches/main"),
        format!("{base}/repository/tags"),
        format!("{base}/repository/tags/v1.0.0"),
    ];
    let callers: [(&str, Option<&str>, u16, u16); 7] = [
        // (who, token, read status, write status)
        ("anonymous", None, 404, 404),
        ("outsider", Some(&m.outsider), 404, 404),
        ("guest", Some(&m.guest), 403, 403),
        ("guest with read_code", Some(&m.reader), 200, 403),
        ("reporter", Some(&m.reporter), 200, 403),
        ("developer", Some(&dev), 200, 201),
        ("admin", Some(&m.admin), 200, 201),
    ];
    for (who, token, read, write) in callers {
        let headers: Vec<(&str, &str)> = token.map(|t| ("PRIVATE-TOKEN", t)).into_iter().collect();
        for target in &reads {
            let (status, body) = instance.request_json("GET", target, &headers, b"");
            assert_eq!(status, read, "{who} GET {target}: {body}");
            if status == 404 {
                assert_eq!(body, json!({"message": "404 Project Not Found"}));
            }
        }
        let name = format!("by-{}", who.replace(' ', "-"));
        let body = json!({"branch": name, "ref": "main"}).to_string();
        let (status, answer) =
            instance.request_json("POST", &format!("{base}/repository/branches"), &headers, body.as_bytes());
        assert_eq!(status, write, "{who} creates a branch: {answer}");
        let tag = json!({"tag_name": name, "ref": "main"}).to_string();
        let (status, answer) =
            instance.request_json("POST", &format!("{base}/repository/tags"), &headers, tag.as_bytes());
        assert_eq!(status, write, "{who} creates a tag: {answer}");
        let expected_protected = match (read, write) {
            (404, _) => 404,
            _ if who == "admin" => 200,
            _ => 403,
        };
        let (status, _) = instance.request_json("GET", &format!("{base}/protected_branches"), &headers, b"");
        assert_eq!(status, expected_protected, "{who} lists protected branches");
        let (status, _) = instance.request_json("DELETE", &format!("{base}/repository/merged_branches"), &headers, b"");
        assert_eq!(status, if write == 201 { 202 } else { write }, "{who} deletes merged branches");
    }
    let (status, _) = instance.request_json("GET", "/api/v4/projects/corp%2Fsecret", &[], b"");
    assert_eq!(status, 404);
}

/// As GitLab does, a branch created in an empty repository starts from a first commit of an
/// empty README.md on the default branch.
#[test]
fn a_branch_in_an_empty_repository_starts_from_a_readme() {
    let w = world();
    let empty = w.work.parent().unwrap().join("empty.git");
    let target = "/api/v4/projects/fx%2Fempty/repository/branches";
    let (status, body) = w.instance.call("POST", target, Some(&w.dev), json!({"branch": "topic", "ref": "main"}));
    assert_eq!(status, 201, "{body}");
    assert_eq!(git_text(&empty, &["rev-parse", "topic"]), git_text(&empty, &["rev-parse", "main"]));
    assert_eq!(git_text(&empty, &["log", "--format=%s %an", "main"]), "Add README.md dev");
    assert_eq!(git_text(&empty, &["ls-tree", "-r", "--name-only", "main"]), "README.md");
    assert_eq!(git_text(&empty, &["cat-file", "-s", "main:README.md"]), "0");
    git_text(&empty, &["fsck", "--strict", "--no-dangling"]);
    let (_, project) = w.instance.call("GET", "/api/v4/projects/fx%2Fempty", None, Value::Null);
    assert_eq!(project["empty_repo"], false);
}
