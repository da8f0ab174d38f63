//! Deploy tokens (`gitlab-administration.md` §6): the REST family (projects, groups, the
//! administrators' list), the custom-role flag `manage_deploy_tokens`, git fetch with a
//! deploy token against the real `git` client (expiry and deletion honoured), and
//! `last_used_at` of every token kind, written at most every 10 minutes. Runs on SQLite, and on
//! PostgreSQL with `FORGECORE_TEST_POSTGRES`.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::serve::serve_connection;
use common::{git, TempDir};
use forgecore::params::Params;
use forgecore::Context;
use serde_json::{json, Value};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

struct Forge {
    ctx: Arc<Context>,
    url: String,
    dir: TempDir,
    admin: String,
    /// Owner of `corp`.
    owner: String,
    /// Maintainer of `corp`.
    maintainer: String,
    /// Developer of `corp`.
    developer: String,
    /// Developer of `corp` with a custom role carrying `manage_deploy_tokens`.
    delegate: String,
    outsider: String,
}

fn admin(ctx: &Context, command: Value) -> Value {
    let response = forgecore::api::admin::run(ctx, &Params::from_json_object(command.clone()).unwrap()).unwrap();
    let status = response.status;
    let body: Value = serde_json::from_slice(&response.into_bytes().unwrap()).unwrap_or(Value::Null);
    assert!(status < 300, "{command}: {status} {body}");
    body
}

/// A bare repository at `path` with one commit on `main`.
fn seeded(dir: &Path, path: &Path) {
    let work = dir.join(format!("seed-{}", path.file_name().unwrap().to_string_lossy()));
    std::fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "-q", "-b", "main"]);
    std::fs::write(work.join("README.md"), "hi\n").unwrap();
    git(&work, &["add", "."]);
    git(&work, &["-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "one"]);
    git(dir, &["clone", "-q", "--bare", &work.to_string_lossy(), &path.to_string_lossy()]);
}

/// `corp` (private) with `corp/app` and `corp/sub/lib`, `other/elsewhere`, and the people.
fn forge() -> Forge {
    let dir = TempDir::new();
    let mut config = json!({"data_dir": dir.path().join("data"), "maintenance": {"enabled": false}});
    if let Some(server) = common::postgres_server() {
        config["store"] = json!({"postgres": common::new_postgres_database(&server)});
    }
    let ctx = Arc::new(Context::from_json(&config.to_string()).unwrap());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let served = Arc::clone(&ctx);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let ctx = Arc::clone(&served);
            std::thread::spawn(move || {
                let _ = serve_connection(&ctx, stream);
            });
        }
    });
    for group in ["corp", "corp/sub", "other"] {
        admin(&ctx, json!({"command": "group_add", "path": group}));
    }
    for (path, name) in [("corp/app", "app.git"), ("corp/sub/lib", "lib.git"), ("other/elsewhere", "else.git")] {
        let repo = dir.path().join(name);
        seeded(dir.path(), &repo);
        admin(&ctx, json!({"command": "project_add", "path": path, "repo": repo, "visibility": "private"}));
    }
    let mut tokens = Vec::new();
    for (user, is_admin) in
        [("root", true), ("olivia", false), ("max", false), ("dev", false), ("della", false), ("otto", false)]
    {
        admin(&ctx, json!({"command": "user_add", "username": user, "admin": is_admin}));
        tokens.push(
            admin(&ctx, json!({"command": "token_add", "username": user}))["token"].as_str().unwrap().to_string(),
        );
    }
    for (user, level) in [("olivia", 50), ("max", 40), ("dev", 30)] {
        admin(&ctx, json!({"command": "member_add", "group": "corp", "username": user, "access_level": level}));
    }
    let forge = Forge {
        ctx,
        url,
        dir,
        admin: tokens[0].clone(),
        owner: tokens[1].clone(),
        maintainer: tokens[2].clone(),
        developer: tokens[3].clone(),
        delegate: tokens[4].clone(),
        outsider: tokens[5].clone(),
    };
    let (status, role) = forge.call(
        "POST",
        "/api/v4/groups/corp/member_roles",
        &forge.admin.clone(),
        json!({"name": "Deployer", "base_access_level": 30, "manage_deploy_tokens": true}),
    );
    assert_eq!(status, 201, "{role}");
    admin(
        &forge.ctx,
        json!({"command": "member_add", "group": "corp", "username": "della", "access_level": 30, "member_role_id": role["id"]}),
    );
    forge
}

impl Forge {
    /// An API request as `token`: status and raw body.
    fn raw(&self, method: &str, path: &str, token: &str, body: Value) -> (u16, String) {
        let mut headers = vec![("PRIVATE-TOKEN".to_string(), token.to_string())];
        let body = if body.is_null() { Vec::new() } else { body.to_string().into_bytes() };
        if !body.is_empty() {
            headers.push(("Content-Type".into(), "application/json".into()));
        }
        let response = forgecore::http::handle(&self.ctx, method, path, headers, &body);
        let status = response.status;
        (status, String::from_utf8(response.into_bytes().unwrap()).unwrap())
    }

    fn call(&self, method: &str, path: &str, token: &str, body: Value) -> (u16, Value) {
        let (status, text) = self.raw(method, path, token, body);
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// `git clone` of `project` as `user:password`, isolated from this machine's configuration.
    fn clone(&self, project: &str, user: &str, password: &str, name: &str) -> (Output, PathBuf) {
        let into = self.dir.path().join(name);
        let remote =
            self.url.replacen("http://", &format!("http://{user}:{password}@"), 1) + &format!("/{project}.git");
        let out = self.git(self.dir.path(), &["clone", "-q", &remote, &into.to_string_lossy()]);
        (out, into)
    }

    fn git(&self, cwd: &Path, args: &[&str]) -> Output {
        let home = self.dir.path().join("client-home");
        std::fs::create_dir_all(&home).unwrap();
        Command::new("git")
            .current_dir(cwd)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("HOME", &home)
            .env_remove("GIT_ASKPASS")
            .env_remove("SSH_ASKPASS")
            .output()
            .unwrap()
    }

    /// A deploy token of `target` (`projects/<id>`, `groups/<id>`), made by an administrator.
    fn deploy_token(&self, target: &str, body: Value) -> Value {
        let (status, made) = self.call("POST", &format!("/api/v4/{target}/deploy_tokens"), &self.admin, body);
        assert_eq!(status, 201, "{made}");
        made
    }

    fn sql(&self, sql: &str, id: i64, value: i64) {
        self.ctx.store.write(|db| db.execute(sql, &[&id, &value])).unwrap();
    }

    fn last_used(&self, table: &str, id: i64) -> Option<i64> {
        let sql = format!("SELECT last_used_at FROM {table} WHERE id = $1");
        self.ctx.store.read(|db| db.row(&sql, &[&id], |r| r.opt_i64(0))).unwrap().flatten()
    }
}

const APP: &str = "/api/v4/projects/corp%2Fapp/deploy_tokens";
const CORP: &str = "/api/v4/groups/corp/deploy_tokens";

#[test]
fn project_deploy_tokens_through_the_api() {
    let f = forge();
    let (status, text) = f.raw(
        "POST",
        APP,
        &f.maintainer,
        json!({"name": "ci", "scopes": ["read_registry", "read_repository"], "expires_at": "2030-01-02T03:04:05Z"}),
    );
    assert_eq!(status, 201, "{text}");
    let made: Value = serde_json::from_str(&text).unwrap();
    let order: Vec<usize> = [
        "\"id\"",
        "\"name\"",
        "\"username\"",
        "\"expires_at\"",
        "\"scopes\"",
        "\"revoked\"",
        "\"expired\"",
        "\"token\"",
    ]
    .iter()
    .map(|k| text.find(k).unwrap_or_else(|| panic!("{k} in {text}")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "GitLab's key order: {text}");
    let id = made["id"].as_i64().unwrap();
    assert_eq!(made["username"], format!("gitlab+deploy-token-{id}"));
    assert_eq!(made["scopes"], json!(["read_repository", "read_registry"]), "GitLab's scope order");
    assert_eq!(made["expires_at"], "2030-01-02T03:04:05.000Z");
    assert_eq!((made["revoked"].clone(), made["expired"].clone()), (json!(false), json!(false)));
    let token = made["token"].as_str().unwrap();
    assert!(token.starts_with("gldt-"), "{token}");

    let (status, got) = f.call("GET", &format!("{APP}/{id}"), &f.maintainer, Value::Null);
    assert_eq!(status, 200, "{got}");
    assert!(got.get("token").is_none());
    let (_, list) = f.call("GET", APP, &f.maintainer, Value::Null);
    assert_eq!(list.as_array().unwrap().len(), 1);
    // Comma-separated scopes, a chosen username, no expiry.
    let (status, other) = f.call(
        "POST",
        APP,
        &f.maintainer,
        json!({"name": "n", "scopes": "read_repository,write_registry", "username": "deployer"}),
    );
    assert_eq!(status, 201, "{other}");
    assert_eq!(other["username"], "deployer");
    assert_eq!(other["expires_at"], Value::Null);
    assert_eq!(other["scopes"], json!(["read_repository", "write_registry"]));

    // A deploy token is no API credential.
    assert_eq!(f.call("GET", "/api/v4/projects/corp%2Fapp", token, Value::Null).0, 401);

    // Who: Maintainers; a developer 403, an outsider the project's 404.
    assert_eq!(f.call("GET", APP, &f.developer, Value::Null), (403, json!({"message": "403 Forbidden"})));
    assert_eq!(f.call("POST", APP, &f.developer, json!({"name": "x", "scopes": ["read_repository"]})).0, 403);
    assert_eq!(f.call("GET", APP, &f.outsider, Value::Null), (404, json!({"message": "404 Project Not Found"})));
    // The custom flag lets a developer manage them.
    assert_eq!(f.call("POST", APP, &f.delegate, json!({"name": "d", "scopes": ["read_repository"]})).0, 201);
    assert_eq!(f.call("GET", APP, &f.delegate, Value::Null).0, 200);

    // Bad input.
    for (body, answer) in [
        (json!({"name": "x", "scopes": ["write_repository"]}), json!({"error": "scopes does not have a valid value"})),
        (json!({"scopes": ["read_repository"]}), json!({"error": "name is missing"})),
        (json!({"name": "x"}), json!({"error": "scopes is missing"})),
        (
            json!({"name": "x", "scopes": ["read_repository"], "expires_at": "soon"}),
            json!({"error": "expires_at is invalid"}),
        ),
        (
            json!({"name": "x", "scopes": ["read_repository"], "username": "a b"}),
            json!({"message": "Username can contain only letters, digits, '_', '-', '+', and '.'"}),
        ),
    ] {
        assert_eq!(f.call("POST", APP, &f.maintainer, body.clone()), (400, answer), "{body}");
    }

    // The administrators' list.
    let (status, all) = f.call("GET", "/api/v4/deploy_tokens", &f.admin, Value::Null);
    assert_eq!(status, 200);
    assert_eq!(all.as_array().unwrap().len(), 3);
    assert_eq!(f.call("GET", "/api/v4/deploy_tokens", &f.owner, Value::Null).0, 403);

    // Delete: gone; another project's id is 404.
    assert_eq!(f.call("DELETE", &format!("{APP}/{id}"), &f.maintainer, Value::Null).0, 204);
    assert_eq!(
        f.call("GET", &format!("{APP}/{id}"), &f.maintainer, Value::Null),
        (404, json!({"message": "404 Not found"}))
    );
    let elsewhere = f.deploy_token("projects/other%2Felsewhere", json!({"name": "e", "scopes": ["read_repository"]}));
    let path = format!("{APP}/{}", elsewhere["id"]);
    assert_eq!(f.call("DELETE", &path, &f.maintainer, Value::Null).0, 404);
}

#[test]
fn group_deploy_tokens_and_who_may_make_them() {
    let f = forge();
    // Maintainers read, Owners make and delete.
    assert_eq!(f.call("GET", CORP, &f.maintainer, Value::Null).0, 200);
    assert_eq!(f.call("POST", CORP, &f.maintainer, json!({"name": "g", "scopes": ["read_repository"]})).0, 403);
    assert_eq!(f.call("GET", CORP, &f.developer, Value::Null).0, 403);
    assert_eq!(f.call("GET", CORP, &f.outsider, Value::Null).0, 404);
    let (status, made) = f.call("POST", CORP, &f.owner, json!({"name": "g", "scopes": ["read_repository"]}));
    assert_eq!(status, 201, "{made}");
    let id = made["id"].as_i64().unwrap();
    assert_eq!(f.call("DELETE", &format!("{CORP}/{id}"), &f.maintainer, Value::Null).0, 403);
    // The flag does both.
    assert_eq!(f.call("POST", CORP, &f.delegate, json!({"name": "d", "scopes": ["read_repository"]})).0, 201);
    assert_eq!(f.call("DELETE", &format!("{CORP}/{id}"), &f.delegate, Value::Null).0, 204);
    let (_, list) = f.call("GET", CORP, &f.owner, Value::Null);
    assert_eq!(list.as_array().unwrap().len(), 1);
    // A group's token is not its project's.
    let other = list[0]["id"].as_i64().unwrap();
    assert_eq!(f.call("GET", &format!("{APP}/{other}"), &f.owner, Value::Null).0, 404);
}

#[test]
fn git_fetch_with_a_deploy_token() {
    let f = forge();
    let made = f.deploy_token("projects/corp%2Fapp", json!({"name": "ci", "scopes": ["read_repository"]}));
    let (user, token) = (made["username"].as_str().unwrap(), made["token"].as_str().unwrap());
    let id = made["id"].as_i64().unwrap();
    assert_eq!(f.last_used("deploy_tokens", id), None);
    let (out, into) = f.clone("corp/app", user, token, "ok");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(into.join("README.md")).unwrap(), "hi\n");
    let used = f.last_used("deploy_tokens", id).expect("a fetch records a use");
    assert!(used > 0);
    // Fetch again from the clone.
    let fetch = f.git(&into, &["fetch", "-q", "origin"]);
    assert!(fetch.status.success(), "{}", String::from_utf8_lossy(&fetch.stderr));
    // Pushing is never a deploy token's.
    std::fs::write(into.join("new.txt"), "x\n").unwrap();
    git(&into, &["add", "."]);
    git(&into, &["-c", "user.name=B", "-c", "user.email=b@x.org", "commit", "-q", "-m", "two"]);
    let push = f.git(&into, &["push", "-q", "origin", "HEAD:main"]);
    assert!(!push.status.success());
    assert!(
        String::from_utf8_lossy(&push.stderr).contains("You are not allowed to upload code."),
        "{}",
        String::from_utf8_lossy(&push.stderr)
    );
    // Another username, another project, a token without read_repository: refused.
    assert!(!f.clone("corp/app", "someone", token, "wrong-user").0.status.success());
    assert!(!f.clone("other/elsewhere", user, token, "wrong-project").0.status.success());
    let registry = f.deploy_token("projects/corp%2Fapp", json!({"name": "r", "scopes": ["read_registry"]}));
    let (out, _) =
        f.clone("corp/app", registry["username"].as_str().unwrap(), registry["token"].as_str().unwrap(), "no-scope");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("You are not allowed to download code."),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A group's token reaches the projects in its tree.
    let group = f.deploy_token("groups/corp", json!({"name": "g", "scopes": ["read_repository"], "username": "grp"}));
    let (out, _) = f.clone("corp/sub/lib", "grp", group["token"].as_str().unwrap(), "group");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Expired, then deleted: refused.
    f.sql("UPDATE deploy_tokens SET expires_at = $2 WHERE id = $1", id, forgecore::store::now_seconds() - 5);
    assert!(!f.clone("corp/app", user, token, "expired").0.status.success());
    f.sql("UPDATE deploy_tokens SET expires_at = $2 WHERE id = $1", id, forgecore::store::now_seconds() + 3600);
    assert!(f.clone("corp/app", user, token, "live-again").0.status.success());
    assert_eq!(f.call("DELETE", &format!("{APP}/{id}"), &f.owner, Value::Null).0, 204);
    assert!(!f.clone("corp/app", user, token, "deleted").0.status.success());
}

#[test]
fn last_used_at_is_written_at_most_every_ten_minutes() {
    let f = forge();
    // A personal access token on the API: its first use is written.
    let token_of = |name: &str| -> (i64, String) {
        let body = json!({"name": name, "scopes": ["api"]});
        let (status, made) = f.call("POST", "/api/v4/users/4/personal_access_tokens", &f.admin, body);
        assert_eq!(status, 201, "{made}");
        assert_eq!(made["last_used_at"], Value::Null);
        (made["id"].as_i64().unwrap(), made["token"].as_str().unwrap().to_string())
    };
    let (id, token) = token_of("first");
    assert_eq!(f.call("GET", "/api/v4/user", &token, Value::Null).0, 200);
    let first = f.last_used("personal_access_tokens", id).expect("a use is recorded");
    let (_, shown) = f.call("GET", &format!("/api/v4/personal_access_tokens/{id}"), &f.admin, Value::Null);
    assert!(shown["last_used_at"].is_string(), "{shown}");
    // A token used a minute ago is not written again.
    let recent = first - 60;
    let (id, token) = token_of("recent");
    f.sql("UPDATE personal_access_tokens SET last_used_at = $2 WHERE id = $1", id, recent);
    assert_eq!(f.call("GET", "/api/v4/user", &token, Value::Null).0, 200);
    assert_eq!(f.last_used("personal_access_tokens", id), Some(recent));
    // One used an hour ago is.
    let old = first - 3600;
    let (id, token) = token_of("old");
    f.sql("UPDATE personal_access_tokens SET last_used_at = $2 WHERE id = $1", id, old);
    assert_eq!(f.call("GET", "/api/v4/user", &token, Value::Null).0, 200);
    assert!(f.last_used("personal_access_tokens", id).unwrap() >= first);
    // Used again at once: no second write (the row is set back to tell).
    f.sql("UPDATE personal_access_tokens SET last_used_at = $2 WHERE id = $1", id, old);
    assert_eq!(f.call("GET", "/api/v4/user", &token, Value::Null).0, 200);
    assert_eq!(f.last_used("personal_access_tokens", id), Some(old), "written at most every 10 minutes");

    // A project access token's too (a personal access token of its bot), on git as well.
    let (status, bot) = f.call(
        "POST",
        "/api/v4/projects/corp%2Fapp/access_tokens",
        &f.maintainer,
        json!({"name": "b", "scopes": ["read_repository"]}),
    );
    assert_eq!(status, 201, "{bot}");
    let bot_id = bot["id"].as_i64().unwrap();
    let (out, _) = f.clone("corp/app", "oauth2", bot["token"].as_str().unwrap(), "bot");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(f.last_used("personal_access_tokens", bot_id).is_some());

    // A deploy token: a recent use stays, an old one is replaced.
    let deploy = f.deploy_token("projects/corp%2Fapp", json!({"name": "d", "scopes": ["read_repository"]}));
    let deploy_id = deploy["id"].as_i64().unwrap();
    let (user, secret) = (deploy["username"].as_str().unwrap(), deploy["token"].as_str().unwrap());
    f.sql("UPDATE deploy_tokens SET last_used_at = $2 WHERE id = $1", deploy_id, recent);
    assert!(f.clone("corp/app", user, secret, "d1").0.status.success());
    assert_eq!(f.last_used("deploy_tokens", deploy_id), Some(recent));
    f.sql("UPDATE deploy_tokens SET last_used_at = $2 WHERE id = $1", deploy_id, old);
    assert!(f.clone("corp/app", user, secret, "d2").0.status.success());
    assert!(f.last_used("deploy_tokens", deploy_id).unwrap() >= first);
}
