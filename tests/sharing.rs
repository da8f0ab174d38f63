//! Sharing with groups (issue #38, reference §1, §7, §8; GitLab's share routes in
//! `lib/api/projects.rb` and `lib/api/groups.rb`, `Projects::GroupLinks::CreateService`,
//! `Groups::GroupLinks::CreateService`): the members of a group a project or group is shared
//! with reach it at the lower of the link's level and their own, through the one permission
//! function (REST and real `git` over HTTP), `members/all` shows them, expiry is honoured,
//! `shared_with_groups` in both entities. SQLite under `cargo test`, PostgreSQL under
//! `make test-rust-postgres`.
#![allow(clippy::unwrap_used)]

mod common;

use common::serve::serve_connection;
use common::TempDir;
use forgecore::params::Params;
use forgecore::Context;
use serde_json::{json, Value};
use std::net::TcpListener;
use std::path::Path;
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

impl Forge {
    fn id_of(&self, token: &str) -> i64 {
        self.send("GET", "/api/v4/user", token, Value::Null).1["id"].as_i64().unwrap()
    }

    fn group(&self, path: &str, parent: Option<i64>) -> i64 {
        let mut body = json!({"name": path, "path": path, "visibility": "private"});
        if let Some(parent) = parent {
            body["parent_id"] = json!(parent);
        }
        let (status, group) = self.send("POST", "/api/v4/groups", &self.root, body);
        assert_eq!(status, 201, "{group}");
        group["id"].as_i64().unwrap()
    }

    fn member(&self, group: i64, user: i64, level: i64) {
        let (status, body) = self.send(
            "POST",
            &format!("/api/v4/groups/{group}/members"),
            &self.root,
            json!({"user_id": user, "access_level": level}),
        );
        assert_eq!(status, 201, "{body}");
    }

    /// Whether `token` may push a new branch `name` to `project` with real `git`.
    fn push(&self, project: &str, token: &str, work: &Path, name: &str) -> bool {
        self.client(work, &["push", "-q", &self.remote(project, token), &format!("HEAD:refs/heads/{name}")])
            .status
            .success()
    }

    fn clone_ok(&self, project: &str, token: &str, into: &Path) -> bool {
        self.client(self.dir.path(), &["clone", "-q", &self.remote(project, token), into.to_str().unwrap()])
            .status
            .success()
    }

    /// Moves every link's expiry to yesterday, as if its day had passed.
    fn expire_links(&self, table: &str) {
        let yesterday = {
            let days = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
                / 86_400
                - 1;
            let (y, m, d) = forgecore_date::civil_from_days(days);
            format!("{y:04}-{m:02}-{d:02}")
        };
        self.ctx.store.write(|db| db.execute(&format!("UPDATE {table} SET expires_at = $1"), &[&yesterday])).unwrap();
    }
}

#[test]
fn a_project_shared_with_a_group_gives_its_members_the_lower_level_on_every_path() {
    let f = forge();
    let alice = f.user("alice");
    let bob = f.user("bob");
    let carol = f.user("carol");
    let eve = f.user("eve");
    let (alice_id, bob_id, carol_id, eve_id) = (f.id_of(&alice), f.id_of(&bob), f.id_of(&carol), f.id_of(&eve));
    let outer = f.group("outer", None);
    let devs = f.group("devs", Some(outer));
    let sub = f.group("sub", Some(devs));
    f.member(devs, alice_id, 10);
    f.member(devs, bob_id, 30);
    f.member(outer, carol_id, 40); // inherited into devs
    f.member(sub, eve_id, 50); // below devs: no share reaches her
    let project = f.project(&alice, json!({"name": "Secret"}));
    let pid = project["id"].as_i64().unwrap();
    let path = "alice/Secret";
    let share = |token: &str, body: Value| f.send("POST", &format!("/api/v4/projects/{pid}/share"), token, body);

    // Refusals first.
    assert_eq!(share("", json!({"group_id": devs, "group_access": 30})).0, 401);
    assert_eq!(
        share(&bob, json!({"group_id": devs, "group_access": 30})),
        (404, json!({"message": "404 Project Not Found"}))
    );
    assert_eq!(share(&alice, json!({"group_access": 30})), (400, json!({"error": "group_id is missing"})));
    assert_eq!(share(&alice, json!({"group_id": devs})), (400, json!({"error": "group_access is missing"})));
    assert_eq!(
        share(&alice, json!({"group_id": devs, "group_access": 31})),
        (400, json!({"error": "group_access does not have a valid value"}))
    );
    assert_eq!(share(&alice, json!({"group_id": 99999, "group_access": 30})), (404, json!({"message": "Not Found"})));
    // Alice is no member of `sub`'s sibling `other`: 404 as GitLab's service answers.
    let other = f.group("other", None);
    assert_eq!(share(&alice, json!({"group_id": other, "group_access": 30})), (404, json!({"message": "Not Found"})));

    // Before: bob sees nothing.
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{pid}"), &bob, Value::Null).0, 404);
    let (status, link) = share(&alice, json!({"group_id": devs, "group_access": 20, "expires_at": null}));
    assert_eq!(status, 201, "{link}");
    assert_eq!(link["project_id"], pid);
    assert_eq!(link["group_id"], devs);
    assert_eq!(link["group_access"], 20);
    assert_eq!(link["expires_at"], Value::Null);
    assert!(link["id"].as_i64().is_some());
    assert_eq!(
        share(&alice, json!({"group_id": devs, "group_access": 30})),
        (409, json!({"message": "Group already shared with this group"}))
    );

    // Bob (Developer in devs, link Reporter): Reporter. Carol (inherited Maintainer): Reporter.
    // Eve (in a subgroup only): nothing.
    let (status, seen) = f.send("GET", &format!("/api/v4/projects/{pid}"), &bob, Value::Null);
    assert_eq!(status, 200, "{seen}");
    assert_eq!(
        seen["shared_with_groups"],
        json!([{"group_id": devs, "group_name": "devs", "group_full_path": "outer/devs", "group_access_level": 20,
                "expires_at": null}])
    );
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{pid}/repository/tree"), &carol, Value::Null).0, 200);
    // The lists follow: a shared private project is one of bob's, eve's lists do not show it.
    let listed = |token: &str, query: &str| -> Vec<i64> {
        let (status, body) = f.send("GET", &format!("/api/v4/projects?{query}"), token, Value::Null);
        assert_eq!(status, 200, "{body}");
        body.as_array().unwrap().iter().map(|p| p["id"].as_i64().unwrap()).collect()
    };
    assert!(listed(&bob, "membership=true").contains(&pid));
    assert!(listed(&bob, "").contains(&pid));
    assert!(listed(&bob, "page=2&per_page=1").len() <= 1);
    assert!(!listed(&eve, "").contains(&pid));
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{pid}"), &eve, Value::Null).0, 404);
    let (status, all) = f.send("GET", &format!("/api/v4/projects/{pid}/members/all"), &alice, Value::Null);
    assert_eq!(status, 200);
    let levels: Vec<(String, i64)> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["username"].as_str().unwrap().to_string(), m["access_level"].as_i64().unwrap()))
        .collect();
    // root made the groups (their Owner): it too, capped by the link.
    assert_eq!(
        levels,
        vec![("root".into(), 20), ("alice".into(), 50), ("bob".into(), 20), ("carol".into(), 20)],
        "{all}"
    );
    assert_eq!(
        f.send("GET", &format!("/api/v4/projects/{pid}/members"), &alice, Value::Null).1.as_array().unwrap().len(),
        1
    );
    assert_eq!(
        f.send("GET", &format!("/api/v4/projects/{pid}/members/all/{bob_id}"), &alice, Value::Null).1["access_level"],
        20
    );

    // git over HTTP follows: bob clones, may not push as a Reporter.
    let work = f.dir.path().join("bob-work");
    assert!(f.clone_ok(path, &bob, &work));
    assert!(!f.push(path, &bob, &work, "bob-1"));
    assert!(!f.clone_ok(path, &eve, &f.dir.path().join("eve-work")));

    // Maintainers may not give Owner (manage_owners): 403.
    f.send(
        "POST",
        &format!("/api/v4/projects/{pid}/members"),
        &alice,
        json!({"user_id": carol_id, "access_level": 40}),
    );
    assert_eq!(
        f.send("POST", &format!("/api/v4/projects/{pid}/share"), &carol, json!({"group_id": sub, "group_access": 50})),
        (403, json!({"message": "403 Forbidden"}))
    );

    // Unshare, share again at Developer: bob pushes.
    assert_eq!(f.send("DELETE", &format!("/api/v4/projects/{pid}/share/{devs}"), &bob, Value::Null).0, 403);
    assert_eq!(f.send("DELETE", &format!("/api/v4/projects/{pid}/share/{devs}"), &alice, Value::Null).0, 204);
    assert_eq!(
        f.send("DELETE", &format!("/api/v4/projects/{pid}/share/{devs}"), &alice, Value::Null),
        (404, json!({"message": "404 Group Link Not Found"}))
    );
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{pid}"), &bob, Value::Null).0, 404);
    let tomorrow_and_more = "2999-01-31";
    let (status, _) = share(&alice, json!({"group_id": devs, "group_access": 40, "expires_at": tomorrow_and_more}));
    assert_eq!(status, 201);
    assert!(f.push(path, &bob, &work, "bob-2"), "a Developer through the share pushes");
    let (_, seen) = f.send("GET", &format!("/api/v4/projects/{pid}"), &bob, Value::Null);
    assert_eq!(seen["shared_with_groups"][0]["expires_at"], tomorrow_and_more);
    assert_eq!(f.send("PUT", &format!("/api/v4/projects/{pid}"), &bob, json!({"description": "x"})).0, 403, "30 < 40");

    // Expired: nothing any more, anywhere.
    f.expire_links("project_group_links");
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{pid}"), &bob, Value::Null).0, 404);
    assert!(!listed(&bob, "").contains(&pid), "an expired share lists nothing");
    assert!(!f.push(path, &bob, &work, "bob-3"));
    let (_, all) = f.send("GET", &format!("/api/v4/projects/{pid}/members/all"), &alice, Value::Null);
    assert!(all.as_array().unwrap().iter().all(|m| m["username"] != "bob"), "{all}");
    // An expired link is no obstacle to a new one.
    assert_eq!(share(&alice, json!({"group_id": devs, "group_access": 10})).0, 201);

    // A group that locks sharing.
    let locked = f.group("locked", None);
    f.member(locked, alice_id, 50);
    let (status, _) =
        f.send("PUT", &format!("/api/v4/groups/{locked}"), &f.root, json!({"share_with_group_lock": true}));
    assert_eq!(status, 200);
    let (status, in_locked) = f.send("POST", "/api/v4/projects", &alice, json!({"name": "L", "namespace_id": locked}));
    assert_eq!(status, 201, "{in_locked}");
    assert_eq!(
        f.send(
            "POST",
            &format!("/api/v4/projects/{}/share", in_locked["id"]),
            &alice,
            json!({"group_id": devs, "group_access": 30})
        ),
        (400, json!({"message": "The project sharing with group is disabled"}))
    );
}

#[test]
fn a_group_shared_with_a_group_reaches_its_projects_and_subgroups() {
    let f = forge();
    let bob = f.user("bob");
    let dana = f.user("dana");
    let (bob_id, dana_id) = (f.id_of(&bob), f.id_of(&dana));
    let devs = f.group("devs", None);
    f.member(devs, bob_id, 40);
    let platform = f.group("platform", None);
    let inner = f.group("inner", Some(platform));
    f.member(platform, dana_id, 50);
    let (status, project) = f.send(
        "POST",
        "/api/v4/projects",
        &f.root,
        json!({"name": "Core", "namespace_id": inner, "initialize_with_readme": true}),
    );
    assert_eq!(status, 201, "{project}");
    let pid = project["id"].as_i64().unwrap();
    let share = |token: &str, body: Value| f.send("POST", &format!("/api/v4/groups/{platform}/share"), token, body);

    assert_eq!(f.send("GET", &format!("/api/v4/groups/{platform}"), &bob, Value::Null).0, 404);
    assert_eq!(share("", json!({"group_id": devs, "group_access": 30})).0, 401);
    assert_eq!(
        share(&dana, json!({"group_id": 99999, "group_access": 30})),
        (404, json!({"message": "404 Group Not Found"}))
    );
    // Dana owns platform but is no member of devs (private, unseen): 404 Group Not Found.
    assert_eq!(
        share(&dana, json!({"group_id": devs, "group_access": 30})),
        (404, json!({"message": "404 Group Not Found"}))
    );
    assert_eq!(
        share(&bob, json!({"group_id": devs, "group_access": 30})),
        (404, json!({"message": "404 Group Not Found"}))
    );
    let (status, detail) = share(&f.root, json!({"group_id": devs, "group_access": 30, "expires_at": null}));
    assert_eq!(status, 201, "{detail}");
    assert_eq!(detail["id"], platform);
    assert_eq!(
        detail["shared_with_groups"],
        json!([{"group_id": devs, "group_name": "devs", "group_full_path": "devs", "group_access_level": 30,
                "expires_at": null}])
    );
    assert_eq!(
        share(&f.root, json!({"group_id": devs, "group_access": 30})),
        (409, json!({"message": "Shared group The group has already been shared with this group"}))
    );

    // Bob (Maintainer of devs) reaches platform, its subgroup and its projects as a Developer.
    assert_eq!(f.send("GET", &format!("/api/v4/groups/{platform}"), &bob, Value::Null).0, 200);
    assert_eq!(f.send("GET", &format!("/api/v4/groups/{inner}"), &bob, Value::Null).0, 200);
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{pid}"), &bob, Value::Null).0, 200);
    // GET /groups lists the groups shared with his group and those below them (GitLab's
    // `authorized_groups` adds `Group.shared_into_ancestors`), at the link's level.
    let ids = |body: &Value| body.as_array().unwrap().iter().map(|g| g["id"].as_i64().unwrap()).collect::<Vec<_>>();
    let (_, groups) = f.send("GET", "/api/v4/groups", &bob, Value::Null);
    assert_eq!(ids(&groups), [devs, inner, platform], "{groups}");
    let (_, groups) = f.send("GET", "/api/v4/groups?min_access_level=30", &bob, Value::Null);
    assert_eq!(ids(&groups), [devs, inner, platform], "{groups}");
    let (_, groups) = f.send("GET", "/api/v4/groups?min_access_level=40", &bob, Value::Null);
    assert_eq!(ids(&groups), [devs], "{groups}");
    let (_, mine) = f.send("GET", "/api/v4/projects?membership=true", &bob, Value::Null);
    assert!(mine.as_array().unwrap().iter().any(|p| p["id"] == pid), "{mine}");
    let work = f.dir.path().join("bob-core");
    assert!(f.clone_ok("platform/inner/Core", &bob, &work));
    assert!(f.push("platform/inner/Core", &bob, &work, "from-bob"));
    assert_eq!(f.send("PUT", &format!("/api/v4/projects/{pid}"), &bob, json!({"description": "x"})).0, 403);
    let (_, all) = f.send("GET", &format!("/api/v4/groups/{platform}/members/all"), &dana, Value::Null);
    let bob_row = all.as_array().unwrap().iter().find(|m| m["username"] == "bob").cloned().unwrap();
    assert_eq!(bob_row["access_level"], 30, "{all}");
    let (_, all) = f.send("GET", &format!("/api/v4/projects/{pid}/members/all"), &dana, Value::Null);
    assert!(all.as_array().unwrap().iter().any(|m| m["username"] == "bob" && m["access_level"] == 30), "{all}");

    // Expiry, then unsharing.
    f.expire_links("group_group_links");
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{pid}"), &bob, Value::Null).0, 404);
    let (_, groups) = f.send("GET", "/api/v4/groups", &bob, Value::Null);
    assert_eq!(ids(&groups), [devs], "an expired link lists nothing: {groups}");
    let (_, mine) = f.send("GET", "/api/v4/projects", &bob, Value::Null);
    assert!(mine.as_array().unwrap().iter().all(|p| p["id"] != pid), "{mine}");
    assert_eq!(
        f.send("GET", &format!("/api/v4/groups/{platform}"), &dana, Value::Null).1["shared_with_groups"],
        json!([])
    );
    assert_eq!(share(&f.root, json!({"group_id": devs, "group_access": 20})).0, 201);
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{pid}/repository/tree"), &bob, Value::Null).0, 200);
    assert_eq!(f.send("DELETE", &format!("/api/v4/groups/{platform}/share/{devs}"), &bob, Value::Null).0, 403);
    assert_eq!(f.send("DELETE", &format!("/api/v4/groups/{platform}/share/{devs}"), &dana, Value::Null).0, 204);
    assert_eq!(
        f.send("DELETE", &format!("/api/v4/groups/{platform}/share/{devs}"), &dana, Value::Null),
        (404, json!({"message": "404 Not Found"}))
    );
    assert_eq!(f.send("GET", &format!("/api/v4/projects/{pid}"), &bob, Value::Null).0, 404);
}

#[test]
fn a_projects_groups_are_its_ancestors_and_with_shared_the_groups_it_is_shared_with() {
    let f = forge();
    let root = f.root.clone();
    let top = f.group("top", None);
    let sub = f.group("sub", Some(top));
    let team = f.group("team", None);
    let other = f.group("other", None);
    let (status, project) = f.send("POST", "/api/v4/projects", &root, json!({"path": "app", "namespace_id": sub}));
    assert_eq!(status, 201, "{project}");
    let pid = project["id"].as_i64().unwrap();
    for (group, access) in [(team, 30), (other, 10)] {
        let (status, body) = f.send(
            "POST",
            &format!("/api/v4/projects/{pid}/share"),
            &root,
            json!({"group_id": group, "group_access": access}),
        );
        assert_eq!(status, 201, "{body}");
    }
    let ids = |query: &str| -> Vec<i64> {
        let (status, body) = f.send("GET", &format!("/api/v4/projects/{pid}/groups{query}"), &root, Value::Null);
        assert_eq!(status, 200, "{query}: {body}");
        body.as_array().unwrap().iter().map(|g| g["id"].as_i64().unwrap()).collect()
    };
    assert_eq!(ids(""), [sub, top], "the group and its ancestors, newest first");
    assert_eq!(ids("?with_shared=true"), [other, team, sub, top]);
    assert_eq!(ids("?with_shared=true&shared_min_access_level=30"), [team, sub, top]);
    assert_eq!(ids(&format!("?with_shared=true&skip_groups[]={team}&skip_groups[]={top}")), [other, sub]);
    assert_eq!(ids("?search=SU"), [sub]);
    let (_, body) = f.send("GET", &format!("/api/v4/projects/{pid}/groups"), &root, Value::Null);
    let keys: Vec<&String> = body[0].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 6, "PublicGroupDetails: {body}");
    assert_eq!(body[0]["full_name"], "top / sub");
    assert_eq!(body[0]["full_path"], "top/sub");
    assert!(body[0]["web_url"].as_str().unwrap().ends_with("/groups/top/sub"), "{body}");
    let (status, body) =
        f.send("GET", &format!("/api/v4/projects/{pid}/groups?shared_min_access_level=7"), &root, Value::Null);
    assert_eq!((status, body), (400, json!({"error": "shared_min_access_level does not have a valid value"})));
    // A project in a user's namespace has no groups; an outsider does not see a private project.
    let alice = f.user("alice");
    let (status, own) = f.send("POST", "/api/v4/projects", &alice, json!({"path": "solo"}));
    assert_eq!(status, 201, "{own}");
    let (status, none) = f.send("GET", &format!("/api/v4/projects/{}/groups", own["id"]), &alice, Value::Null);
    assert_eq!((status, none), (200, json!([])));
    let (status, _) = f.send("GET", &format!("/api/v4/projects/{pid}/groups"), &alice, Value::Null);
    assert_eq!(status, 404);
}
