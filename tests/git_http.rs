//! Git over HTTP with the real `git` client: clone, fetch and push through a small HTTP/1.1
//! server in this test that hands every request to `http::call::open` as the hosts do
//! (`fc_call_open`/`write`/`finish`: the body in 64 KiB pieces, chunked or not, the answer
//! streamed back chunked). The `git` CLI is the oracle for what the repository holds.
#![allow(clippy::unwrap_used)]

mod common;

use common::serve::serve_connection;
use common::{git, git_text, TempDir};
use forgecore::http::call::{self, Opened};
use forgecore::http::meta::Meta;
use forgecore::params::Params;
use forgecore::Context;
use serde_json::{json, Value};
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Tests of this binary run one at a time: one changes the process's environment.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// A context with a public project `pub/repo`, a private one `corp/secret`, and its members.
struct Forge {
    ctx: Arc<Context>,
    /// The configuration `ctx` was opened with (another host opens the same data with it).
    config: Value,
    url: String,
    dir: TempDir,
    /// The bare repositories behind `pub/repo` and `corp/secret`.
    public: PathBuf,
    private: PathBuf,
    maintainer: String,
    developer: String,
    reporter: String,
    guest: String,
}

fn admin(ctx: &Context, command: Value) -> Value {
    let response = forgecore::api::admin::run(ctx, &Params::from_json_object(command.clone()).unwrap()).unwrap();
    let body = response.into_bytes().unwrap();
    serde_json::from_slice(&body).unwrap_or(Value::Null)
}

/// A bare repository at `path` with a few commits on `main`.
fn seeded(dir: &Path, path: &Path) {
    let work = dir.join(format!("seed-{}", path.file_name().unwrap().to_string_lossy()));
    std::fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "-q", "-b", "main"]);
    for i in 0..3 {
        std::fs::write(work.join(format!("f{i}.txt")), format!("{i}\n")).unwrap();
        git(&work, &["add", "."]);
        git(&work, &["-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", &format!("c{i}")]);
    }
    git(dir, &["clone", "-q", "--bare", &work.to_string_lossy(), &path.to_string_lossy()]);
}

/// A forge without maintenance: a repack after a test's push runs a pack-objects of its own,
/// which the killed-clone test would take for the clone's.
fn forge(limits: Value) -> Forge {
    forge_with(limits, false)
}

fn forge_with(limits: Value, maintenance: bool) -> Forge {
    let dir = TempDir::new();
    let mut config =
        json!({"data_dir": dir.path().join("data"), "limits": limits, "maintenance": {"enabled": maintenance}});
    // On PostgreSQL (make test-rust-postgres), as a host of a cluster keeps its data.
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
    let (public, private) = (dir.path().join("public.git"), dir.path().join("secret.git"));
    seeded(dir.path(), &public);
    seeded(dir.path(), &private);
    admin(&ctx, json!({"command": "group_add", "path": "pub", "visibility": "public"}));
    admin(&ctx, json!({"command": "group_add", "path": "corp"}));
    admin(&ctx, json!({"command": "project_add", "path": "pub/repo", "repo": public, "visibility": "public"}));
    admin(&ctx, json!({"command": "project_add", "path": "corp/secret", "repo": private, "visibility": "private"}));
    let mut tokens = Vec::new();
    for (user, level) in [("mona", 40), ("dev", 30), ("rita", 20), ("gus", 10)] {
        admin(&ctx, json!({"command": "user_add", "username": user, "name": user, "email": format!("{user}@x.org")}));
        for project in ["pub/repo", "corp/secret"] {
            admin(&ctx, json!({"command": "member_add", "username": user, "project": project, "access_level": level}));
        }
        tokens.push(
            admin(&ctx, json!({"command": "token_add", "username": user}))["token"].as_str().unwrap().to_string(),
        );
    }
    admin(&ctx, json!({"command": "group_add", "path": "other"}));
    let empty = dir.path().join("empty.git");
    git(dir.path(), &["init", "-q", "--bare", "-b", "main", &empty.to_string_lossy()]);
    admin(&ctx, json!({"command": "project_add", "path": "corp/empty", "repo": empty, "visibility": "private"}));
    admin(&ctx, json!({"command": "member_add", "username": "mona", "project": "corp/empty", "access_level": 40}));
    let guest = tokens.pop().unwrap();
    let reporter = tokens.pop().unwrap();
    let developer = tokens.pop().unwrap();
    let maintainer = tokens.pop().unwrap();
    Forge { ctx, config, url, dir, public, private, maintainer, developer, reporter, guest }
}

impl Forge {
    /// `http://oauth2:<token>@host/<project>.git`, or without credentials.
    fn remote(&self, project: &str, token: Option<&str>) -> String {
        match token {
            Some(token) => self.remote_as("oauth2", project, token),
            None => format!("{}/{project}.git", self.url),
        }
    }

    /// `http://<user>:<token>@host/<project>.git`.
    fn remote_as(&self, user: &str, project: &str, token: &str) -> String {
        self.url.replacen("http://", &format!("http://{user}:{token}@"), 1) + &format!("/{project}.git")
    }

    /// The git client, isolated from this machine's configuration, in `cwd`.
    fn client(&self, cwd: &Path, protocol: u8, args: &[&str]) -> Output {
        let home = self.dir.path().join("client-home");
        std::fs::create_dir_all(&home).unwrap();
        Command::new("git")
            .current_dir(cwd)
            .arg("-c")
            .arg(format!("protocol.version={protocol}"))
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

    fn clone(&self, project: &str, token: Option<&str>, protocol: u8, name: &str) -> (Output, PathBuf) {
        let into = self.dir.path().join(name);
        let out = self.client(
            self.dir.path(),
            protocol,
            &["clone", "-q", &self.remote(project, token), &into.to_string_lossy()],
        );
        (out, into)
    }

    fn api(&self, path: &str, token: &str) -> (u16, Value) {
        self.send("GET", path, token, Value::Null)
    }

    /// An API request as `token`, with `body` as JSON unless it is null: its status and JSON.
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
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Commits a file in the work tree `work` (with its content) and answers the new commit.
fn commit(work: &Path, file: &str, content: &[u8]) -> String {
    std::fs::write(work.join(file), content).unwrap();
    git(work, &["add", file]);
    git(work, &["-c", "user.name=B", "-c", "user.email=b@example.com", "commit", "-q", "-m", file]);
    git_text(work, &["rev-parse", "HEAD"])
}

#[test]
fn anonymous_clone_of_a_public_project_in_v0_and_v2() {
    let _serial = serial();
    let forge = forge(json!({}));
    for protocol in [0u8, 2] {
        let (out, into) = forge.clone("pub/repo", None, protocol, &format!("anon-v{protocol}"));
        assert!(out.status.success(), "v{protocol}: {}", stderr(&out));
        assert_eq!(git_text(&into, &["rev-parse", "HEAD"]), git_text(&forge.public, &["rev-parse", "main"]));
        assert_eq!(git_text(&into, &["rev-list", "--count", "HEAD"]), "3");
        let remote = forge.remote("pub/repo", None);
        let listed = forge.client(&into, protocol, &["ls-remote", &remote]);
        assert!(String::from_utf8_lossy(&listed.stdout).contains("refs/heads/main"), "{}", stderr(&listed));
    }
    // The project's http_url_to_repo names this URL's path.
    let (status, project) = forge.api("/api/v4/projects/pub%2Frepo", &forge.reporter);
    assert_eq!(status, 200);
    assert!(project["http_url_to_repo"].as_str().unwrap().ends_with("/pub/repo.git"), "{project}");
}

#[test]
fn private_projects_ask_for_credentials_and_need_reporter() {
    let _serial = serial();
    let forge = forge(json!({}));
    let (out, _) = forge.clone("corp/secret", None, 2, "anon");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("could not read Username"), "git was challenged: {}", stderr(&out));
    // Missing projects look the same to anonymous callers.
    let (missing, _) = forge.clone("corp/nothing", None, 2, "anon-missing");
    assert!(stderr(&missing).contains("could not read Username"), "{}", stderr(&missing));
    for protocol in [0u8, 2] {
        let (out, into) = forge.clone("corp/secret", Some(&forge.reporter), protocol, &format!("rita-{protocol}"));
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(git_text(&into, &["rev-parse", "HEAD"]), git_text(&forge.private, &["rev-parse", "main"]));
    }
    let (bad, _) = forge.clone("corp/secret", Some("glpat-wrongwrongwrongwrongwrong"), 2, "bad");
    assert!(
        stderr(&bad).contains("Authentication failed") || stderr(&bad).contains("HTTP Basic: Access denied"),
        "{}",
        stderr(&bad)
    );
    // A guest sees the project but may not download its code.
    let (guest, _) = forge.clone("corp/secret", Some(&forge.guest), 2, "gus");
    assert!(!guest.status.success());
    assert!(stderr(&guest).contains("You are not allowed to download code from this project."), "{}", stderr(&guest));
    // Nor may a guest whose custom role grants read_code (GitLab's download_code needs
    // Reporter), though the API serves them the code.
    admin(&forge.ctx, json!({"command": "user_add", "username": "root", "admin": true}));
    let root =
        admin(&forge.ctx, json!({"command": "token_add", "username": "root"}))["token"].as_str().unwrap().to_string();
    let created = forgecore::http::handle(
        &forge.ctx,
        "POST",
        "/api/v4/groups/corp/member_roles",
        vec![("PRIVATE-TOKEN".into(), root.clone()), ("Content-Type".into(), "application/json".into())],
        json!({"name": "Code reader", "base_access_level": 10, "read_code": true}).to_string().as_bytes(),
    );
    assert_eq!(created.status, 201);
    let role: Value = serde_json::from_slice(&created.into_bytes().unwrap()).unwrap();
    admin(&forge.ctx, json!({"command": "user_add", "username": "grace"}));
    let grace =
        admin(&forge.ctx, json!({"command": "token_add", "username": "grace"}))["token"].as_str().unwrap().to_string();
    admin(
        &forge.ctx,
        json!({"command": "member_add", "group": "corp", "username": "grace", "access_level": 10,
                             "member_role_id": role["id"]}),
    );
    let (status, _) = forge.api("/api/v4/projects/corp%2Fsecret/repository/tree", &grace);
    assert_eq!(status, 200, "read_code reads code through the API");
    let (reader, _) = forge.clone("corp/secret", Some(&grace), 0, "grace");
    assert!(stderr(&reader).contains("You are not allowed to download code from this project."), "{}", stderr(&reader));
    // A guest whose custom role grants admin_merge_request may (its custom ability enables
    // download_code), but still may not push.
    let created = forgecore::http::handle(
        &forge.ctx,
        "POST",
        "/api/v4/groups/corp/member_roles",
        vec![("PRIVATE-TOKEN".into(), root.clone()), ("Content-Type".into(), "application/json".into())],
        json!({"name": "Reviewer", "base_access_level": 10, "admin_merge_request": true}).to_string().as_bytes(),
    );
    assert_eq!(created.status, 201);
    let reviewer_role: Value = serde_json::from_slice(&created.into_bytes().unwrap()).unwrap();
    admin(&forge.ctx, json!({"command": "user_add", "username": "rev"}));
    let rev =
        admin(&forge.ctx, json!({"command": "token_add", "username": "rev"}))["token"].as_str().unwrap().to_string();
    admin(
        &forge.ctx,
        json!({"command": "member_add", "group": "corp", "username": "rev", "access_level": 10,
               "member_role_id": reviewer_role["id"]}),
    );
    let (out, into) = forge.clone("corp/secret", Some(&rev), 2, "rev");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(git_text(&into, &["rev-parse", "HEAD"]), git_text(&forge.private, &["rev-parse", "main"]));
    let out = forge.client(&into, 0, &["push", &forge.remote("corp/secret", Some(&rev)), "HEAD:refs/heads/rev"]);
    assert!(stderr(&out).contains("You are not allowed to push code to this project."), "{}", stderr(&out));
    // An authenticated caller who cannot see a project is told it is not found.
    let (nothing, _) = forge.clone("corp/nothing", Some(&forge.reporter), 2, "nothing");
    assert!(stderr(&nothing).contains("could not be found"), "{}", stderr(&nothing));
}

#[test]
fn pushes_follow_the_protection_rule() {
    let _serial = serial();
    let forge = forge(json!({}));
    let (out, work) = forge.clone("pub/repo", Some(&forge.developer), 2, "dev");
    assert!(out.status.success(), "{}", stderr(&out));
    let dev_remote = forge.remote("pub/repo", Some(&forge.developer));
    // A new branch: seen by the API at once.
    git(&work, &["checkout", "-q", "-b", "feature"]);
    let tip = commit(&work, "feature.txt", b"feature\n");
    let out = forge.client(&work, 0, &["push", "-q", &dev_remote, "feature"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(git_text(&forge.public, &["rev-parse", "feature"]), tip);
    let (status, branch) = forge.api("/api/v4/projects/pub%2Frepo/repository/branches/feature", &forge.developer);
    assert_eq!(status, 200, "{branch}");
    assert_eq!(branch["commit"]["id"], tip);
    // The protected default branch: Developers may not push.
    let before = git_text(&forge.public, &["rev-parse", "main"]);
    git(&work, &["checkout", "-q", "main"]);
    let ahead = commit(&work, "main.txt", b"main\n");
    let refused = forge.client(&work, 0, &["push", &dev_remote, "main"]);
    assert!(!refused.status.success());
    let text = stderr(&refused);
    assert!(
        text.contains("remote: GitLab: You are not allowed to push code to protected branches on this project."),
        "{text}"
    );
    assert!(text.contains("[remote rejected] main -> main (pre-receive hook declined)"), "{text}");
    assert_eq!(git_text(&forge.public, &["rev-parse", "main"]), before);
    // A Maintainer fast-forwards it.
    let mona_remote = forge.remote("pub/repo", Some(&forge.maintainer));
    let out = forge.client(&work, 2, &["push", "-q", &mona_remote, "main"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(git_text(&forge.public, &["rev-parse", "main"]), ahead);
    // Nobody force-pushes it: a rewritten tip, whose objects only the push carries.
    git(&work, &["reset", "-q", "--hard", "HEAD~1"]);
    commit(&work, "other.txt", b"rewritten\n");
    let forced = forge.client(&work, 0, &["push", "--force", &mona_remote, "main"]);
    assert!(!forced.status.success());
    let text = stderr(&forced);
    assert!(
        text.contains("remote: GitLab: You are not allowed to force push code to a protected branch on this project."),
        "{text}"
    );
    assert!(text.contains("[remote rejected] main -> main (pre-receive hook declined)"), "{text}");
    assert_eq!(git_text(&forge.public, &["rev-parse", "main"]), ahead);
    // A force push to an unprotected branch is a Developer's to make.
    git(&work, &["checkout", "-q", "feature"]);
    git(&work, &["reset", "-q", "--hard", "HEAD~1"]);
    let rewritten = commit(&work, "feature2.txt", b"again\n");
    let out = forge.client(&work, 0, &["push", "-q", "--force", &dev_remote, "feature"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(git_text(&forge.public, &["rev-parse", "feature"]), rewritten);
    // Deleting the default branch is refused to everyone. A ref outside heads and tags is any
    // pusher's to write (decisions D13; this once asserted the refusal "only branches
    // (refs/heads/) and tags", which issue #43 found wrong: semantic-release pushes notes).
    let out = forge.client(&work, 0, &["push", &mona_remote, ":main"]);
    assert!(stderr(&out).contains("The default branch of a project cannot be deleted."), "{}", stderr(&out));
    let out = forge.client(&work, 0, &["push", &dev_remote, "HEAD:refs/notes/x"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(git_text(&forge.public, &["rev-parse", "refs/notes/x"]), rewritten);
    let hex = "0123456789abcdef0123456789abcdef01234567";
    let out = forge.client(&work, 0, &["push", &dev_remote, &format!("HEAD:refs/heads/{hex}")]);
    assert!(stderr(&out).contains("40-character hexadecimal branch name"), "{}", stderr(&out));
    // Push options, as GitLab's clients send them, are taken (and change nothing here).
    let out = forge.client(&work, 0, &["push", "-q", "-o", "ci.skip", &dev_remote, "feature:with-options"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(git_text(&forge.public, &["rev-parse", "with-options"]), rewritten);
    // A tag.
    git(&work, &["tag", "v1.0"]);
    let out = forge.client(&work, 2, &["push", "-q", &dev_remote, "v1.0"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (status, tag) = forge.api("/api/v4/projects/pub%2Frepo/repository/tags/v1.0", &forge.developer);
    assert_eq!((status, tag["commit"]["id"].as_str()), (200, Some(rewritten.as_str())), "{tag}");
    // Anonymous pushes are challenged; a Reporter may not push.
    let out = forge.client(&work, 0, &["push", &forge.remote("pub/repo", None), "feature:other"]);
    assert!(stderr(&out).contains("could not read Username"), "{}", stderr(&out));
    let out = forge.client(&work, 0, &["push", &forge.remote("pub/repo", Some(&forge.reporter)), "feature:other"]);
    assert!(stderr(&out).contains("You are not allowed to push code to this project."), "{}", stderr(&out));
}

/// Protects `name` in `pub/repo` through the API, as its Maintainer.
fn protect(forge: &Forge, name: &str) {
    let path = "/api/v4/projects/pub%2Frepo/protected_branches";
    assert_eq!(forge.send("POST", path, &forge.maintainer, json!({"name": name})).0, 201);
}

#[test]
fn a_push_that_only_deletes_refs_is_taken() {
    let _serial = serial();
    let forge = forge(json!({}));
    let (out, work) = forge.clone("pub/repo", Some(&forge.developer), 2, "dev");
    assert!(out.status.success(), "{}", stderr(&out));
    let dev_remote = forge.remote("pub/repo", Some(&forge.developer));
    let out = forge.client(&work, 0, &["push", "-q", &dev_remote, "HEAD:stale-1", "HEAD:stale-2", "HEAD:stale-3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Renovate's `git push --delete` of stale branches: git sends commands and no pack, so
    // receive-pack makes no quarantine. One branch, then two at once.
    let out = forge.client(&work, 0, &["push", "--delete", &dev_remote, "stale-1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = forge.client(&work, 2, &["push", "--delete", &dev_remote, "stale-2", "stale-3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(git(&forge.public, &["branch", "--list", "stale-*"]).is_empty(), "the branches are gone");
    // Protected branches and the default branch are refused as before.
    let out = forge.client(&work, 0, &["push", "-q", &dev_remote, "HEAD:release"]);
    assert!(out.status.success(), "{}", stderr(&out));
    protect(&forge, "release");
    let out = forge.client(&work, 0, &["push", "--delete", &dev_remote, "release"]);
    let text = stderr(&out);
    assert!(!out.status.success());
    assert!(
        text.contains(
            "remote: GitLab: You are not allowed to delete protected branches from this project. Only a project \
             maintainer or owner can delete a protected branch."
        ),
        "{text}"
    );
    assert!(text.contains("[remote rejected] release (pre-receive hook declined)"), "{text}");
    let out = forge.client(&work, 0, &["push", "--delete", &forge.remote("pub/repo", Some(&forge.maintainer)), "main"]);
    let text = stderr(&out);
    assert!(text.contains("remote: GitLab: The default branch of a project cannot be deleted."), "{text}");
    assert!(!git(&forge.public, &["branch", "--list", "release"]).is_empty());
    assert!(!git(&forge.public, &["branch", "--list", "main"]).is_empty());
}

#[test]
fn pushes_write_any_ref_but_gitlabs_reserved_namespaces() {
    let _serial = serial();
    let forge = forge(json!({}));
    let (out, work) = forge.clone("pub/repo", Some(&forge.developer), 2, "dev");
    assert!(out.status.success(), "{}", stderr(&out));
    let dev_remote = forge.remote("pub/repo", Some(&forge.developer));
    // semantic-release's notes ref: created, moved and deleted by a Developer.
    let notes = "refs/notes/semantic-release-v1.0.0";
    let note = |message: &str| {
        git(
            &work,
            &["-c", "user.name=B", "-c", "user.email=b@example.com", "notes", "--ref", notes, "add", "-f"]
                .into_iter()
                .chain(["-m", message, "HEAD"])
                .collect::<Vec<_>>(),
        );
    };
    for message in [r#"{"channels":[null]}"#, r#"{"channels":[null,"next"]}"#] {
        note(message);
        let out = forge.client(&work, 0, &["push", &dev_remote, notes]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(git_text(&forge.public, &["rev-parse", notes]), git_text(&work, &["rev-parse", notes]));
    }
    let out = forge.client(&work, 0, &["push", "--delete", &dev_remote, notes]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(git(&forge.public, &["for-each-ref", notes]).is_empty());
    // GitLab's reserved namespaces are refused to everyone, ref by ref, with git's words for a
    // hidden ref (Gitaly hides them from receive-pack); the rest of the push goes through.
    let tip = git_text(&work, &["rev-parse", "HEAD"]);
    let reserved = [
        "refs/merge-requests/1/head".to_string(),
        "refs/pipelines/1".to_string(),
        "refs/environments/1".to_string(),
        format!("refs/keep-around/{tip}"),
        "refs/tmp/1/head".to_string(),
    ];
    let mut specs = vec!["HEAD:refs/heads/beside-reserved".to_string()];
    specs.extend(reserved.iter().map(|name| format!("HEAD:{name}")));
    let mona_remote = forge.remote("pub/repo", Some(&forge.maintainer));
    let mut args = vec!["push", mona_remote.as_str()];
    args.extend(specs.iter().map(String::as_str));
    let out = forge.client(&work, 0, &args);
    let text = stderr(&out);
    assert!(!out.status.success(), "{text}");
    for name in &reserved {
        assert!(text.contains(&format!("[remote rejected] HEAD -> {name} (deny updating a hidden ref)")), "{text}");
        assert!(git(&forge.public, &["for-each-ref", name]).is_empty(), "{name} was not written");
    }
    assert_eq!(git_text(&forge.public, &["rev-parse", "beside-reserved"]), tip);
}

#[test]
fn personal_tokens_work_under_any_user_name_and_job_tokens_as_gitlab_ci_token_only() {
    let _serial = serial();
    let forge = forge(json!({}));
    // GitLab's find_for_git_client: a password that is no job token is tried as a personal
    // access token, whatever the user name, `gitlab-ci-token` included.
    let remote = forge.remote_as("gitlab-ci-token", "corp/secret", &forge.developer);
    let into = forge.dir.path().join("ci-personal");
    let out = forge.client(forge.dir.path(), 2, &["clone", "-q", &remote, &into.to_string_lossy()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(git_text(&into, &["rev-parse", "HEAD"]), git_text(&forge.private, &["rev-parse", "main"]));
    git(&into, &["checkout", "-q", "-b", "from-ci"]);
    let tip = commit(&into, "ci.txt", b"ci\n");
    let out = forge.client(&into, 0, &["push", "-q", &remote, "from-ci"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(git_text(&forge.private, &["rev-parse", "from-ci"]), tip);
    let out =
        forge.client(forge.dir.path(), 0, &["ls-remote", &forge.remote_as("renovate", "corp/secret", &forge.reporter)]);
    assert!(out.status.success(), "{}", stderr(&out));
    // A job token is one only as gitlab-ci-token.
    let job = admin(&forge.ctx, json!({"command": "job_token_add", "project": "corp/secret"}))["token"]
        .as_str()
        .unwrap()
        .to_string();
    let out = forge.client(forge.dir.path(), 0, &["ls-remote", &forge.remote_as("oauth2", "corp/secret", &job)]);
    let text = stderr(&out);
    assert!(!out.status.success());
    assert!(text.contains("Authentication failed") || text.contains("HTTP Basic: Access denied"), "{text}");
    let out =
        forge.client(forge.dir.path(), 0, &["ls-remote", &forge.remote_as("gitlab-ci-token", "corp/secret", &job)]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A token for mona (a maintainer of both projects) with `scopes`.
fn scoped_token(forge: &Forge, scopes: &[&str]) -> String {
    let made = admin(&forge.ctx, json!({"command": "token_add", "username": "mona", "scopes": scopes}));
    made["token"].as_str().unwrap_or_else(|| panic!("{made}")).to_string()
}

#[test]
fn token_scopes_decide_who_fetches_and_pushes() {
    let _serial = serial();
    let forge = forge(json!({}));
    // GitLab's abilities_for_scopes: read_api, read_repository, write_repository and api fetch;
    // write_repository and api push; read_user, self_rotate, k8s_proxy nothing.
    for (n, scope) in
        ["api", "read_api", "read_repository", "write_repository", "read_user", "self_rotate", "k8s_proxy"]
            .iter()
            .enumerate()
    {
        let token = scoped_token(&forge, &[scope]);
        let (fetch, push) = match *scope {
            "api" | "write_repository" => (true, true),
            "read_api" | "read_repository" => (true, false),
            _ => (false, false),
        };
        let (out, into) =
            forge.clone("corp/secret", Some(&token), if n % 2 == 0 { 2 } else { 0 }, &format!("scope-{scope}"));
        assert_eq!(out.status.success(), fetch, "{scope} clone: {}", stderr(&out));
        if !fetch {
            assert!(stderr(&out).contains("You are not allowed to download code."), "{scope}: {}", stderr(&out));
            // Refused before the project is looked up: a missing project says the same.
            let (missing, _) = forge.clone("corp/nothing", Some(&token), 2, &format!("scope-{scope}-missing"));
            assert!(stderr(&missing).contains("You are not allowed to download code."), "{}", stderr(&missing));
            continue;
        }
        git(&into, &["checkout", "-q", "-b", &format!("by-{scope}")]);
        let tip = commit(&into, "scoped.txt", scope.as_bytes());
        let remote = forge.remote("corp/secret", Some(&token));
        let out = forge.client(&into, 0, &["push", "-q", &remote, &format!("by-{scope}")]);
        assert_eq!(out.status.success(), push, "{scope} push: {}", stderr(&out));
        if push {
            assert_eq!(git_text(&forge.private, &["rev-parse", &format!("by-{scope}")]), tip);
        } else {
            assert!(stderr(&out).contains("You are not allowed to upload code."), "{scope}: {}", stderr(&out));
            let fetched = forge.client(&into, 2, &["fetch", "-q", &remote]);
            assert!(fetched.status.success(), "{scope} fetch: {}", stderr(&fetched));
        }
    }
    // Expired and revoked tokens are no credentials to git: the challenge, as a wrong token.
    let made = admin(&forge.ctx, json!({"command": "token_add", "username": "mona", "scopes": ["api"]}));
    let token = made["token"].as_str().unwrap().to_string();
    let (out, _) = forge.clone("corp/secret", Some(&token), 2, "live");
    assert!(out.status.success(), "{}", stderr(&out));
    forge
        .ctx
        .store
        .write(|db| -> forgecore::store::StoreResult<_> {
            db.execute(
                "UPDATE personal_access_tokens SET expires_at = '2020-01-01' WHERE id = $1",
                &[&made["id"].as_i64().unwrap()],
            )
        })
        .unwrap();
    let (out, _) = forge.clone("corp/secret", Some(&token), 2, "expired");
    assert!(!out.status.success());
    let text = stderr(&out);
    assert!(text.contains("Authentication failed") || text.contains("HTTP Basic: Access denied"), "{text}");
    let other = scoped_token(&forge, &["write_repository"]);
    let (status, _) = forge.send("DELETE", "/api/v4/personal_access_tokens/self", &other, Value::Null);
    assert_eq!(status, 204);
    let (out, _) = forge.clone("corp/secret", Some(&other), 0, "revoked");
    let text = stderr(&out);
    assert!(
        !out.status.success() && (text.contains("Authentication failed") || text.contains("HTTP Basic: Access denied")),
        "{text}"
    );
}

#[test]
fn sudo_and_admin_mode_alone_give_git_nothing_even_to_an_administrator() {
    let _serial = serial();
    let forge = forge(json!({}));
    // The last two of the nine scopes: GitLab's abilities_for_scopes maps neither `sudo` nor
    // `admin_mode` to download_code or push_code, so alone they neither clone nor push, even
    // for an administrator, who clones with `api` and `sudo` together.
    admin(&forge.ctx, json!({"command": "user_add", "username": "root", "admin": true}));
    for (n, scopes) in [vec!["sudo"], vec!["admin_mode"], vec!["api", "sudo"]].iter().enumerate() {
        let made = admin(&forge.ctx, json!({"command": "token_add", "username": "root", "scopes": scopes}));
        let token = made["token"].as_str().unwrap_or_else(|| panic!("{made}")).to_string();
        let (out, _) = forge.clone("corp/secret", Some(&token), 2, &format!("admin-scopes-{n}"));
        let fetch = scopes.contains(&"api");
        assert_eq!(out.status.success(), fetch, "{scopes:?}: {}", stderr(&out));
        if !fetch {
            assert!(stderr(&out).contains("You are not allowed to download code."), "{scopes:?}: {}", stderr(&out));
        }
    }
}

#[test]
fn a_symbolic_ref_is_judged_by_the_ref_it_points_to() {
    let _serial = serial();
    let forge = forge(json!({}));
    git(&forge.public, &["symbolic-ref", "refs/heads/alias", "refs/heads/main"]);
    git(&forge.public, &["branch", "open", "main"]);
    git(&forge.public, &["symbolic-ref", "refs/heads/open-alias", "refs/heads/open"]);
    git(&forge.public, &["symbolic-ref", "refs/heads/into-reserved", "refs/merge-requests/1/head"]);
    let heard = Arc::new(Heard::default());
    forge.ctx.events.listen(heard.clone());
    let (out, work) = forge.clone("pub/repo", Some(&forge.developer), 2, "dev");
    assert!(out.status.success(), "{}", stderr(&out));
    let dev_remote = forge.remote("pub/repo", Some(&forge.developer));
    let mona_remote = forge.remote("pub/repo", Some(&forge.maintainer));
    let main = git_text(&forge.public, &["rev-parse", "refs/heads/main"]);
    // git's receive-pack writes through a symbolic ref: pushing `alias` would move main.
    commit(&work, "alias.txt", b"alias\n");
    let out = forge.client(&work, 0, &["push", &dev_remote, "HEAD:refs/heads/alias"]);
    let text = stderr(&out);
    assert!(!out.status.success());
    assert!(
        text.contains("remote: GitLab: You are not allowed to push code to protected branches on this project."),
        "{text}"
    );
    assert_eq!(git_text(&forge.public, &["rev-parse", "refs/heads/main"]), main);
    // Nor is main force-pushed or deleted that way.
    git(&work, &["reset", "-q", "--hard", "HEAD~2"]);
    let rewritten = commit(&work, "rewritten.txt", b"r\n");
    let out = forge.client(&work, 0, &["push", "--force", &mona_remote, "HEAD:refs/heads/alias"]);
    let text = stderr(&out);
    assert!(
        text.contains("remote: GitLab: You are not allowed to force push code to a protected branch on this project."),
        "{text}"
    );
    let out = forge.client(&work, 0, &["push", "--delete", &mona_remote, "alias"]);
    let text = stderr(&out);
    assert!(text.contains("remote: GitLab: The default branch of a project cannot be deleted."), "{text}");
    assert_eq!(git_text(&forge.public, &["rev-parse", "refs/heads/main"]), main);
    // One that points into a reserved namespace writes nothing there.
    let out = forge.client(&work, 0, &["push", &mona_remote, "HEAD:refs/heads/into-reserved"]);
    let text = stderr(&out);
    assert!(!out.status.success() && text.contains("deny updating a hidden ref"), "{text}");
    assert!(git(&forge.public, &["for-each-ref", "refs/merge-requests/"]).is_empty());
    // Through one that points to an open branch, a Developer moves that branch.
    let out = forge.client(&work, 0, &["push", "--force", &dev_remote, "HEAD:refs/heads/open-alias"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(git_text(&forge.public, &["rev-parse", "refs/heads/open"]), rewritten);
    assert_eq!(git_text(&forge.public, &["symbolic-ref", "refs/heads/open-alias"]), "refs/heads/open");
    // What moved is announced by its own name, the end of the chain, not the name pushed.
    let events = heard.take();
    let names: Vec<_> = events.iter().flat_map(|e| e.updates.iter().map(|u| u.name.clone())).collect();
    assert_eq!(names, ["refs/heads/open"], "{events:?}");
    assert_eq!(events[0].updates[0].new.map(|id| id.to_string()), Some(rewritten));
}

#[test]
fn another_host_sees_a_push_at_once() {
    let _serial = serial();
    let forge = forge(json!({}));
    // A second host on the same data (the same SQLite file, or the same PostgreSQL database with
    // its own memos and listener), which answers from the old refs first.
    let mut config = forge.config.clone();
    if config.get("store").is_some() {
        config["data_dir"] = json!(forge.dir.path().join("other-host"));
    }
    let other = Context::from_json(&config.to_string()).unwrap();
    let get = |path: &str| {
        let headers = vec![("PRIVATE-TOKEN".to_string(), forge.developer.clone())];
        let response = forgecore::http::handle(&other, "GET", path, headers, b"");
        let status = response.status;
        (status, serde_json::from_slice::<Value>(&response.into_bytes().unwrap()).unwrap_or(Value::Null))
    };
    let branch = "/api/v4/projects/pub%2Frepo/repository/branches/elsewhere";
    assert_eq!(get(branch).0, 404);
    let (out, work) = forge.clone("pub/repo", Some(&forge.developer), 2, "dev");
    assert!(out.status.success(), "{}", stderr(&out));
    git(&work, &["checkout", "-q", "-b", "elsewhere"]);
    let tip = commit(&work, "elsewhere.txt", b"x\n");
    let out = forge.client(&work, 0, &["push", "-q", &forge.remote("pub/repo", Some(&forge.developer)), "elsewhere"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (status, seen) = get(branch);
    assert_eq!((status, seen["commit"]["id"].as_str()), (200, Some(tip.as_str())), "{seen}");
}

#[test]
fn job_tokens_fetch_their_own_project_only() {
    let _serial = serial();
    let forge = forge(json!({}));
    let job = admin(&forge.ctx, json!({"command": "job_token_add", "project": "corp/secret"}))["token"]
        .as_str()
        .unwrap()
        .to_string();
    let remote = forge.url.replacen("http://", &format!("http://gitlab-ci-token:{job}@"), 1) + "/corp/secret.git";
    let into = forge.dir.path().join("job");
    let out = forge.client(forge.dir.path(), 2, &["clone", "-q", &remote, &into.to_string_lossy()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(git_text(&into, &["rev-parse", "HEAD"]), git_text(&forge.private, &["rev-parse", "main"]));
    // Not a push token.
    git(&into, &["checkout", "-q", "-b", "from-job"]);
    let out = forge.client(&into, 0, &["push", &remote, "from-job"]);
    assert!(stderr(&out).contains("You are not allowed to push code to this project."), "{}", stderr(&out));
    // Another private project is not its to see; a public one is anyone's.
    let other = forge.url.replacen("http://", &format!("http://gitlab-ci-token:{job}@"), 1) + "/corp/empty.git";
    let out = forge.client(forge.dir.path(), 2, &["ls-remote", &other]);
    assert!(stderr(&out).contains("could not be found"), "{}", stderr(&out));
    let public = forge.url.replacen("http://", &format!("http://gitlab-ci-token:{job}@"), 1) + "/pub/repo.git";
    let out = forge.client(forge.dir.path(), 2, &["ls-remote", &public]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_first_push_fills_an_empty_repository() {
    let _serial = serial();
    let forge = forge_with(json!({}), true);
    let (status, project) = forge.api("/api/v4/projects/corp%2Fempty", &forge.maintainer);
    assert_eq!((status, &project["empty_repo"]), (200, &json!(true)), "{project}");
    let work = forge.dir.path().join("first");
    std::fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "-q", "-b", "main"]);
    let tip = commit(&work, "README.md", b"first\n");
    let out = forge.client(&work, 0, &["push", "-q", &forge.remote("corp/empty", Some(&forge.maintainer)), "main"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (_, project) = forge.api("/api/v4/projects/corp%2Fempty", &forge.maintainer);
    assert_eq!((&project["empty_repo"], &project["default_branch"]), (&json!(false), &json!("main")), "{project}");
    let (status, branches) = forge.api("/api/v4/projects/corp%2Fempty/repository/branches", &forge.maintainer);
    assert_eq!(status, 200);
    assert_eq!(branches[0]["commit"]["id"], tip, "{branches}");
    // The push queued maintenance (a listener of its RefsMoved event): the repository
    // gets its commit-graph with changed-path Bloom filters, its run recorded as after a change.
    assert!(forge.ctx.maintenance.wait_idle(Duration::from_secs(60)));
    let empty = forge.dir.path().join("empty.git");
    assert!(forgecore::git::bloom::load(&empty.join("objects")).is_some(), "a commit-graph with filters");
    let record = forgecore::git::maintenance::record::load(&empty);
    assert!(record.runs.iter().any(|run| run.reason == "changed" && run.outcome == "done"), "{record:?}");
}

#[test]
fn limits_refuse_cleanly() {
    let _serial = serial();
    let forge = forge(json!({"git_push_max_bytes": 200_000}));
    let (out, work) = forge.clone("pub/repo", Some(&forge.developer), 0, "dev");
    assert!(out.status.success(), "{}", stderr(&out));
    git(&work, &["checkout", "-q", "-b", "big"]);
    // 2 MiB that do not compress: chunked on the way, over the limit once unpacked.
    let mut noise = Vec::with_capacity(2 << 20);
    let mut x: u64 = 0x9e3779b97f4a7c15;
    while noise.len() < 2 << 20 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        noise.extend_from_slice(&x.to_le_bytes());
    }
    commit(&work, "noise.bin", &noise);
    let out = forge.client(&work, 0, &["push", &forge.remote("pub/repo", Some(&forge.developer)), "big"]);
    assert!(!out.status.success(), "a push over the limit is refused");
    assert!(stderr(&out).contains("remote: fatal: pack exceeds maximum allowed size"), "{}", stderr(&out));
    assert!(git(&forge.public, &["branch", "--list", "big"]).is_empty(), "the branch was not made");
    // A negotiation body over 10 MiB: 413 before it is all read.
    let headers = vec![("Content-Type".to_string(), "application/x-git-upload-pack-request".to_string())];
    let Opened::Body(mut sink) =
        call::open(&forge.ctx, Meta::default(), "POST", "/pub/repo.git/git-upload-pack", headers)
    else {
        panic!("the negotiation is taken as a stream")
    };
    let piece = vec![b'0'; 64 * 1024];
    let mut answer = None;
    for _ in 0..200 {
        answer = sink.write(&forge.ctx, &piece);
        if answer.is_some() {
            break;
        }
    }
    let answer = answer.expect("refused before 12.5 MiB");
    assert_eq!(answer.status, 413);
    // The announced length alone is enough.
    let headers = vec![
        ("Content-Type".to_string(), "application/x-git-upload-pack-request".to_string()),
        ("Content-Length".to_string(), (11u64 << 20).to_string()),
    ];
    let Opened::Answer(early) =
        call::open(&forge.ctx, Meta::default(), "POST", "/pub/repo.git/git-upload-pack", headers)
    else {
        panic!("answered at once")
    };
    assert_eq!(early.status, 413);
}

#[test]
fn git_programs_per_repository_are_capped() {
    let _serial = serial();
    let forge = forge(json!({"git_per_repository": 1}));
    let refs = "/pub/repo.git/info/refs?service=git-upload-pack";
    // A program running (an advertisement its client has not read yet) holds the place.
    let Opened::Answer(held) = call::open(&forge.ctx, Meta::default(), "GET", refs, vec![]) else {
        panic!("info/refs answers at once")
    };
    assert_eq!(held.status, 200);
    let Opened::Answer(busy) = call::open(&forge.ctx, Meta::default(), "GET", refs, vec![]) else {
        panic!("info/refs answers at once")
    };
    assert_eq!(busy.status, 503);
    assert!(busy.header("Retry-After").is_some());
    // A fetch whose body is complete would start one more: refused the same way.
    let headers = vec![("Content-Type".to_string(), "application/x-git-upload-pack-request".to_string())];
    let Opened::Body(fetch) = call::open(&forge.ctx, Meta::default(), "POST", "/pub/repo.git/git-upload-pack", headers)
    else {
        panic!("the negotiation is taken as a stream")
    };
    let busy = fetch.finish(&forge.ctx);
    assert_eq!(busy.status, 503);
    assert!(busy.header("Retry-After").is_some());
    assert!(held.into_bytes().unwrap().starts_with(b"001e# service=git-upload-pack\n0000"));
    let Opened::Answer(served) = call::open(&forge.ctx, Meta::default(), "GET", refs, vec![]) else {
        panic!("info/refs answers at once")
    };
    assert_eq!(served.status, 200);
    assert!(served.into_bytes().unwrap().starts_with(b"001e# service=git-upload-pack\n0000"));
    // No dumb protocol; HEAD is refused; a wrong content type is 415.
    let answer = |method: &str, target: &str, headers: Vec<(String, String)>| match call::open(
        &forge.ctx,
        Meta::default(),
        method,
        target,
        headers,
    ) {
        Opened::Answer(response) => response.status,
        Opened::Body(sink) => sink.finish(&forge.ctx).status,
    };
    assert_eq!(answer("GET", "/pub/repo.git/info/refs", vec![]), 404);
    assert_eq!(answer("HEAD", "/pub/repo.git/info/refs?service=git-upload-pack", vec![]), 403);
    let json = vec![("Content-Type".to_string(), "application/json".to_string())];
    assert_eq!(answer("POST", "/pub/repo.git/git-upload-pack", json), 415);
}

/// A process's command line (arguments joined by spaces) and working directory.
fn process(pid: u32) -> Option<(String, PathBuf)> {
    let proc = PathBuf::from(format!("/proc/{pid}"));
    let cmdline = std::fs::read(proc.join("cmdline")).ok()?;
    let cwd = std::fs::read_link(proc.join("cwd")).unwrap_or_default();
    Some((String::from_utf8_lossy(&cmdline).replace('\0', " "), cwd))
}

/// The processes serving the repository at `repo` (a canonical path): those the core started
/// name it on their command line, and the programs they start (upload-pack's pack-objects) run
/// in it. Another test's or the client's processes do neither.
fn serving(repo: &Path) -> Vec<(u32, String)> {
    let needle = repo.to_string_lossy();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Some((cmdline, cwd)) = process(pid) else { continue };
        if !cmdline.is_empty() && (cmdline.contains(&*needle) || cwd == repo) {
            found.push((pid, cmdline));
        }
    }
    found
}

#[test]
fn a_client_killed_mid_clone_leaves_no_process_behind() {
    use std::os::unix::process::CommandExt;
    let _serial = serial();
    let forge = forge(json!({}));
    // A repository large enough that a clone takes a while: 24 MiB of incompressible files.
    let (out, work) = forge.clone("pub/repo", Some(&forge.maintainer), 0, "mona");
    assert!(out.status.success(), "{}", stderr(&out));
    let mut x: u64 = 88172645463325252;
    for file in 0..6 {
        let mut noise = Vec::with_capacity(4 << 20);
        while noise.len() < 4 << 20 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            noise.extend_from_slice(&x.to_le_bytes());
        }
        std::fs::write(work.join(format!("big{file}.bin")), &noise).unwrap();
    }
    git(&work, &["add", "."]);
    git(&work, &["-c", "user.name=B", "-c", "user.email=b@example.com", "commit", "-q", "-m", "big"]);
    let out = forge.client(&work, 0, &["push", "-q", &forge.remote("pub/repo", Some(&forge.maintainer)), "main"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let repo = forge.public.canonicalize().unwrap();
    let into = forge.dir.path().join("killed");
    // The client leads a process group of its own, so that killing it kills all of it (its
    // remote helper and fetch-pack would otherwise go on reading the clone, and the server
    // would rightly go on sending it).
    let mut client = Command::new("git")
        .args(["-c", "protocol.version=2", "clone", "-q", &forge.remote("pub/repo", None), &into.to_string_lossy()])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    // Wait until the server runs pack-objects for this clone (the POST, after the advertisement).
    let packing = || serving(&repo).iter().any(|(_, cmdline)| cmdline.contains("pack-objects"));
    let until = Instant::now() + Duration::from_secs(20);
    while !packing() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(packing(), "the clone was killed while the server packed");
    // SAFETY: kill(2) with the client's process group, which only it and its children are in.
    assert_eq!(unsafe { libc::kill(-(client.id() as i32), libc::SIGKILL) }, 0);
    client.wait().unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let left = serving(&repo);
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < until, "still running after the client died: {left:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn hostile_configuration_and_repository_hooks_never_run() {
    let _serial = serial();
    let forge = forge(json!({}));
    let marker = forge.dir.path().join("pwned");
    // The host's own HOME has a configuration an attacker wrote.
    let home = forge.dir.path().join("host-home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join(".gitconfig"),
        format!("[uploadpack]\n\tpackObjectsHook = touch {} && exec\n", marker.display()),
    )
    .unwrap();
    let old_home = std::env::var_os("HOME");
    std::env::set_var("HOME", &home);
    // The repository has hooks of its own.
    for hook in ["pre-receive", "update", "post-receive", "post-update"] {
        let path = forge.public.join("hooks").join(hook);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("#!/bin/sh\ntouch {}\nexit 1\n", marker.display())).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    let (out, work) = forge.clone("pub/repo", Some(&forge.developer), 2, "dev");
    let cloned = out.status.success();
    git(&work, &["checkout", "-q", "-b", "hooked"]);
    commit(&work, "h.txt", b"h\n");
    let pushed = forge.client(&work, 0, &["push", "-q", &forge.remote("pub/repo", Some(&forge.developer)), "hooked"]);
    match old_home {
        Some(old) => std::env::set_var("HOME", old),
        None => std::env::remove_var("HOME"),
    }
    assert!(cloned, "{}", stderr(&out));
    assert!(pushed.status.success(), "the repository's failing pre-receive did not run: {}", stderr(&pushed));
    assert!(!marker.exists(), "a hostile hook ran");
}

/// An upload-pack request, gzip-compressed as git sends bodies over 1 KiB, through the sink.
fn gzip_post(forge: &Forge, body: &[u8]) -> forgecore::Response {
    use flate2::write::GzEncoder;
    let mut encoder = GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(body).unwrap();
    let compressed = encoder.finish().unwrap();
    let headers = vec![
        ("Content-Type".to_string(), "application/x-git-upload-pack-request".to_string()),
        ("Content-Encoding".to_string(), "gzip".to_string()),
    ];
    let Opened::Body(mut sink) =
        call::open(&forge.ctx, Meta::default(), "POST", "/pub/repo.git/git-upload-pack", headers)
    else {
        panic!("the negotiation is taken as a stream")
    };
    for piece in compressed.chunks(1000) {
        if let Some(early) = sink.write(&forge.ctx, piece) {
            return early;
        }
    }
    sink.finish(&forge.ctx)
}

#[test]
fn gzip_negotiations_are_inflated_and_bombs_refused() {
    let _serial = serial();
    let forge = forge(json!({}));
    let tip = git_text(&forge.public, &["rev-parse", "main"]);
    let mut request = String::from_utf8(forgecore::transport::pkt_line(format!("want {tip}\n").as_bytes())).unwrap();
    request.push_str("0000");
    // Haves the repository does not know, as many as make git compress a body (over 1 KiB).
    for i in 0..40u32 {
        let unknown = format!("{i:040x}");
        request.push_str(
            &String::from_utf8(forgecore::transport::pkt_line(format!("have {unknown}\n").as_bytes())).unwrap(),
        );
    }
    request.push_str(&String::from_utf8(forgecore::transport::pkt_line(b"done\n")).unwrap());
    let answer = gzip_post(&forge, request.as_bytes());
    assert_eq!(answer.status, 200);
    let body = answer.into_bytes().unwrap();
    assert!(body.windows(4).any(|w| w == b"PACK"), "a pack: {}", String::from_utf8_lossy(&body[..body.len().min(200)]));
    // 11 MiB of zeros are a few kilobytes compressed: refused once inflated past 10 MiB.
    let bomb = vec![b'0'; 11 << 20];
    let answer = gzip_post(&forge, &bomb);
    assert_eq!(answer.status, 413);
}

/// Hears the context's events, as an embedder's listener would.
#[derive(Default)]
struct Heard(std::sync::Mutex<Vec<forgecore::events::RefsMoved>>);

impl forgecore::events::Listener for Heard {
    fn heard(&self, event: &forgecore::events::Event) {
        let forgecore::events::Event::RefsMoved(moved) = event else { return };
        self.0.lock().unwrap().push(moved.clone());
    }
}

impl Heard {
    fn take(&self) -> Vec<forgecore::events::RefsMoved> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// `(name, old, new)` of each update, zero ids as `None`, sorted by name.
fn updates(moved: &forgecore::events::RefsMoved) -> Vec<(String, Option<String>, Option<String>)> {
    let mut out: Vec<_> = moved
        .updates
        .iter()
        .map(|u| (u.name.clone(), u.old.map(|id| id.to_string()), u.new.map(|id| id.to_string())))
        .collect();
    out.sort();
    out
}

#[test]
fn pushes_and_api_writes_announce_what_moved_once() {
    use forgecore::events::Through;
    let _serial = serial();
    let forge = forge(json!({}));
    let heard = Arc::new(Heard::default());
    forge.ctx.events.listen(heard.clone());
    let project_id = forge.api("/api/v4/projects/pub%2Frepo", &forge.maintainer).1["id"].as_i64().unwrap();
    let mona = forge.api("/api/v4/user", &forge.maintainer).1["id"].as_i64().unwrap();
    let (out, work) = forge.clone("pub/repo", Some(&forge.maintainer), 2, "events");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(heard.take().is_empty(), "a clone moves nothing");
    // One push of two refs: one announcement with both.
    let before = git_text(&forge.public, &["rev-parse", "main"]);
    let main = commit(&work, "a.txt", b"a\n");
    git(&work, &["branch", "topic"]);
    let remote = forge.remote("pub/repo", Some(&forge.maintainer));
    let out = forge.client(&work, 2, &["push", "-q", &remote, "main", "topic"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let events = heard.take();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!((events[0].project_id, events[0].through, events[0].user_id), (project_id, Through::Push, Some(mona)));
    assert_eq!(
        updates(&events[0]),
        [
            ("refs/heads/main".to_string(), Some(before), Some(main.clone())),
            ("refs/heads/topic".to_string(), None, Some(main.clone())),
        ]
    );
    // Pushes refused before receive-pack starts (a Developer on the protected default branch)
    // or by its pre-receive hook (a force push of it) moved nothing.
    let developer = forge.remote("pub/repo", Some(&forge.developer));
    commit(&work, "b.txt", b"b\n");
    let refused = forge.client(&work, 0, &["push", &developer, "main"]);
    assert!(!refused.status.success());
    git(&work, &["reset", "-q", "--hard", "HEAD~2"]);
    commit(&work, "rewritten.txt", b"r\n");
    let forced = forge.client(&work, 0, &["push", "--force", &remote, "main"]);
    assert!(stderr(&forced).contains("pre-receive hook declined"), "{}", stderr(&forced));
    assert!(heard.take().is_empty(), "a refused push announces nothing");
    // A REST commit: one announcement, from the write path, of exactly the branch's move.
    let body = json!({"branch": "main", "content": "c\n", "commit_message": "c"});
    let files = "/api/v4/projects/pub%2Frepo/repository/files/c.txt";
    assert_eq!(forge.send("POST", files, &forge.maintainer, body).0, 201);
    let after = git_text(&forge.public, &["rev-parse", "main"]);
    let events = heard.take();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!((events[0].through, events[0].user_id), (Through::Api, Some(mona)));
    assert_eq!(updates(&events[0]), [("refs/heads/main".to_string(), Some(main.clone()), Some(after))]);
    // A branch deleted through the API.
    let topic = "/api/v4/projects/pub%2Frepo/repository/branches/topic";
    assert_eq!(forge.send("DELETE", topic, &forge.maintainer, Value::Null).0, 204);
    let events = heard.take();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(updates(&events[0]), [("refs/heads/topic".to_string(), Some(main), None)]);
    // A write refused before anything moved announces nothing.
    let nothing = "/api/v4/projects/pub%2Frepo/repository/branches/nothing";
    assert_eq!(forge.send("DELETE", nothing, &forge.maintainer, Value::Null).0, 404);
    assert!(heard.take().is_empty());
}

/// GitLab's tag check on a push: a tag named like the default branch (which would shadow it
/// for every read of `main` by name), like a full commit id, or like `refs/tags/...`.
#[test]
fn pushed_tags_gitlab_prohibits_are_refused() {
    let _serial = serial();
    let forge = forge(json!({}));
    let (out, work) = forge.clone("pub/repo", Some(&forge.developer), 2, "tags");
    assert!(out.status.success(), "{}", stderr(&out));
    let remote = forge.remote("pub/repo", Some(&forge.developer));
    let sha = git_text(&work, &["rev-parse", "HEAD~1"]);
    for (refspec, message) in [
        ("HEAD~1:refs/tags/main", "GitLab: You cannot use default branch name to create a tag"),
        (
            &format!("HEAD~1:refs/tags/{sha}") as &str,
            "GitLab: You cannot create a tag with a SHA-1 or SHA-256 tag name.",
        ),
        ("HEAD~1:refs/tags/refs/tags/x", "GitLab: You cannot create a tag with a prohibited pattern."),
    ] {
        let out = forge.client(&work, 0, &["push", &remote, refspec]);
        assert!(!out.status.success(), "{refspec}");
        assert!(stderr(&out).contains(message), "{refspec}: {}", stderr(&out));
    }
    assert!(git_text(&forge.public, &["for-each-ref", "refs/tags/"]).is_empty());
    assert_eq!(git_text(&forge.public, &["rev-parse", "main"]), git_text(&work, &["rev-parse", "HEAD"]));
    // A tag named like another branch is GitLab's to accept.
    let out = forge.client(&work, 0, &["push", "-q", &remote, "HEAD~1:refs/tags/feature-x"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// An empty project's first branch becomes its default branch, protected as GitLab protects a
/// new project's default branch, whether a push or a REST commit makes it.
#[test]
fn an_empty_projects_first_branch_is_its_default_branch_and_protected() {
    let _serial = serial();
    let forge = forge(json!({}));
    let work = forge.dir.path().join("first-develop");
    std::fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "-q", "-b", "develop"]);
    let tip = commit(&work, "README.md", b"first\n");
    let out = forge.client(&work, 0, &["push", "-q", &forge.remote("corp/empty", Some(&forge.maintainer)), "develop"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (_, project) = forge.api("/api/v4/projects/corp%2Fempty", &forge.maintainer);
    assert_eq!(project["default_branch"], "develop", "{project}");
    let empty = forge.dir.path().join("empty.git");
    assert_eq!(git_text(&empty, &["symbolic-ref", "HEAD"]), "refs/heads/develop");
    let (status, protected) = forge.api("/api/v4/projects/corp%2Fempty/protected_branches/develop", &forge.maintainer);
    assert_eq!((status, &protected["allow_force_push"]), (200, &json!(false)), "{protected}");
    // Protected indeed: a Developer may not push to it.
    admin(&forge.ctx, json!({"command": "member_add", "username": "dev", "project": "corp/empty", "access_level": 30}));
    let ahead = commit(&work, "more.txt", b"more\n");
    let refused = forge.client(&work, 0, &["push", &forge.remote("corp/empty", Some(&forge.developer)), "develop"]);
    assert!(
        stderr(&refused).contains("You are not allowed to push code to protected branches"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(git_text(&empty, &["rev-parse", "develop"]), tip);
    assert_ne!(tip, ahead);

    // The same for a first REST commit to another branch than HEAD names.
    let bare = forge.dir.path().join("rest-empty.git");
    git(forge.dir.path(), &["init", "-q", "--bare", "-b", "main", &bare.to_string_lossy()]);
    admin(
        &forge.ctx,
        json!({"command": "project_add", "path": "corp/rest-empty", "repo": bare, "visibility": "private"}),
    );
    admin(
        &forge.ctx,
        json!({"command": "member_add", "username": "mona", "project": "corp/rest-empty", "access_level": 40}),
    );
    let body = json!({"branch": "trunk", "content": "x\n", "commit_message": "first"});
    let files = "/api/v4/projects/corp%2Frest-empty/repository/files/x.txt";
    assert_eq!(forge.send("POST", files, &forge.maintainer, body).0, 201);
    let (_, project) = forge.api("/api/v4/projects/corp%2Frest-empty", &forge.maintainer);
    assert_eq!(project["default_branch"], "trunk", "{project}");
    let (status, _) = forge.api("/api/v4/projects/corp%2Frest-empty/protected_branches/trunk", &forge.maintainer);
    assert_eq!(status, 200, "trunk is protected");
}

/// A served work tree (`make run` serves the user's own checkout) never goes out of step with
/// its branch: writes to the checked-out branch are refused on every path, as git's
/// `receive.denyCurrentBranch` refuses a push to it, unless the repository says otherwise.
#[test]
fn the_checked_out_branch_of_a_work_tree_is_not_written() {
    let _serial = serial();
    let forge = forge(json!({}));
    let tree = forge.dir.path().join("checkout");
    std::fs::create_dir_all(&tree).unwrap();
    git(&tree, &["init", "-q", "-b", "main"]);
    let tip = commit(&tree, "README.md", b"mine\n");
    admin(
        &forge.ctx,
        json!({"command": "project_add", "path": "corp/checkout", "repo": tree, "visibility": "private"}),
    );
    admin(
        &forge.ctx,
        json!({"command": "member_add", "username": "mona", "project": "corp/checkout", "access_level": 40}),
    );
    let post = |path: &str, body: Value| forge.send("POST", path, &forge.maintainer, body);
    let refused = json!({"message": "refusing to update checked out branch: refs/heads/main"});
    let file = "/api/v4/projects/corp%2Fcheckout/repository/files/new.txt";
    assert_eq!(post(file, json!({"branch": "main", "content": "x", "commit_message": "x"})), (400, refused.clone()));
    let actions = json!([{"action": "create", "file_path": "b.txt", "content": "b"}]);
    let commits = "/api/v4/projects/corp%2Fcheckout/repository/commits";
    assert_eq!(post(commits, json!({"branch": "main", "commit_message": "b", "actions": actions})), (400, refused));
    assert_eq!(git_text(&tree, &["rev-parse", "HEAD"]), tip, "the work tree's branch did not move");
    assert_eq!(git_text(&tree, &["status", "--porcelain"]), "");
    // Other branches are the API's to write.
    let (status, body) =
        post(file, json!({"branch": "side", "start_branch": "main", "content": "x", "commit_message": "x"}));
    assert_eq!(status, 201, "{body}");
    // A push to it is refused by git itself.
    let (out, work) = forge.clone("corp/checkout", Some(&forge.maintainer), 2, "checkout-clone");
    assert!(out.status.success(), "{}", stderr(&out));
    commit(&work, "pushed.txt", b"p\n");
    let pushed = forge.client(&work, 0, &["push", &forge.remote("corp/checkout", Some(&forge.maintainer)), "main"]);
    assert!(!pushed.status.success());
    assert!(stderr(&pushed).contains("refusing to update checked out branch"), "{}", stderr(&pushed));
    assert_eq!(git_text(&tree, &["rev-parse", "HEAD"]), tip);
    // The repository may say otherwise.
    git(&tree, &["config", "receive.denyCurrentBranch", "ignore"]);
    forgecore::git::forget(&tree);
    forgecore::git::forget(tree.join(".git"));
    let (status, body) = post(file, json!({"branch": "main", "content": "x", "commit_message": "x"}));
    assert_eq!(status, 201, "{body}");
}

/// A REST write never commits a `.gitmodules` that git's fsck refuses: each content refused
/// through the API is refused by git itself when pushed (receive.fsckObjects, the oracle),
/// and one git takes is taken.
#[test]
fn rest_writes_hold_gitmodules_to_gits_fsck() {
    let _serial = serial();
    let forge = forge(json!({}));
    let commit_files = |branch: &str, path: &str, content: &str| {
        let body = json!({"branch": branch, "start_branch": "main", "commit_message": "m",
            "actions": [{"action": "create", "file_path": path, "content": content}]});
        forge.send("POST", "/api/v4/projects/pub%2Frepo/repository/commits", &forge.maintainer, body)
    };
    let (out, work) = forge.clone("pub/repo", Some(&forge.maintainer), 2, "gitmodules");
    assert!(out.status.success(), "{}", stderr(&out));
    let remote = forge.remote("pub/repo", Some(&forge.maintainer));
    for (i, (path, content, problem)) in [
        (
            ".gitmodules",
            "[submodule \"../../hooks\"]\n\tpath = x\n\turl = https://e.com/x\n",
            "disallowed submodule name: ../../hooks",
        ),
        (
            ".gitmodules",
            "[submodule \"x\"]\n\tpath = x\n\turl = --upload-pack=touch\n",
            "disallowed submodule url: --upload-pack=touch",
        ),
        (
            "sub/.GITMODULES",
            "[submodule \"x\"]\n\tpath = -x\n\turl = https://e.com/x\n",
            "disallowed submodule path: -x",
        ),
        (".gitmodules", "[submodule \"x\"]\n\tpath = x\n\tupdate = !sh\n", "disallowed submodule update setting: !sh"),
    ]
    .into_iter()
    .enumerate()
    {
        let (status, body) = commit_files(&format!("bad-{i}"), path, content);
        assert_eq!((status, body), (400, json!({"message": format!("invalid .gitmodules: {problem}")})), "{path}");
        // git refuses the same file in a push.
        git(&work, &["checkout", "-q", "-B", &format!("bad-{i}"), "origin/main"]);
        let file = work.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, content).unwrap();
        git(&work, &["add", "-f", path]);
        git(&work, &["-c", "user.name=B", "-c", "user.email=b@example.com", "commit", "-q", "-m", "bad"]);
        let pushed = forge.client(&work, 0, &["push", &remote, &format!("bad-{i}")]);
        assert!(!pushed.status.success(), "git takes {path}: {content}");
        assert!(stderr(&pushed).to_lowercase().contains("gitmodules"), "{}", stderr(&pushed));
    }
    let good = "[submodule \"lib\"]\n\tpath = lib\n\turl = ../lib.git\n";
    let (status, body) = commit_files("good", ".gitmodules", good);
    assert_eq!(status, 201, "{body}");
    let fsck =
        Command::new("git").args(["fsck", "--strict", "--no-dangling"]).current_dir(&forge.public).output().unwrap();
    assert!(fsck.status.success(), "{}", String::from_utf8_lossy(&fsck.stderr));
}

/// A `POST` of `service` (`upload-pack`, `receive-pack`) to `pub/repo`, opened in the core as a
/// host opens it when the head has come, with `first` of its body written: a client that then
/// stalls. `Err` with the status when the core answered before the body was complete.
fn stalled(
    forge: &Forge,
    service: &str,
    token: Option<&str>,
    first: &[u8],
) -> Result<Box<dyn forgecore::http::call::BodySink>, u16> {
    use base64::Engine;
    let mut headers = vec![("Content-Type".to_string(), format!("application/x-git-{service}-request"))];
    if let Some(token) = token {
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("oauth2:{token}"));
        headers.push(("Authorization".to_string(), format!("Basic {basic}")));
    }
    let target = format!("/pub/repo.git/git-{service}");
    match call::open(&forge.ctx, Meta::default(), "POST", &target, headers) {
        Opened::Answer(answer) => Err(answer.status),
        Opened::Body(mut sink) => match sink.write(&forge.ctx, first) {
            Some(answer) => Err(answer.status),
            None => Ok(sink),
        },
    }
}

#[test]
fn slow_request_bodies_hold_no_place_of_their_repository() {
    let _serial = serial();
    let forge = forge(json!({"git_per_repository": 2}));
    let (out, work) = forge.clone("pub/repo", Some(&forge.developer), 0, "dev");
    assert!(out.status.success(), "{}", stderr(&out));
    // A fetch's whole negotiation (protocol v0: want, flush, done) and a push's body (its
    // command list, then its pack), each to be sent in two halves.
    let tip = git_text(&forge.public, &["rev-parse", "main"]);
    let mut fetch = forgecore::transport::pkt_line(format!("want {tip}\n").as_bytes());
    fetch.extend_from_slice(b"0000");
    fetch.extend(forgecore::transport::pkt_line(b"done\n"));
    let new = commit(&work, "slow.txt", b"slow\n");
    let mut pack_objects = Command::new("git")
        .args(["-C", &work.to_string_lossy(), "pack-objects", "--stdout", "--revs", "-q"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    pack_objects.stdin.take().unwrap().write_all(format!("{new}\n^{tip}\n").as_bytes()).unwrap();
    let pack = pack_objects.wait_with_output().unwrap().stdout;
    let zero = "0".repeat(40);
    let mut push = forgecore::transport::pkt_line(format!("{zero} {new} refs/heads/slow\0report-status\n").as_bytes());
    push.extend_from_slice(b"0000");
    let head = push.len();
    push.extend_from_slice(&pack);
    // Eight fetches and two pushes whose clients stalled half-way through their bodies
    // (the pushes after their command list, in their pack), as slow clients do.
    let mut refused = Vec::new();
    let mut fetches = Vec::new();
    for _ in 0..8 {
        match stalled(&forge, "upload-pack", None, &fetch[..fetch.len() / 2]) {
            Ok(sink) => fetches.push(sink),
            Err(status) => refused.push(status),
        }
    }
    let mut pushes = Vec::new();
    for _ in 0..2 {
        match stalled(&forge, "receive-pack", Some(&forge.developer), &push[..head + pack.len() / 2]) {
            Ok(sink) => pushes.push(sink),
            Err(status) => refused.push(status),
        }
    }
    // Beside them, a clone, a fetch and a push of the same project are served, promptly: no
    // place is held by a body that has not arrived.
    let started = Instant::now();
    let (out, into) = forge.clone("pub/repo", None, 2, "beside-slow");
    assert!(out.status.success(), "a clone beside slow bodies: {}", stderr(&out));
    let out = forge.client(&into, 0, &["fetch", "-q", &forge.remote("pub/repo", None)]);
    assert!(out.status.success(), "a fetch beside slow bodies: {}", stderr(&out));
    let out = forge.client(&work, 2, &["push", "-q", &forge.remote("pub/repo", Some(&forge.developer)), "HEAD:beside"]);
    assert!(out.status.success(), "a push beside slow bodies: {}", stderr(&out));
    let spent = started.elapsed();
    assert!(spent < Duration::from_secs(30), "a clone, a fetch and a push beside slow bodies took {spent:?}");
    assert!(refused.is_empty(), "slow bodies answered before they arrived: {refused:?}");
    // The slow ones, complete at last, are served: each takes a place only now, and gives it
    // back when its answer has been read.
    for mut sink in fetches {
        assert!(sink.write(&forge.ctx, &fetch[fetch.len() / 2..]).is_none());
        let answer = sink.finish(&forge.ctx);
        assert_eq!(answer.status, 200);
        let body = answer.into_bytes().unwrap();
        assert!(body.windows(4).any(|w| w == b"PACK"), "a pack: {}", String::from_utf8_lossy(&body));
    }
    let mut reports = Vec::new();
    for mut sink in pushes {
        assert!(sink.write(&forge.ctx, &push[head + pack.len() / 2..]).is_none());
        let answer = sink.finish(&forge.ctx);
        assert_eq!(answer.status, 200);
        reports.push(String::from_utf8_lossy(&answer.into_bytes().unwrap()).into_owned());
    }
    assert!(reports[0].contains("ok refs/heads/slow"), "{reports:?}");
    assert_eq!(git_text(&forge.public, &["rev-parse", "slow"]), new);
}

/// A blocked (or banned) account's token is no git credential: the challenge, as GitLab's
/// `personal_access_token_check` finds no user who may log in. A deactivated account signs in
/// and is refused with GitLab's reason (403). Unblocked or activated, the token works again.
#[test]
fn blocked_and_deactivated_accounts_cannot_fetch() {
    let _serial = serial();
    let forge = forge(json!({}));
    admin(&forge.ctx, json!({"command": "user_add", "username": "root", "admin": true}));
    let root =
        admin(&forge.ctx, json!({"command": "token_add", "username": "root"}))["token"].as_str().unwrap().to_string();
    let (_, found) = forge.api("/api/v4/users?username=rita", &root);
    let rita = found[0]["id"].as_i64().unwrap();
    let act = |action: &str| forge.send("POST", &format!("/api/v4/users/{rita}/{action}"), &root, Value::Null);
    for (block, unblock) in [("block", "unblock"), ("ban", "unban")] {
        assert_eq!(act(block), (201, json!(true)));
        let (out, _) = forge.clone("corp/secret", Some(&forge.reporter), 2, &format!("rita-{block}"));
        assert!(!out.status.success());
        assert!(
            stderr(&out).contains("Authentication failed") || stderr(&out).contains("HTTP Basic: Access denied"),
            "{}",
            stderr(&out)
        );
        // The API refuses the token as well.
        let (status, body) = forge.api("/api/v4/user", &forge.reporter);
        assert_eq!((status, body), (403, json!({"message": "403 Forbidden - Your account has been blocked."})));
        assert_eq!(act(unblock), (201, json!(true)));
    }
    assert_eq!(act("deactivate"), (201, json!(true)));
    let (out, _) = forge.clone("corp/secret", Some(&forge.reporter), 2, "rita-deactivated");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("Your account has been deactivated by your administrator."), "{}", stderr(&out));
    assert_eq!(act("activate"), (201, json!(true)));
    let (out, into) = forge.clone("corp/secret", Some(&forge.reporter), 2, "rita-active");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(git_text(&into, &["rev-parse", "HEAD"]), git_text(&forge.private, &["rev-parse", "main"]));
}
