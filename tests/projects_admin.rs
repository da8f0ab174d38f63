//! Projects made, changed, archived and deleted through the API, and group deletion
//! (decisions D9): `POST /projects` checked with real `git` on the repository it makes (and a
//! clone and first push of an empty one over HTTP), `PUT`, archive (every write path refused,
//! a real `git push` too), deletion with and without delay, restore, purge, and the custom-role
//! flags `archive_project`, `remove_project`, `remove_group`. SQLite under `cargo test`,
//! PostgreSQL under `make test-rust-postgres`.
#![allow(clippy::unwrap_used)]

mod common;

use common::serve::serve_connection;
use common::{git, git_text, TempDir};
use forgecore::params::Params;
use forgecore::Context;
use serde_json::{json, Value};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

struct Forge {
    ctx: Arc<Context>,
    /// The configuration `ctx` was opened with (another host opens the same store with it).
    config: Value,
    url: String,
    dir: TempDir,
    root: String,
}

fn admin(ctx: &Context, command: Value) -> Value {
    let response = forgecore::api::admin::run(ctx, &Params::from_json_object(command).unwrap()).unwrap();
    serde_json::from_slice(&response.into_bytes().unwrap()).unwrap_or(Value::Null)
}

fn forge(delay_days: u32) -> Forge {
    let dir = TempDir::new();
    let storage = dir.path().join("storage");
    std::fs::create_dir_all(&storage).unwrap();
    let mut config = json!({"data_dir": dir.path().join("data"), "maintenance": {"enabled": false},
                            "limits": {"deletion_delay_days": delay_days},
                            "storages": {"default": storage}});
    if let Some(server) = common::postgres_server() {
        config["store"] = json!({"postgres": common::new_postgres_database(&server)});
    }
    let ctx = Arc::new(Context::from_json(&config.to_string()).unwrap());
    let config = config.clone();
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
    Forge { ctx, config, url, dir, root }
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
        let mut headers = vec![("PRIVATE-TOKEN".to_string(), token.to_string())];
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
            .output()
            .unwrap()
    }

    /// The git directory of a project the API answered, found through the store.
    fn git_dir(&self, id: i64) -> PathBuf {
        let project = self.ctx.store.project(&forgecore::store::projects::Name::Id(id)).unwrap().unwrap();
        self.ctx.git_dir(&project).unwrap()
    }

    /// Moves every deletion mark back by `days`, as if that long had passed.
    fn age_marks(&self, days: i64) {
        let seconds = days * 86_400;
        self.ctx
            .store
            .write(|db| -> forgecore::store::StoreResult<()> {
                db.execute(
                    "UPDATE projects SET marked_for_deletion_at = marked_for_deletion_at - $1
                     WHERE marked_for_deletion_at IS NOT NULL",
                    &[&seconds],
                )?;
                db.execute(
                    "UPDATE groups SET marked_for_deletion_at = marked_for_deletion_at - $1
                     WHERE marked_for_deletion_at IS NOT NULL",
                    &[&seconds],
                )?;
                Ok(())
            })
            .unwrap();
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `POST /projects` with GitLab's README: one commit, checked with git on the repository made.
#[test]
fn created_projects_have_a_new_repository_and_gitlabs_readme() {
    let f = forge(7);
    let alice = f.user("alice");
    let body = json!({"name": "My App", "description": "Hello", "initialize_with_readme": true, "merge_method": "ff",
                      "squash_option": "always", "topics": ["go", "tools"]});
    let (status, project) = f.send("POST", "/api/v4/projects", &alice, body);
    assert_eq!(status, 201, "{project}");
    assert_eq!(project["path"], "my-app");
    assert_eq!(project["name"], "My App");
    assert_eq!(project["path_with_namespace"], "alice/my-app");
    assert_eq!(project["namespace"]["kind"], "user");
    assert_eq!(project["namespace"]["full_path"], "alice");
    assert_eq!(project["owner"]["username"], "alice");
    assert_eq!(project["default_branch"], "main");
    assert_eq!(project["empty_repo"], false);
    assert_eq!(project["visibility"], "private");
    assert_eq!(project["merge_method"], "ff");
    assert_eq!(project["squash_option"], "always");
    assert_eq!(project["topics"], json!(["go", "tools"]));
    assert_eq!(project["archived"], false);
    assert_eq!(project["marked_for_deletion_on"], Value::Null);
    assert_eq!(project["permissions"]["project_access"]["access_level"], 50);
    let alice_id = f.send("GET", "/api/v4/user", &alice, Value::Null).1["id"].clone();
    assert_eq!(project["creator_id"], alice_id);
    let dir = f.git_dir(project["id"].as_i64().unwrap());
    assert!(dir.to_string_lossy().contains("/storage/@hashed/"), "{}", dir.display());
    assert_eq!(git_text(&dir, &["rev-parse", "--is-bare-repository"]).trim(), "true");
    let log = git_text(&dir, &["log", "--format=%an <%ae>|%cn|%s|%P", "main"]);
    assert_eq!(log.trim(), "alice <alice@x.org>|alice|Initial commit|", "one root commit: {log}");
    assert_eq!(git_text(&dir, &["ls-tree", "--name-only", "HEAD"]).trim(), "README.md");
    let readme = git_text(&dir, &["show", "HEAD:README.md"]);
    assert!(readme.starts_with("# My App\n\nHello\n\n\n## Getting started\n"), "{readme}");
    assert!(readme.contains("git remote add origin http://localhost/alice/my-app.git\ngit branch -M main\n"));
    assert!(readme.contains("git push -uf origin main\n"));
    assert!(readme.contains("(http://localhost/alice/my-app/-/settings/integrations)"));
    assert_eq!(git_text(&dir, &["fsck", "--strict"]).trim(), "");
    let (status, protections) =
        f.send("GET", "/api/v4/projects/alice%2Fmy-app/protected_branches", &alice, Value::Null);
    assert_eq!(status, 200);
    assert_eq!(protections[0]["name"], "main");
    assert_eq!(protections[0]["push_access_levels"][0]["access_level"], 40);

    // Another default branch, named by path only.
    let (status, trunk) = f.send(
        "POST",
        "/api/v4/projects",
        &alice,
        json!({"path": "lib", "default_branch": "trunk", "initialize_with_readme": "true"}),
    );
    assert_eq!(status, 201, "{trunk}");
    assert_eq!((trunk["name"].as_str(), trunk["default_branch"].as_str()), (Some("lib"), Some("trunk")));
    let dir = f.git_dir(trunk["id"].as_i64().unwrap());
    assert_eq!(git_text(&dir, &["symbolic-ref", "HEAD"]).trim(), "refs/heads/trunk");
    assert!(git_text(&dir, &["show", "trunk:README.md"]).contains("git push -uf origin trunk"));
}

#[test]
fn creation_refusals_answer_gitlabs_statuses_and_texts() {
    let f = forge(7);
    let alice = f.user("alice");
    let bob = f.user("bob");
    let post = |token: &str, body: Value| f.send("POST", "/api/v4/projects", token, body);
    assert_eq!(
        post(&alice, json!({"description": "x"})),
        (400, json!({"error": "name, path are missing, at least one parameter must be provided"}))
    );
    let anonymous = forgecore::http::handle(&f.ctx, "POST", "/api/v4/projects", vec![], b"");
    assert_eq!(anonymous.status, 401);
    assert_eq!(post(&alice, json!({"name": "app"})).0, 201);
    assert_eq!(post(&alice, json!({"name": "app"})), (400, json!({"message": {"path": ["has already been taken"]}})));
    // bob's personal namespace is his own.
    assert_eq!(post(&bob, json!({"name": "app"})).0, 201);
    let (status, body) = post(&alice, json!({"name": "-bad", "path": "ok-path"}));
    assert_eq!(status, 400);
    assert!(body["message"]["name"][0].as_str().unwrap().starts_with("can contain only letters, digits, emoji"));
    let (status, body) = post(&alice, json!({"path": "x.git"}));
    assert_eq!(status, 400);
    assert!(body["message"]["path"][0].as_str().unwrap().contains("end in '.git'"), "{body}");
    assert_eq!(post(&alice, json!({"name": "v", "visibility": "secret"})).0, 400);
    assert_eq!(
        post(&alice, json!({"name": "v", "merge_method": "squash"})),
        (400, json!({"error": "merge_method does not have a valid value"}))
    );
    // Groups: Developers and above create; the group's visibility caps the project's.
    admin(&f.ctx, json!({"command": "group_add", "path": "team"}));
    let group = f.send("GET", "/api/v4/groups/team", &f.root, Value::Null).1;
    let group_id = group["id"].as_i64().unwrap();
    let not_valid = json!({"message": {"namespace": ["is not valid"]}});
    assert_eq!(post(&alice, json!({"name": "g", "namespace_id": group_id})), (400, not_valid.clone()));
    admin(&f.ctx, json!({"command": "member_add", "username": "alice", "group": "team", "access_level": 20}));
    assert_eq!(post(&alice, json!({"name": "g", "namespace_id": group_id})), (400, not_valid.clone()));
    admin(&f.ctx, json!({"command": "member_add", "username": "alice", "group": "team", "access_level": 30}));
    assert_eq!(
        post(&alice, json!({"name": "g", "namespace_id": group_id, "visibility": "public"})),
        (400, json!({"message": {"visibility_level": ["public is not allowed in a private group."]}}))
    );
    let (status, in_group) = post(&alice, json!({"name": "g", "namespace_id": group_id}));
    assert_eq!(status, 201, "{in_group}");
    assert_eq!(in_group["path_with_namespace"], "team/g");
    assert_eq!(in_group["namespace"]["kind"], "group");
    assert_eq!(in_group["permissions"]["group_access"]["access_level"], 30);
    assert_eq!(in_group["permissions"]["project_access"], Value::Null);
    // Someone else's personal namespace.
    let bob_id = f.send("GET", "/api/v4/user", &bob, Value::Null).1["id"].as_i64().unwrap();
    let bobs = forgecore::store::namespaces::user_namespace_id(bob_id);
    assert_eq!(post(&alice, json!({"name": "h", "namespace_id": bobs + 1000})), (400, not_valid.clone()));
    assert_eq!(post(&alice, json!({"name": "h", "namespace_id": bobs})), (400, not_valid));
    // One's own namespace, by the id GET /namespaces gives it: the personal project's namespace.
    let (_, namespaces) = f.send("GET", "/api/v4/namespaces", &alice, Value::Null);
    let own = namespaces.as_array().unwrap().iter().find(|n| n["kind"] == "user").unwrap()["id"].clone();
    let (status, mine) = post(&alice, json!({"name": "own", "namespace_id": own}));
    assert_eq!(status, 201, "{mine}");
    assert_eq!((mine["path_with_namespace"].as_str(), &mine["namespace"]["id"]), (Some("alice/own"), &own));
    // Administrators create for a user.
    let target = format!("/api/v4/projects/user/{bob_id}");
    assert_eq!(f.send("POST", &target, &alice, json!({"name": "for-bob"})).0, 403);
    assert_eq!(f.send("POST", "/api/v4/projects/user/99999", &f.root, json!({"name": "x"})).0, 404);
    assert_eq!(f.send("POST", &target, &f.root, json!({"path": "x"})), (400, json!({"error": "name is missing"})));
    let (status, for_bob) = f.send("POST", &target, &f.root, json!({"name": "for-bob"}));
    assert_eq!(status, 201, "{for_bob}");
    assert_eq!(for_bob["path_with_namespace"], "bob/for-bob");
    assert_eq!(f.send("GET", "/api/v4/projects/bob%2Ffor-bob", &bob, Value::Null).0, 200);
    assert_eq!(f.send("GET", "/api/v4/projects/bob%2Ffor-bob", &alice, Value::Null).0, 404);
}

/// An empty created project clones (empty) over HTTP and takes a first push.
#[test]
fn an_empty_created_project_clones_and_takes_a_first_push() {
    let f = forge(7);
    let alice = f.user("alice");
    let (status, project) = f.send("POST", "/api/v4/projects", &alice, json!({"path": "empty"}));
    assert_eq!(status, 201);
    assert_eq!(project["empty_repo"], true);
    let dir = f.git_dir(project["id"].as_i64().unwrap());
    assert_eq!(git_text(&dir, &["symbolic-ref", "HEAD"]).trim(), "refs/heads/main");
    let work = f.dir.path().join("work");
    let out = f.client(f.dir.path(), &["clone", "-q", &f.remote("alice/empty", &alice), &work.to_string_lossy()]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(work.join("a.txt"), "a\n").unwrap();
    git(&work, &["add", "a.txt"]);
    git(&work, &["-c", "user.name=A", "-c", "user.email=a@x.org", "commit", "-q", "-m", "first"]);
    let out = f.client(&work, &["push", "-q", "origin", "HEAD:main"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (_, project) = f.send("GET", "/api/v4/projects/alice%2Fempty", &alice, Value::Null);
    assert_eq!(project["empty_repo"], false);
    assert_eq!(git_text(&dir, &["log", "--format=%s", "main"]).trim(), "first");
}

#[test]
fn updates_need_maintainer_and_visibility_needs_owner() {
    let f = forge(7);
    let alice = f.user("alice");
    let (mona, dev) = (f.user("mona"), f.user("dev"));
    let (_, project) =
        f.send("POST", "/api/v4/projects", &alice, json!({"name": "app", "initialize_with_readme": true}));
    let id = project["id"].as_i64().unwrap();
    for (user, level) in [("mona", 40), ("dev", 30)] {
        admin(
            &f.ctx,
            json!({"command": "member_add", "username": user, "project": "alice/app", "access_level": level}),
        );
    }
    let put = |token: &str, body: Value| f.send("PUT", &format!("/api/v4/projects/{id}"), token, body);
    let (status, body) = put(&mona, json!({}));
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().ends_with("are missing, at least one parameter must be provided"));
    assert_eq!(put(&dev, json!({"description": "d"})), (403, json!({"message": "403 Forbidden"})));
    let (status, body) = put(
        &mona,
        json!({"description": "new", "merge_method": "rebase_merge", "only_allow_merge_if_pipeline_succeeds": true,
               "remove_source_branch_after_merge": false, "issues_enabled": false}),
    );
    assert_eq!(status, 200, "{body}");
    let (_, got) = f.send("GET", &format!("/api/v4/projects/{id}"), &dev, Value::Null);
    assert_eq!(got["description"], "new");
    assert_eq!(got["merge_method"], "rebase_merge");
    assert_eq!(got["only_allow_merge_if_pipeline_succeeds"], true);
    assert_eq!(got["remove_source_branch_after_merge"], false);
    // Only keys GitLab takes that are not kept: accepted, nothing changes.
    assert_eq!(put(&mona, json!({"wiki_enabled": true})).0, 200);
    assert_eq!(put(&mona, json!({"visibility": "public"})), (403, json!({"message": "403 Forbidden"})));
    assert_eq!(put(&alice, json!({"visibility": "internal"})).1["visibility"], "internal");
    assert_eq!(
        put(&mona, json!({"default_branch": "nope"})),
        (
            400,
            json!({"message": "Could not set the default branch. Do you have a branch named 'nope' in your repository?"})
        )
    );
    assert_eq!(put(&mona, json!({"name": "-x"})).0, 400);
    let (status, renamed) = put(&alice, json!({"name": "App Two", "path": "app-two"}));
    assert_eq!(status, 200, "{renamed}");
    assert_eq!(renamed["path_with_namespace"], "alice/app-two");
    assert_eq!(f.send("GET", "/api/v4/projects/alice%2Fapp-two", &alice, Value::Null).1["name"], "App Two");
}

/// Every write the API and git offer, refused on an archived project; reads stay.
#[test]
fn archived_projects_refuse_every_write_and_git_push() {
    let f = forge(7);
    let alice = f.user("alice");
    let dev = f.user("dev");
    let (_, project) =
        f.send("POST", "/api/v4/projects", &alice, json!({"name": "app", "initialize_with_readme": true}));
    let id = project["id"].as_i64().unwrap();
    admin(&f.ctx, json!({"command": "member_add", "username": "dev", "project": "alice/app", "access_level": 40}));
    let work = f.dir.path().join("work");
    let out = f.client(f.dir.path(), &["clone", "-q", &f.remote("alice/app", &alice), &work.to_string_lossy()]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(work.join("b.txt"), "b\n").unwrap();
    git(&work, &["add", "b.txt"]);
    git(&work, &["-c", "user.name=A", "-c", "user.email=a@x.org", "commit", "-q", "-m", "b"]);

    let base = format!("/api/v4/projects/{id}");
    assert_eq!(
        f.send("POST", &format!("{base}/archive"), &dev, Value::Null),
        (403, json!({"message": "403 Forbidden"}))
    );
    let (status, archived) = f.send("POST", &format!("{base}/archive"), &alice, Value::Null);
    assert_eq!((status, &archived["archived"]), (201, &json!(true)), "{archived}");
    assert_eq!(f.send("GET", &base, &dev, Value::Null).1["archived"], true);
    let listed = |archived: &str| {
        let (_, list) =
            f.send("GET", &format!("/api/v4/projects?membership=true&archived={archived}"), &dev, Value::Null);
        list.as_array().unwrap().iter().map(|p| p["id"].as_i64().unwrap()).collect::<Vec<_>>()
    };
    assert_eq!((listed("true"), listed("false")), (vec![id], vec![]));
    // Archiving again changes nothing.
    assert_eq!(f.send("POST", &format!("{base}/archive"), &alice, Value::Null).0, 201);

    let file = json!({"branch": "main", "content": "x", "commit_message": "m"});
    let writes: Vec<(&str, String, Value)> = vec![
        ("POST", format!("{base}/repository/files/new.txt"), file.clone()),
        ("PUT", format!("{base}/repository/files/README.md"), file.clone()),
        ("DELETE", format!("{base}/repository/files/README.md"), json!({"branch": "main", "commit_message": "m"})),
        (
            "POST",
            format!("{base}/repository/commits"),
            json!({"branch": "main", "commit_message": "m",
                   "actions": [{"action": "create", "file_path": "c.txt", "content": "c"}]}),
        ),
        ("POST", format!("{base}/repository/branches"), json!({"branch": "topic", "ref": "main"})),
        ("DELETE", format!("{base}/repository/branches/main"), Value::Null),
        ("DELETE", format!("{base}/repository/merged_branches"), Value::Null),
        ("POST", format!("{base}/repository/tags"), json!({"tag_name": "v1", "ref": "main"})),
        ("POST", format!("{base}/repository/changelog"), json!({"version": "1.0.0"})),
        ("POST", format!("{base}/protected_branches"), json!({"name": "release-*"})),
        ("DELETE", format!("{base}/protected_branches/main"), Value::Null),
    ];
    for token in [&alice, &f.root] {
        for (method, path, body) in &writes {
            let (status, answer) = f.send(method, path, token, body.clone());
            assert_eq!(status, 403, "{method} {path} on an archived project: {answer}");
        }
    }
    let dir = f.git_dir(id);
    assert_eq!(git_text(&dir, &["rev-list", "--count", "--all"]).trim(), "1", "nothing was written");
    // Reads are unchanged.
    assert_eq!(f.send("GET", &format!("{base}/repository/files/README.md/raw?ref=main"), &dev, Value::Null).0, 200);
    assert_eq!(f.send("GET", &format!("{base}/protected_branches"), &alice, Value::Null).0, 200);
    let out = f.client(&work, &["push", "-q", "origin", "HEAD:main"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("You can't push code to an archived project."), "{}", stderr(&out));
    let clone = f.dir.path().join("clone2");
    let out = f.client(f.dir.path(), &["clone", "-q", &f.remote("alice/app", &dev), &clone.to_string_lossy()]);
    assert!(out.status.success(), "{}", stderr(&out));

    let (status, unarchived) = f.send("POST", &format!("{base}/unarchive"), &alice, Value::Null);
    assert_eq!((status, &unarchived["archived"]), (201, &json!(false)));
    let out = f.client(&work, &["push", "-q", "origin", "HEAD:main"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(f.send("POST", &writes[0].1, &alice, file).0, 201);
}

#[test]
fn deletion_without_delay_purges_created_repositories_and_unregisters_registered_ones() {
    let f = forge(0);
    let alice = f.user("alice");
    let (_, project) =
        f.send("POST", "/api/v4/projects", &alice, json!({"name": "app", "initialize_with_readme": true}));
    let id = project["id"].as_i64().unwrap();
    let dir = f.git_dir(id);
    assert!(dir.exists());
    let base = format!("/api/v4/projects/{id}");
    assert_eq!(f.send("DELETE", &base, &alice, Value::Null), (202, json!({"message": "202 Accepted"})));
    assert_eq!(f.send("GET", &base, &alice, Value::Null).0, 404);
    assert!(!dir.exists(), "a created repository is removed from disk");
    // The path is free again.
    assert_eq!(f.send("POST", "/api/v4/projects", &alice, json!({"name": "app"})).0, 201);

    let registered = f.dir.path().join("registered.git");
    git(f.dir.path(), &["init", "-q", "--bare", "-b", "main", &registered.to_string_lossy()]);
    admin(&f.ctx, json!({"command": "group_add", "path": "top"}));
    let added = admin(&f.ctx, json!({"command": "project_add", "path": "top/reg", "repo": registered}));
    assert_eq!(f.send("DELETE", "/api/v4/projects/top%2Freg", &f.root, Value::Null).0, 202);
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{}", added["id"]), &f.root, Value::Null).0, 404);
    assert!(registered.join("HEAD").exists(), "a registered repository is only unregistered");
}

#[test]
fn deletion_with_delay_marks_restores_and_purges_when_due() {
    let f = forge(7);
    let alice = f.user("alice");
    let (_, project) =
        f.send("POST", "/api/v4/projects", &alice, json!({"name": "app", "initialize_with_readme": true}));
    let id = project["id"].as_i64().unwrap();
    let dir = f.git_dir(id);
    let base = format!("/api/v4/projects/{id}");
    assert_eq!(
        f.send("DELETE", &format!("{base}?permanently_remove=true&full_path=alice/app"), &alice, Value::Null),
        (400, json!({"message": "Project must be marked for deletion first."}))
    );
    assert_eq!(f.send("DELETE", &base, &alice, Value::Null), (202, json!({"message": "202 Accepted"})));
    let (status, marked) = f.send("GET", &base, &alice, Value::Null);
    assert_eq!(status, 200);
    let today = &forgecore_date::rfc3339(forgecore::store::now_seconds(), 0)[..10];
    assert_eq!(marked["marked_for_deletion_on"], today);
    assert_eq!(marked["marked_for_deletion_at"], today);
    let listed = f.send("GET", "/api/v4/projects?membership=true", &alice, Value::Null).1;
    assert_eq!(listed.as_array().unwrap().len(), 1, "marked projects stay listed, as in GitLab");
    // Marking archives it (GitLab's MarkForDeletionService); a second mark is a success.
    assert_eq!(marked["archived"], true);
    assert_eq!(f.send("DELETE", &base, &alice, Value::Null), (202, json!({"message": "202 Accepted"})));
    let (status, restored) = f.send("POST", &format!("{base}/restore"), &alice, Value::Null);
    assert_eq!(
        (status, &restored["marked_for_deletion_on"], &restored["archived"]),
        (201, &Value::Null, &json!(false))
    );
    assert_eq!(f.send("GET", &base, &alice, Value::Null).1["archived"], false);
    assert_eq!(
        f.send("POST", &format!("{base}/restore"), &alice, Value::Null),
        (400, json!({"message": "Project has not been marked for deletion"}))
    );
    // client-go's options struct sends both keys empty: a plain deletion.
    assert_eq!(f.send("DELETE", &format!("{base}?full_path=&permanently_remove="), &alice, Value::Null).0, 202);
    assert_eq!(
        f.send("DELETE", &format!("{base}?permanently_remove=true&full_path=alice/ap"), &alice, Value::Null),
        (400, json!({"message": "`full_path` is incorrect. You must enter the complete path for the project."}))
    );
    assert!(dir.exists());
    assert_eq!(
        f.send("DELETE", &format!("{base}?permanently_remove=true&full_path=alice%2Fapp"), &alice, Value::Null).0,
        202
    );
    assert_eq!(f.send("GET", &base, &alice, Value::Null).0, 404);
    assert!(!dir.exists());

    // Due after the delay: a lookup purges it, and so does a list.
    let (_, other) = f.send("POST", "/api/v4/projects", &alice, json!({"name": "other"}));
    let (_, third) = f.send("POST", "/api/v4/projects", &alice, json!({"name": "third"}));
    let (other_dir, third_dir) = (f.git_dir(other["id"].as_i64().unwrap()), f.git_dir(third["id"].as_i64().unwrap()));
    for project in [&other, &third] {
        assert_eq!(f.send("DELETE", &format!("/api/v4/projects/{}", project["id"]), &alice, Value::Null).0, 202);
    }
    f.age_marks(6);
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{}", other["id"]), &alice, Value::Null).0, 200);
    f.age_marks(2);
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{}", other["id"]), &alice, Value::Null).0, 404);
    assert!(!other_dir.exists());
    assert!(third_dir.exists());
    let listed = f.send("GET", "/api/v4/projects?membership=true", &alice, Value::Null).1;
    assert_eq!(listed, json!([]));
    assert!(!third_dir.exists());
    // A second host on the same store finds nothing left to do.
    assert_eq!(f.send("GET", "/api/v4/projects", &alice, Value::Null).0, 200);
}

#[test]
fn groups_are_marked_restored_and_purged_with_their_subgroups_and_projects() {
    let f = forge(7);
    let owner = f.user("owner");
    let mona = f.user("mona");
    admin(&f.ctx, json!({"command": "group_add", "path": "team"}));
    admin(&f.ctx, json!({"command": "group_add", "path": "team/sub"}));
    admin(&f.ctx, json!({"command": "member_add", "username": "owner", "group": "team", "access_level": 50}));
    admin(&f.ctx, json!({"command": "member_add", "username": "mona", "group": "team", "access_level": 40}));
    let group_id = |path: &str| f.send("GET", &format!("/api/v4/groups/{path}"), &f.root, Value::Null).1["id"].clone();
    let (team, sub) = (group_id("team"), group_id("team%2Fsub"));
    let (_, in_sub) = f.send("POST", "/api/v4/projects", &owner, json!({"name": "deep", "namespace_id": sub}));
    let (_, in_team) = f.send("POST", "/api/v4/projects", &owner, json!({"name": "top", "namespace_id": team}));
    let sub_dir = f.git_dir(in_sub["id"].as_i64().unwrap());
    let team_dir = f.git_dir(in_team["id"].as_i64().unwrap());

    assert_eq!(f.send("DELETE", "/api/v4/groups/team%2Fsub", &mona, Value::Null).0, 403);
    assert_eq!(
        f.send("DELETE", "/api/v4/groups/team%2Fsub", &owner, Value::Null),
        (202, json!({"message": "202 Accepted"}))
    );
    assert_eq!(
        f.send("DELETE", "/api/v4/groups/team%2Fsub", &owner, Value::Null),
        (400, json!({"message": "Group has been already marked for deletion"}))
    );
    // No new project in a group marked for deletion.
    let refused = f.send("POST", "/api/v4/projects", &owner, json!({"name": "late", "namespace_id": sub}));
    assert_eq!(refused, (400, json!({"message": {"namespace": ["is not valid"]}})));
    let (status, restored) = f.send("POST", "/api/v4/groups/team%2Fsub/restore", &owner, Value::Null);
    assert_eq!((status, &restored["full_path"]), (201, &json!("team/sub")), "{restored}");
    assert_eq!(
        f.send("POST", "/api/v4/groups/team%2Fsub/restore", &owner, Value::Null),
        (400, json!({"message": "Group has not been marked for deletion"}))
    );
    assert_eq!(
        f.send("DELETE", "/api/v4/groups/team?permanently_remove=true&full_path=team", &owner, Value::Null),
        (400, json!({"message": "`permanently_remove` option is only available for subgroups."}))
    );
    assert_eq!(
        f.send("DELETE", "/api/v4/groups/team%2Fsub?permanently_remove=true&full_path=team/sub", &owner, Value::Null),
        (400, json!({"message": "Group must be marked for deletion first."}))
    );
    assert_eq!(f.send("DELETE", "/api/v4/groups/team%2Fsub", &owner, Value::Null).0, 202);
    assert_eq!(
        f.send("DELETE", "/api/v4/groups/team%2Fsub?permanently_remove=true&full_path=team", &owner, Value::Null),
        (400, json!({"message": "`full_path` is incorrect. You must enter the complete path for the subgroup."}))
    );
    assert_eq!(
        f.send("DELETE", "/api/v4/groups/team%2Fsub?permanently_remove=true&full_path=team%2Fsub", &owner, Value::Null)
            .0,
        202
    );
    assert_eq!(f.send("GET", "/api/v4/groups/team%2Fsub", &f.root, Value::Null).0, 404);
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{}", in_sub["id"]), &f.root, Value::Null).0, 404);
    assert!(!sub_dir.exists());
    assert!(team_dir.exists());

    // The top group, purged when due: its project and repository go with it.
    assert_eq!(f.send("DELETE", "/api/v4/groups/team", &owner, Value::Null).0, 202);
    f.age_marks(8);
    assert_eq!(f.send("GET", "/api/v4/projects", &f.root, Value::Null).1, json!([]));
    assert_eq!(f.send("GET", "/api/v4/groups/team", &f.root, Value::Null).0, 404);
    assert!(!team_dir.exists());
}

/// `archive_project`, `remove_project` and `remove_group` give what §9 says, and no more.
#[test]
fn custom_role_flags_give_exactly_their_abilities() {
    let f = forge(7);
    let owner = f.user("owner");
    let (archiver, remover, group_remover) = (f.user("archiver"), f.user("remover"), f.user("grem"));
    let role = |name: &str, flag: &str| {
        let (status, role) =
            f.send("POST", "/api/v4/member_roles", &f.root, json!({"name": name, "base_access_level": 30, flag: true}));
        assert_eq!(status, 201, "{role}");
        role["id"].as_i64().unwrap()
    };
    let (archive_role, remove_role, group_role) =
        (role("Archiver", "archive_project"), role("Remover", "remove_project"), role("Group remover", "remove_group"));
    admin(&f.ctx, json!({"command": "group_add", "path": "team"}));
    admin(&f.ctx, json!({"command": "group_add", "path": "team/sub"}));
    admin(&f.ctx, json!({"command": "member_add", "username": "owner", "group": "team", "access_level": 50}));
    let team = f.send("GET", "/api/v4/groups/team", &f.root, Value::Null).1["id"].clone();
    let (_, project) = f.send("POST", "/api/v4/projects", &owner, json!({"name": "app", "namespace_id": team}));
    let base = format!("/api/v4/projects/{}", project["id"]);
    for (user, role) in [("archiver", archive_role), ("remover", remove_role)] {
        admin(
            &f.ctx,
            json!({"command": "member_add", "username": user, "project": "team/app", "access_level": 30, "member_role_id": role}),
        );
    }
    admin(
        &f.ctx,
        json!({"command": "member_add", "username": "grem", "group": "team", "access_level": 30, "member_role_id": group_role}),
    );
    let forbidden = (403, json!({"message": "403 Forbidden"}));
    // archive_project: archive and unarchive, nothing else.
    assert_eq!(f.send("POST", &format!("{base}/archive"), &archiver, Value::Null).0, 201);
    assert_eq!(f.send("POST", &format!("{base}/unarchive"), &archiver, Value::Null).0, 201);
    assert_eq!(f.send("DELETE", &base, &archiver, Value::Null), forbidden);
    assert_eq!(f.send("PUT", &base, &archiver, json!({"description": "x"})), forbidden);
    // remove_project: delete and restore, nothing else.
    assert_eq!(f.send("POST", &format!("{base}/archive"), &remover, Value::Null), forbidden);
    assert_eq!(f.send("DELETE", &base, &remover, Value::Null).0, 202);
    assert_eq!(f.send("POST", &format!("{base}/restore"), &remover, Value::Null).0, 201);
    assert_eq!(f.send("DELETE", &base, &group_remover, Value::Null), forbidden, "remove_group is no remove_project");
    // remove_group: subgroups only, and nothing on projects.
    assert_eq!(f.send("DELETE", "/api/v4/groups/team", &group_remover, Value::Null), forbidden);
    assert_eq!(f.send("POST", &format!("{base}/archive"), &group_remover, Value::Null), forbidden);
    assert_eq!(f.send("DELETE", "/api/v4/groups/team%2Fsub", &group_remover, Value::Null).0, 202);
    assert_eq!(f.send("POST", "/api/v4/groups/team%2Fsub/restore", &group_remover, Value::Null).0, 201);
    assert_eq!(f.send("DELETE", "/api/v4/groups/team%2Fsub", &archiver, Value::Null).0, 404, "private: unseen");
    assert_eq!(f.send("DELETE", "/api/v4/groups/team", &owner, Value::Null).0, 202);
}

/// Two hosts on one store sweeping the same due projects at once: each project is purged
/// once, its repository removed, and neither host answers an error.
#[test]
fn hosts_sharing_a_store_purge_each_due_project_once() {
    let f = forge(7);
    let alice = f.user("alice");
    let other = Arc::new(Context::from_json(&f.config.to_string()).unwrap());
    let mut dirs = Vec::new();
    for i in 0..4 {
        let (_, project) = f.send("POST", "/api/v4/projects", &alice, json!({"name": format!("p{i}")}));
        dirs.push(f.git_dir(project["id"].as_i64().unwrap()));
        assert_eq!(f.send("DELETE", &format!("/api/v4/projects/{}", project["id"]), &alice, Value::Null).0, 202);
    }
    f.age_marks(8);
    let sweep = |ctx: Arc<Context>, token: String| {
        std::thread::spawn(move || {
            let headers = vec![("PRIVATE-TOKEN".to_string(), token)];
            forgecore::http::handle(&ctx, "GET", "/api/v4/projects", headers, b"").status
        })
    };
    let (one, two) = (sweep(Arc::clone(&f.ctx), alice.clone()), sweep(other, alice.clone()));
    assert_eq!((one.join().unwrap(), two.join().unwrap()), (200, 200));
    for dir in dirs {
        assert!(!dir.exists(), "{} purged", dir.display());
    }
    assert_eq!(f.send("GET", "/api/v4/projects", &alice, Value::Null).1, json!([]));
}
