//! The Users API (reference `gitlab-administration.md` §2, decisions D9) through the HTTP door:
//! each operation's statuses and GitLab's texts, what admins, other users and anonymous
//! callers see of a user, what a blocked, banned or deactivated account's tokens may still do,
//! the namespace clash with groups and projects, and the CLI's `user add` as a client of the
//! same create operation. Git over HTTP for such accounts is in tests/git_http.rs.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use serde_json::{json, Value};

struct World {
    instance: TestInstance,
    root: String,
    alice: String,
}

/// An administrator `root` and a user `alice`, each with a token.
fn world() -> World {
    let instance = common::open_instance(json!({}));
    let root = instance.user_with_token("root", true);
    let alice = instance.user_with_token("alice", false);
    World { instance, root, alice }
}

impl World {
    fn call(&self, method: &str, target: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        let mut headers = vec![("Content-Type", "application/json")];
        if let Some(token) = token {
            headers.push(("PRIVATE-TOKEN", token));
        }
        let body = if body.is_null() { String::new() } else { body.to_string() };
        self.instance.request_json(method, target, &headers, body.as_bytes())
    }

    fn admin(&self, method: &str, target: &str, body: Value) -> (u16, Value) {
        self.call(method, target, Some(&self.root), body)
    }

    /// Creates a user through the API as root; its JSON.
    fn create(&self, username: &str) -> Value {
        let body = json!({"username": username, "name": format!("{username} Example"),
                          "email": format!("{username}@example.com"), "password": "long enough"});
        let (status, user) = self.admin("POST", "/api/v4/users", body);
        assert_eq!(status, 201, "{user}");
        user
    }

    /// A token for `username` (through the CLI).
    fn token(&self, username: &str) -> String {
        let body = self.instance.admin_ok(json!({"command": "token_add", "username": username}));
        body["token"].as_str().unwrap().to_string()
    }

    fn id_of(&self, username: &str) -> i64 {
        let (status, users) = self.admin("GET", &format!("/api/v4/users?username={username}"), Value::Null);
        assert_eq!(status, 200);
        users[0]["id"].as_i64().unwrap()
    }
}

fn keys(entity: &Value) -> Vec<&str> {
    entity.as_object().unwrap().keys().map(String::as_str).collect()
}

const BASIC: &[&str] = &["id", "username", "name", "state", "locked", "avatar_url", "web_url"];
const PROFILE: &[&str] = &[
    "created_at",
    "bio",
    "location",
    "public_email",
    "linkedin",
    "twitter",
    "discord",
    "website_url",
    "organization",
    "job_title",
    "pronouns",
    "bot",
    "work_information",
    "followers",
    "following",
    "local_time",
];
const PUBLIC: &[&str] = &[
    "last_sign_in_at",
    "confirmed_at",
    "last_activity_on",
    "email",
    "theme_id",
    "color_scheme_id",
    "projects_limit",
    "current_sign_in_at",
    "identities",
    "can_create_group",
    "can_create_project",
    "two_factor_enabled",
    "external",
    "private_profile",
    "commit_email",
];
const ADMIN: &[&str] = &["is_admin", "note", "namespace_id", "created_by"];
const DETAILS: &[&str] = &["highest_role", "current_sign_in_ip", "last_sign_in_ip"];

/// The keys of an entity made of these parts, sorted as serde_json's map keeps them.
fn entity_keys(parts: &[&[&str]]) -> Vec<String> {
    let mut all: Vec<String> = parts.iter().flat_map(|p| p.iter().map(|k| k.to_string())).collect();
    all.sort();
    all
}

fn sorted(entity: &Value) -> Vec<String> {
    let mut all: Vec<String> = keys(entity).into_iter().map(String::from).collect();
    all.sort();
    all
}

#[test]
fn create_validates_and_answers_conflicts_as_gitlab() {
    let w = world();
    let full = json!({"username": "bob", "name": "Bob", "email": "bob@example.com", "password": "s3cret-pass"});
    let (status, body) = w.call("POST", "/api/v4/users", None, full.clone());
    assert_eq!((status, body), (401, json!({"message": "401 Unauthorized"})));
    // Grape's parameter errors come before the administrator check, all of them at once.
    let (status, body) = w.call("POST", "/api/v4/users", Some(&w.alice), json!({}));
    assert_eq!(status, 400);
    assert_eq!(
        body,
        json!({"error": "email is missing, password, reset_password, force_random_password are missing, at least one parameter must be provided, name is missing, username is missing"})
    );
    let (status, body) = w.call("POST", "/api/v4/users", Some(&w.alice), full.clone());
    assert_eq!((status, body), (403, json!({"message": "403 Forbidden"})));

    let (status, bob) = w.admin(
        "POST",
        "/api/v4/users",
        json!({"username": "bob", "name": "Bob", "email": "bob@example.com", "password": "s3cret-pass",
               "bio": "Builds things", "organization": "Example", "job_title": "Engineer", "projects_limit": 10,
               "can_create_group": false, "external": true, "note": "hired 2026", "admin": false}),
    );
    assert_eq!(status, 201, "{bob}");
    assert_eq!(sorted(&bob), entity_keys(&[BASIC, PROFILE, PUBLIC, ADMIN]));
    assert_eq!(
        (&bob["username"], &bob["state"], &bob["email"], &bob["bio"], &bob["work_information"]),
        (
            &json!("bob"),
            &json!("active"),
            &json!("bob@example.com"),
            &json!("Builds things"),
            &json!("Engineer at Example")
        )
    );
    assert_eq!(
        (&bob["projects_limit"], &bob["can_create_group"], &bob["external"], &bob["note"], &bob["is_admin"]),
        (&json!(10), &json!(false), &json!(true), &json!("hired 2026"), &json!(false))
    );
    assert!(bob.get("password").is_none());
    // `reset_password` alone is enough; the defaults are GitLab's.
    let (status, carol) = w.admin(
        "POST",
        "/api/v4/users",
        json!({"username": "carol", "name": "Carol", "email": "carol@example.com", "reset_password": true}),
    );
    assert_eq!(status, 201, "{carol}");
    assert_eq!((&carol["projects_limit"], &carol["can_create_group"]), (&json!(100_000), &json!(true)));

    let attempt = |username: &str, email: &str, password: &str| {
        w.admin(
            "POST",
            "/api/v4/users",
            json!({"username": username, "name": "X", "email": email, "password": password}),
        )
    };
    assert_eq!(
        attempt("dave", "BOB@example.com", "s3cret-pass"),
        (409, json!({"message": "Email has already been taken"}))
    );
    assert_eq!(
        attempt("BOB", "dave@example.com", "s3cret-pass"),
        (409, json!({"message": "Username has already been taken"}))
    );
    // The conflict comes first, whatever else is wrong.
    assert_eq!(
        attempt("Bob", "dave@example.com", "short"),
        (409, json!({"message": "Username has already been taken"}))
    );
    assert_eq!(
        attempt("dave", "dave@example.com", "short"),
        (400, json!({"message": {"password": ["is too short (minimum is 8 characters)"]}}))
    );
    assert_eq!(
        attempt("dave", "dave@example.com", &"x".repeat(129)),
        (400, json!({"message": {"password": ["is too long (maximum is 128 characters)"]}}))
    );
    let format =
        "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";
    for bad in ["bad!name", "-dash", "trailing.", "x.git", "a/b"] {
        assert_eq!(
            attempt(bad, "e@example.com", "s3cret-pass"),
            (400, json!({"message": {"username": [format]}})),
            "{bad}"
        );
    }
    assert_eq!(attempt("erin", "not-an-email", "s3cret-pass"), (400, json!({"message": {"email": ["is invalid"]}})));
    let (status, body) = w.admin(
        "POST",
        "/api/v4/users",
        json!({"username": "erin", "name": "Erin", "email": "erin@example.com", "password": "s3cret-pass",
               "projects_limit": -1, "public_email": "other@example.com"}),
    );
    assert_eq!(status, 400);
    assert_eq!(
        body,
        json!({"message": {"projects_limit": ["must be greater than or equal to 0"],
                           "public_email": ["is not an email you own"]}})
    );
    // NUL never reaches a store (PostgreSQL could not keep it).
    let (status, body) = w.admin(
        "POST",
        "/api/v4/users",
        json!({"username": "nul", "name": "N", "email": "nul@example.com", "password": "s3cret-pass", "bio": "a\0b"}),
    );
    assert_eq!((status, body), (400, json!({"error": "bio is invalid"})));
    assert_eq!(
        w.instance.admin(json!({"command": "user_add", "username": "nul", "name": "a\0b"})),
        (400, json!({"message": {"name": ["is invalid"]}}))
    );
    assert_eq!(w.admin("GET", "/api/v4/users?search=a%00b", Value::Null), (400, json!({"error": "search is invalid"})));
    let (status, body) = w.admin(
        "POST",
        "/api/v4/users",
        json!({"username": "erin", "name": "Erin", "email": "erin@example.com", "password": 12345678}),
    );
    assert_eq!(status, 201, "a number is taken as its text, as Grape does: {body}");
}

#[test]
fn a_username_is_a_namespace_path_unique_across_groups_and_projects() {
    let w = world();
    w.instance.admin_ok(json!({"command": "group_add", "path": "platform"}));
    w.instance.admin_ok(json!({"command": "group_add", "path": "platform/tools"}));
    let repo = w.instance.root_dir().join("solo.git");
    common::git(w.instance.root_dir(), &["init", "-q", "--bare", &repo.to_string_lossy()]);
    w.instance.admin_ok(json!({"command": "project_add", "path": "solo", "repo": repo}));
    let taken = (400, json!({"message": {"username": ["has already been taken"]}}));
    for clash in ["PLATFORM", "solo"] {
        let body = json!({"username": clash, "name": "X", "email": format!("{clash}@example.com"),
                          "force_random_password": true});
        assert_eq!(w.admin("POST", "/api/v4/users", body), taken, "{clash}");
    }
    // A subgroup's path is no namespace of its own.
    w.create("tools");
    // Renaming runs the same check; the CLI's `user add` is the same operation.
    let id = w.id_of("tools");
    assert_eq!(w.admin("PUT", &format!("/api/v4/users/{id}"), json!({"username": "Platform"})), taken);
    assert_eq!(w.instance.admin(json!({"command": "user_add", "username": "platform"})), taken);
    let (status, body) = w.instance.admin(json!({"command": "user_add", "username": "ALICE"}));
    assert_eq!((status, body), (409, json!({"message": "Username has already been taken"})));
    let (status, body) = w.instance.admin(json!({"command": "user_add", "username": "x.atom"}));
    assert_eq!(status, 400, "{body}");
    let added = w.instance.admin_ok(json!({"command": "user_add", "username": "frank", "email": "frank@example.com"}));
    assert_eq!(added["username"], "frank");
    let (status, body) = w.admin(
        "POST",
        "/api/v4/users",
        json!({"username": "frank2", "name": "F", "email": "FRANK@example.com", "password": "s3cret-pass"}),
    );
    assert_eq!((status, body), (409, json!({"message": "Email has already been taken"})));
}

#[test]
fn who_sees_what_of_a_user() {
    let w = world();
    let alice_id = w.id_of("alice");
    // GET /users/:id: signed-in callers only.
    let target = format!("/api/v4/users/{alice_id}");
    assert_eq!(w.call("GET", &target, None, Value::Null), (403, json!({"message": "403 Forbidden - Not authorized!"})));
    let bob = w.create("bob");
    let bob_token = w.token("bob");
    let (status, profile) = w.call("GET", &target, Some(&bob_token), Value::Null);
    assert_eq!(status, 200);
    assert_eq!(sorted(&profile), entity_keys(&[BASIC, PROFILE]));
    let (status, details) = w.call("GET", &target, Some(&w.root), Value::Null);
    assert_eq!(status, 200);
    assert_eq!(sorted(&details), entity_keys(&[BASIC, PROFILE, PUBLIC, ADMIN, DETAILS]));
    assert_eq!(details["highest_role"], 0);
    w.instance.admin_ok(json!({"command": "group_add", "path": "team"}));
    w.instance.admin_ok(json!({"command": "member_add", "group": "team", "username": "alice", "access_level": 30}));
    let (_, details) = w.call("GET", &target, Some(&w.root), Value::Null);
    assert_eq!(details["highest_role"], 30);
    assert_eq!(
        w.call("GET", "/api/v4/users/424242", Some(&bob_token), Value::Null),
        (404, json!({"message": "404 User Not Found"}))
    );
    // GET /user: UserPublic, UserWithAdmin for administrators.
    let (_, me) = w.call("GET", "/api/v4/user", Some(&w.alice), Value::Null);
    assert_eq!(sorted(&me), entity_keys(&[BASIC, PROFILE, PUBLIC]));
    let (_, root) = w.call("GET", "/api/v4/user", Some(&w.root), Value::Null);
    assert_eq!(sorted(&root), entity_keys(&[BASIC, PROFILE, PUBLIC, ADMIN]));
    assert_eq!(root["is_admin"], true);

    // GET /users: anonymous callers only look one username up.
    assert_eq!(
        w.call("GET", "/api/v4/users", None, Value::Null),
        (403, json!({"message": "403 Forbidden - Not authorized to access /api/v4/users"}))
    );
    let (status, found) = w.call("GET", "/api/v4/users?username=BOB", None, Value::Null);
    assert_eq!(status, 200);
    assert_eq!(found.as_array().unwrap().len(), 1);
    assert_eq!(sorted(&found[0]), entity_keys(&[BASIC]));
    assert_eq!(found[0]["id"], bob["id"]);
    assert_eq!(w.call("GET", "/api/v4/users?username=nobody", None, Value::Null), (200, json!([])));
    let (_, listed) = w.call("GET", "/api/v4/users", Some(&w.alice), Value::Null);
    assert_eq!(sorted(&listed[0]), entity_keys(&[BASIC]));
    let (_, listed) = w.call("GET", "/api/v4/users", Some(&w.root), Value::Null);
    assert_eq!(sorted(&listed[0]), entity_keys(&[BASIC, PROFILE, PUBLIC, ADMIN]));
}

fn usernames(list: &Value) -> Vec<&str> {
    list.as_array().unwrap().iter().map(|u| u["username"].as_str().unwrap()).collect()
}

#[test]
fn lists_filter_order_and_page() {
    let w = world();
    w.create("zed");
    w.create("bea");
    let (status, external) = w.admin(
        "POST",
        "/api/v4/users",
        json!({"username": "ext", "name": "Outside Help", "email": "help@vendor.example", "password": "s3cret-pass",
               "external": true}),
    );
    assert_eq!(status, 201, "{external}");
    let get = |target: &str, token: &str| {
        let (status, body) = w.call("GET", target, Some(token), Value::Null);
        assert_eq!(status, 200, "{target}: {body}");
        body
    };
    // GitLab's default order is id, newest first.
    assert_eq!(usernames(&get("/api/v4/users", &w.alice)), ["ext", "bea", "zed", "alice", "root"]);
    // Only administrators order; GitLab drops order_by and sort for others.
    let by_name = "/api/v4/users?order_by=username&sort=asc";
    assert_eq!(usernames(&get(by_name, &w.root)), ["alice", "bea", "ext", "root", "zed"]);
    assert_eq!(usernames(&get(by_name, &w.alice)), ["ext", "bea", "zed", "alice", "root"]);
    assert_eq!(usernames(&get("/api/v4/users?order_by=name&sort=desc", &w.root))[0], "zed");
    assert_eq!(
        w.call("GET", "/api/v4/users?order_by=email", Some(&w.root), Value::Null),
        (400, json!({"error": "order_by does not have a valid value"}))
    );
    assert_eq!(
        w.call("GET", "/api/v4/users?sort=up", Some(&w.alice), Value::Null),
        (400, json!({"error": "sort does not have a valid value"}))
    );
    // search: username and name for all, the (private) email for administrators only.
    assert_eq!(usernames(&get("/api/v4/users?search=OUTSIDE", &w.alice)), ["ext"]);
    assert_eq!(usernames(&get("/api/v4/users?search=ea", &w.alice)), ["bea"]);
    assert_eq!(usernames(&get("/api/v4/users?search=help@vendor.example", &w.root)), ["ext"]);
    assert_eq!(usernames(&get("/api/v4/users?search=help@vendor.example", &w.alice)), Vec::<&str>::new());
    assert_eq!(usernames(&get("/api/v4/users?search=100%25", &w.root)), Vec::<&str>::new());
    // External identities: administrators only, and nobody has one here.
    let identity = "/api/v4/users?extern_uid=42&provider=ldapmain";
    assert_eq!(w.call("GET", identity, Some(&w.alice), Value::Null), (403, json!({"message": "403 Forbidden"})));
    assert_eq!(get(identity, &w.root), json!([]));
    assert_eq!(
        w.call("GET", "/api/v4/users?extern_uid=42", Some(&w.root), Value::Null),
        (400, json!({"error": "extern_uid, provider provide all or none of parameters"}))
    );
    // Flags.
    assert_eq!(usernames(&get("/api/v4/users?external=true", &w.alice)), ["ext"]);
    assert_eq!(usernames(&get("/api/v4/users?exclude_external=true", &w.alice)).len(), 4);
    assert_eq!(usernames(&get("/api/v4/users?admins=true", &w.root)), ["root"]);
    assert_eq!(usernames(&get("/api/v4/users?admins=true", &w.alice)).len(), 5, "admins is for administrators");
    assert_eq!(usernames(&get("/api/v4/users?humans=true&without_project_bots=true", &w.alice)).len(), 5);
    let zed = w.id_of("zed");
    assert_eq!(w.admin("POST", &format!("/api/v4/users/{zed}/block"), Value::Null), (201, json!(true)));
    assert_eq!(usernames(&get("/api/v4/users?blocked=true", &w.alice)), ["zed"]);
    assert_eq!(usernames(&get("/api/v4/users?active=true", &w.alice)), ["ext", "bea", "alice", "root"]);
    let (_, blocked) = w.admin("GET", "/api/v4/users?username=zed", Value::Null);
    assert_eq!(blocked[0]["state"], "blocked");
    // Offset pages with GitLab's headers.
    let (status, headers, body) = w.instance.request(
        "GET",
        "/api/v4/users?per_page=2&page=2&active=true",
        &[("PRIVATE-TOKEN", w.alice.as_str())],
        b"",
    );
    assert_eq!(status, 200);
    let page: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(usernames(&page), ["alice", "root"]);
    let header = |name: &str| headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
    assert_eq!(
        (header("X-Total"), header("X-Total-Pages"), header("X-Page"), header("X-Next-Page"), header("X-Prev-Page")),
        (Some("4"), Some("2"), Some("2"), Some(""), Some("1"))
    );
    let link = header("Link").unwrap();
    assert!(link.contains("rel=\"prev\"") && link.contains("active=true") && !link.contains("rel=\"next\""), "{link}");
}

#[test]
fn update_changes_what_it_is_given() {
    let w = world();
    let bob = w.create("bob");
    let id = bob["id"].as_i64().unwrap();
    let target = format!("/api/v4/users/{id}");
    assert_eq!(w.call("PUT", &target, None, json!({"bio": "x"})).0, 401);
    assert_eq!(w.call("PUT", &target, Some(&w.alice), json!({"bio": "x"})), (403, json!({"message": "403 Forbidden"})));
    assert_eq!(
        w.admin("PUT", "/api/v4/users/999999", json!({"bio": "x"})),
        (404, json!({"message": "404 User Not Found"}))
    );
    let (status, changed) = w.admin(
        "PUT",
        &target,
        json!({"name": "Robert", "bio": "Reviews", "location": "Lisbon", "public_email": "bob@example.com",
               "website_url": "https://bob.example", "can_create_group": false, "projects_limit": 0,
               "note": "moved teams", "password": "a new password"}),
    );
    assert_eq!(status, 200, "{changed}");
    assert_eq!(sorted(&changed), entity_keys(&[BASIC, PROFILE, PUBLIC, ADMIN]));
    assert_eq!(
        (&changed["name"], &changed["bio"], &changed["location"], &changed["public_email"]),
        (&json!("Robert"), &json!("Reviews"), &json!("Lisbon"), &json!("bob@example.com"))
    );
    assert_eq!(
        (&changed["can_create_group"], &changed["projects_limit"], &changed["can_create_project"], &changed["note"]),
        (&json!(false), &json!(0), &json!(false), &json!("moved teams"))
    );
    assert_eq!(changed["username"], "bob", "what is not given stays");
    // Others see the public fields, not the private email.
    let (_, seen) = w.call("GET", &target, Some(&w.alice), Value::Null);
    assert_eq!((&seen["bio"], &seen["public_email"]), (&json!("Reviews"), &json!("bob@example.com")));
    assert!(seen.get("email").is_none() && seen.get("note").is_none(), "{seen}");
    assert_eq!(
        w.admin("PUT", &target, json!({"email": "ALICE@example.com"})).0,
        200,
        "alice has no email yet, so it is free"
    );
    w.create("carol");
    assert_eq!(
        w.admin("PUT", &target, json!({"email": "Carol@Example.com"})),
        (409, json!({"message": "Email has already been taken"}))
    );
    assert_eq!(
        w.admin("PUT", &target, json!({"username": "CAROL"})),
        (409, json!({"message": "Username has already been taken"}))
    );
    assert_eq!(
        w.admin("PUT", &target, json!({"public_email": "carol@example.com"})),
        (400, json!({"message": {"public_email": ["is not an email you own"]}}))
    );
    assert_eq!(
        w.admin("PUT", &target, json!({"password": "short"})),
        (400, json!({"message": {"password": ["is too short (minimum is 8 characters)"]}}))
    );
    assert_eq!(
        w.admin("PUT", &target, json!({"projects_limit": "many"})),
        (400, json!({"error": "projects_limit is invalid"}))
    );
    // A new username renames the user; their token still works and says so.
    let token = w.token("bob");
    let (status, renamed) = w.admin("PUT", &target, json!({"username": "robert"}));
    assert_eq!((status, &renamed["username"]), (200, &json!("robert")));
    let (_, me) = w.call("GET", "/api/v4/user", Some(&token), Value::Null);
    assert_eq!(me["username"], "robert");
    // An administrator may make another one.
    let (_, promoted) = w.admin("PUT", &target, json!({"admin": true}));
    assert_eq!(promoted["is_admin"], true);
    assert_eq!(w.call("GET", "/api/v4/users?admins=true", Some(&token), Value::Null).1.as_array().unwrap().len(), 2);
}

#[test]
fn delete_removes_the_user_their_tokens_and_memberships() {
    let w = world();
    w.create("bob");
    w.create("carol");
    let (bob, carol) = (w.id_of("bob"), w.id_of("carol"));
    let bob_token = w.token("bob");
    for command in [
        json!({"command": "group_add", "path": "solo"}),
        json!({"command": "group_add", "path": "shared"}),
        json!({"command": "member_add", "group": "solo", "username": "bob", "access_level": 50}),
        json!({"command": "member_add", "group": "shared", "username": "bob", "access_level": 50}),
        json!({"command": "member_add", "group": "shared", "username": "carol", "access_level": 50}),
        json!({"command": "member_add", "group": "solo", "username": "carol", "access_level": 30}),
    ] {
        w.instance.admin_ok(command);
    }
    // Carol has a personal project, with a repository forgecore made.
    let carol_token = w.token("carol");
    let (status, app) = w.call("POST", "/api/v4/projects", Some(&carol_token), json!({"name": "app"}));
    assert_eq!((status, app["path_with_namespace"].as_str()), (201, Some("carol/app")), "{app}");
    let target = format!("/api/v4/users/{bob}");
    assert_eq!(w.call("DELETE", &target, None, Value::Null).0, 401);
    assert_eq!(w.call("DELETE", &target, Some(&w.alice), Value::Null), (403, json!({"message": "403 Forbidden"})));
    assert_eq!(
        w.admin("DELETE", &target, Value::Null),
        (409, json!({"message": "User cannot be removed while is the sole-owner of a group"}))
    );
    assert_eq!(w.call("GET", "/api/v4/user", Some(&bob_token), Value::Null).0, 200, "refused deletes change nothing");
    // Carol is not the only owner of `shared`, and only a developer of `solo`.
    assert_eq!(w.admin("DELETE", &format!("/api/v4/users/{carol}"), Value::Null), (204, Value::Null));
    // Her personal namespace went with her, projects and all.
    let gone = w.admin("GET", &format!("/api/v4/projects/{}", app["id"]), Value::Null);
    assert_eq!(gone, (404, json!({"message": "404 Project Not Found"})));
    assert_eq!(w.admin("DELETE", &format!("{target}?hard_delete=true"), Value::Null), (204, Value::Null));
    assert_eq!(w.admin("GET", &target, Value::Null), (404, json!({"message": "404 User Not Found"})));
    assert_eq!(
        w.call("GET", "/api/v4/user", Some(&bob_token), Value::Null),
        (401, json!({"message": "401 Unauthorized"}))
    );
    assert_eq!(w.admin("DELETE", &target, Value::Null), (404, json!({"message": "404 User Not Found"})));
    // The names are free again, and the memberships went with the users.
    let again = w.create("bob");
    assert_eq!(again["username"], "bob");
    assert_eq!(w.admin("GET", &format!("/api/v4/users/{}", again["id"]), Value::Null).1["highest_role"], 0);
}

#[test]
fn state_actions_answer_as_gitlab_and_their_tokens_follow() {
    let w = world();
    w.create("bob");
    let bob = w.id_of("bob");
    let bob_token = w.token("bob");
    let root_id = w.id_of("root");
    let act = |action: &str| w.admin("POST", &format!("/api/v4/users/{bob}/{action}"), Value::Null);
    let me = || w.call("GET", "/api/v4/user", Some(&bob_token), Value::Null);
    let blocked = (403, json!({"message": "403 Forbidden - Your account has been blocked."}));

    // Administrators only; the caller never blocks themself.
    assert_eq!(w.call("POST", &format!("/api/v4/users/{bob}/block"), None, Value::Null).0, 401);
    assert_eq!(
        w.call("POST", &format!("/api/v4/users/{bob}/block"), Some(&w.alice), Value::Null),
        (403, json!({"message": "403 Forbidden"}))
    );
    assert_eq!(
        w.admin("POST", &format!("/api/v4/users/{root_id}/block"), Value::Null),
        (403, json!({"message": "403 Forbidden - The API initiating user cannot be blocked by the API"}))
    );
    assert_eq!(
        w.admin("POST", "/api/v4/users/999999/block", Value::Null),
        (404, json!({"message": "404 User Not Found"}))
    );

    assert_eq!(act("block"), (201, json!(true)));
    assert_eq!(act("block"), (201, Value::Null));
    assert_eq!(me(), blocked);
    assert_eq!(w.call("GET", "/api/v4/projects", Some(&bob_token), Value::Null), blocked, "every route refuses it");
    assert_eq!(w.admin("GET", &format!("/api/v4/users/{bob}"), Value::Null).1["state"], "blocked");
    assert_eq!(act("deactivate"), (403, json!({"message": "Error occurred. A blocked user cannot be deactivated"})));
    assert_eq!(
        act("activate"),
        (403, json!({"message": "403 Forbidden - A blocked user must be unblocked to be activated"}))
    );
    assert_eq!(act("ban"), (403, json!({"message": "You cannot ban blocked users."})));
    assert_eq!(act("unblock"), (201, json!(true)));
    assert_eq!(act("unblock"), (201, json!(false)));
    assert_eq!(me().0, 200);

    assert_eq!(act("deactivate"), (201, json!(true)));
    assert_eq!(act("deactivate"), (201, Value::Null));
    assert_eq!(
        me(),
        (
            403,
            json!({"message": "403 Forbidden - Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at http://localhost"})
        )
    );
    assert_eq!(
        act("unblock"),
        (403, json!({"message": "403 Forbidden - Deactivated users cannot be unblocked by the API"}))
    );
    assert_eq!(act("ban"), (403, json!({"message": "You cannot ban deactivated users."})));
    assert_eq!(act("activate"), (201, json!(true)));
    assert_eq!(act("activate"), (201, json!(false)));
    assert_eq!(me().0, 200);

    assert_eq!(act("unban"), (403, json!({"message": "You cannot unban active users."})));
    assert_eq!(act("ban"), (201, json!(true)));
    assert_eq!(me(), blocked);
    assert_eq!(act("ban"), (403, json!({"message": "You cannot ban banned users."})));
    assert_eq!(act("block"), (201, Value::Null), "a banned user is blocked already");
    assert_eq!(act("unban"), (201, json!(true)));
    assert_eq!(me().0, 200);
    assert_eq!(act("ban"), (201, json!(true)));
    assert_eq!(act("unblock"), (201, json!(true)), "unblock lifts a ban too (GitLab's activate)");

    // Nobody is pending approval here: approve and reject refuse.
    assert_eq!(act("approve"), (409, json!({"message": "The user you are trying to approve is not pending approval"})));
    assert_eq!(act("reject"), (409, json!({"message": "This user does not have a pending request"})));
    assert_eq!(
        w.call("POST", &format!("/api/v4/users/{bob}/approve"), Some(&w.alice), Value::Null),
        (403, json!({"message": "You are not allowed to approve a user"}))
    );
    assert_eq!(
        w.call("POST", &format!("/api/v4/users/{bob}/reject"), Some(&w.alice), Value::Null),
        (403, json!({"message": "You are not allowed to reject a user"}))
    );
    assert_eq!(
        w.admin("POST", "/api/v4/users/999999/approve", Value::Null),
        (404, json!({"message": "404 User Not Found"}))
    );
    assert_eq!(me().0, 200);
}

/// A blocked administrator is refused like anyone: state, not role, decides.
#[test]
fn a_blocked_administrator_is_refused_too() {
    let w = world();
    let (status, other) = w.admin(
        "POST",
        "/api/v4/users",
        json!({"username": "ops", "name": "Ops", "email": "ops@example.com", "password": "s3cret-pass", "admin": true}),
    );
    assert_eq!(status, 201, "{other}");
    let ops = w.token("ops");
    let root_id = w.id_of("root");
    assert_eq!(w.call("POST", &format!("/api/v4/users/{root_id}/block"), Some(&ops), Value::Null), (201, json!(true)));
    assert_eq!(
        w.call("GET", "/api/v4/users", Some(&w.root), Value::Null),
        (403, json!({"message": "403 Forbidden - Your account has been blocked."}))
    );
    assert_eq!(
        w.call("POST", &format!("/api/v4/users/{root_id}/unblock"), Some(&ops), Value::Null),
        (201, json!(true))
    );
    assert_eq!(w.call("GET", "/api/v4/users", Some(&w.root), Value::Null).0, 200);
}

#[test]
fn memberships_of_a_user_for_administrators() {
    let w = world();
    let alice = w.id_of("alice");
    let group = w.instance.admin_ok(json!({"command": "group_add", "path": "crew"}));
    let (status, project) = w.admin("POST", "/api/v4/projects", json!({"path": "app", "namespace_id": group["id"]}));
    assert_eq!(status, 201, "{project}");
    let (status, _) = w.admin(
        "POST",
        &format!("/api/v4/groups/{}/members", group["id"]),
        json!({"user_id": alice, "access_level": 50}),
    );
    assert_eq!(status, 201);
    let (status, _) = w.admin(
        "POST",
        &format!("/api/v4/projects/{}/members", project["id"]),
        json!({"user_id": alice, "access_level": 30}),
    );
    assert_eq!(status, 201);
    let (status, all) = w.admin("GET", &format!("/api/v4/users/{alice}/memberships"), Value::Null);
    assert_eq!(status, 200, "{all}");
    assert_eq!(
        all,
        json!([
            {"source_id": group["id"], "source_name": "crew", "source_type": "Namespace", "access_level": 50},
            {"source_id": project["id"], "source_name": project["name"], "source_type": "Project", "access_level": 30},
        ])
    );
    let (_, projects) = w.admin("GET", &format!("/api/v4/users/{alice}/memberships?type=Project"), Value::Null);
    assert_eq!(projects.as_array().unwrap().len(), 1);
    assert_eq!(projects[0]["source_type"], "Project");
    let (_, groups) = w.admin("GET", &format!("/api/v4/users/{alice}/memberships?type=Namespace"), Value::Null);
    assert_eq!(groups[0]["source_type"], "Namespace");
    let (status, body) = w.admin("GET", &format!("/api/v4/users/{alice}/memberships?type=Invalid"), Value::Null);
    assert_eq!((status, body), (400, json!({"error": "type does not have a valid value"})));
    let (status, body) = w.call("GET", &format!("/api/v4/users/{alice}/memberships"), Some(&w.alice), Value::Null);
    assert_eq!((status, body), (403, json!({"message": "403 Forbidden"})), "administrators only, even for oneself");
    let (status, _) = w.call("GET", &format!("/api/v4/users/{alice}/memberships"), None, Value::Null);
    assert_eq!(status, 401);
    let (status, body) = w.admin("GET", "/api/v4/users/99999/memberships", Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 User Not Found"})));
}
