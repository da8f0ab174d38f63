//! The PostgreSQL store on a real server (`make test-rust-postgres` starts one and sets
//! `FORGECORE_TEST_POSTGRES`; plain `cargo test` lists these as ignored, never passes them):
//! configuration that cannot work is refused with a reason, and `store_copy` moves an SQLite
//! store into an empty database with every token still working.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use serde_json::{json, Value};

const NEEDS_SERVER: &str = "FORGECORE_TEST_POSTGRES is not set: run `make test-rust-postgres`";

fn server() -> String {
    common::postgres_server().expect(NEEDS_SERVER)
}

fn refusal(config: Value) -> String {
    forgecore::Context::from_json(&config.to_string()).err().expect("the configuration is refused")
}

/// Naming both backends is refused without reaching any server.
#[test]
fn both_backends_named_are_refused() {
    let error =
        refusal(json!({"data_dir": "/tmp/x", "store": {"sqlite": {}, "postgres": "postgresql://x@127.0.0.1/x"}}));
    assert!(error.contains("names both sqlite and postgres"), "{error}");
    let error = refusal(json!({"data_dir": "/tmp/x", "store": {"postgres": "not a url at all ::"}}));
    assert!(error.contains("not a valid PostgreSQL URL"), "{error}");
}

#[test]
#[ignore = "needs a PostgreSQL server: make test-rust-postgres"]
fn unreachable_servers_and_wrong_passwords_are_refused_with_a_reason() {
    let server = server();
    let data_dir = common::TempDir::new();
    let data_dir = data_dir.path().to_str().unwrap();
    // A port nobody listens on: refused at once, or within the timeout.
    let started = std::time::Instant::now();
    let error = refusal(json!({"data_dir": data_dir,
        "store": {"postgres": "postgresql://nobody:secret@127.0.0.1:1/db", "timeout_millis": 2000}}));
    assert!(error.starts_with("cannot connect to the PostgreSQL store"), "{error}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    // The right server with a wrong password: the server's own words.
    let url: url_parts::Parts = url_parts::parse(&server);
    let wrong = format!("postgresql://{}:wrong-password@{}:{}/{}", url.user, url.host, url.port, url.database);
    let error = refusal(json!({"data_dir": data_dir, "store": {"postgres": wrong}}));
    assert!(error.contains("password authentication failed"), "{error}");
    // A database that does not exist.
    let missing = format!("postgresql://{}:{}@{}:{}/no_such_database", url.user, url.password, url.host, url.port);
    let error = refusal(json!({"data_dir": data_dir, "store": {"postgres": missing}}));
    assert!(error.contains("does not exist"), "{error}");
}

#[test]
#[ignore = "needs a PostgreSQL server: make test-rust-postgres"]
fn a_newer_schema_is_refused() {
    let url = common::new_postgres_database(&server());
    let instance = common::open_instance(json!({"store": {"postgres": url}}));
    instance.set_schema_version(999);
    let error = refusal(instance.config().clone());
    assert!(error.contains("schema version 999, newer than this library's"), "{error}");
}

/// Everything an SQLite instance holds, in one value to compare across stores.
fn snapshot(instance: &TestInstance, admin: &str) -> Value {
    let get = |target: &str| {
        let (status, body) = instance.request_json("GET", target, &[("PRIVATE-TOKEN", admin)], b"");
        assert_eq!(status, 200, "{target}: {body}");
        body
    };
    json!({
        "instance_roles": get("/api/v4/member_roles"),
        "group_roles": get("/api/v4/groups/top/member_roles"),
        "group": get("/api/v4/groups/top%2Fsub"),
        "project": get("/api/v4/projects/top%2Fapp"),
        "health": get("/api/v4/projects/top%2Fapp/repository/health"),
    })
}

#[test]
#[ignore = "needs a PostgreSQL server: make test-rust-postgres"]
fn store_copy_moves_everything_and_tokens_keep_working() {
    let server = server();
    let source = common::open_instance(json!({"store": {"sqlite": {}}}));
    let admin = source.user_with_token("root", true);
    let alice = source.user_with_token("alice", false);
    let repo = source.root_dir().join("app.git");
    assert!(std::process::Command::new("git").args(["init", "-q", "--bare"]).arg(&repo).status().unwrap().success());
    source.admin_ok(json!({"command": "group_add", "path": "top"}));
    source.admin_ok(json!({"command": "group_add", "path": "top/sub"}));
    source.admin_ok(json!({"command": "project_add", "path": "top/app", "repo": repo, "visibility": "private"}));
    let role = |body: Value, target: &str| {
        let (status, role) =
            source.request_json("POST", target, &[("PRIVATE-TOKEN", &admin)], body.to_string().as_bytes());
        assert_eq!(status, 201, "{role}");
        role
    };
    role(json!({"name": "auditor", "base_access_level": 10}), "/api/v4/member_roles");
    let reader =
        role(json!({"name": "reader", "base_access_level": 10, "read_code": true}), "/api/v4/groups/top/member_roles");
    source.admin_ok(
        json!({"command": "member_add", "group": "top", "username": "alice", "access_level": 10, "member_role_id": reader["id"]}),
    );
    let (status, _) = source.request_json(
        "GET",
        "/api/v4/projects/top%2Fapp/repository/health?generate=true",
        &[("PRIVATE-TOKEN", &admin)],
        b"",
    );
    assert_eq!(status, 200);
    let job = source.admin_ok(json!({"command": "job_token_add", "project": "top/app"}))["token"]
        .as_str()
        .unwrap()
        .to_string();
    let expires = forgecore::store::days_from_today(10);
    let scoped = source.admin_ok(json!({"command": "token_add", "username": "alice", "scopes": ["read_api"],
                                        "expires_at": expires, "description": "copied"}));
    let scoped = scoped["token"].as_str().unwrap().to_string();
    // A merge request (its branches need not exist yet, as GitLab's API allows) with a reviewer.
    let (status, mr) = source.request_json(
        "POST",
        "/api/v4/projects/top%2Fapp/merge_requests",
        &[("PRIVATE-TOKEN", &admin), ("Content-Type", "application/json")],
        json!({"source_branch": "topic", "target_branch": "main", "title": "Copied MR", "reviewer_ids": [2]})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(status, 201, "{mr}");
    let before = snapshot(&source, &admin);

    let target = common::new_postgres_database(&server);
    let copied = source.admin_ok(json!({"command": "store_copy", "to": target}));
    assert_eq!(copied["copied"]["users"], json!(2), "{copied}");
    assert_eq!(copied["copied"]["member_roles"], json!(2), "{copied}");

    let copy = common::open_instance(json!({"store": {"postgres": target}}));
    assert_eq!(snapshot(&copy, &admin), before, "the copy answers as the original");
    assert_eq!(copied["copied"]["merge_requests"], json!(1), "{copied}");
    let (status, copied_mr) =
        copy.request_json("GET", "/api/v4/projects/top%2Fapp/merge_requests/1", &[("PRIVATE-TOKEN", &admin)], b"");
    assert_eq!(status, 200, "{copied_mr}");
    assert_eq!((copied_mr["id"].clone(), copied_mr["title"].clone()), (mr["id"].clone(), json!("Copied MR")));
    assert_eq!(copied_mr["reviewers"][0]["username"], "alice");
    // The copy's sequences moved past the copied rows: the next merge request is !2.
    let (status, next) = copy.request_json(
        "POST",
        "/api/v4/projects/top%2Fapp/merge_requests",
        &[("PRIVATE-TOKEN", &admin), ("Content-Type", "application/json")],
        json!({"source_branch": "other", "target_branch": "main", "title": "Next"}).to_string().as_bytes(),
    );
    assert_eq!((status, next["iid"].clone()), (201, json!(2)), "{next}");
    assert_ne!(next["id"], mr["id"]);
    // Every kind of token works against the copy, and a custom role still takes effect.
    let (status, _) = copy.request_json("GET", "/api/v4/projects/top%2Fapp", &[("PRIVATE-TOKEN", &alice)], b"");
    assert_eq!(status, 200, "alice sees the private project through her group membership");
    let (status, _) = copy.request_json(
        "GET",
        "/api/v4/projects/top%2Fapp/repository/changelog?version=1.0.0&from=x",
        &[("JOB-TOKEN", &job)],
        b"",
    );
    assert_ne!(status, 401, "the job token is known to the copy");
    // Scopes, expiry and description come along.
    let (status, own) =
        copy.request_json("GET", "/api/v4/personal_access_tokens/self", &[("PRIVATE-TOKEN", &scoped)], b"");
    assert_eq!(status, 200, "{own}");
    assert_eq!((own["scopes"].clone(), own["expires_at"].clone()), (json!(["read_api"]), json!(expires)));
    assert_eq!(own["description"], "copied");
    // New rows get new ids past the copied ones.
    let (status, created) = copy.request_json(
        "POST",
        "/api/v4/member_roles",
        &[("PRIVATE-TOKEN", &admin)],
        json!({"name": "after the copy", "base_access_level": 20}).to_string().as_bytes(),
    );
    assert_eq!(status, 201, "{created}");
    assert!(created["id"].as_i64().unwrap() > reader["id"].as_i64().unwrap());

    // A target that holds anything is refused, and keeps what it holds.
    let (status, body) = source.admin(json!({"command": "store_copy", "to": target}));
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("not empty"), "{body}");
    assert_eq!(snapshot(&copy, &admin)["instance_roles"].as_array().unwrap().len(), 2);
}

/// The parts of a libpq URL the tests rebuild URLs from.
mod url_parts {
    pub struct Parts {
        pub user: String,
        pub password: String,
        pub host: String,
        pub port: String,
        pub database: String,
    }

    /// `postgresql://user:password@host:port/database`.
    pub fn parse(url: &str) -> Parts {
        let rest = url.split_once("://").map(|(_, rest)| rest).unwrap();
        let (credentials, rest) = rest.rsplit_once('@').unwrap();
        let (user, password) = credentials.split_once(':').unwrap_or((credentials, ""));
        let (address, database) = rest.split_once('/').unwrap();
        let (host, port) = address.rsplit_once(':').unwrap_or((address, "5432"));
        Parts {
            user: user.into(),
            password: password.into(),
            host: host.into(),
            port: port.into(),
            database: database.split('?').next().unwrap().into(),
        }
    }
}

/// A bare repository with one commit at `dir`.
fn repository_with_a_commit(dir: &std::path::Path) {
    let work = dir.with_extension("work");
    for args in [
        vec!["init", "-q", "-b", "main", work.to_str().unwrap()],
        vec![
            "-C",
            work.to_str().unwrap(),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@x",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "one",
        ],
        vec!["clone", "-q", "--bare", work.to_str().unwrap(), dir.to_str().unwrap()],
    ] {
        assert!(std::process::Command::new("git").args(&args).status().unwrap().success(), "git {args:?}");
    }
}

/// Projects on named storages keep their path relative to the storage: a host that mounts the
/// storage elsewhere serves them from there, and a host without it says so (503) instead of
/// pretending the repository is gone.
#[test]
fn projects_on_storages_are_served_wherever_each_host_mounts_them() {
    let mount = common::TempDir::new();
    std::fs::create_dir_all(mount.path().join("group")).unwrap();
    repository_with_a_commit(&mount.path().join("group/app.git"));
    let storages = json!({"default": mount.path()});
    let instance = common::open_instance(json!({"storages": storages}));
    let admin = instance.user_with_token("root", true);
    let add = |repo: &str, storage: &str| {
        instance.admin(
            json!({"command": "project_add", "path": "app", "repo": repo, "storage": storage, "visibility": "public"}),
        )
    };
    // What cannot name a repository inside a configured storage is refused.
    for (repo, storage, why) in [
        ("group/app.git", "nowhere", "storage nowhere is not configured"),
        ("../x", "default", "without . or .."),
        ("/etc", "default", "without . or .."),
        ("group", "default", "is not a git repository"),
    ] {
        let (status, body) = add(repo, storage);
        assert_eq!(status, 400, "{repo} on {storage}: {body}");
        assert!(body["message"].as_str().unwrap().contains(why), "{body}");
    }
    let (status, body) = add("group/app.git", "default");
    assert_eq!(status, 201, "{body}");
    let tree = |instance: &TestInstance| instance.request_json("GET", "/api/v4/projects/app/repository/tree", &[], b"");
    assert_eq!(tree(&instance).0, 200);

    // Another host mounts the same storage at another path: the same project is served there.
    let elsewhere = common::TempDir::new();
    let moved = elsewhere.path().join("srv");
    assert!(std::process::Command::new("cp").arg("-a").arg(mount.path()).arg(&moved).status().unwrap().success());
    std::fs::remove_dir_all(mount.path().join("group")).unwrap();
    let mut config = instance.config().clone();
    config["storages"] = json!({"default": moved});
    let other_host = instance.reopen_with(config.clone());
    let (status, project) = other_host.request_json("GET", "/api/v4/projects/app", &[], b"");
    assert_eq!((status, project["default_branch"].as_str()), (200, Some("main")));
    assert_eq!(tree(&other_host).0, 200);

    // A host without the storage: the project exists, its repository is not here.
    config["storages"] = json!({});
    let without = instance.reopen_with(config);
    let (status, project) = without.request_json("GET", "/api/v4/projects/app", &[("PRIVATE-TOKEN", &admin)], b"");
    assert_eq!((status, &project["default_branch"]), (200, &Value::Null));
    assert_eq!(
        tree(&without),
        (503, json!({"message": "503 Service Unavailable - the project's repository storage is not on this host"}))
    );
}

/// Hosts that start together on one empty database: every one bootstraps without an error,
/// and there is one administrator.
#[test]
#[ignore = "needs a PostgreSQL server: make test-rust-postgres"]
fn hosts_starting_together_on_an_empty_database_make_one_administrator() {
    let url = common::new_postgres_database(&server());
    let dirs: Vec<common::TempDir> = (0..4).map(|_| common::TempDir::new()).collect();
    let answers: Vec<Value> = std::thread::scope(|s| {
        let starts: Vec<_> = dirs
            .iter()
            .map(|dir| {
                let config = json!({"data_dir": dir.path(), "store": {"postgres": url}}).to_string();
                s.spawn(move || {
                    let ctx = forgecore::Context::from_json(&config).unwrap();
                    let params = forgecore::params::Params::from_json_object(
                        json!({"command": "bootstrap", "issue_token": true}),
                    )
                    .unwrap();
                    let answer = forgecore::api::admin::run(&ctx, &params).unwrap();
                    serde_json::from_slice::<Value>(&answer.into_bytes().unwrap()).unwrap()
                })
            })
            .collect();
        starts.into_iter().map(|s| s.join().unwrap()).collect()
    });
    assert_eq!(answers.iter().filter(|a| a["created"] == json!(true)).count(), 1, "{answers:?}");
    assert!(answers.iter().all(|a| a["username"] == json!("root") && a["token"].is_string()), "{answers:?}");
}

/// How a host sees one token: the status of `GET /api/v4/version` with it.
fn version_status(host: &TestInstance, token: &str) -> u16 {
    host.request_json("GET", "/api/v4/version", &[("PRIVATE-TOKEN", token)], b"").0
}

/// The status of the instance's member roles for `token` (200 for an administrator, else 403).
fn roles_status(host: &TestInstance, token: &str) -> u16 {
    host.request_json("GET", "/api/v4/member_roles", &[("PRIVATE-TOKEN", token)], b"").0
}

/// A connection of the test's own to the instance's database, as an operator would have.
fn operator(host: &TestInstance) -> postgres::Client {
    postgres::Client::connect(host.postgres_url().unwrap(), postgres::NoTls).expect("the test database")
}

/// Waits until `count` hosts' listeners are connected to the instance's database.
fn wait_for_listeners(host: &TestInstance, count: i64) {
    let mut client = operator(host);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let connected: i64 = client
            .query_one(
                "SELECT count(*) FROM pg_stat_activity
                 WHERE application_name = 'forgecore-listener' AND datname = current_database()",
                &[],
            )
            .unwrap()
            .get(0);
        if connected >= count {
            // LISTEN follows the connection at once; leave it a moment.
            std::thread::sleep(std::time::Duration::from_millis(100));
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{connected} of {count} listeners after 10 s");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Runs `statement` on `table` behind every host's back: with the table's `trigger` off, so no
/// host is told. Only a host that kept an answer in memory still gives the old one. Answers the
/// number of rows changed.
fn unheard(
    host: &TestInstance,
    table: &str,
    trigger: &str,
    statement: &str,
    params: &[&(dyn postgres::types::ToSql + Sync)],
) -> u64 {
    let mut client = operator(host);
    let mut tx = client.transaction().unwrap();
    tx.batch_execute(&format!("ALTER TABLE {table} DISABLE TRIGGER {trigger}")).unwrap();
    let changed = tx.execute(statement, params).unwrap();
    tx.batch_execute(&format!("ALTER TABLE {table} ENABLE TRIGGER {trigger}")).unwrap();
    tx.commit().unwrap();
    changed
}

/// Revokes a personal token behind every host's back.
fn revoke_unheard(host: &TestInstance, token: &str) {
    let changed = unheard(
        host,
        "personal_access_tokens",
        "personal_access_tokens_auth_changed",
        "UPDATE personal_access_tokens SET revoked = TRUE WHERE digest = $1",
        &[&forgecore::auth::tokens::digest(token)],
    );
    assert_eq!(changed, 1);
}

/// How long until `check` holds, polled for at most `limit`; `None` if it never did.
fn time_until(limit: std::time::Duration, check: impl Fn() -> bool) -> Option<std::time::Duration> {
    let start = std::time::Instant::now();
    loop {
        if check() {
            return Some(start.elapsed());
        }
        if start.elapsed() > limit {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// The longest a token revoked on one host may still work on another (`FRESH_FOR` of
/// `src/store/notified.rs`, plus a margin for a loaded machine).
const REVOKE_BOUND: std::time::Duration = std::time::Duration::from_millis(1500);

#[test]
#[ignore = "needs a PostgreSQL server: make test-rust-postgres"]
fn a_token_revoked_through_one_host_is_refused_by_the_others_once_they_are_told() {
    let url = common::new_postgres_database(&server());
    let one = common::open_instance(json!({"store": {"postgres": url}}));
    let other = one.reopen(); // a second fc_open: another host on the same database
    let root = one.user_with_token("root", true);
    let alice = one.user_with_token("alice", false);
    let bob = one.user_with_token("bob", false);
    wait_for_listeners(&one, 2);

    // The other host keeps what the tokens authenticate: bob, revoked behind its back, still
    // works there (well past FRESH_FOR: the listener's pings keep the cache in use), while a
    // host that never saw bob asks the database and refuses him.
    for token in [&alice, &bob] {
        assert_eq!(version_status(&other, token), 200);
    }
    assert_eq!(roles_status(&other, &root), 200);
    revoke_unheard(&one, &bob);
    std::thread::sleep(REVOKE_BOUND);
    assert_eq!(version_status(&other, &bob), 200, "the other host answers bob from memory");
    assert_eq!(version_status(&one.reopen(), &bob), 401, "the database has bob revoked");

    // Revoking alice through the first host: refused there at once (its own write), and on the
    // other host as soon as the notification arrives, which forgets bob too.
    assert_eq!(version_status(&one, &alice), 200);
    one.admin_ok(json!({"command": "token_revoke", "token": alice}));
    assert_eq!(version_status(&one, &alice), 401, "the revoking host refuses at once");
    let took = time_until(REVOKE_BOUND, || version_status(&other, &alice) == 401);
    eprintln!("alice refused by the other host {took:?} after the revoke was acknowledged");
    assert!(took.is_some(), "the other host still takes a token revoked through the first");
    assert_eq!(version_status(&other, &bob), 401, "a notification forgets every token");
    assert_eq!(version_status(&other, &root), 200, "and live tokens work on, read again");

    // A user changed in the database by anyone (here an operator's UPDATE): root, kept as an
    // administrator, is refused the instance's roles once no longer one.
    assert_eq!(roles_status(&other, &root), 200);
    operator(&one).execute("UPDATE users SET is_admin = FALSE WHERE username = 'root'", &[]).unwrap();
    let took = time_until(REVOKE_BOUND, || roles_status(&other, &root) == 403);
    assert!(took.is_some(), "root is still an administrator on the other host");

    // Job tokens: kept, and refused everywhere once revoked.
    let repo = one.root_dir().join("app.git");
    assert!(std::process::Command::new("git").args(["init", "-q", "--bare"]).arg(&repo).status().unwrap().success());
    one.admin_ok(json!({"command": "project_add", "path": "app", "repo": repo, "visibility": "private"}));
    let job =
        one.admin_ok(json!({"command": "job_token_add", "project": "app"}))["token"].as_str().unwrap().to_string();
    let job_status = |host: &TestInstance| {
        host.request_json(
            "GET",
            "/api/v4/projects/app/repository/changelog?version=1.0.0&from=x",
            &[("JOB-TOKEN", &job)],
            b"",
        )
        .0
    };
    assert_ne!(job_status(&other), 401, "the job token is taken");
    one.admin_ok(json!({"command": "token_revoke", "token": job}));
    assert_eq!(job_status(&one), 401);
    assert!(time_until(REVOKE_BOUND, || job_status(&other) == 401).is_some(), "the revoked job token still works");
}

#[test]
#[ignore = "needs a PostgreSQL server: make test-rust-postgres"]
fn a_host_whose_listener_is_cut_off_forgets_what_it_kept_and_listens_again() {
    let url = common::new_postgres_database(&server());
    let one = common::open_instance(json!({"store": {"postgres": url}}));
    let other = one.reopen();
    let root = one.user_with_token("root", true);
    let bob = one.user_with_token("bob", false);
    wait_for_listeners(&one, 2);

    assert_eq!(version_status(&other, &bob), 200);
    revoke_unheard(&one, &bob);
    assert_eq!(version_status(&other, &bob), 200, "bob is kept in memory");
    // Every listener's connection is cut (the server ends their backends): from then until a
    // listener listens again, its host asks the database, and it starts over empty.
    let ended: Vec<bool> = operator(&one)
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE application_name = 'forgecore-listener' AND datname = current_database()",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(ended, vec![true, true]);
    let took = time_until(std::time::Duration::from_secs(3), || version_status(&other, &bob) == 401);
    eprintln!("bob refused {took:?} after the listeners were cut off");
    assert!(took.is_some(), "a host whose listener is gone still answers from memory");
    assert_eq!(version_status(&other, &root), 200, "the host serves on");

    // The listener comes back by itself, and with it the cache.
    wait_for_listeners(&one, 2);
    assert_eq!(version_status(&other, &root), 200);
    revoke_unheard(&one, &root);
    assert_eq!(version_status(&other, &root), 200, "the cache is in use again");
    assert_eq!(version_status(&one.reopen(), &root), 401);
}

#[test]
#[ignore = "needs a PostgreSQL server: make test-rust-postgres"]
fn a_version_1_database_gains_the_notifications_when_a_host_opens_it() {
    let url = common::new_postgres_database(&server());
    let one = common::open_instance(json!({"store": {"postgres": url}}));
    let root = one.user_with_token("root", true);
    let triggers = |client: &mut postgres::Client| -> i64 {
        client.query_one("SELECT count(*) FROM pg_trigger WHERE tgname LIKE '%\\_auth\\_changed'", &[]).unwrap().get(0)
    };
    let mut client = operator(&one);
    assert_eq!(triggers(&mut client), 3);
    // As a library of version 1 left it: no function, no triggers.
    client
        .batch_execute(
            "DROP FUNCTION forgecore_auth_changed() CASCADE; DROP FUNCTION forgecore_notify_change() CASCADE;
             UPDATE schema_version SET version = 1",
        )
        .unwrap();
    assert_eq!(triggers(&mut client), 0);
    let upgraded = one.reopen();
    assert_eq!(triggers(&mut client), 3);
    let version: i64 = client.query_one("SELECT version FROM schema_version", &[]).unwrap().get(0);
    assert_eq!(version, forgecore::store::migrations::newest(), "every migration ran again");
    assert_eq!(version_status(&upgraded, &root), 200, "tokens work on across the migration");
}

/// The names of the instance's member roles as `host` lists them for `token`.
fn role_names(host: &TestInstance, token: &str) -> Vec<String> {
    let (status, body) = host.request_json("GET", "/api/v4/member_roles", &[("PRIVATE-TOKEN", token)], b"");
    assert_eq!(status, 200, "{body}");
    body.as_array().unwrap().iter().map(|role| role["name"].as_str().unwrap().to_string()).collect()
}

#[test]
#[ignore = "needs a PostgreSQL server: make test-rust-postgres"]
fn role_lists_come_from_memory_yet_show_every_change_acknowledged_anywhere_before() {
    let url = common::new_postgres_database(&server());
    let one = common::open_instance(json!({"store": {"postgres": url}}));
    let other = one.reopen();
    let root = one.user_with_token("root", true);
    wait_for_listeners(&one, 2);

    // A role written behind every host's back (the trigger off, so no host is told) is not
    // listed by a host that keeps the list in memory; a host that never listed asks the
    // database and shows it. So the list really comes from memory.
    // (A list waits at most 25 ms for the listener's ping, then asks the database: on a loaded
    // machine some may, so the list is asked for a few times.)
    for _ in 0..10 {
        assert!(role_names(&other, &root).is_empty());
    }
    unheard(
        &one,
        "member_roles",
        "member_roles_changed",
        "INSERT INTO member_roles (group_id, name, description, base_access_level, permissions, created_at)
         VALUES (NULL, 'unheard', NULL, 10, '[]', 0)",
        &[],
    );
    assert!((0..20).any(|_| role_names(&other, &root).is_empty()), "the other host lists from memory");
    assert_eq!(role_names(&one.reopen(), &root), ["unheard"], "the database has the role");

    // Every change acknowledged by one host is in the very next list of the other: creates,
    // renames and deletes, through the API, many times over (each a race the notification
    // must win), and an operator's statement outside forgecore too.
    let admin = [("PRIVATE-TOKEN", root.as_str())];
    for n in 0..40 {
        let body = json!({"name": format!("r{n:02}"), "base_access_level": 10}).to_string();
        let (status, created) = one.request_json("POST", "/api/v4/member_roles", &admin, body.as_bytes());
        assert_eq!(status, 201, "{created}");
        let listed = role_names(&other, &root);
        assert!(listed.contains(&format!("r{n:02}")), "round {n}: the other host lists {listed:?}");
        if n % 4 == 3 {
            let id = created["id"].as_i64().unwrap();
            let (status, _) = one.request_json("DELETE", &format!("/api/v4/member_roles/{id}"), &admin, b"");
            assert_eq!(status, 204);
            assert!(!role_names(&other, &root).contains(&format!("r{n:02}")), "round {n}: a deleted role listed");
        }
    }
    operator(&one).execute("UPDATE member_roles SET name = 'renamed' WHERE name = 'unheard'", &[]).unwrap();
    assert!(role_names(&other, &root).contains(&"renamed".to_string()), "an operator's rename is listed at once");
    assert_eq!(role_names(&other, &root), role_names(&one.reopen(), &root), "memory and database agree");
}

/// The status of an anonymous tree of `project` on `host`.
fn anonymous_tree(host: &TestInstance, project: &str) -> u16 {
    host.request_json("GET", &format!("/api/v4/projects/{project}/repository/tree"), &[], b"").0
}

#[test]
#[ignore = "needs a PostgreSQL server: make test-rust-postgres"]
fn projects_come_from_memory_yet_show_every_change_acknowledged_anywhere_before() {
    let url = common::new_postgres_database(&server());
    let one = common::open_instance(json!({"store": {"postgres": url}}));
    let other = one.reopen();
    one.user_with_token("root", true);
    let repo = one.root_dir().join("app.git");
    repository_with_a_commit(&repo);
    one.admin_ok(json!({"command": "project_add", "path": "app", "repo": repo, "visibility": "public"}));
    wait_for_listeners(&one, 2);

    // A project made private behind every host's back (the trigger off): a host that looked it
    // up before still serves it from memory, a host that never did refuses with 404. (A lookup
    // waits at most 25 ms for the listener's ping, then asks the database: asked a few times.)
    for _ in 0..10 {
        assert_eq!(anonymous_tree(&other, "app"), 200);
    }
    unheard(
        &one,
        "projects",
        "projects_changed",
        "UPDATE projects SET visibility = 'private' WHERE full_path = 'app'",
        &[],
    );
    assert!((0..20).any(|_| anonymous_tree(&other, "app") == 200), "the other host looks projects up in memory");
    assert_eq!(anonymous_tree(&one.reopen(), "app"), 404, "the database has the project private");

    // Every change acknowledged before a request is seen by it, on any host, many times over:
    // visibility flipped by an operator's statement, and a project that did not exist (a name
    // remembered as missing) added through the other host.
    let mut client = operator(&one);
    for n in 0..20 {
        let visibility = if n % 2 == 0 { "public" } else { "private" };
        client.execute("UPDATE projects SET visibility = $1 WHERE full_path = 'app'", &[&visibility]).unwrap();
        let expected = if n % 2 == 0 { 200 } else { 404 };
        assert_eq!(anonymous_tree(&other, "app"), expected, "round {n}: {visibility}");
        assert_eq!(anonymous_tree(&other, "1"), expected, "round {n}, by id: {visibility}");
    }
    let added = one.root_dir().join("added.git");
    repository_with_a_commit(&added);
    assert_eq!(anonymous_tree(&other, "added"), 404);
    one.admin_ok(json!({"command": "project_add", "path": "added", "repo": added, "visibility": "public"}));
    assert_eq!(anonymous_tree(&other, "added"), 200, "a project added through one host is found by the other at once");
}
