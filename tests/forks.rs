//! Forks (issue #38, reference §8; GitLab's `lib/api/projects.rb` fork routes and
//! `Projects::ForkService`): `POST /projects/:id/fork` with its refusals, the fork's
//! repository a real copy (checked with real `git`: objects hard-linked, a push over HTTP to
//! the fork leaves the source untouched, the fork outlives its source), `GET .../forks`, the
//! admin link and the unlink, `forked_from_project` and `forks_count`, the fork network in the
//! store. SQLite under `cargo test`, PostgreSQL under `make test-rust-postgres`.
#![allow(clippy::unwrap_used)]

mod common;

use common::serve::serve_connection;
use common::{git_text, TempDir};
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
    root: String,
}

fn admin(ctx: &Context, command: Value) -> Value {
    let response = forgecore::api::admin::run(ctx, &Params::from_json_object(command).unwrap()).unwrap();
    serde_json::from_slice(&response.into_bytes().unwrap()).unwrap_or(Value::Null)
}

fn forge() -> Forge {
    let dir = TempDir::new();
    let storage = dir.path().join("storage");
    std::fs::create_dir_all(&storage).unwrap();
    let mut config = json!({"data_dir": dir.path().join("data"), "maintenance": {"enabled": false},
                            "limits": {"deletion_delay_days": 0},
                            "storages": {"default": storage}});
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
    admin(&ctx, json!({"command": "user_add", "username": "root", "admin": true}));
    let root = admin(&ctx, json!({"command": "token_add", "username": "root"}))["token"].as_str().unwrap().to_string();
    Forge { ctx, url, dir, root }
}

impl Forge {
    fn user(&self, name: &str) -> String {
        admin(
            &self.ctx,
            json!({"command": "user_add", "username": name, "name": name, "email": format!("{name}@x.org")}),
        );
        admin(&self.ctx, json!({"command": "token_add", "username": name}))["token"].as_str().unwrap().to_string()
    }

    fn send(&self, method: &str, path: &str, token: &str, body: Value) -> (u16, Value) {
        let mut headers = Vec::new();
        if !token.is_empty() {
            headers.push(("PRIVATE-TOKEN".to_string(), token.to_string()));
        }
        let body = if body.is_null() { Vec::new() } else { body.to_string().into_bytes() };
        if !body.is_empty() {
            headers.push(("Content-Type".into(), "application/json".into()));
        }
        let response = forgecore::http::handle(&self.ctx, method, path, headers, &body);
        let status = response.status;
        let body = response.into_bytes().unwrap();
        (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
    }

    fn remote(&self, project: &str, token: &str) -> String {
        self.url.replacen("http://", &format!("http://oauth2:{token}@"), 1) + &format!("/{project}.git")
    }

    fn client(&self, cwd: &Path, args: &[&str]) -> Output {
        let home = self.dir.path().join("client-home");
        std::fs::create_dir_all(&home).unwrap();
        Command::new("git")
            .current_dir(cwd)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("HOME", &home)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@x.org")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@x.org")
            .output()
            .unwrap()
    }

    fn git_dir(&self, id: i64) -> PathBuf {
        let project = self.ctx.store.project(&forgecore::store::projects::Name::Id(id)).unwrap().unwrap();
        self.ctx.git_dir(&project).unwrap()
    }

    /// A project of `token`'s user with a README commit and a second branch `feature`.
    fn project(&self, token: &str, body: Value) -> Value {
        let mut body = body;
        body["initialize_with_readme"] = json!(true);
        let (status, project) = self.send("POST", "/api/v4/projects", token, body);
        assert_eq!(status, 201, "{project}");
        let id = project["id"].as_i64().unwrap();
        let (status, branch) = self.send(
            "POST",
            &format!("/api/v4/projects/{id}/repository/branches?branch=feature&ref=main"),
            token,
            Value::Null,
        );
        assert_eq!(status, 201, "{branch}");
        project
    }
}

fn ok(out: &Output) {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_fork_is_a_real_copy_that_outlives_its_source_and_takes_pushes_alone() {
    let f = forge();
    let alice = f.user("alice");
    let bob = f.user("bob");
    let source = f.project(&alice, json!({"name": "App", "description": "The app", "visibility": "public"}));
    let source_id = source["id"].as_i64().unwrap();
    let (status, fork) = f.send("POST", &format!("/api/v4/projects/{source_id}/fork"), &bob, Value::Null);
    assert_eq!(status, 201, "{fork}");
    assert_eq!(fork["path_with_namespace"], "bob/App");
    assert_eq!(fork["name"], "App");
    assert_eq!(fork["description"], "The app");
    assert_eq!(fork["visibility"], "public");
    assert_eq!(fork["owner"]["username"], "bob");
    assert_eq!(fork["default_branch"], "main");
    assert_eq!(fork["empty_repo"], false);
    assert_eq!(fork["forked_from_project"]["id"], source_id);
    assert_eq!(fork["forked_from_project"]["path_with_namespace"], "alice/App");
    assert_eq!(fork["mr_default_target_self"], false);
    assert_eq!(fork["permissions"]["project_access"]["access_level"], 50);
    assert!(source.get("forked_from_project").is_none(), "no parent on a project that is no fork");
    let (_, source_now) = f.send("GET", &format!("/api/v4/projects/{source_id}"), &alice, Value::Null);
    assert_eq!(source_now["forks_count"], 1);
    assert!(source_now.get("forked_from_project").is_none());

    // The repository: every branch and tag of the source, objects hard-linked, no remote.
    let fork_id = fork["id"].as_i64().unwrap();
    let (source_dir, fork_dir) = (f.git_dir(source_id), f.git_dir(fork_id));
    assert_ne!(source_dir, fork_dir);
    assert_eq!(
        git_text(&fork_dir, &["for-each-ref", "--format=%(refname) %(objectname)"]),
        git_text(&source_dir, &["for-each-ref", "--format=%(refname) %(objectname)"])
    );
    assert_eq!(git_text(&fork_dir, &["remote"]).trim(), "");
    assert!(!fork_dir.join("objects/info/alternates").exists(), "no alternates: the fork owns its objects");
    let head = git_text(&source_dir, &["rev-parse", "main"]).trim().to_string();
    let object = |dir: &Path| dir.join("objects").join(&head[..2]).join(&head[2..]);
    if object(&source_dir).exists() {
        use std::os::unix::fs::MetadataExt;
        let (a, b) = (std::fs::metadata(object(&source_dir)).unwrap(), std::fs::metadata(object(&fork_dir)).unwrap());
        assert_eq!(a.ino(), b.ino(), "the commit object is hard-linked");
    }
    assert_eq!(git_text(&fork_dir, &["fsck", "--strict"]).trim(), "");

    // A push to the fork over HTTP lands there only.
    let work = f.dir.path().join("work");
    ok(&f.client(f.dir.path(), &["clone", "-q", &f.remote("bob/App", &bob), work.to_str().unwrap()]));
    std::fs::write(work.join("fork.txt"), "from the fork\n").unwrap();
    ok(&f.client(&work, &["add", "fork.txt"]));
    ok(&f.client(&work, &["commit", "-q", "-m", "Fork work"]));
    ok(&f.client(&work, &["push", "-q", "origin", "main"]));
    let pushed = git_text(&work, &["rev-parse", "HEAD"]).trim().to_string();
    assert_eq!(git_text(&fork_dir, &["rev-parse", "main"]).trim(), pushed);
    assert_eq!(git_text(&source_dir, &["rev-parse", "main"]).trim(), head, "the source is untouched");
    let probe = Command::new("git")
        .args(["--git-dir", source_dir.to_str().unwrap(), "cat-file", "-e", &pushed])
        .output()
        .unwrap();
    assert!(!probe.status.success(), "the fork's new commit is not in the source");
    // Bob may not push to alice's project through his fork's rights.
    let out = f.client(&work, &["push", "-q", &f.remote("alice/App", &bob), "HEAD:main"]);
    assert!(!out.status.success());

    // The source deleted (no delay here): the fork keeps every object and its history.
    let (status, _) = f.send("DELETE", &format!("/api/v4/projects/{source_id}"), &alice, Value::Null);
    assert_eq!(status, 202);
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{source_id}"), &alice, Value::Null).0, 404);
    assert!(!source_dir.exists(), "the source's repository is purged");
    assert_eq!(git_text(&fork_dir, &["fsck", "--strict"]).trim(), "");
    assert_eq!(git_text(&fork_dir, &["rev-list", "--count", "main"]).trim(), "2");
    let (_, fork_now) = f.send("GET", &format!("/api/v4/projects/{fork_id}"), &bob, Value::Null);
    assert!(fork_now.get("forked_from_project").is_none(), "{fork_now}");
    let fresh = f.dir.path().join("fresh");
    ok(&f.client(f.dir.path(), &["clone", "-q", &f.remote("bob/App", &bob), fresh.to_str().unwrap()]));
    assert_eq!(std::fs::read_to_string(fresh.join("fork.txt")).unwrap(), "from the fork\n");
}

#[test]
fn fork_parameters_and_refusals_follow_gitlab() {
    let f = forge();
    let alice = f.user("alice");
    let bob = f.user("bob");
    let carol = f.user("carol");
    let private = f.project(&alice, json!({"name": "Secret"}));
    let public = f.project(&alice, json!({"name": "Open", "visibility": "public"}));
    let (private_id, public_id) = (private["id"].as_i64().unwrap(), public["id"].as_i64().unwrap());
    let fork_of =
        |id: i64, token: &str, body: Value| f.send("POST", &format!("/api/v4/projects/{id}/fork"), token, body);

    assert_eq!(fork_of(public_id, "", Value::Null), (401, json!({"message": "401 Unauthorized"})));
    assert_eq!(fork_of(private_id, &bob, Value::Null), (404, json!({"message": "404 Project Not Found"})));
    assert_eq!(fork_of(9999, &bob, Value::Null), (404, json!({"message": "404 Project Not Found"})));
    // A Guest sees the private project but may not download its code: the bare 404.
    let bob_id = f.send("GET", "/api/v4/user", &bob, Value::Null).1["id"].clone();
    let (status, _) = f.send(
        "POST",
        &format!("/api/v4/projects/{private_id}/members"),
        &alice,
        json!({"user_id": bob_id, "access_level": 10}),
    );
    assert_eq!(status, 201);
    assert_eq!(fork_of(private_id, &bob, Value::Null), (404, json!({"message": "404 Not Found"})));

    assert_eq!(
        fork_of(public_id, &bob, json!({"namespace_id": 424242})),
        (404, json!({"message": "404 Namespace Not Found"}))
    );
    assert_eq!(
        fork_of(public_id, &bob, json!({"namespace_path": "nowhere"})),
        (404, json!({"message": "404 Namespace Not Found"}))
    );
    assert_eq!(
        fork_of(public_id, &bob, json!({"namespace_id": "x"})),
        (400, json!({"error": "namespace_id is invalid"}))
    );
    // Carol's namespace is not Bob's to create in.
    assert_eq!(
        fork_of(public_id, &bob, json!({"namespace_path": "carol"})),
        (404, json!({"message": "404 Target Namespace Not Found"}))
    );
    assert_eq!(
        fork_of(public_id, &bob, json!({"branches": "nope"})),
        (404, json!({"message": "404 Source Branch Not Found"}))
    );
    assert_eq!(
        fork_of(public_id, &bob, json!({"visibility": "secret"})),
        (400, json!({"error": "visibility does not have a valid value"}))
    );

    // A group Bob develops in; the fork is capped by the group's visibility and the ask.
    let (status, group) =
        f.send("POST", "/api/v4/groups", &f.root, json!({"name": "Team", "path": "team", "visibility": "internal"}));
    assert_eq!(status, 201, "{group}");
    let gid = group["id"].as_i64().unwrap();
    let (status, _) = f.send(
        "POST",
        &format!("/api/v4/groups/{gid}/members"),
        &f.root,
        json!({"user_id": bob_id, "access_level": 30}),
    );
    assert_eq!(status, 201);
    let (status, fork) = fork_of(
        public_id,
        &bob,
        json!({"namespace_id": gid, "name": "Open Fork", "path": "open-fork", "description": "mine",
               "branches": "feature", "mr_default_target_self": true}),
    );
    assert_eq!(status, 201, "{fork}");
    assert_eq!(fork["path_with_namespace"], "team/open-fork");
    assert_eq!(fork["name"], "Open Fork");
    assert_eq!(fork["description"], "mine");
    assert_eq!(fork["visibility"], "internal", "no more than the group's");
    assert_eq!(fork["default_branch"], "feature");
    assert_eq!(fork["mr_default_target_self"], true);
    let dir = f.git_dir(fork["id"].as_i64().unwrap());
    assert_eq!(git_text(&dir, &["for-each-ref", "--format=%(refname)", "refs/heads"]).trim(), "refs/heads/feature");
    let (status, private_fork) = fork_of(public_id, &bob, json!({"visibility": "private"}));
    assert_eq!(status, 201);
    assert_eq!(private_fork["visibility"], "private");
    // Asking for more than the source shows gets the source's.
    let (status, carols) = fork_of(
        private_fork["id"].as_i64().unwrap(),
        &bob,
        json!({"namespace_path": "team", "path": "again", "name": "again", "visibility": "public"}),
    );
    assert_eq!(status, 201, "{carols}");
    assert_eq!(carols["visibility"], "private");
    let _ = carol;

    // Taken: GitLab's 409 with the model's full messages.
    assert_eq!(
        fork_of(public_id, &bob, Value::Null),
        (409, json!({"message": ["Name has already been taken", "Path has already been taken"]}))
    );
    assert_eq!(
        fork_of(public_id, &bob, json!({"name": "Other"})),
        (409, json!({"message": ["Path has already been taken"]}))
    );
    // An administrator forks anywhere.
    let (status, admins) = fork_of(public_id, &f.root, json!({"namespace_path": "carol"}));
    assert_eq!(status, 201, "{admins}");
    assert_eq!(admins["path_with_namespace"], "carol/Open");
}

#[test]
fn forks_are_listed_linked_and_unlinked_and_the_network_is_stored() {
    let f = forge();
    let alice = f.user("alice");
    let bob = f.user("bob");
    let source = f.project(&alice, json!({"name": "Core", "visibility": "public"}));
    let sid = source["id"].as_i64().unwrap();
    let (_, b_fork) = f.send("POST", &format!("/api/v4/projects/{sid}/fork"), &bob, Value::Null);
    let bid = b_fork["id"].as_i64().unwrap();
    let (_, private_fork) = f.send(
        "POST",
        &format!("/api/v4/projects/{sid}/fork"),
        &alice,
        json!({"path": "core-2", "name": "core-2", "visibility": "private"}),
    );
    let pid = private_fork["id"].as_i64().unwrap();
    let (status, grandchild) =
        f.send("POST", &format!("/api/v4/projects/{bid}/fork"), &alice, json!({"path": "core-3", "name": "core-3"}));
    assert_eq!(status, 201, "{grandchild}");
    let gid = grandchild["id"].as_i64().unwrap();

    let ids = |body: &Value| body.as_array().unwrap().iter().map(|p| p["id"].as_i64().unwrap()).collect::<Vec<_>>();
    let (status, forks) =
        f.send("GET", &format!("/api/v4/projects/{sid}/forks?order_by=id&sort=asc"), &alice, Value::Null);
    assert_eq!(status, 200);
    assert_eq!(ids(&forks), vec![bid, pid], "direct forks only");
    assert_eq!(forks[0]["forked_from_project"]["id"], sid);
    let (_, forks) = f.send("GET", &format!("/api/v4/projects/{sid}/forks"), &bob, Value::Null);
    assert_eq!(ids(&forks), vec![bid], "a private fork is for those who see it");
    let (_, forks) = f.send("GET", &format!("/api/v4/projects/{sid}/forks"), "", Value::Null);
    assert_eq!(ids(&forks), vec![bid]);
    assert_eq!(f.send("GET", "/api/v4/projects/9999/forks", &alice, Value::Null).0, 404);
    let (_, core) = f.send("GET", &format!("/api/v4/projects/{sid}"), &alice, Value::Null);
    assert_eq!(core["forks_count"], 2);

    // The network, as merge requests will ask it.
    let network =
        |a: i64, b: i64| f.ctx.store.read(|db| forgecore::store::projects::same_fork_network(db, a, b)).unwrap();
    let fork_of = |a: i64, b: i64| f.ctx.store.read(|db| forgecore::store::projects::is_fork_of(db, a, b)).unwrap();
    assert!(network(sid, gid) && network(pid, bid) && network(gid, sid));
    assert!(fork_of(gid, sid) && fork_of(gid, bid) && fork_of(bid, sid));
    assert!(!fork_of(sid, bid) && !fork_of(pid, bid));

    // Unlinking: Owner only; the fork's forks move up to its parent; 304 the second time.
    assert_eq!(f.send("DELETE", &format!("/api/v4/projects/{bid}/fork"), &alice, Value::Null).0, 403);
    assert_eq!(f.send("DELETE", &format!("/api/v4/projects/{bid}/fork"), &bob, Value::Null).0, 204);
    assert_eq!(f.send("DELETE", &format!("/api/v4/projects/{bid}/fork"), &bob, Value::Null).0, 304);
    let (_, unlinked) = f.send("GET", &format!("/api/v4/projects/{bid}"), &bob, Value::Null);
    assert!(unlinked.get("forked_from_project").is_none());
    assert!(!network(bid, sid) && !network(bid, gid));
    let (_, moved) = f.send("GET", &format!("/api/v4/projects/{gid}"), &alice, Value::Null);
    assert_eq!(moved["forked_from_project"]["id"], sid, "{moved}");
    assert!(network(gid, sid));

    // Linking back (administrators and owners): 201, then 409 as it is a fork again.
    let (status, linked) = f.send("POST", &format!("/api/v4/projects/{bid}/fork/{sid}"), &bob, Value::Null);
    assert_eq!(status, 201, "{linked}");
    assert_eq!(linked["forked_from_project"]["id"], sid);
    assert!(network(bid, sid));
    assert_eq!(
        f.send("POST", &format!("/api/v4/projects/{bid}/fork/{sid}"), &bob, Value::Null),
        (409, json!({"message": "Project already forked"}))
    );
    assert_eq!(
        f.send("POST", &format!("/api/v4/projects/{bid}/fork/9999"), &bob, Value::Null),
        (404, json!({"message": "404 Source Project Not Found"}))
    );
    assert_eq!(f.send("POST", &format!("/api/v4/projects/{sid}/fork/{bid}"), &bob, Value::Null).0, 403);
    assert_eq!(f.send("DELETE", &format!("/api/v4/projects/{sid}/fork"), &alice, Value::Null).0, 304);
    assert_eq!(
        f.send("POST", &format!("/api/v4/projects/{sid}/fork/{sid}"), &f.root, Value::Null),
        (400, json!({"message": "Target project cannot be equal to source project"}))
    );
}

/// `PUT /projects/:id/transfer` (GitLab's `Projects::TransferService`): Owners move a project
/// to a namespace they may create projects in; the repository stays, the paths change.
#[test]
fn transfers_move_the_project_and_keep_its_repository() {
    let f = forge();
    let alice = f.user("alice");
    let bob = f.user("bob");
    let project = f.project(&alice, json!({"name": "Tool", "visibility": "public"}));
    let id = project["id"].as_i64().unwrap();
    let dir = f.git_dir(id);
    let head = git_text(&dir, &["rev-parse", "main"]);
    let (_, group) =
        f.send("POST", "/api/v4/groups", &f.root, json!({"name": "Ops", "path": "ops", "visibility": "internal"}));
    let gid = group["id"].as_i64().unwrap();
    let alice_id = f.send("GET", "/api/v4/user", &alice, Value::Null).1["id"].clone();
    let bob_id = f.send("GET", "/api/v4/user", &bob, Value::Null).1["id"].clone();
    let put = |token: &str, body: Value| f.send("PUT", &format!("/api/v4/projects/{id}/transfer"), token, body);

    assert_eq!(put("", json!({"namespace": "ops"})).0, 401);
    assert_eq!(put(&alice, Value::Null), (400, json!({"error": "namespace is missing"})));
    assert_eq!(put(&alice, json!({"namespace": "nowhere"})), (404, json!({"message": "404 Namespace Not Found"})));
    assert_eq!(
        put(&alice, json!({"namespace": "ops"})),
        (
            400,
            json!({"message": "Failed to transfer project {:new_namespace=>[\"You don't have permission to transfer projects into that namespace.\"]}"})
        )
    );
    assert_eq!(
        put(&alice, json!({"namespace": "alice"})),
        (
            400,
            json!({"message": "Failed to transfer project {:new_namespace=>[\"Project is already in this namespace.\"]}"})
        )
    );
    // Bob, a Maintainer of the project, is no Owner: 403.
    f.send("POST", &format!("/api/v4/projects/{id}/members"), &alice, json!({"user_id": bob_id, "access_level": 40}));
    assert_eq!(put(&bob, json!({"namespace": "bob"})), (403, json!({"message": "403 Forbidden"})));

    let (status, _) = f.send(
        "POST",
        &format!("/api/v4/groups/{gid}/members"),
        &f.root,
        json!({"user_id": alice_id, "access_level": 40}),
    );
    assert_eq!(status, 201);
    let (status, moved) = put(&alice, json!({"namespace": gid}));
    assert_eq!(status, 200, "{moved}");
    assert_eq!(moved["path_with_namespace"], "ops/Tool");
    assert_eq!(moved["web_url"], "http://localhost/ops/Tool");
    assert_eq!(moved["namespace"]["kind"], "group");
    assert_eq!(moved["visibility"], "internal", "no more visible than its new group");
    assert!(moved.get("owner").is_none());
    assert_eq!(f.send("GET", "/api/v4/projects/alice%2FTool", &alice, Value::Null).0, 404);
    assert_eq!(f.send("GET", "/api/v4/projects/ops%2FTool", &alice, Value::Null).1["id"], id);
    assert_eq!(f.git_dir(id), dir, "the repository stays where it is");
    assert_eq!(git_text(&dir, &["rev-parse", "main"]), head);
    // Clone at the new path.
    let work = f.dir.path().join("moved");
    ok(&f.client(f.dir.path(), &["clone", "-q", &f.remote("ops/Tool", &alice), work.to_str().unwrap()]));
    assert_eq!(git_text(&work, &["rev-parse", "HEAD"]), head);

    // A project of the same path there already: refused.
    let other = f.project(&alice, json!({"name": "Tool"}));
    assert_eq!(
        f.send("PUT", &format!("/api/v4/projects/{}/transfer", other["id"]), &alice, json!({"namespace": "ops"})),
        (
            400,
            json!({"message": "Failed to transfer project {:new_namespace=>[\"Project with same name or path in target namespace already exists\"]}"})
        )
    );
    // An administrator moves it into Bob's namespace: Bob owns it.
    let (status, to_bob) =
        f.send("PUT", &format!("/api/v4/projects/{id}/transfer"), &f.root, json!({"namespace": "bob"}));
    assert_eq!(status, 200, "{to_bob}");
    assert_eq!(to_bob["path_with_namespace"], "bob/Tool");
    assert_eq!(to_bob["owner"]["username"], "bob");
    let (_, seen) = f.send("GET", &format!("/api/v4/projects/{id}"), &bob, Value::Null);
    assert_eq!(seen["permissions"]["project_access"]["access_level"], 50);
}

/// `POST /groups/:id/transfer` (GitLab's `Groups::TransferService`): the group, its subgroups
/// and projects move; repositories stay; the service's refusals answer `Transfer failed: ...`.
#[test]
fn group_transfers_move_the_tree() {
    let f = forge();
    let olga = f.user("olga");
    let olga_id = f.send("GET", "/api/v4/user", &olga, Value::Null).1["id"].clone();
    let group = |body: Value| {
        let (status, group) = f.send("POST", "/api/v4/groups", &f.root, body);
        assert_eq!(status, 201, "{group}");
        group["id"].as_i64().unwrap()
    };
    let a = group(json!({"name": "a", "path": "a", "visibility": "public"}));
    let b = group(json!({"name": "b", "path": "b"}));
    let team = group(json!({"name": "team", "path": "team", "parent_id": a, "visibility": "public"}));
    let inner = group(json!({"name": "inner", "path": "inner", "parent_id": team, "visibility": "public"}));
    f.send("POST", &format!("/api/v4/groups/{team}/members"), &f.root, json!({"user_id": olga_id, "access_level": 50}));
    let (status, project) = f.send(
        "POST",
        "/api/v4/projects",
        &olga,
        json!({"name": "svc", "namespace_id": inner, "initialize_with_readme": true}),
    );
    assert_eq!(status, 201, "{project}");
    let pid = project["id"].as_i64().unwrap();
    let dir = f.git_dir(pid);
    let post =
        |token: &str, id: i64, body: Value| f.send("POST", &format!("/api/v4/groups/{id}/transfer"), token, body);

    // Olga owns team but may not create subgroups in b.
    assert_eq!(
        post(&olga, team, json!({"group_id": b})),
        (404, json!({"message": "404 Group Not Found"})),
        "b is private and unseen"
    );
    assert_eq!(post(&olga, a, json!({"group_id": b})), (403, json!({"message": "403 Forbidden"})), "no Owner of a");
    let open = group(json!({"name": "open", "path": "open", "visibility": "public"}));
    assert_eq!(
        post(&olga, team, json!({"group_id": open})),
        (400, json!({"message": "Transfer failed: You don't have enough permissions."}))
    );
    assert_eq!(
        post(&f.root, team, json!({"group_id": a})),
        (400, json!({"message": "Transfer failed: Group is already associated to the parent group."}))
    );
    assert_eq!(
        post(&f.root, a, Value::Null),
        (400, json!({"message": "Transfer failed: Group is already a root group."}))
    );
    assert_eq!(
        post(&f.root, team, json!({"group_id": inner})),
        (400, json!({"message": "Transfer failed: Cannot transfer group to one of its subgroup."}))
    );
    let (status, made_public) =
        f.send("PUT", &format!("/api/v4/projects/{pid}"), &f.root, json!({"visibility": "public"}));
    assert_eq!((status, made_public["visibility"].as_str()), (200, Some("public")), "{made_public}");
    let (status, moved) = post(&f.root, team, json!({"group_id": b}));
    assert_eq!(status, 201, "{moved}");
    assert_eq!(moved["visibility"], "private", "no more visible than b");
    let (_, svc) = f.send("GET", &format!("/api/v4/projects/{pid}"), &olga, Value::Null);
    assert_eq!(svc["visibility"], "private");
    assert_eq!((moved["full_path"].as_str(), moved["parent_id"].as_i64()), (Some("b/team"), Some(b)));
    let (_, svc) = f.send("GET", &format!("/api/v4/projects/{pid}"), &olga, Value::Null);
    assert_eq!(svc["path_with_namespace"], "b/team/inner/svc");
    assert_eq!(f.send("GET", "/api/v4/groups/b%2Fteam%2Finner", &olga, Value::Null).1["id"], inner);
    assert_eq!(f.send("GET", "/api/v4/projects/a%2Fteam%2Finner%2Fsvc", &olga, Value::Null).0, 404);
    assert_eq!(f.git_dir(pid), dir);
    // Olga still owns the tree she owned; promoted to the top level by an administrator.
    let (status, top) = post(&f.root, team, Value::Null);
    assert_eq!(status, 201, "{top}");
    assert_eq!((top["full_path"].as_str(), top["parent_id"].as_i64()), (Some("team"), None));
    let (_, svc) = f.send("GET", &format!("/api/v4/projects/{pid}"), &olga, Value::Null);
    assert_eq!(svc["path_with_namespace"], "team/inner/svc");
    let _ = group(json!({"name": "team", "path": "team", "parent_id": a}));
    assert_eq!(
        post(&f.root, team, json!({"group_id": a})),
        (
            400,
            json!({"message": "Transfer failed: The parent group already has a subgroup or a project with the same path."})
        )
    );
}
