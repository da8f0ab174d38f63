//! The git command runner (`src/git/command.rs`): the binary checked when a context opens, the
//! isolation every program runs in (no host environment, no global configuration, no
//! repository hooks), the time limit, and the whole process group ended and reaped.
#![allow(clippy::unwrap_used)]

mod common;

use common::{git, TempDir};
use forgecore::git::command::{Error, Git, Spec};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A bare repository under `dir` with one commit on `main`.
fn repository(dir: &Path) -> PathBuf {
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "-q", "-b", "main"]);
    std::fs::write(work.join("a.txt"), "a\n").unwrap();
    git(&work, &["add", "a.txt"]);
    git(&work, &["-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "first"]);
    let bare = dir.join("repo.git");
    git(dir, &["clone", "-q", "--bare", &work.to_string_lossy(), &bare.to_string_lossy()]);
    bare.canonicalize().unwrap()
}

/// Tests of this binary run one at a time: one of them changes the process's environment,
/// which the `git` helper of the others would read.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn opened(dir: &Path) -> Git {
    Git::open("git", &dir.join("data"), &[]).unwrap()
}

fn alive(pid: u32) -> bool {
    // A reaped process has no /proc entry; a zombie still has one, in state Z.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')))
}

fn wait_gone(pid: u32) -> bool {
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn a_missing_or_old_git_refuses_the_open() {
    let _serial = serial();
    let dir = TempDir::new();
    let missing = Git::open("/nonexistent/git", dir.path(), &[]).unwrap_err();
    assert!(missing.contains("not an executable file"), "{missing}");
    let old = dir.path().join("old-git");
    std::fs::write(&old, "#!/bin/sh\necho 'git version 2.30.1'\n").unwrap();
    std::fs::set_permissions(&old, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let refused = Git::open(&old.to_string_lossy(), dir.path(), &[]).unwrap_err();
    assert!(refused.contains("is git 2.30.1; forgecore needs git 2.39.4 or later"), "{refused}");
    let not_git = dir.path().join("not-git");
    std::fs::write(&not_git, "#!/bin/sh\necho hello\n").unwrap();
    std::fs::set_permissions(&not_git, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let refused = Git::open(&not_git.to_string_lossy(), dir.path(), &[]).unwrap_err();
    assert!(refused.contains("not a git version"), "{refused}");
    // The same refusal through fc_open's configuration.
    let config = serde_json::json!({"data_dir": dir.path().join("data"), "git_binary": old}).to_string();
    let refused = forgecore::Context::from_json(&config).err().unwrap();
    assert!(refused.contains("forgecore needs git 2.39.4 or later"), "{refused}");
    let found = opened(dir.path());
    assert!(found.binary().is_absolute());
    assert!(found.version() >= forgecore::git::command::MIN_VERSION);
}

#[test]
fn runs_to_completion_with_bounded_output() {
    let _serial = serial();
    let dir = TempDir::new();
    let repo = repository(dir.path());
    let git = opened(dir.path());
    let out = git.run(&Spec::new(&repo, &["rev-parse", "main"], Duration::from_secs(30)), 1 << 20).unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), common::git_text(&repo, &["rev-parse", "main"]));
    let out = git.run(&Spec::new(&repo, &["cat-file", "-p", "main"], Duration::from_secs(30)), 10).unwrap();
    assert_eq!(out.stdout.len(), 10);
    assert!(out.truncated);
    let failed = git.run(&Spec::new(&repo, &["rev-parse", "--verify", "nope"], Duration::from_secs(30)), 1024).unwrap();
    assert!(!failed.status.success());
    assert!(String::from_utf8_lossy(&failed.stderr).contains("fatal"), "{failed:?}");
}

#[test]
fn the_hosts_environment_and_configuration_never_reach_git() {
    let _serial = serial();
    let dir = TempDir::new();
    let repo = repository(dir.path());
    let git = opened(dir.path());
    // This test binary's own environment is the host's: a hostile HOME and stray GIT_*.
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join(".gitconfig"), "[user]\n\tname = Mallory\n[core]\n\tpager = touch /tmp/x\n").unwrap();
    let _restored = Restore(std::env::var_os("HOME"));
    std::env::set_var("HOME", &home);
    std::env::set_var("GIT_DIR", "/nonexistent");
    std::env::set_var("GIT_CONFIG_PARAMETERS", "'user.email'='mallory@example.com'");
    let out = git.run(&Spec::new(&repo, &["config", "--list", "--show-origin"], Duration::from_secs(30)), 1 << 20);
    let listed = String::from_utf8_lossy(&out.unwrap().stdout).into_owned();
    assert!(!listed.contains("Mallory") && !listed.contains("mallory"), "{listed}");
    assert!(listed.contains(&format!("core.hookspath={}", git.hooks_dir().display())), "{listed}");
    let env = git
        .run(
            &Spec::new(&repo, &["-c", "alias.e=!env", "e"], Duration::from_secs(30)).env("GIT_PROTOCOL", "version=2"),
            1 << 20,
        )
        .unwrap();
    let env = String::from_utf8_lossy(&env.stdout).into_owned();
    assert!(!env.contains("/nonexistent") && !env.contains(&home.to_string_lossy().into_owned()), "{env}");
    assert!(
        env.contains("GIT_CONFIG_GLOBAL=/dev/null")
            && env.lines().any(|l| l.starts_with("PATH=") && l.ends_with(":/usr/bin:/bin")),
        "{env}"
    );
    assert!(env.contains("GIT_PROTOCOL=version=2"), "{env}");
}

/// Puts the test process's environment back, even when the test fails.
struct Restore(Option<std::ffi::OsString>);

impl Drop for Restore {
    fn drop(&mut self) {
        std::env::remove_var("GIT_DIR");
        std::env::remove_var("GIT_CONFIG_PARAMETERS");
        match self.0.take() {
            Some(old) => std::env::set_var("HOME", old),
            None => std::env::remove_var("HOME"),
        }
    }
}

#[test]
fn repository_hooks_never_run() {
    let _serial = serial();
    let dir = TempDir::new();
    let repo = repository(dir.path());
    let marker = dir.path().join("marker");
    let hook = repo.join("hooks/post-checkout");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, format!("#!/bin/sh\ntouch {}\n", marker.display())).unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let git = opened(dir.path());
    let out = git
        .run(&Spec::new(&repo, &["hook", "run", "--ignore-missing", "post-checkout"], Duration::from_secs(30)), 1024)
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(!marker.exists(), "the repository's hook ran");
    // The hook would run without the forced hooks path: the test sees what it claims to.
    let plain = std::process::Command::new("git")
        .args(["--git-dir", &repo.to_string_lossy(), "hook", "run", "post-checkout"])
        .status()
        .unwrap();
    assert!(plain.success() && marker.exists());
}

#[test]
fn the_time_limit_kills_the_whole_group() {
    let _serial = serial();
    let dir = TempDir::new();
    let repo = repository(dir.path());
    let git = opened(dir.path());
    let pids = dir.path().join("pids");
    let alias = format!("!sleep 60 & echo $! > {}; sleep 60", pids.display());
    let started = Instant::now();
    let spec = Spec::new(&repo, &["slow"], Duration::from_millis(500)).config("alias.slow", alias);
    let outcome = git.run(&spec, 1024);
    assert!(matches!(outcome, Err(Error::TimedOut(_))), "{outcome:?}");
    assert!(started.elapsed() < Duration::from_secs(20));
    let background: u32 = std::fs::read_to_string(&pids).unwrap().trim().parse().unwrap();
    assert!(wait_gone(background), "the background sleep {background} outlived the time limit");
}

#[test]
fn letting_go_of_a_running_program_ends_its_group() {
    let _serial = serial();
    let dir = TempDir::new();
    let repo = repository(dir.path());
    let git = opened(dir.path());
    let pids = dir.path().join("pids");
    let alias = format!("!sleep 60 & echo $! > {}; cat", pids.display());
    let spec = Spec::new(&repo, &["hold"], Duration::from_secs(60)).config("alias.hold", alias);
    let running = git.spawn(&spec).unwrap();
    let leader = running.id().unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while !pids.exists() || std::fs::read_to_string(&pids).unwrap().trim().is_empty() {
        assert!(Instant::now() < until, "the alias never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let background: u32 = std::fs::read_to_string(&pids).unwrap().trim().parse().unwrap();
    assert!(alive(background));
    drop(running);
    assert!(!alive(leader), "the leader {leader} is reaped when dropped");
    assert!(wait_gone(background), "the background sleep {background} outlived the program");
}

#[test]
fn a_spawned_program_streams_and_finishes() {
    let _serial = serial();
    use std::io::{Read, Write};
    let dir = TempDir::new();
    let repo = repository(dir.path());
    let git = opened(dir.path());
    let mut running = git.spawn(&Spec::new(&repo, &["hash-object", "--stdin"], Duration::from_secs(30))).unwrap();
    running.stdin.as_mut().unwrap().write_all(b"hello\n").unwrap();
    drop(running.stdin.take());
    let mut out = String::new();
    running.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let finished = running.finish().unwrap();
    assert!(finished.status.success());
    assert_eq!(out.trim(), "ce013625030ba8dba906f756967f9e9ca394464a");
}

#[test]
fn background_programs_run_at_the_lowest_priority_and_others_at_the_hosts() {
    let _serial = serial();
    let dir = TempDir::new();
    let repo = repository(dir.path());
    let found = opened(dir.path());
    // An alias that runs `nice`, which prints the niceness it runs at (the programs git starts
    // inherit it, as pack-objects inherits repack's).
    let niceness = |spec: Spec| {
        let output = found.run(&spec.config("alias.niceness", "!nice"), 1024).unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap().trim().parse::<i32>().unwrap()
    };
    let hosts = rustix::process::getpriority_process(None).unwrap();
    let limit = Duration::from_secs(30);
    assert_eq!(niceness(Spec::new(&repo, &["niceness"], limit)), hosts);
    assert_eq!(niceness(Spec::new(&repo, &["niceness"], limit).background()), 19);
}
