//! Token scopes on every route, expiry, revocation, rotation, `Sudo`, and the personal access
//! tokens API (decisions D9, `gitlab-administration.md` §3-§4), through the HTTP door and the
//! typed exports. git over HTTP per scope is in tests/git_http.rs (it drives real git).
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use forgecore::store::days_from_today;
use serde_json::{json, Value};

const ALL_SCOPES: [&str; 9] = [
    "api",
    "read_api",
    "read_user",
    "k8s_proxy",
    "self_rotate",
    "read_repository",
    "write_repository",
    "sudo",
    "admin_mode",
];

fn call(instance: &TestInstance, method: &str, target: &str, headers: &[(&str, &str)], body: Value) -> (u16, Value) {
    let (status, _, body) = call_full(instance, method, target, headers, body);
    (status, body)
}

fn call_full(
    instance: &TestInstance,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: Value,
) -> (u16, Vec<(String, String)>, Value) {
    let mut headers = headers.to_vec();
    headers.push(("Content-Type", "application/json"));
    let body = if body.is_null() { String::new() } else { body.to_string() };
    let (status, answer_headers, bytes) = instance.request(method, target, &headers, body.as_bytes());
    (status, answer_headers, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// A token for `username` with `scopes`, through the CLI's create (the API's validations).
fn token(instance: &TestInstance, username: &str, scopes: &[&str]) -> String {
    let body = instance.admin_ok(json!({"command": "token_add", "username": username, "scopes": scopes}));
    assert_eq!(body["scopes"], json!(scopes), "{body}");
    body["token"].as_str().unwrap().to_string()
}

struct World {
    instance: TestInstance,
    /// root's `api` token.
    admin: String,
    alice: String,
}

/// root (administrator), alice (developer of `corp/app`), bob; a private project with a
/// repository on `main`.
fn world() -> World {
    let instance = common::open_instance(json!({}));
    let admin = instance.user_with_token("root", true);
    let alice = instance.user_with_token("alice", false);
    instance.user_with_token("bob", false);
    let dir = instance.data_dir().join("repos").join("app");
    std::fs::create_dir_all(&dir).unwrap();
    common::git(&dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("README.md"), "hi\n").unwrap();
    common::git(&dir, &["add", "."]);
    common::git(&dir, &["-c", "user.name=A", "-c", "user.email=a@x.org", "commit", "-q", "-m", "one"]);
    instance.admin_ok(json!({"command": "group_add", "path": "corp"}));
    instance.admin_ok(json!({"command": "project_add", "path": "corp/app", "repo": dir, "visibility": "private"}));
    instance.admin_ok(json!({"command": "member_add", "project": "corp/app", "username": "alice", "access_level": 30}));
    World { instance, admin, alice }
}

/// Whether a token with `scope` may call `method pattern`, as GitLab registers scopes: `api`
/// always, `read_api` for GETs, `read_user` on users GETs (`/user`, `/users`, `/users/:id`), `read_repository` on files GETs,
/// any scope on `/personal_access_tokens/self`, `self_rotate` on self-rotation.
fn expected(method: &str, pattern: &str, scope: &str) -> bool {
    if pattern == "/personal_access_tokens/self" {
        return true;
    }
    let get = method == "GET";
    let users_get = get && (pattern == "/user" || pattern == "/users" || pattern == "/users/:id");
    let files_get = get && pattern.starts_with("/projects/:id/repository/files/");
    match scope {
        "api" => true,
        "read_api" => get,
        "read_user" => users_get,
        "read_repository" => files_get,
        "self_rotate" => pattern == "/personal_access_tokens/self/rotate",
        _ => false,
    }
}

/// A concrete target for a route's pattern (ids that exist where it matters; the token routes
/// name a token that does not exist, so that no call revokes anything).
fn target(pattern: &str) -> String {
    let path: Vec<String> = pattern
        .split('/')
        .map(|part| match part {
            ":id" if pattern.starts_with("/personal_access_tokens") => "999999".into(),
            ":id" if pattern.starts_with("/users") => "2".into(),
            ":id" if pattern.starts_with("/groups") => "corp".into(),
            ":id" => "corp%2Fapp".into(),
            ":user_id" => "2".into(),
            ":member_role_id" => "999".into(),
            ":file_path" => "README.md".into(),
            ":sha" | ":branch" | ":name" => "main".into(),
            ":tag_name" => "v1".into(),
            "archive.:format" => "archive.zip".into(),
            other => other.into(),
        })
        .collect();
    format!("/api/v4{}", path.join("/"))
}

#[test]
fn every_route_checks_its_scopes() {
    let w = world();
    let i = &w.instance;
    let mut checked = 0;
    for route in forgecore::http::router::ROUTES {
        for scope in ALL_SCOPES {
            // A fresh token per call: a call that revokes or rotates its own token changes nothing
            // for the next.
            let token = token(i, "root", &[scope]);
            let (status, headers, body) =
                call_full(i, route.method, &target(route.pattern), &[("PRIVATE-TOKEN", &token)], json!({}));
            let refused = status == 403 && body["error"] == "insufficient_scope";
            let what = format!("{} {} with {scope}: {status} {body}", route.method, route.pattern);
            assert_eq!(!refused, expected(route.method, route.pattern, scope), "{what}");
            if refused {
                assert_eq!(
                    body["error_description"],
                    "The request requires higher privileges than provided by the access token.",
                    "{what}"
                );
                assert!(header(&headers, "www-authenticate").is_none(), "{what}");
                let listed: Vec<&str> = body["scope"].as_str().unwrap().split(' ').collect();
                assert!(listed.contains(&"api") && !listed.contains(&scope), "{what}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 60 * ALL_SCOPES.len(), "{checked}");
    // HEAD is a GET.
    let read = token(i, "root", &["read_api"]);
    let (status, _, _) = i.request("HEAD", "/api/v4/projects/corp%2Fapp", &[("PRIVATE-TOKEN", &read)], b"");
    assert_eq!(status, 200);
}

#[test]
fn refusals_name_the_routes_scopes() {
    let w = world();
    let i = &w.instance;
    let refusal = |scope: &str| {
        json!({"error": "insufficient_scope",
               "error_description": "The request requires higher privileges than provided by the access token.",
               "scope": scope})
    };
    let read = token(i, "root", &["read_api"]);
    let body = json!({"branch": "b1", "ref": "main"});
    let branches = "/api/v4/projects/corp%2Fapp/repository/branches";
    assert_eq!(call(i, "POST", branches, &[("PRIVATE-TOKEN", &read)], body.clone()), (403, refusal("api")));
    let (status, _) = call(i, "GET", branches, &[("PRIVATE-TOKEN", &read)], Value::Null);
    assert_eq!(status, 200);
    let files = token(i, "root", &["read_repository"]);
    assert_eq!(
        call(i, "GET", "/api/v4/user", &[("PRIVATE-TOKEN", &files)], Value::Null),
        (403, refusal("api read_api read_user"))
    );
    let (status, file) = call(
        i,
        "GET",
        "/api/v4/projects/corp%2Fapp/repository/files/README.md?ref=main",
        &[("Authorization", &format!("Bearer {files}"))],
        Value::Null,
    );
    assert_eq!((status, file["file_name"].clone()), (200, json!("README.md")));
    let user = token(i, "root", &["read_user"]);
    let (status, me) = call(i, "GET", "/api/v4/user", &[("PRIVATE-TOKEN", &user)], Value::Null);
    assert_eq!((status, me["username"].clone()), (200, json!("root")));
    assert_eq!(
        call(i, "GET", "/api/v4/projects", &[("PRIVATE-TOKEN", &user)], Value::Null),
        (403, refusal("api read_api"))
    );
    // The query-parameter form of a token is checked the same way.
    let (status, _) = call(i, "POST", &format!("{branches}?private_token={read}"), &[], body.clone());
    assert_eq!(status, 403);
    // A token of the old kind (api) writes.
    let (status, _) = call(i, "POST", branches, &[("PRIVATE-TOKEN", &w.admin)], body);
    assert_eq!(status, 201);
    // Job tokens are not personal tokens: they keep working where they did.
    let job =
        i.admin_ok(json!({"command": "job_token_add", "project": "corp/app"}))["token"].as_str().unwrap().to_string();
    let (status, _) = call(
        i,
        "GET",
        "/api/v4/projects/corp%2Fapp/repository/changelog?version=1.0.0",
        &[("JOB-TOKEN", &job)],
        Value::Null,
    );
    assert_ne!(status, 403);
}

#[test]
fn typed_exports_check_the_scopes_of_the_route_they_mirror() {
    let w = world();
    let i = &w.instance;
    let read = token(i, "root", &["read_api"]);
    let (status, body) = i.typed(
        forgecore::ffi::fc_branch_create,
        TestInstance::auth(&read),
        json!({"project": "corp/app", "branch": "x", "ref": "main"}),
    );
    assert_eq!(
        (status, body["error"].clone(), body["scope"].clone()),
        (403, json!("insufficient_scope"), json!("api"))
    );
    let (status, _) =
        i.typed(forgecore::ffi::fc_branches_list, TestInstance::auth(&read), json!({"project": "corp/app"}));
    assert_eq!(status, 200);
    let user = token(i, "root", &["read_user"]);
    let (status, body) = i.typed(forgecore::ffi::fc_user_current, TestInstance::auth(&user), json!({}));
    assert_eq!((status, body["username"].clone()), (200, json!("root")));
    let (status, _) =
        i.typed(forgecore::ffi::fc_branches_list, TestInstance::auth(&user), json!({"project": "corp/app"}));
    assert_eq!(status, 403);
    let files = token(i, "root", &["read_repository"]);
    let (status, _) = i.typed(
        forgecore::ffi::fc_repository_file,
        TestInstance::auth(&files),
        json!({"project": "corp/app", "file_path": "README.md", "ref": "main"}),
    );
    assert_eq!(status, 200);
    let (status, _) = i.typed(forgecore::ffi::fc_member_roles_list, TestInstance::auth(&files), json!({}));
    assert_eq!(status, 403);
}

/// Sets a token's expiry date in the store, as a token made long ago would have it.
fn set_expiry(instance: &TestInstance, id: i64, date: &str) {
    instance
        .ctx()
        .store
        .write(|db| -> forgecore::store::StoreResult<_> {
            db.execute("UPDATE personal_access_tokens SET expires_at = $1 WHERE id = $2", &[&date, &id])
        })
        .unwrap();
}

fn invalid_token(text: &str) -> Value {
    json!({"error": "invalid_token", "error_description": text})
}

const EXPIRED: &str = "Token is expired. You can either do re-authorization or token refresh.";
const REVOKED: &str = "Token was revoked. You have to re-authorize from the user.";

#[test]
fn expired_and_revoked_tokens_get_gitlabs_invalid_token() {
    let w = world();
    let i = &w.instance;
    let made = i.admin_ok(json!({"command": "token_add", "username": "alice", "name": "short"}));
    let (id, text) = (made["id"].as_i64().unwrap(), made["token"].as_str().unwrap().to_string());
    assert_eq!(made["expires_at"], json!(days_from_today(365)), "no date: today + the maximum lifetime");
    let me = |text: &str| call_full(i, "GET", "/api/v4/user", &[("PRIVATE-TOKEN", text)], Value::Null);
    set_expiry(i, id, &days_from_today(1));
    assert_eq!(me(&text).0, 200, "a token works until its date");
    set_expiry(i, id, &days_from_today(0));
    // `set_expiry` writes through another context (another host, on PostgreSQL: it hears the
    // change through `forgecore_auth` a moment later).
    assert!(soon(|| me(&text).0 == 401), "the token expires on its date");
    let (status, headers, body) = me(&text);
    assert_eq!((status, body), (401, invalid_token(EXPIRED)), "GitLab: expires_at <= now, the date's midnight");
    assert_eq!(
        header(&headers, "www-authenticate"),
        Some(&*format!(
            "Bearer realm=\"Protected by OAuth 2.0\", error=\"invalid_token\", error_description=\"{EXPIRED}\""
        ))
    );
    set_expiry(i, id, "2020-01-01");
    assert_eq!(me(&text).2, invalid_token(EXPIRED));
    // Revoked: its own text; an expired and revoked token says expired first, as GitLab checks.
    let other = i.admin_ok(json!({"command": "token_add", "username": "alice"}));
    let other_text = other["token"].as_str().unwrap().to_string();
    let (status, _) = call(
        i,
        "DELETE",
        &format!("/api/v4/personal_access_tokens/{}", other["id"]),
        &[("PRIVATE-TOKEN", &w.alice)],
        Value::Null,
    );
    assert_eq!(status, 204);
    let (status, headers, body) = me(&other_text);
    assert_eq!((status, body), (401, invalid_token(REVOKED)));
    assert!(header(&headers, "www-authenticate").unwrap().contains("Token was revoked."));
    let (status, _) =
        call(i, "DELETE", &format!("/api/v4/personal_access_tokens/{id}"), &[("PRIVATE-TOKEN", &w.alice)], Value::Null);
    assert_eq!(status, 204, "an owner revokes an expired token");
    assert_eq!(me(&text).2, invalid_token(EXPIRED));
    // Unknown tokens are what they were.
    assert_eq!(me("glpat-unknownunknownunknown00").2, json!({"message": "401 Unauthorized"}));
    // The typed exports answer the same.
    let (status, body) = i.typed(forgecore::ffi::fc_user_current, TestInstance::auth(&other_text), json!({}));
    assert_eq!((status, body), (401, invalid_token(REVOKED)));
}

#[test]
fn rotation_revokes_the_old_token_at_once() {
    let w = world();
    let i = &w.instance;
    let made = i.admin_ok(json!({"command": "token_add", "username": "alice", "name": "ci", "description": "for CI", "scopes": ["read_api", "self_rotate"]}));
    let old = made["token"].as_str().unwrap().to_string();
    let (status, rotated) = call(
        i,
        "POST",
        &format!("/api/v4/personal_access_tokens/{}/rotate", made["id"]),
        &[("PRIVATE-TOKEN", &w.alice)],
        Value::Null,
    );
    assert_eq!(status, 200, "{rotated}");
    let new = rotated["token"].as_str().unwrap().to_string();
    assert!(new.starts_with("glpat-") && new != old);
    assert_ne!(rotated["id"], made["id"]);
    assert_eq!((rotated["name"].clone(), rotated["description"].clone()), (json!("ci"), json!("for CI")));
    assert_eq!(rotated["scopes"], json!(["read_api", "self_rotate"]));
    assert_eq!(rotated["expires_at"], json!(days_from_today(7)), "a week, GitLab's default");
    let me = |t: &str| call(i, "GET", "/api/v4/personal_access_tokens/self", &[("PRIVATE-TOKEN", t)], Value::Null);
    assert_eq!(me(&old), (401, invalid_token(REVOKED)));
    let (status, body) = me(&new);
    assert_eq!((status, body["id"].clone(), body.get("token")), (200, rotated["id"].clone(), None));
    // Rotating the old one again: it is revoked (an owner's refusal is 400).
    let (status, body) = call(
        i,
        "POST",
        &format!("/api/v4/personal_access_tokens/{}/rotate", made["id"]),
        &[("PRIVATE-TOKEN", &w.alice)],
        Value::Null,
    );
    assert_eq!((status, body), (400, json!({"message": "400 Bad request - Token already revoked"})));
    // Self-rotation with self_rotate, with a chosen date.
    let date = days_from_today(30);
    let (status, third) = call(
        i,
        "POST",
        "/api/v4/personal_access_tokens/self/rotate",
        &[("PRIVATE-TOKEN", &new)],
        json!({"expires_at": date}),
    );
    assert_eq!((status, third["expires_at"].clone()), (200, json!(date)), "{third}");
    assert_eq!(me(&new).0, 401);
    let newest = third["token"].as_str().unwrap();
    assert_eq!(me(newest).0, 200);
    // read_api alone may not self-rotate.
    let reader = token(i, "alice", &["read_api"]);
    let (status, body) =
        call(i, "POST", "/api/v4/personal_access_tokens/self/rotate", &[("PRIVATE-TOKEN", &reader)], Value::Null);
    assert_eq!((status, body["scope"].clone()), (403, json!("api self_rotate")));
    // Others' tokens: a non-administrator 401, an administrator rotates anyone's; 404 for none.
    let bobs = i.admin_ok(json!({"command": "token_add", "username": "bob"}));
    let rotate_bobs = format!("/api/v4/personal_access_tokens/{}/rotate", bobs["id"]);
    assert_eq!(
        call(i, "POST", &rotate_bobs, &[("PRIVATE-TOKEN", &w.alice)], Value::Null),
        (401, json!({"message": "401 Unauthorized"}))
    );
    assert_eq!(call(i, "POST", &rotate_bobs, &[("PRIVATE-TOKEN", &w.admin)], Value::Null).0, 200);
    assert_eq!(
        call(i, "POST", "/api/v4/personal_access_tokens/999999/rotate", &[("PRIVATE-TOKEN", &w.admin)], Value::Null),
        (404, json!({"message": "404 Not Found"}))
    );
    let far = days_from_today(400);
    let (status, body) = call(
        i,
        "POST",
        "/api/v4/personal_access_tokens/self/rotate",
        &[("PRIVATE-TOKEN", newest)],
        json!({"expires_at": far}),
    );
    assert_eq!(
        (status, body),
        (400, json!({"message": format!("Expires at must be before {}", days_from_today(365))}))
    );
}

#[test]
fn sudo_acts_as_another_user_for_administrators_with_the_sudo_scope() {
    let w = world();
    let i = &w.instance;
    let root = token(i, "root", &["api", "sudo"]);
    let me =
        |headers: &[(&str, &str)], query: &str| call(i, "GET", &format!("/api/v4/user{query}"), headers, Value::Null);
    let (status, body) = me(&[("PRIVATE-TOKEN", &root), ("Sudo", "alice")], "");
    assert_eq!((status, body["username"].clone()), (200, json!("alice")));
    let (status, body) = me(&[("PRIVATE-TOKEN", &root)], "?sudo=3");
    assert_eq!((status, body["username"].clone()), (200, json!("bob")));
    let (status, body) = me(&[("PRIVATE-TOKEN", &root), ("Sudo", "ALICE")], "");
    assert_eq!((status, body["username"].clone()), (200, json!("alice")), "usernames ignore case");
    // As alice, the project is hers to write; as nobody, 404.
    assert_eq!(
        me(&[("PRIVATE-TOKEN", &root), ("Sudo", "nobody")], ""),
        (404, json!({"message": "404 User with ID or username 'nobody' Not Found"}))
    );
    assert_eq!(
        me(&[("PRIVATE-TOKEN", &w.alice), ("Sudo", "bob")], ""),
        (403, json!({"message": "403 Forbidden - Must be admin to use sudo"}))
    );
    assert_eq!(
        me(&[("PRIVATE-TOKEN", &w.admin), ("Sudo", "bob")], ""),
        (
            403,
            json!({"error": "insufficient_scope",
                     "error_description": "The request requires higher privileges than provided by the access token.",
                     "scope": "sudo"})
        )
    );
    assert_eq!(me(&[("Sudo", "bob")], ""), (401, json!({"message": "401 Unauthorized"})));
    // The route's scopes still come first: sudo alone reads no user.
    let only_sudo = token(i, "root", &["sudo"]);
    assert_eq!(me(&[("PRIVATE-TOKEN", &only_sudo), ("Sudo", "alice")], "").1["scope"], json!("api read_api read_user"));
    // What alice may do, sudo does as alice: bob is no member of corp/app.
    let (status, _) =
        call(i, "GET", "/api/v4/projects/corp%2Fapp", &[("PRIVATE-TOKEN", &root), ("Sudo", "bob")], Value::Null);
    assert_eq!(status, 404);
    let (status, _) =
        call(i, "GET", "/api/v4/projects/corp%2Fapp", &[("PRIVATE-TOKEN", &root), ("Sudo", "alice")], Value::Null);
    assert_eq!(status, 200);
}

/// The keys of a JSON object's text, in the order they are written (serde_json's map sorts).
fn keys_in_order(text: &str) -> Vec<String> {
    let object: serde_json::Map<String, Value> = serde_json::from_str(text).unwrap();
    let mut positions: Vec<(usize, String)> =
        object.keys().map(|k| (text.find(&format!("\"{k}\":")).unwrap(), k.clone())).collect();
    positions.sort();
    positions.into_iter().map(|(_, k)| k).collect()
}

#[test]
fn the_personal_access_tokens_api() {
    let w = world();
    let i = &w.instance;
    let admin = [("PRIVATE-TOKEN", w.admin.as_str())];
    let alice = [("PRIVATE-TOKEN", w.alice.as_str())];
    let year = days_from_today(365);
    // Create for a user: administrators only.
    let create = |headers: &[(&str, &str)], user: &str, body: Value| {
        call(i, "POST", &format!("/api/v4/users/{user}/personal_access_tokens"), headers, body)
    };
    let (status, made) = create(
        &admin,
        "2",
        json!({"name": "deploy", "scopes": ["read_repository", "write_repository"], "expires_at": year}),
    );
    assert_eq!(status, 201, "{made}");
    let (_, _, raw) = i.request(
        "POST",
        "/api/v4/users/1/personal_access_tokens",
        &[("PRIVATE-TOKEN", &w.admin), ("Content-Type", "application/json")],
        json!({"name": "order", "scopes": ["api"]}).to_string().as_bytes(),
    );
    assert_eq!(
        keys_in_order(std::str::from_utf8(&raw).unwrap()),
        [
            "id",
            "name",
            "active",
            "revoked",
            "expired",
            "granular",
            "created_at",
            "description",
            "scopes",
            "user_id",
            "last_used_at",
            "expires_at",
            "token"
        ]
    );
    assert_eq!(
        (made["user_id"].clone(), made["expires_at"].clone(), made["active"].clone()),
        (json!(2), json!(year), json!(true))
    );
    assert_eq!(made["scopes"], json!(["read_repository", "write_repository"]));
    assert!(made["created_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        create(&alice, "3", json!({"name": "x", "scopes": ["api"]})),
        (403, json!({"message": "403 Forbidden"}))
    );
    assert_eq!(create(&[], "3", json!({"name": "x", "scopes": ["api"]})).0, 401);
    assert_eq!(
        create(&admin, "99", json!({"name": "x", "scopes": ["api"]})),
        (404, json!({"message": "404 User Not Found"}))
    );
    assert_eq!(
        create(&admin, "2", json!({"name": "x", "scopes": ["write"]})),
        (400, json!({"error": "scopes does not have a valid value"}))
    );
    assert_eq!(create(&admin, "2", json!({"scopes": ["api"]})), (400, json!({"error": "name is missing"})));
    assert_eq!(create(&admin, "2", json!({"name": "x"})), (400, json!({"error": "scopes is missing"})));
    assert_eq!(
        create(&admin, "2", json!({"name": "x", "scopes": ["api", "sudo"]})),
        (400, json!({"message": "Sudo can only be enabled for administrators"}))
    );
    assert_eq!(create(&admin, "1", json!({"name": "x", "scopes": ["api", "sudo"]})).0, 201, "an administrator's may");
    assert_eq!(
        create(&admin, "2", json!({"name": "x", "scopes": ["api"], "expires_at": days_from_today(366)})),
        (400, json!({"message": format!("Expires at must be before {year}")}))
    );
    assert_eq!(
        create(&admin, "2", json!({"name": "x", "scopes": ["api"], "expires_at": "next week"})),
        (400, json!({"error": "expires_at is invalid"}))
    );
    let (_, defaulted) = create(&admin, "2", json!({"name": "later", "scopes": "api,read_user"}));
    assert_eq!(
        (defaulted["expires_at"].clone(), defaulted["scopes"].clone()),
        (json!(year), json!(["api", "read_user"]))
    );
    // Create for oneself: k8s_proxy only, a day by default.
    let (status, own) = call(
        i,
        "POST",
        "/api/v4/user/personal_access_tokens",
        &alice,
        json!({"name": "agent", "scopes": ["k8s_proxy"]}),
    );
    assert_eq!((status, own["expires_at"].clone(), own["user_id"].clone()), (201, json!(days_from_today(1)), json!(2)));
    assert_eq!(
        call(i, "POST", "/api/v4/user/personal_access_tokens", &alice, json!({"name": "agent", "scopes": ["api"]})),
        (400, json!({"error": "scopes does not have a valid value"}))
    );
    // A k8s_proxy token opens no route but its own `self`.
    let agent = [("PRIVATE-TOKEN", own["token"].as_str().unwrap())];
    assert_eq!(call(i, "GET", "/api/v4/personal_access_tokens/self", &agent, Value::Null).1["name"], json!("agent"));
    assert_eq!(call(i, "GET", "/api/v4/projects", &agent, Value::Null).0, 403);
    // List: administrators everyone's, others their own.
    let list = |headers: &[(&str, &str)], query: &str| {
        let (status, body) = call(i, "GET", &format!("/api/v4/personal_access_tokens{query}"), headers, Value::Null);
        assert_eq!(status, 200, "{query}: {body}");
        body.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    let alices = list(&alice, "");
    assert_eq!(alices, ["forgecore", "deploy", "later", "agent"]);
    assert_eq!(list(&admin, "?user_id=2"), alices);
    assert!(list(&admin, "").len() > alices.len());
    assert_eq!(list(&alice, "?user_id=2"), alices);
    assert_eq!(
        call(i, "GET", "/api/v4/personal_access_tokens?user_id=3", &alice, Value::Null),
        (401, json!({"message": "401 Unauthorized"}))
    );
    assert_eq!(list(&alice, "?search=LAT"), ["later"]);
    assert_eq!(list(&alice, "?per_page=2&page=2"), ["later", "agent"]);
    let (status, _) =
        call(i, "DELETE", &format!("/api/v4/personal_access_tokens/{}", defaulted["id"]), &alice, Value::Null);
    assert_eq!(status, 204);
    assert_eq!(list(&alice, "?revoked=true"), ["later"]);
    assert_eq!(list(&alice, "?state=inactive"), ["later"]);
    assert_eq!(list(&alice, "?state=active"), ["forgecore", "deploy", "agent"]);
    assert_eq!(list(&alice, &format!("?expires_before={}", days_from_today(2))), ["agent"]);
    assert_eq!(list(&alice, "?created_after=2000-01-01T00:00:00Z").len(), 4);
    assert_eq!(list(&alice, "?created_before=2000-01-01").len(), 0);
    assert_eq!(call(i, "GET", "/api/v4/personal_access_tokens?state=gone", &alice, Value::Null).0, 400);
    // Get one: its owner or an administrator.
    let one = format!("/api/v4/personal_access_tokens/{}", made["id"]);
    let (status, got) = call(i, "GET", &one, &alice, Value::Null);
    assert_eq!(
        (status, got["name"].clone(), got["last_used_ips"].clone(), got.get("token")),
        (200, json!("deploy"), json!([]), None)
    );
    assert_eq!(call(i, "GET", &one, &admin, Value::Null).0, 200);
    let bob = token(i, "bob", &["api"]);
    assert_eq!(
        call(i, "GET", &one, &[("PRIVATE-TOKEN", &bob)], Value::Null),
        (401, json!({"message": "401 Unauthorized"}))
    );
    assert_eq!(call(i, "GET", "/api/v4/personal_access_tokens/999999", &[("PRIVATE-TOKEN", &bob)], Value::Null).0, 401);
    assert_eq!(
        call(i, "GET", "/api/v4/personal_access_tokens/999999", &admin, Value::Null),
        (404, json!({"message": "404 Not Found"}))
    );
    assert_eq!(
        call(i, "GET", "/api/v4/personal_access_tokens/abc", &admin, Value::Null),
        (400, json!({"error": "id is invalid"}))
    );
    // Revoke: someone else's is 400, none 404; an administrator revokes anyone's.
    assert_eq!(
        call(i, "DELETE", &one, &[("PRIVATE-TOKEN", &bob)], Value::Null),
        (400, json!({"message": "400 Bad request"}))
    );
    assert_eq!(
        call(i, "DELETE", "/api/v4/personal_access_tokens/999999", &alice, Value::Null),
        (404, json!({"message": "404 Not Found"}))
    );
    assert_eq!(call(i, "DELETE", &one, &admin, Value::Null).0, 204);
    let deploy = made["token"].as_str().unwrap();
    assert_eq!(call(i, "GET", "/api/v4/personal_access_tokens/self", &[("PRIVATE-TOKEN", deploy)], Value::Null).0, 401);
    // Revoke oneself, whatever the scopes.
    let reader = token(i, "bob", &["read_user"]);
    assert_eq!(
        call(i, "DELETE", "/api/v4/personal_access_tokens/self", &[("PRIVATE-TOKEN", &reader)], Value::Null).0,
        204
    );
    assert_eq!(
        call(i, "GET", "/api/v4/user", &[("PRIVATE-TOKEN", &reader)], Value::Null),
        (401, invalid_token(REVOKED))
    );
    // Anonymous callers: 401 everywhere.
    assert_eq!(call(i, "GET", "/api/v4/personal_access_tokens", &[], Value::Null).0, 401);
    assert_eq!(call(i, "GET", "/api/v4/personal_access_tokens/self", &[], Value::Null).0, 401);
}

#[test]
fn the_cli_creates_tokens_through_the_same_validations() {
    let w = world();
    let i = &w.instance;
    let (status, body) = i.admin(json!({"command": "token_add", "username": "alice", "scopes": ["nope"]}));
    assert_eq!((status, body), (400, json!({"error": "scopes does not have a valid value"})));
    let (status, body) = i.admin(json!({"command": "token_add", "username": "alice", "scopes": ["sudo"]}));
    assert_eq!((status, body), (400, json!({"message": "Sudo can only be enabled for administrators"})));
    let date = days_from_today(10);
    let body =
        i.admin_ok(json!({"command": "token_add", "username": "alice", "scopes": "read_api", "expires_at": date}));
    assert_eq!((body["scopes"].clone(), body["expires_at"].clone()), (json!(["read_api"]), json!(date)));
    let plain = i.admin_ok(json!({"command": "token_add", "username": "alice"}));
    assert_eq!(plain["scopes"], json!(["api"]));
}

#[test]
fn bootstrap_tokens_have_api_and_sudo() {
    let instance = common::open_instance(json!({}));
    let made = instance.admin_ok(json!({"command": "bootstrap"}));
    let root = made["token"].as_str().unwrap();
    let (status, me) =
        call(&instance, "GET", "/api/v4/personal_access_tokens/self", &[("PRIVATE-TOKEN", root)], Value::Null);
    assert_eq!(status, 200);
    assert_eq!((me["scopes"].clone(), me["expires_at"].clone()), (json!(["api", "sudo"]), json!(days_from_today(365))));
}

#[test]
fn a_lifetime_of_zero_lets_tokens_not_expire() {
    let instance = common::open_instance(json!({"limits": {"token_max_lifetime_days": 0}}));
    let admin = instance.user_with_token("root", true);
    let (status, made) = call(
        &instance,
        "POST",
        "/api/v4/users/1/personal_access_tokens",
        &[("PRIVATE-TOKEN", &admin)],
        json!({"name": "forever", "scopes": ["api"]}),
    );
    assert_eq!((status, made["expires_at"].clone()), (201, Value::Null));
    let (status, far) = call(
        &instance,
        "POST",
        "/api/v4/users/1/personal_access_tokens",
        &[("PRIVATE-TOKEN", &admin)],
        json!({"name": "far", "scopes": ["api"], "expires_at": "2999-12-31"}),
    );
    assert_eq!((status, far["expires_at"].clone()), (201, json!("2999-12-31")));
}

/// Polls `check` for up to two seconds (another PostgreSQL host hears of a change through
/// `forgecore_auth`; SQLite hosts read the one file).
fn soon(check: impl Fn() -> bool) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        if check() {
            return true;
        }
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn another_host_sees_expiry_revocation_and_rotation() {
    let w = world();
    let one = &w.instance;
    let other = one.reopen();
    let me = |host: &TestInstance, t: &str| call(host, "GET", "/api/v4/user", &[("PRIVATE-TOKEN", t)], Value::Null);
    let expiring = one.admin_ok(json!({"command": "token_add", "username": "alice"}));
    let revoked = one.admin_ok(json!({"command": "token_add", "username": "alice"}));
    let rotated = one.admin_ok(json!({"command": "token_add", "username": "alice", "scopes": ["read_user"]}));
    let text = |made: &Value| made["token"].as_str().unwrap().to_string();
    for made in [&expiring, &revoked, &rotated] {
        assert_eq!(me(&other, &text(made)).0, 200, "the other host knows (and keeps) the token");
    }
    set_expiry(one, expiring["id"].as_i64().unwrap(), "2020-01-01");
    assert!(
        soon(|| me(&other, &text(&expiring)) == (401, invalid_token(EXPIRED))),
        "{:?}",
        me(&other, &text(&expiring))
    );
    let (status, _) = call(
        one,
        "DELETE",
        &format!("/api/v4/personal_access_tokens/{}", revoked["id"]),
        &[("PRIVATE-TOKEN", &w.alice)],
        Value::Null,
    );
    assert_eq!(status, 204);
    assert!(soon(|| me(&other, &text(&revoked)) == (401, invalid_token(REVOKED))));
    let (status, new) = call(
        one,
        "POST",
        &format!("/api/v4/personal_access_tokens/{}/rotate", rotated["id"]),
        &[("PRIVATE-TOKEN", &w.alice)],
        Value::Null,
    );
    assert_eq!(status, 200);
    assert!(soon(|| me(&other, &text(&rotated)).0 == 401));
    let (status, body) = me(&other, &text(&new));
    assert_eq!((status, body["username"].clone()), (200, json!("alice")), "the successor keeps the scopes");
    let (status, _) = call(&other, "GET", "/api/v4/projects", &[("PRIVATE-TOKEN", &text(&new))], Value::Null);
    assert_eq!(status, 403, "read_user alone, on the other host too");
}
