//! A forgecore context shared by the inputs of one fuzzing process: a temporary data
//! directory, an administrator token, and a small public project with a history.
// Each target includes this module and uses its own part of it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

pub struct Shared {
    pub ctx: forgecore::Context,
    pub token: String,
}

fn git(dir: &PathBuf, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Fuzz")
        .env("GIT_AUTHOR_EMAIL", "fuzz@example.com")
        .env("GIT_COMMITTER_NAME", "Fuzz")
        .env("GIT_COMMITTER_EMAIL", "fuzz@example.com")
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

pub fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("forgecore-fuzz-{}", std::process::id()));
        let repo = dir.join("repo");
        std::fs::create_dir_all(repo.join("a/b")).expect("temp dir");
        git(&repo, &["init", "-q", "-b", "main"]);
        for (path, text) in [("README.md", "readme\n"), ("a/one.txt", "one\n"), ("a/b/two.txt", "one\n"), ("z.txt", "z\n")] {
            std::fs::write(repo.join(path), text).expect("write fixture file");
        }
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "first\n\nChangelog: added"]);
        let config = serde_json::json!({"data_dir": dir.join("data")}).to_string();
        let ctx = forgecore::Context::from_json(&config).expect("context");
        let admin = |command: serde_json::Value| {
            let params = forgecore::params::Params::from_json_object(command).expect("object");
            let response = forgecore::api::admin::run(&ctx, &params).expect("admin command");
            serde_json::from_slice::<serde_json::Value>(&response.into_bytes().expect("body")).expect("json")
        };
        admin(serde_json::json!({"command": "user_add", "username": "root", "admin": true}));
        let token = admin(serde_json::json!({"command": "token_add", "username": "root"}))["token"]
            .as_str()
            .expect("token")
            .to_string();
        admin(serde_json::json!({"command": "project_add", "path": "p", "repo": repo, "visibility": "public"}));
        Shared { ctx, token }
    })
}

/// Serves a request; a 5xx is a bug the fuzzer found (a panic aborts the run by itself).
pub fn serve(method: &str, target: &str, headers: Vec<(String, String)>, body: &[u8]) -> u16 {
    let shared = shared();
    let response = forgecore::http::handle(&shared.ctx, method, target, headers, body);
    let status = response.status;
    let _ = response.into_bytes();
    assert!(status < 500, "{method} {target:?} answered {status}");
    status
}
