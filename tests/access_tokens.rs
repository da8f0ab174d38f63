//! Project and group access tokens (`gitlab-administration.md` §5, decisions D9): the bot
//! user, its membership, the entity, escalation limits, the custom-role flags
//! `manage_project_access_tokens` and `manage_group_access_tokens`, rotation and revocation.
//! Runs on SQLite, and on PostgreSQL with `FORGECORE_TEST_POSTGRES`.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use forgecore::store::days_from_today;
use serde_json::{json, Value};

struct World {
    instance: TestInstance,
    admin: String,
    /// Owner of group `corp`.
    owner: String,
    /// Maintainer of project `corp/app`.
    maintainer: String,
    /// Developer of `corp`.
    developer: String,
    /// Developer of `corp` with a custom role carrying both token flags.
    delegate: String,
    outsider: String,
    project_id: i64,
}

fn world() -> World {
    let instance = common::open_instance(json!({}));
    let admin = instance.user_with_token("root", true);
    let owner = instance.user_with_token("olivia", false);
    let maintainer = instance.user_with_token("max", false);
    let developer = instance.user_with_token("dev", false);
    let delegate = instance.user_with_token("della", false);
    let outsider = instance.user_with_token("otto", false);
    let repo = instance.root_dir().join("app.git");
    let status = std::process::Command::new("git").args(["init", "-q", "--bare"]).arg(&repo).status().unwrap();
    assert!(status.success());
    for command in [
        json!({"command": "group_add", "path": "corp"}),
        json!({"command": "project_add", "path": "corp/app", "repo": repo, "visibility": "private"}),
        json!({"command": "member_add", "group": "corp", "username": "olivia", "access_level": 50}),
        json!({"command": "member_add", "project": "corp/app", "username": "max", "access_level": 40}),
        json!({"command": "member_add", "group": "corp", "username": "dev", "access_level": 30}),
    ] {
        instance.admin_ok(command);
    }
    let (status, role) = instance.call(
        "POST",
        "/api/v4/groups/corp/member_roles",
        Some(&admin),
        json!({"name": "Token keeper", "base_access_level": 30,
               "manage_project_access_tokens": true, "manage_group_access_tokens": true}),
    );
    assert_eq!(status, 201, "{role}");
    instance.admin_ok(json!({"command": "member_add", "group": "corp", "username": "della", "access_level": 30,
                             "member_role_id": role["id"]}));
    let (status, project) = instance.call("GET", "/api/v4/projects/corp%2Fapp", Some(&admin), Value::Null);
    assert_eq!(status, 200, "{project}");
    let project_id = project["id"].as_i64().unwrap();
    World { instance, admin, owner, maintainer, developer, delegate, outsider, project_id }
}

impl World {
    fn call(&self, method: &str, target: &str, token: &str, body: Value) -> (u16, Value) {
        self.instance.call(method, target, Some(token), body)
    }
}

const PROJECT: &str = "/api/v4/projects/corp%2Fapp/access_tokens";
const GROUP: &str = "/api/v4/groups/corp/access_tokens";

/// The top-level keys of a JSON object's text, in the order they are written (`Value` sorts
/// them).
fn keys_in_order(text: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let map: serde_json::Map<String, Value> = serde::Deserialize::deserialize(&mut de).unwrap();
    let mut rest = text;
    while let Some((at, key)) = map.keys().filter_map(|k| rest.find(&format!("\"{k}\":")).map(|i| (i, k))).min() {
        keys.push(key.clone());
        rest = &rest[at + key.len() + 3..];
        if keys.len() == map.len() {
            break;
        }
    }
    keys
}

#[test]
fn a_project_token_is_a_bot_member_with_the_entity_of_gitlab() {
    let w = world();
    let body = json!({"name": "ci", "scopes": ["api", "read_repository"]}).to_string();
    let headers = [("PRIVATE-TOKEN", w.maintainer.as_str()), ("Content-Type", "application/json")];
    let (status, _, raw) = w.instance.request("POST", PROJECT, &headers, body.as_bytes());
    let text = String::from_utf8(raw).unwrap();
    assert_eq!(status, 201, "{text}");
    let made: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        keys_in_order(&text),
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
            "last_used_ips",
            "access_level",
            "resource_type",
            "resource_id",
            "token"
        ]
    );
    assert_eq!(made["access_level"], 40, "GitLab's default level is Maintainer");
    assert_eq!(made["resource_type"], "project");
    assert_eq!(made["resource_id"], w.project_id);
    assert_eq!(made["scopes"], json!(["api", "read_repository"]));
    assert_eq!(made["expires_at"], json!(days_from_today(365)), "today + the maximum lifetime");
    let token = made["token"].as_str().unwrap();
    assert!(token.starts_with("glpat-"), "{token}");

    // The bot: GitLab's username and email pattern, the token's name, a member at the level.
    let (status, me) = w.instance.call("GET", "/api/v4/user", Some(token), Value::Null);
    assert_eq!(status, 200, "{me}");
    let username = me["username"].as_str().unwrap();
    let prefix = format!("project_{}_bot_", w.project_id);
    let suffix = username.strip_prefix(&prefix).unwrap_or_else(|| panic!("{username}"));
    assert!(suffix.len() == 32 && suffix.bytes().all(|b| b.is_ascii_hexdigit()), "{username}");
    assert_eq!(me["name"], "ci");
    assert_eq!(me["id"], made["user_id"]);
    // GitLab's `expose :bot?, as: :bot` (lib/api/entities/user.rb): true for the bot, on
    // itself and to an administrator; false for a human.
    assert_eq!(me["bot"], true, "{me}");
    let (_, seen) = w.call("GET", &format!("/api/v4/users/{}", made["user_id"]), &w.admin, Value::Null);
    assert_eq!(seen["bot"], true, "{seen}");
    let (_, human) = w.instance.call("GET", "/api/v4/user", Some(&w.maintainer), Value::Null);
    assert_eq!(human["bot"], false, "{human}");
    // GET /users lists the bot, but not with `humans` or `without_project_bots`.
    let listed = |query: &str| {
        let (_, users) = w.call("GET", &format!("/api/v4/users{query}"), &w.admin, Value::Null);
        users.as_array().unwrap().iter().any(|u| u["id"] == made["user_id"])
    };
    assert!(listed("?per_page=100"));
    assert!(!listed("?per_page=100&humans=true"));
    assert!(!listed("?per_page=100&without_project_bots=true"));
    let (_, members) = w.call("GET", "/api/v4/projects/corp%2Fapp/members", &w.admin, Value::Null);
    let bot = members.as_array().unwrap().iter().find(|m| m["username"] == username).expect("the bot is a member");
    assert_eq!(bot["access_level"], 40);

    // The token works on its project as its bot's membership allows.
    let (status, _) = w.instance.call("GET", "/api/v4/projects/corp%2Fapp", Some(token), Value::Null);
    assert_eq!(status, 200);

    // Get and list show the same entity without the secret.
    let id = made["id"].as_i64().unwrap();
    let (status, got) = w.call("GET", &format!("{PROJECT}/{id}"), &w.maintainer, Value::Null);
    assert_eq!(status, 200, "{got}");
    assert!(got.get("token").is_none());
    assert_eq!(got["access_level"], 40);
    assert_eq!(got["last_used_ips"], json!([]));
    let (status, list) = w.call("GET", PROJECT, &w.maintainer, Value::Null);
    assert_eq!(status, 200, "{list}");
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["id"], id);
    // A personal access token of someone else is not one of the project's.
    let (status, missing) = w.call("GET", &format!("{PROJECT}/1"), &w.maintainer, Value::Null);
    assert_eq!((status, missing), (404, json!({"message": "404 project Access Token Not Found"})));
}

#[test]
fn who_may_manage_project_tokens() {
    let w = world();
    // A developer: list and get 401, create 400 with GitLab's text.
    assert_eq!(w.call("GET", PROJECT, &w.developer, Value::Null), (401, json!({"message": "401 Unauthorized"})));
    let (status, body) = w.call("POST", PROJECT, &w.developer, json!({"name": "x", "scopes": ["api"]}));
    assert_eq!(status, 400);
    assert_eq!(
        body,
        json!({"message": "400 Bad request - User does not have permission to create project access token"})
    );
    // Someone who cannot see the private project: its 404.
    let (status, body) = w.call("GET", PROJECT, &w.outsider, Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Project Not Found"})));
    // Anonymous: 401.
    assert_eq!(w.instance.call("GET", PROJECT, None, Value::Null).0, 401);
    // An administrator may.
    assert_eq!(w.call("GET", PROJECT, &w.admin, Value::Null).0, 200);
    // The custom role's flag lets a developer manage them, within their own level.
    let (status, made) =
        w.call("POST", PROJECT, &w.delegate, json!({"name": "d", "scopes": ["read_api"], "access_level": 30}));
    assert_eq!(status, 201, "{made}");
    assert_eq!(w.call("GET", PROJECT, &w.delegate, Value::Null).0, 200);
    let (status, body) = w.call("POST", PROJECT, &w.delegate, json!({"name": "d", "scopes": ["api"]}));
    assert_eq!(status, 400, "the default level 40 is above the delegate's 30: {body}");
    assert_eq!(
        body["message"],
        "400 Bad request - Access level of the token contains permissions not held by the creating user"
    );
}

#[test]
fn nobody_gives_a_token_more_than_they_have() {
    let w = world();
    let (status, body) =
        w.call("POST", PROJECT, &w.maintainer, json!({"name": "o", "scopes": ["api"], "access_level": 50}));
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["message"],
        "400 Bad request - Access level of the token contains permissions not held by the creating user"
    );
    // The group's owner may make an Owner token on the project below it.
    let (status, body) = w.call("POST", PROJECT, &w.owner, json!({"name": "o", "scopes": ["api"], "access_level": 50}));
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["access_level"], 50);
    // A bot cannot make tokens, whatever its level.
    let bot = body["token"].as_str().unwrap().to_string();
    let (status, body) =
        w.instance.call("POST", PROJECT, Some(&bot), json!({"name": "b", "scopes": ["api"], "access_level": 10}));
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["message"], "400 Bad request - User does not have permission to create project access token");
}

#[test]
fn bad_requests_are_clear_4xx() {
    let w = world();
    let cases = [
        (
            json!({"name": "x", "scopes": ["api"], "access_level": 35}),
            json!({"error": "access_level does not have a valid value"}),
        ),
        (json!({"name": "x", "scopes": ["read_user"]}), json!({"error": "scopes does not have a valid value"})),
        (json!({"name": "x", "scopes": ["sudo"]}), json!({"error": "scopes does not have a valid value"})),
        (json!({"scopes": ["api"]}), json!({"error": "name is missing"})),
        (json!({"name": "x"}), json!({"error": "scopes is missing"})),
        (json!({"name": "x", "scopes": ["api"], "expires_at": "someday"}), json!({"error": "expires_at is invalid"})),
    ];
    for (body, answer) in cases {
        assert_eq!(w.call("POST", PROJECT, &w.maintainer, body.clone()), (400, answer), "{body}");
    }
    let late = days_from_today(400);
    let (status, body) =
        w.call("POST", PROJECT, &w.maintainer, json!({"name": "x", "scopes": ["api"], "expires_at": late}));
    assert_eq!(status, 400);
    assert_eq!(body["message"], format!("400 Bad request - Expires at must be before {}", days_from_today(365)));
    // A failed create leaves no bot behind.
    let (_, members) = w.call("GET", "/api/v4/projects/corp%2Fapp/members", &w.admin, Value::Null);
    assert!(
        members.as_array().unwrap().iter().all(|m| !m["username"].as_str().unwrap().contains("_bot_")),
        "{members}"
    );
    assert_eq!(w.call("GET", &format!("{PROJECT}/abc"), &w.maintainer, Value::Null).0, 404);
}

#[test]
fn revoking_revokes_the_token_and_deletes_its_bot() {
    let w = world();
    let (_, made) = w.call("POST", PROJECT, &w.maintainer, json!({"name": "gone", "scopes": ["api"]}));
    let token = made["token"].as_str().unwrap().to_string();
    let id = made["id"].as_i64().unwrap();
    let target = format!("{PROJECT}/{id}");
    // A developer may not: GitLab's service refusal, after the token is found.
    let (status, body) = w.call("DELETE", &target, &w.developer, Value::Null);
    assert_eq!((status, body), (400, json!({"message": "400 Bad request - dev cannot delete gone"})));
    assert_eq!(w.call("DELETE", &format!("{PROJECT}/99999"), &w.maintainer, Value::Null).0, 404);
    assert_eq!(w.call("DELETE", &target, &w.maintainer, Value::Null).0, 204);
    assert_eq!(w.instance.call("GET", "/api/v4/user", Some(&token), Value::Null).0, 401);
    assert_eq!(w.call("GET", &target, &w.maintainer, Value::Null).0, 404);
    let (_, members) = w.call("GET", "/api/v4/projects/corp%2Fapp/members", &w.admin, Value::Null);
    assert!(members.as_array().unwrap().iter().all(|m| m["id"] != made["user_id"]), "{members}");
    let (_, list) = w.call("GET", PROJECT, &w.maintainer, Value::Null);
    assert_eq!(list, json!([]));
}

#[test]
fn rotation_replaces_the_token() {
    let w = world();
    let (_, made) =
        w.call("POST", PROJECT, &w.maintainer, json!({"name": "r", "scopes": ["read_api"], "access_level": 20}));
    let old = made["token"].as_str().unwrap().to_string();
    let id = made["id"].as_i64().unwrap();
    let rotate = format!("{PROJECT}/{id}/rotate");
    assert_eq!(w.call("POST", &rotate, &w.developer, Value::Null), (401, json!({"message": "401 Unauthorized"})));
    assert_eq!(w.call("POST", &format!("{PROJECT}/99999/rotate"), &w.admin, Value::Null).0, 404);
    assert_eq!(w.call("POST", &format!("{PROJECT}/99999/rotate"), &w.maintainer, Value::Null).0, 401);
    let (status, new) = w.call("POST", &rotate, &w.maintainer, Value::Null);
    assert_eq!(status, 200, "{new}");
    assert_eq!(new["expires_at"], json!(days_from_today(7)));
    assert_eq!(new["access_level"], 20);
    assert_eq!(new["resource_type"], "project");
    assert_eq!(new["user_id"], made["user_id"]);
    assert_ne!(new["id"], made["id"]);
    let fresh = new["token"].as_str().unwrap();
    assert_eq!(w.instance.call("GET", "/api/v4/projects/corp%2Fapp", Some(&old), Value::Null).0, 401);
    assert_eq!(w.instance.call("GET", "/api/v4/projects/corp%2Fapp", Some(fresh), Value::Null).0, 200);
    let (status, body) = w.call("POST", &rotate, &w.maintainer, Value::Null);
    assert_eq!((status, body), (400, json!({"message": "400 Bad request - Token already revoked"})));
    // Both are the project's; the old one is inactive.
    let (_, active) = w.call("GET", &format!("{PROJECT}?state=active"), &w.maintainer, Value::Null);
    assert_eq!(active.as_array().unwrap().len(), 1);
    assert_eq!(active[0]["id"], new["id"]);
    let (_, inactive) = w.call("GET", &format!("{PROJECT}?state=inactive"), &w.maintainer, Value::Null);
    assert_eq!(inactive[0]["id"], made["id"]);
}

#[test]
fn group_tokens_reach_the_projects_below() {
    let w = world();
    // Group tokens are for Owners.
    let (status, body) = w.call("POST", GROUP, &w.developer, json!({"name": "g", "scopes": ["api"]}));
    assert_eq!(status, 400);
    assert_eq!(body["message"], "400 Bad request - User does not have permission to create group access token");
    assert_eq!(w.call("GET", GROUP, &w.developer, Value::Null).0, 401);
    assert_eq!(w.call("GET", GROUP, &w.outsider, Value::Null).0, 404);
    let (status, made) =
        w.call("POST", GROUP, &w.owner, json!({"name": "g", "scopes": ["read_api"], "access_level": 20}));
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["resource_type"], "group");
    let token = made["token"].as_str().unwrap();
    let (_, me) = w.instance.call("GET", "/api/v4/user", Some(token), Value::Null);
    assert!(me["username"].as_str().unwrap().starts_with("group_"), "{me}");
    assert_eq!(w.instance.call("GET", "/api/v4/projects/corp%2Fapp", Some(token), Value::Null).0, 200);
    // A project's token list does not show the group's.
    assert_eq!(w.call("GET", PROJECT, &w.owner, Value::Null).1, json!([]));
    // The custom flag lets the developer with the role manage them, within level 30.
    assert_eq!(w.call("GET", GROUP, &w.delegate, Value::Null).0, 200);
    let (status, _) = w.call("POST", GROUP, &w.delegate, json!({"name": "d", "scopes": ["api"], "access_level": 30}));
    assert_eq!(status, 201);
    let (status, _) = w.call("POST", GROUP, &w.delegate, json!({"name": "d", "scopes": ["api"], "access_level": 40}));
    assert_eq!(status, 400);
    let id = made["id"].as_i64().unwrap();
    assert_eq!(w.call("DELETE", &format!("{GROUP}/{id}"), &w.delegate, Value::Null).0, 204);
    assert_eq!(w.instance.call("GET", "/api/v4/projects/corp%2Fapp", Some(token), Value::Null).0, 401);
    // A project token id is not a group token.
    let (_, project_token) = w.call("POST", PROJECT, &w.owner, json!({"name": "p", "scopes": ["api"]}));
    let pid = project_token["id"].as_i64().unwrap();
    let (status, body) = w.call("GET", &format!("{GROUP}/{pid}"), &w.owner, Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 group Access Token Not Found"})));
}

#[test]
fn a_bot_is_the_member_of_its_resource_only() {
    let w = world();
    let (status, other) = w.call("POST", "/api/v4/projects", &w.admin, json!({"name": "other", "path": "other"}));
    assert_eq!(status, 201, "{other}");
    let (_, made) = w.call("POST", PROJECT, &w.maintainer, json!({"name": "b", "scopes": ["api"]}));
    let bot = made["user_id"].as_i64().unwrap();
    let target = format!("/api/v4/projects/{}/members", other["id"]);
    let (status, body) = w.call("POST", &target, &w.admin, json!({"user_id": bot, "access_level": 30}));
    assert_eq!(status, 400, "{body}");
    assert_eq!(body, json!({"message": {"user_id": ["project bots cannot be added to other groups / projects"]}}));
    let (status, body) =
        w.call("POST", "/api/v4/groups/corp/members", &w.admin, json!({"user_id": bot, "access_level": 30}));
    assert_eq!(status, 400, "{body}");
    // Anyone else still may be added.
    let (_, me) = w.call("GET", "/api/v4/user", &w.outsider, Value::Null);
    let (status, _) = w.call("POST", &target, &w.admin, json!({"user_id": me["id"], "access_level": 30}));
    assert_eq!(status, 201);
}
