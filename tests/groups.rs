//! Groups and namespaces through the API (issue #38, `gitlab-administration.md` §7): list,
//! create, get, update (a new path moves what is below it), subgroups, descendants, and the
//! namespaces Backstage reads. SQLite under `cargo test`; PostgreSQL under
//! `make test-rust-postgres`.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{open_instance, TestInstance};
use serde_json::{json, Value};

/// An instance with the administrator `root`, the users `alice` and `bob`: their tokens.
fn setup() -> (TestInstance, String, String, String) {
    let instance = open_instance(Value::Null);
    let root = instance.user_with_token("root", true);
    let alice = instance.user_with_token("alice", false);
    let bob = instance.user_with_token("bob", false);
    (instance, root, alice, bob)
}

fn create(instance: &TestInstance, token: &str, body: Value) -> Value {
    let (status, group) = instance.call("POST", "/api/v4/groups", Some(token), body.clone());
    assert_eq!(status, 201, "POST /groups {body}: {group}");
    group
}

/// Asserts that the raw JSON object `body` has exactly `expected` as its keys and that they
/// appear in that order (serde_json's `Value` sorts them, so the bytes are read).
fn assert_key_order(body: &[u8], value: &Value, expected: &[&str]) {
    let mut keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
    let mut sorted = expected.to_vec();
    keys.sort_unstable();
    sorted.sort_unstable();
    assert_eq!(keys, sorted, "the keys of {value}");
    let text = String::from_utf8_lossy(body);
    let mut at = 0;
    for key in expected {
        let needle = format!("\"{key}\":");
        let found = text[at..].find(&needle).unwrap_or_else(|| panic!("{key} out of order in {text}"));
        at += found + needle.len();
    }
}

/// A JSON call's status, raw body and parsed body.
fn raw(instance: &TestInstance, method: &str, target: &str, token: &str, body: Value) -> (u16, Vec<u8>, Value) {
    let body = if body.is_null() { Vec::new() } else { body.to_string().into_bytes() };
    let (status, _, bytes) = instance.request(method, target, &[("PRIVATE-TOKEN", token)], &body);
    let value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (status, bytes, value)
}

fn full_paths(list: &Value) -> Vec<String> {
    list.as_array().unwrap().iter().map(|g| g["full_path"].as_str().unwrap().to_string()).collect()
}

/// A bare repository with one commit on `main`.
fn repository(instance: &TestInstance, name: &str) -> std::path::PathBuf {
    let work = instance.root_dir().join(format!("{name}-work"));
    std::fs::create_dir_all(&work).unwrap();
    common::git(&work, &["init", "-q", "-b", "main"]);
    std::fs::write(work.join("README.md"), "hello\n").unwrap();
    common::git(&work, &["add", "README.md"]);
    common::git(&work, &["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first"]);
    let bare = instance.root_dir().join(format!("{name}.git"));
    common::git(&work, &["clone", "-q", "--bare", ".", bare.to_str().unwrap()]);
    bare
}

#[test]
fn create_answers_group_detail_in_gitlabs_order_and_makes_the_creator_owner() {
    let (instance, _root, alice, bob) = setup();
    let (status, bytes, group) = raw(
        &instance,
        "POST",
        "/api/v4/groups",
        &alice,
        json!({"name": "Platform Team", "path": "platform", "description": "We build it",
               "visibility": "internal", "project_creation_level": "maintainer", "default_branch": "trunk"}),
    );
    assert_eq!(status, 201, "{group}");
    let expected = [
        "id",
        "web_url",
        "name",
        "path",
        "description",
        "visibility",
        "share_with_group_lock",
        "require_two_factor_authentication",
        "two_factor_grace_period",
        "project_creation_level",
        "auto_devops_enabled",
        "subgroup_creation_level",
        "emails_disabled",
        "emails_enabled",
        "show_diff_preview_in_email",
        "mentions_disabled",
        "lfs_enabled",
        "archived",
        "math_rendering_limits_enabled",
        "lock_math_rendering_limits_enabled",
        "default_branch",
        "default_branch_protection",
        "default_branch_protection_defaults",
        "avatar_url",
        "request_access_enabled",
        "full_name",
        "full_path",
        "created_at",
        "parent_id",
        "organization_id",
        "shared_runners_setting",
        "max_artifacts_size",
        "marked_for_deletion_on",
        "shared_with_groups",
        "prevent_sharing_groups_outside_hierarchy",
    ];
    assert_key_order(&bytes, &group, &expected);
    // GET adds the projects after them.
    let (status, bytes, got) = raw(&instance, "GET", "/api/v4/groups/platform", &alice, Value::Null);
    assert_eq!(status, 200);
    let mut with_projects = expected.to_vec();
    with_projects.extend(["projects", "shared_projects"]);
    assert_key_order(&bytes, &got, &with_projects);
    assert_eq!(group["name"], "Platform Team");
    assert_eq!(group["full_name"], "Platform Team");
    assert_eq!(group["description"], "We build it");
    assert_eq!(group["visibility"], "internal");
    assert_eq!(group["project_creation_level"], "maintainer");
    assert_eq!(group["subgroup_creation_level"], "maintainer");
    assert_eq!(group["default_branch"], "trunk");
    assert_eq!(group["parent_id"], Value::Null);
    assert_eq!(group["web_url"], "http://localhost/groups/platform");
    assert!(group["created_at"].as_str().unwrap().contains('T'), "{group}");
    // Alice owns it: she may change it; Bob, who may see it (internal), may not.
    let id = group["id"].as_i64().unwrap();
    let (status, _) = instance.call("PUT", &format!("/api/v4/groups/{id}"), Some(&bob), json!({"name": "Mine"}));
    assert_eq!(status, 403);
    let (status, changed) =
        instance.call("PUT", &format!("/api/v4/groups/{id}"), Some(&alice), json!({"description": "New"}));
    assert_eq!((status, changed["description"].clone()), (200, json!("New")));
    // Owned by her: listed for `owned`, not for Bob.
    let (_, owned) = instance.call("GET", "/api/v4/groups?owned=true", Some(&alice), Value::Null);
    assert_eq!(full_paths(&owned), ["platform"]);
    let (_, owned) = instance.call("GET", "/api/v4/groups?owned=true", Some(&bob), Value::Null);
    assert_eq!(full_paths(&owned), Vec::<String>::new());
}

#[test]
fn create_refuses_as_gitlab_does() {
    let (instance, _root, alice, bob) = setup();
    // Anonymous: 401; missing parameters: Grape's 400.
    assert_eq!(instance.call("POST", "/api/v4/groups", None, json!({"name": "x", "path": "x"})).0, 401);
    let (status, body) = instance.call("POST", "/api/v4/groups", Some(&alice), json!({"name": "x"}));
    assert_eq!((status, body), (400, json!({"error": "path is missing"})));
    let (status, body) = instance.call("POST", "/api/v4/groups", Some(&alice), json!({"path": "x"}));
    assert_eq!((status, body), (400, json!({"error": "name is missing"})));
    let (status, body) = instance.call(
        "POST",
        "/api/v4/groups",
        Some(&alice),
        json!({"name": "x", "path": "x", "visibility": "secret"}),
    );
    assert_eq!((status, body), (400, json!({"error": "visibility does not have a valid value"})));
    let (status, body) = instance.call(
        "POST",
        "/api/v4/groups",
        Some(&alice),
        json!({"name": "x", "path": "x", "subgroup_creation_level": "developer"}),
    );
    assert_eq!((status, body), (400, json!({"error": "subgroup_creation_level does not have a valid value"})));
    // The model's errors.
    let failed = |body: Value, message: &str| {
        let (status, answer) = instance.call("POST", "/api/v4/groups", Some(&alice), body);
        assert_eq!((status, answer), (400, json!({ "message": message })));
    };
    failed(
        json!({"name": "Bad", "path": "-bad"}),
        "Failed to save group {:path=>[\"can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.\"]}",
    );
    failed(json!({"name": "Api", "path": "api"}), "Failed to save group {:path=>[\"api is a reserved name\"]}");
    failed(
        json!({"name": "", "path": "x.git"}),
        "Failed to save group {:name=>[\"can't be blank\"], :path=>[\"can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.\"]}",
    );
    // Namespaces are shared with users: a username is taken; so is a taken path in any case.
    failed(json!({"name": "Bob", "path": "BOB"}), "Failed to save group {:path=>[\"has already been taken\"]}");
    create(&instance, &alice, json!({"name": "Team", "path": "team"}));
    failed(json!({"name": "Team", "path": "Team"}), "Failed to save group {:path=>[\"has already been taken\"]}");
    // A subgroup of a group one cannot see is 404; of one one cannot create in, 403.
    let private = create(&instance, &alice, json!({"name": "Private", "path": "private"}));
    let (status, body) = instance.call(
        "POST",
        "/api/v4/groups",
        Some(&bob),
        json!({"name": "Sub", "path": "sub", "parent_id": private["id"]}),
    );
    assert_eq!((status, body), (404, json!({"message": "404 Group Not Found"})));
    let public = create(&instance, &alice, json!({"name": "Open", "path": "open", "visibility": "public"}));
    let (status, body) = instance.call(
        "POST",
        "/api/v4/groups",
        Some(&bob),
        json!({"name": "Sub", "path": "sub", "parent_id": public["id"]}),
    );
    assert_eq!((status, body), (403, json!({"message": "403 Forbidden"})));
    // A subgroup more visible than its parent.
    let (status, body) = instance.call(
        "POST",
        "/api/v4/groups",
        Some(&alice),
        json!({"name": "Sub", "path": "sub", "parent_id": private["id"], "visibility": "public"}),
    );
    assert_eq!(
        (status, body),
        (
            400,
            json!({"message": "Failed to save group {:visibility_level=>[\"public is not allowed since the parent group has a private visibility.\"]}"})
        )
    );
    // A user whose can_create_group is off makes no top-level group (GitLab's `create_group`),
    // but still subgroups where they may.
    let bob_id = instance.call("GET", "/api/v4/user", Some(&bob), Value::Null).1["id"].clone();
    let (root, target) = (instance.user_with_token("admin2", true), format!("/api/v4/users/{bob_id}"));
    assert_eq!(instance.call("PUT", &target, Some(&root), json!({"can_create_group": false})).0, 200);
    let (status, body) = instance.call("POST", "/api/v4/groups", Some(&bob), json!({"name": "Mine", "path": "mine"}));
    assert_eq!((status, body), (403, json!({"message": "403 Forbidden"})));
    assert_eq!(instance.call("PUT", &target, Some(&root), json!({"can_create_group": true})).0, 200);
    create(&instance, &bob, json!({"name": "Mine", "path": "mine"}));
}

#[test]
fn subgroups_follow_the_creation_level_and_nest() {
    let (instance, root, alice, bob) = setup();
    let top = create(&instance, &alice, json!({"name": "Top", "path": "top", "visibility": "public"}));
    let top_id = top["id"].as_i64().unwrap();
    // Bob as Maintainer of top: may create subgroups while the level is `maintainer` (the
    // default), not after the Owner sets it to `owner`.
    instance.admin_ok(json!({"command": "member_add", "group": "top", "username": "bob", "access_level": 40}));
    let sub = create(&instance, &bob, json!({"name": "Sub", "path": "sub", "parent_id": top_id}));
    assert_eq!((sub["full_path"].clone(), sub["parent_id"].clone()), (json!("top/sub"), json!(top_id)));
    assert_eq!(sub["full_name"], "Top / Sub");
    assert!(sub.get("prevent_sharing_groups_outside_hierarchy").is_none(), "only root groups have it");
    let (status, _) = instance.call(
        "PUT",
        &format!("/api/v4/groups/{top_id}"),
        Some(&alice),
        json!({"subgroup_creation_level": "owner"}),
    );
    assert_eq!(status, 200);
    let (status, _) =
        instance.call("POST", "/api/v4/groups", Some(&bob), json!({"name": "Two", "path": "two", "parent_id": top_id}));
    assert_eq!(status, 403);
    let deep = create(&instance, &root, json!({"name": "Deep", "path": "deep", "parent_id": sub["id"]}));
    assert_eq!(deep["full_path"], "top/sub/deep");
    create(&instance, &alice, json!({"name": "Alpha", "path": "alpha", "parent_id": top_id, "visibility": "private"}));
    // Subgroups: direct ones; descendants: every level; invisible ones left out.
    let (status, subgroups) = instance.call("GET", "/api/v4/groups/top/subgroups", None, Value::Null);
    assert_eq!(status, 200);
    assert_eq!(full_paths(&subgroups), Vec::<String>::new(), "anonymous see only public subgroups");
    let (_, subgroups) = instance.call("GET", "/api/v4/groups/top/subgroups", Some(&alice), Value::Null);
    assert_eq!(full_paths(&subgroups), ["top/alpha", "top/sub"]);
    let (_, descendants) = instance.call(
        "GET",
        &format!("/api/v4/groups/{top_id}/descendant_groups?order_by=id&sort=desc"),
        Some(&alice),
        Value::Null,
    );
    assert_eq!(full_paths(&descendants), ["top/alpha", "top/sub/deep", "top/sub"]);
    let (_, bobs) = instance.call("GET", "/api/v4/groups/top/descendant_groups", Some(&bob), Value::Null);
    assert_eq!(full_paths(&bobs), ["top/alpha", "top/sub/deep", "top/sub"], "Maintainers of top see below it");
    // A group one cannot see keeps its 404.
    let outsider = instance.user_with_token("otto", false);
    let (status, body) = instance.call("GET", "/api/v4/groups/top%2Falpha", Some(&outsider), Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Group Not Found"})));
    let (status, _) = instance.call("GET", "/api/v4/groups/top%2Falpha/subgroups", Some(&outsider), Value::Null);
    assert_eq!(status, 404);
    // As GitLab's finder: a signed-in outsider's list holds their own groups unless
    // `all_available`; anonymous callers see public ones.
    create(
        &instance,
        &alice,
        json!({"name": "Public", "path": "public-sub", "parent_id": top_id, "visibility": "public"}),
    );
    let (_, theirs) = instance.call("GET", "/api/v4/groups/top/subgroups", Some(&outsider), Value::Null);
    assert_eq!(full_paths(&theirs), Vec::<String>::new());
    let (_, available) =
        instance.call("GET", "/api/v4/groups/top/subgroups?all_available=true", Some(&outsider), Value::Null);
    assert_eq!(full_paths(&available), ["top/public-sub"]);
    let (_, anonymous) = instance.call("GET", "/api/v4/groups/top/descendant_groups", None, Value::Null);
    assert_eq!(full_paths(&anonymous), ["top/public-sub"]);
}

#[test]
fn lists_apply_visibility_filters_order_and_pages() {
    let (instance, root, alice, bob) = setup();
    for (path, visibility) in [("pub-b", "public"), ("int-a", "internal"), ("priv-c", "private")] {
        create(&instance, &alice, json!({"name": path.to_uppercase(), "path": path, "visibility": visibility}));
    }
    create(&instance, &bob, json!({"name": "Bobs", "path": "bobs", "visibility": "private"}));
    let list = |token: Option<&str>, query: &str| {
        let (status, body) = instance.call("GET", &format!("/api/v4/groups{query}"), token, Value::Null);
        assert_eq!(status, 200, "{query}: {body}");
        full_paths(&body)
    };
    assert_eq!(list(None, ""), ["pub-b"]);
    assert_eq!(list(Some(&alice), ""), ["int-a", "priv-c", "pub-b"], "her own groups, by name");
    assert_eq!(list(Some(&bob), ""), ["bobs"]);
    assert_eq!(list(Some(&bob), "?all_available=true"), ["bobs", "int-a", "pub-b"]);
    assert_eq!(list(Some(&root), ""), ["bobs", "int-a", "priv-c", "pub-b"], "administrators see all");
    assert_eq!(list(Some(&root), "?search=PRIV"), ["priv-c"]);
    assert_eq!(list(Some(&root), "?visibility=internal"), ["int-a"]);
    assert_eq!(list(Some(&root), "?order_by=path&sort=desc"), ["pub-b", "priv-c", "int-a", "bobs"]);
    assert_eq!(list(Some(&alice), "?min_access_level=50"), ["int-a", "priv-c", "pub-b"]);
    assert_eq!(list(None, "?owned=true"), Vec::<String>::new());
    let (_, all) = instance.call("GET", "/api/v4/groups?order_by=id", Some(&root), Value::Null);
    let first = all[0]["id"].as_i64().unwrap();
    let skipped = list(Some(&root), &format!("?order_by=id&skip_groups[]={first}"));
    assert_eq!(skipped.len(), 3);
    assert!(!skipped.contains(&all[0]["full_path"].as_str().unwrap().to_string()));
    // Subgroups are not top-level.
    let parent = all[1]["id"].clone();
    create(&instance, &root, json!({"name": "Child", "path": "child", "parent_id": parent}));
    assert_eq!(list(Some(&root), "").len(), 5);
    assert_eq!(list(Some(&root), "?top_level_only=true").len(), 4);
    // Pages with GitLab's headers.
    let (status, headers, body) =
        instance.request("GET", "/api/v4/groups?per_page=2&page=2", &[("PRIVATE-TOKEN", &root)], b"");
    assert_eq!(status, 200);
    let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    assert_eq!(header("X-Total").as_deref(), Some("5"));
    assert_eq!(header("X-Total-Pages").as_deref(), Some("3"));
    assert_eq!(header("X-Next-Page").as_deref(), Some("3"));
    assert_eq!(serde_json::from_slice::<Value>(&body).unwrap().as_array().unwrap().len(), 2);
    // Bad values: Grape's 400s.
    for query in ["?order_by=size", "?sort=up", "?min_access_level=12", "?visibility=hidden"] {
        let (status, _) = instance.call("GET", &format!("/api/v4/groups{query}"), Some(&root), Value::Null);
        assert_eq!(status, 400, "{query}");
    }
}

#[test]
fn get_shows_projects_unless_asked_not_to() {
    let (instance, _root, alice, bob) = setup();
    create(&instance, &alice, json!({"name": "Apps", "path": "apps", "visibility": "public"}));
    let repo = repository(&instance, "web");
    instance.admin_ok(json!({"command": "project_add", "path": "apps/web", "repo": repo, "visibility": "public"}));
    instance.admin_ok(json!({"command": "project_add", "path": "apps/hidden", "repo": repo, "visibility": "private"}));
    let (status, group) = instance.call("GET", "/api/v4/groups/apps", Some(&bob), Value::Null);
    assert_eq!(status, 200);
    let projects: Vec<&str> =
        group["projects"].as_array().unwrap().iter().map(|p| p["path_with_namespace"].as_str().unwrap()).collect();
    assert_eq!(projects, ["apps/web"], "only the projects Bob may see");
    assert_eq!(group["shared_projects"], json!([]));
    let (_, owner_view) = instance.call("GET", "/api/v4/groups/apps", Some(&alice), Value::Null);
    assert_eq!(owner_view["projects"].as_array().unwrap().len(), 2);
    let (_, plain) = instance.call("GET", "/api/v4/groups/apps?with_projects=false", Some(&bob), Value::Null);
    assert!(plain.get("projects").is_none() && plain.get("shared_with_groups").is_none(), "{plain}");
    assert_eq!(plain["full_path"], "apps");
}

#[test]
fn a_new_path_moves_subgroups_and_projects() {
    let (instance, root, alice, bob) = setup();
    let top = create(&instance, &alice, json!({"name": "Old", "path": "old", "visibility": "public"}));
    let id = top["id"].as_i64().unwrap();
    create(&instance, &alice, json!({"name": "Inner", "path": "inner", "parent_id": id, "visibility": "public"}));
    let repo = repository(&instance, "svc");
    instance.admin_ok(json!({"command": "project_add", "path": "old/inner/svc", "repo": repo, "visibility": "public"}));
    instance.admin_ok(json!({"command": "project_add", "path": "old/app", "repo": repo, "visibility": "public"}));
    // Looked up before the rename (a host that keeps projects by name must forget them).
    assert_eq!(instance.call("GET", "/api/v4/projects/old%2Fapp", Some(&root), Value::Null).0, 200);
    // Someone else's taken path: refused with the validation body, nothing moves.
    create(&instance, &bob, json!({"name": "Taken", "path": "taken"}));
    let (status, body) = instance.call("PUT", &format!("/api/v4/groups/{id}"), Some(&alice), json!({"path": "taken"}));
    assert_eq!((status, body), (400, json!({"message": {"path": ["has already been taken"]}})));
    let (status, body) = instance.call("PUT", &format!("/api/v4/groups/{id}"), Some(&alice), json!({"path": "a..git"}));
    assert_eq!(status, 400, "{body}");
    // The rename.
    let (status, renamed) =
        instance.call("PUT", "/api/v4/groups/old", Some(&alice), json!({"path": "new", "name": "New"}));
    assert_eq!(status, 200, "{renamed}");
    assert_eq!((renamed["path"].clone(), renamed["full_path"].clone()), (json!("new"), json!("new")));
    assert_eq!(renamed["web_url"], "http://localhost/groups/new");
    let (status, inner) = instance.call("GET", "/api/v4/groups/new%2Finner", Some(&alice), Value::Null);
    assert_eq!(
        (status, inner["full_path"].clone(), inner["full_name"].clone()),
        (200, json!("new/inner"), json!("New / Inner"))
    );
    assert_eq!(instance.call("GET", "/api/v4/groups/old%2Finner", Some(&alice), Value::Null).0, 404);
    for (old, new) in [("old%2Finner%2Fsvc", "new/inner/svc"), ("old%2Fapp", "new/app")] {
        assert_eq!(instance.call("GET", &format!("/api/v4/projects/{old}"), Some(&root), Value::Null).0, 404);
        let encoded = new.replace('/', "%2F");
        let (status, project) = instance.call("GET", &format!("/api/v4/projects/{encoded}"), Some(&root), Value::Null);
        assert_eq!((status, project["path_with_namespace"].clone()), (200, json!(new)));
        assert_eq!(project["namespace"]["full_path"], new.rsplit_once('/').unwrap().0);
    }
    let (status, _, file) =
        instance.request("GET", "/api/v4/projects/new%2Finner%2Fsvc/repository/files/README.md/raw?ref=main", &[], b"");
    assert_eq!((status, file), (200, b"hello\n".to_vec()));
    // Git over HTTP serves the project at its new path, and no longer at the old one.
    let (status, _, advertisement) =
        instance.request("GET", "/new/inner/svc.git/info/refs?service=git-upload-pack", &[], b"");
    assert_eq!(status, 200);
    assert!(advertisement.starts_with(b"001e# service=git-upload-pack\n"));
    let (status, _, _) = instance.request("GET", "/old/inner/svc.git/info/refs?service=git-upload-pack", &[], b"");
    assert_ne!(status, 200);
    // The old path is free again.
    create(&instance, &bob, json!({"name": "Old again", "path": "old"}));
}

#[test]
fn visibility_changes_respect_parent_and_contents() {
    let (instance, _root, alice, _bob) = setup();
    let top = create(&instance, &alice, json!({"name": "Vis", "path": "vis", "visibility": "public"}));
    let sub =
        create(&instance, &alice, json!({"name": "S", "path": "s", "parent_id": top["id"], "visibility": "internal"}));
    let (status, body) = instance.call("PUT", "/api/v4/groups/vis", Some(&alice), json!({"visibility": "private"}));
    assert_eq!(
        (status, body),
        (
            400,
            json!({"message": {"visibility_level": ["private is not allowed since there are sub-groups with higher visibility."]}})
        )
    );
    let (status, body) =
        instance.call("PUT", &format!("/api/v4/groups/{}", sub["id"]), Some(&alice), json!({"visibility": "public"}));
    assert_eq!(status, 200, "{body}");
    let (status, body) = instance.call(
        "PUT",
        &format!("/api/v4/groups/{}", sub["id"]),
        Some(&alice),
        json!({"visibility": "private", "request_access_enabled": false, "lfs_enabled": false}),
    );
    assert_eq!(status, 200);
    assert_eq!((body["visibility"].clone(), body["request_access_enabled"].clone()), (json!("private"), json!(false)));
    assert_eq!(body["lfs_enabled"], false);
    assert_eq!(instance.call("PUT", "/api/v4/groups/vis", None, json!({"name": "x"})).0, 401);
}

#[test]
fn namespaces_list_and_get_users_and_groups() {
    let (instance, root, alice, bob) = setup();
    let team = create(&instance, &alice, json!({"name": "Team", "path": "team"}));
    create(&instance, &bob, json!({"name": "Other", "path": "other"}));
    let (status, me) = instance.call("GET", "/api/v4/user", Some(&alice), Value::Null);
    assert_eq!(status, 200);
    // Alice's own namespace, then the groups she may create projects in.
    let (status, bytes, list) = raw(&instance, "GET", "/api/v4/namespaces", &alice, Value::Null);
    assert_eq!(status, 200, "{list}");
    let kinds: Vec<(String, String)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["kind"].as_str().unwrap().to_string(), n["full_path"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(kinds, [("group".to_string(), "team".to_string()), ("user".to_string(), "alice".to_string())]);
    let group_ns = &list[0];
    assert_key_order(
        &bytes,
        group_ns,
        &[
            "id",
            "name",
            "path",
            "kind",
            "full_path",
            "parent_id",
            "avatar_url",
            "web_url",
            "members_count_with_descendants",
        ],
    );
    assert_eq!(group_ns["id"], team["id"]);
    assert_eq!(group_ns["members_count_with_descendants"], 1);
    let user_ns = &list[1];
    let mut user_keys: Vec<&String> = user_ns.as_object().unwrap().keys().collect();
    user_keys.sort();
    assert_eq!(user_keys, ["avatar_url", "full_path", "id", "kind", "name", "parent_id", "path", "web_url"]);
    assert_eq!(user_ns["id"].as_i64().unwrap(), 1_000_000_000_000 + me["id"].as_i64().unwrap());
    assert_eq!(user_ns["web_url"], "http://localhost/alice");
    // A Reporter may not create projects in a `developer` group: not listed; a Developer is.
    instance.admin_ok(json!({"command": "member_add", "group": "team", "username": "bob", "access_level": 20}));
    let (_, bobs) = instance.call("GET", "/api/v4/namespaces", Some(&bob), Value::Null);
    assert_eq!(full_paths(&bobs), ["other", "bob"]);
    instance.admin_ok(json!({"command": "member_add", "group": "team", "username": "bob", "access_level": 30}));
    let (_, bobs) = instance.call("GET", "/api/v4/namespaces", Some(&bob), Value::Null);
    assert_eq!(full_paths(&bobs), ["team", "other", "bob"]);
    let (_, owned) = instance.call("GET", "/api/v4/namespaces?owned_only=true", Some(&bob), Value::Null);
    assert_eq!(full_paths(&owned), ["other", "bob"]);
    let (_, searched) = instance.call("GET", "/api/v4/namespaces?search=oth", Some(&bob), Value::Null);
    assert_eq!(full_paths(&searched), ["other"]);
    let (_, everything) = instance.call("GET", "/api/v4/namespaces", Some(&root), Value::Null);
    assert_eq!(full_paths(&everything), ["team", "other", "root", "alice", "bob"]);
    // One by id or path (Backstage: `GET /namespaces/:owner`, then `id` and `kind`).
    for target in ["team".to_string(), team["id"].to_string()] {
        let (status, ns) = instance.call("GET", &format!("/api/v4/namespaces/{target}"), Some(&alice), Value::Null);
        assert_eq!((status, ns["kind"].clone(), ns["id"].clone()), (200, json!("group"), team["id"].clone()));
    }
    let (status, ns) = instance.call("GET", "/api/v4/namespaces/alice", Some(&alice), Value::Null);
    assert_eq!((status, ns["kind"].clone(), ns["id"].clone()), (200, json!("user"), user_ns["id"].clone()));
    let (status, ns) = instance.call("GET", &format!("/api/v4/namespaces/{}", user_ns["id"]), Some(&root), Value::Null);
    assert_eq!((status, ns["full_path"].clone()), (200, json!("alice")));
    // Not hers: 404; nobody's: 404; anonymous: 401.
    for target in ["bob", "other", "nobody", "999999"] {
        let (status, body) = instance.call("GET", &format!("/api/v4/namespaces/{target}"), Some(&alice), Value::Null);
        assert_eq!((status, body), (404, json!({"message": "404 Namespace Not Found"})), "{target}");
    }
    assert_eq!(instance.call("GET", "/api/v4/namespaces/team", None, Value::Null).0, 401);
    assert_eq!(instance.call("GET", "/api/v4/namespaces", None, Value::Null).0, 401);
    // Whether a path is taken.
    let (_, taken) = instance.call("GET", "/api/v4/namespaces/team/exists", Some(&bob), Value::Null);
    assert_eq!(taken, json!({"exists": true, "suggests": ["team1"]}));
    let (_, free) = instance.call("GET", "/api/v4/namespaces/fresh/exists", Some(&bob), Value::Null);
    assert_eq!(free, json!({"exists": false, "suggests": []}));
    let (_, user_taken) = instance.call("GET", "/api/v4/namespaces/alice/exists", Some(&bob), Value::Null);
    assert_eq!(user_taken["exists"], true);
    let (_, in_parent) = instance.call(
        "GET",
        &format!("/api/v4/namespaces/team/exists?parent_id={}", team["id"]),
        Some(&bob),
        Value::Null,
    );
    assert_eq!(in_parent["exists"], false);
}

#[test]
fn the_cli_creates_through_the_same_operation() {
    let (instance, _root, alice, _bob) = setup();
    let group = instance.admin_ok(json!({"command": "group_add", "path": "cli", "visibility": "public",
                                         "name": "From the CLI", "description": "made here"}));
    assert_eq!((group["full_path"].clone(), group["name"].clone()), (json!("cli"), json!("From the CLI")));
    let sub = instance.admin_ok(json!({"command": "group_add", "path": "cli/sub"}));
    assert_eq!((sub["parent_id"].clone(), sub["visibility"].clone()), (group["id"].clone(), json!("private")));
    let (status, body) = instance.admin(json!({"command": "group_add", "path": "cli"}));
    assert_eq!((status, body), (400, json!({"message": "Failed to save group {:path=>[\"has already been taken\"]}"})));
    let (status, body) = instance.admin(json!({"command": "group_add", "path": "alice"}));
    assert_eq!(status, 400, "a username is taken: {body}");
    let (status, _) = instance.admin(json!({"command": "group_add", "path": "cli/pub", "visibility": "public"}));
    assert_eq!(status, 201, "the parent is public");
    let (status, body) =
        instance.admin(json!({"command": "group_add", "path": "cli/sub/open", "visibility": "public"}));
    assert_eq!(status, 400, "{body}");
    let (status, _) = instance.admin(json!({"command": "group_add", "path": "missing/sub"}));
    assert_eq!(status, 404);
    let (_, seen) = instance.call("GET", "/api/v4/groups/cli?with_projects=false", Some(&alice), Value::Null);
    assert_eq!(seen["description"], "made here");
}

#[test]
fn who_may_create_projects_in_a_namespace_follows_the_list() {
    use forgecore::api::namespaces::can_create_projects;
    use forgecore::store::namespaces::{find_by_full_path, find_by_id, user_namespace_id};
    let (instance, _root, alice, _bob) = setup();
    create(&instance, &alice, json!({"name": "Crew", "path": "crew", "project_creation_level": "maintainer"}));
    instance.admin_ok(json!({"command": "member_add", "group": "crew", "username": "bob", "access_level": 30}));
    let store = &instance.ctx().store;
    store
        .read(|db| -> forgecore::error::ApiResult<()> {
            let user = |db: &mut forgecore::store::Db, name: &str| {
                forgecore::store::users::find_by_username(db, name).unwrap().unwrap()
            };
            let (alice, bob) = (user(db, "alice"), user(db, "bob"));
            let crew = find_by_full_path(db, "crew")?.unwrap();
            let alices = find_by_id(db, user_namespace_id(alice.id))?.unwrap();
            assert_eq!(find_by_full_path(db, "alice")?, Some(alices.clone()));
            assert_eq!(alices.id(), user_namespace_id(alice.id));
            assert!(can_create_projects(db, &alice, &crew)?, "the Owner");
            assert!(!can_create_projects(db, &bob, &crew)?, "a Developer where Maintainers create");
            assert!(can_create_projects(db, &alice, &alices)?);
            assert!(!can_create_projects(db, &bob, &alices)?, "someone else's namespace");
            assert_eq!(find_by_id(db, user_namespace_id(999))?, None);
            Ok(())
        })
        .unwrap();
}

/// GitLab's `name_with_namespace` is the namespace's human name, then the project's: a group's
/// full name (its and its ancestors' names, not paths), a personal namespace's owner's name.
/// A group list answers every row's `full_name` (one statement for the page).
#[test]
fn names_with_namespace_are_human_names() {
    let (instance, _root, alice, _bob) = setup();
    let top = create(&instance, &alice, json!({"name": "Platform Team", "path": "platform"}));
    let sub = create(&instance, &alice, json!({"name": "Web Apps", "path": "web", "parent_id": top["id"]}));
    assert_eq!(sub["full_name"], "Platform Team / Web Apps");
    let (status, project) = instance.call(
        "POST",
        "/api/v4/projects",
        Some(&alice),
        json!({"name": "My App", "path": "my-app", "namespace_id": sub["id"]}),
    );
    assert_eq!(status, 201, "{project}");
    assert_eq!(project["name_with_namespace"], "Platform Team / Web Apps / My App");
    assert_eq!(project["path_with_namespace"], "platform/web/my-app");
    let (status, list) = instance.call("GET", "/api/v4/projects?owned=true", Some(&alice), Value::Null);
    assert_eq!(status, 200);
    assert_eq!(list[0]["name_with_namespace"], "Platform Team / Web Apps / My App", "{list}");

    let (_, me) = instance.call("GET", "/api/v4/user", Some(&alice), Value::Null);
    let (status, personal) = instance.call("POST", "/api/v4/projects", Some(&alice), json!({"name": "Notes"}));
    assert_eq!(status, 201, "{personal}");
    assert_eq!(personal["name_with_namespace"], format!("{} / Notes", me["name"].as_str().unwrap()));

    let (status, groups) = instance.call("GET", "/api/v4/groups?order_by=path", Some(&alice), Value::Null);
    assert_eq!(status, 200);
    let names: Vec<&str> = groups.as_array().unwrap().iter().map(|g| g["full_name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Platform Team", "Platform Team / Web Apps"], "{groups}");
}
