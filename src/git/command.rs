//! The one module that starts git's own programs (upload-pack and receive-pack for git over
//! HTTP, maintenance such as `commit-graph write` or `repack`). Nothing else in forgecore
//! spawns a process; everything else reads repositories through gix.
//!
//! Every program runs isolated, as Gitaly runs git (reference `git-http.md` §5):
//! - the binary is configuration (`git_binary`), resolved to an absolute path and its version
//!   checked once, when the context opens ([`Git::open`]), never looked up per request;
//! - the environment is cleared: a fixed `PATH`, `HOME` an empty directory of forgecore's,
//!   `LANG=C`, no system or global configuration (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_SYSTEM` and
//!   `GIT_CONFIG_GLOBAL` at `/dev/null`), no terminal prompt, and no other `GIT_*` variable of
//!   the host's (a Go or Python host may carry `GIT_DIR`, `GIT_SSH_COMMAND`, proxies, secrets);
//!   only the variables the caller names are added;
//! - forced configuration on the command line (command scope, which git counts as protected):
//!   `core.hooksPath` is forgecore's own directory, so a repository's hooks never run;
//!   `safe.directory` names the repository (it may belong to another user than the service);
//!   no automatic gc or maintenance, no fsmonitor, no replace refs;
//! - a wall-clock time limit; the program leads a process group of its own, and the whole group
//!   (pack-objects, index-pack, hooks) is killed when the time is up, when the caller lets go of
//!   it (the request ended, the client went away), and before the child is reaped.
//!
//! Two shapes: [`Git::run`] runs to completion with bounded captured output (maintenance), and
//! [`Git::spawn`] gives a [`Running`] program with piped stdin and stdout (transport).
//!
//! The minimum version is [`MIN_VERSION`], 2.39.4: `safe.directory` is honoured from the
//! command line only since 2.38 (protected configuration), `GIT_CONFIG_GLOBAL` exists since
//! 2.32, and 2.39.4 is the oldest release line that carries git's May 2024 security fixes
//! (CVE-2024-32002, -32004, -32465; Debian 12 ships 2.39.5).

use std::ffi::OsString;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// The oldest git accepted (see the module's note for why).
pub const MIN_VERSION: (u32, u32, u32) = (2, 39, 4);

/// The `PATH` every program gets: hooks run `sh`, nothing else is looked up.
pub const PATH: &str = "/usr/bin:/bin";

/// At most this much of a program's stderr is kept (the rest is read and dropped).
pub const STDERR_LIMIT: usize = 64 * 1024;

/// A git binary checked at open, and the directories its programs are given.
#[derive(Debug, Clone)]
pub struct Git {
    binary: PathBuf,
    version: (u32, u32, u32),
    home: PathBuf,
    hooks: PathBuf,
}

/// Why a program could not be run, or how it ended badly.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot start {binary}")]
    Spawn {
        binary: String,
        #[source]
        source: io::Error,
    },
    #[error("a repository path must be absolute and not start with '-': {0}")]
    BadPath(String),
    #[error("git did not finish within {0:?} and was killed")]
    TimedOut(Duration),
    #[error("cannot talk to git")]
    Io(#[source] io::Error),
}

/// What [`Git::run`] captured.
#[derive(Debug)]
pub struct Output {
    pub status: ExitStatus,
    /// At most the `output_limit` first bytes of stdout.
    pub stdout: Vec<u8>,
    /// At most [`STDERR_LIMIT`] first bytes of stderr.
    pub stderr: Vec<u8>,
    /// Whether stdout had more than `output_limit` bytes (the rest was dropped).
    pub truncated: bool,
}

/// One program to start.
#[derive(Debug, Clone)]
pub struct Spec<'a> {
    /// The repository (a git directory), absolute. Given to git as `--git-dir` and named as
    /// `safe.directory`; a program that takes it as an argument too (upload-pack) gets it in
    /// `args` as well.
    pub git_dir: &'a Path,
    /// The subcommand and its arguments: the caller's own constants, never a client's text.
    pub args: Vec<OsString>,
    /// Configuration forced on the command line, after the isolation's own.
    pub config: Vec<(String, String)>,
    /// Environment variables added to the cleared environment (such as `GIT_PROTOCOL`).
    pub env: Vec<(String, OsString)>,
    /// Wall-clock limit: past it the whole process group is killed.
    pub timeout: Duration,
    /// Work no request waits for (maintenance): the program runs at the lowest CPU priority
    /// (nice 19, inherited by the programs it starts), so requests keep the cores they had
    /// (on Linux; see [`spawn_in_background`]).
    pub background: bool,
}

impl<'a> Spec<'a> {
    pub fn new(git_dir: &'a Path, args: &[&str], timeout: Duration) -> Spec<'a> {
        let args = args.iter().map(OsString::from).collect();
        Spec { git_dir, args, config: Vec::new(), env: Vec::new(), timeout, background: false }
    }

    /// Runs the program as background work (see [`Spec::background`]).
    pub fn background(mut self) -> Spec<'a> {
        self.background = true;
        self
    }

    pub fn config(mut self, key: &str, value: impl Into<String>) -> Spec<'a> {
        self.config.push((key.to_string(), value.into()));
        self
    }

    pub fn env(mut self, name: &str, value: impl Into<OsString>) -> Spec<'a> {
        self.env.push((name.to_string(), value.into()));
        self
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Spec<'a> {
        self.args.push(arg.into());
        self
    }
}

/// Starts `command` at the lowest CPU priority: from a short-lived thread that lowers its own
/// (on Linux the nice value is a thread's, and a child starts with its parent thread's), so no
/// other thread of the host is touched. Elsewhere the value is the whole process's, and the
/// program starts at the host's.
fn spawn_in_background(command: &mut Command) -> io::Result<Child> {
    if !cfg!(target_os = "linux") {
        return command.spawn();
    }
    std::thread::scope(|scope| {
        let spawner = std::thread::Builder::new().name("git-background".into()).spawn_scoped(scope, || {
            // A program that cannot run at a lower priority still does the work.
            let _ = rustix::process::setpriority_process(None, 19);
            command.spawn()
        })?;
        spawner.join().unwrap_or_else(|_| Err(io::Error::other("the thread starting git panicked")))
    })
}

/// Parses `git version 2.39.5` (also `2.45.0.rc1`, `2.39.5.windows.1`).
pub fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let rest = text.trim().strip_prefix("git version ")?;
    let mut parts = rest.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some((major, minor, patch))
}

/// `binary` as an absolute path: as given when it has a `/` (relative ones against the
/// current directory), else looked up once in the host's `PATH`.
fn resolve(binary: &str) -> Result<PathBuf, String> {
    if binary.is_empty() {
        return Err("invalid configuration: git_binary is empty".into());
    }
    let found = if binary.contains('/') {
        Some(PathBuf::from(binary))
    } else {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path).map(|dir| dir.join(binary)).find(|candidate| is_executable(candidate))
        })
    };
    let found = found.filter(|p| is_executable(p)).ok_or_else(|| {
        format!("git_binary {binary:?} is not an executable file (git over HTTP and maintenance run it)")
    })?;
    found.canonicalize().map_err(|e| format!("git_binary {binary:?}: {e}"))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Makes `dir` (and its parents) exist with `mode`.
fn directory(dir: &Path, mode: u32) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // Nothing is written when it is already as it should be (a read-only data directory opens
    // as far as the store, which says what is wrong).
    if std::fs::metadata(dir).is_ok_and(|m| m.permissions().mode() & 0o7777 == mode) {
        return Ok(());
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode))
        .map_err(|e| format!("cannot set the permissions of {}: {e}", dir.display()))
}

/// Writes the executable `name` into `dir` by rename, so a program running it never sees half
/// a file, and two contexts opening at once both leave a whole one.
fn install(dir: &Path, name: &str, content: &str) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let target = dir.join(name);
    if std::fs::read(&target).is_ok_and(|existing| existing == content.as_bytes()) {
        return Ok(());
    }
    let temporary = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| -> io::Result<()> {
        let mut file =
            std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o700).open(&temporary)?;
        file.write_all(content.as_bytes())?;
        file.sync_all()?;
        std::fs::set_permissions(&temporary, std::fs::Permissions::from_mode(0o555))?;
        std::fs::rename(&temporary, &target)
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!("cannot install the hook {}: {e}", target.display())
    })
}

impl Git {
    /// Checks `binary` (missing, not a git, or older than [`MIN_VERSION`]: a one-line
    /// refusal) and makes forgecore's directories under `data_dir/git`: an empty `home` and
    /// the `hooks` directory holding exactly `hooks` (name, POSIX `sh` script).
    pub fn open(binary: &str, data_dir: &Path, hooks: &[(&str, &str)]) -> Result<Git, String> {
        let binary = resolve(binary)?;
        let base = data_dir.join("git");
        let home = base.join("home");
        let hooks_dir = base.join("hooks");
        directory(&base, 0o755)?;
        // Empty, and not writable: git finds no `~/.gitconfig` there and cannot leave one.
        directory(&home, 0o555)?;
        directory(&hooks_dir, 0o755)?;
        for (name, content) in hooks {
            install(&hooks_dir, name, content)?;
        }
        let mut git = Git { binary, version: (0, 0, 0), home, hooks: hooks_dir };
        let mut command = Command::new(&git.binary);
        git.isolate(&mut command);
        command.arg("version").stdin(Stdio::null()).stderr(Stdio::null());
        let output =
            command.output().map_err(|e| format!("git_binary {}: cannot run it: {e}", git.binary.display()))?;
        let text = String::from_utf8_lossy(&output.stdout);
        let version = parse_version(&text).filter(|_| output.status.success()).ok_or_else(|| {
            format!("git_binary {}: `git version` answered {:?}, not a git version", git.binary.display(), text.trim())
        })?;
        if version < MIN_VERSION {
            let (a, b, c) = MIN_VERSION;
            return Err(format!(
                "git_binary {} is git {}.{}.{}; forgecore needs git {a}.{b}.{c} or later",
                git.binary.display(),
                version.0,
                version.1,
                version.2
            ));
        }
        git.version = version;
        Ok(git)
    }

    pub fn binary(&self) -> &Path {
        &self.binary
    }

    pub fn version(&self) -> (u32, u32, u32) {
        self.version
    }

    /// forgecore's own hooks directory (`core.hooksPath` of every program).
    pub fn hooks_dir(&self) -> &Path {
        &self.hooks
    }

    /// The cleared environment every program starts with.
    fn isolate(&self, command: &mut Command) {
        command
            .env_clear()
            .env("PATH", PATH)
            .env("HOME", &self.home)
            .env("LANG", "C")
            .env("LC_ALL", "C")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_SYSTEM", "/dev/null")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("XDG_CONFIG_HOME", "/dev/null")
            .env("GIT_ATTR_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_NO_REPLACE_OBJECTS", "1");
    }

    /// The command for `spec`, isolated, in a process group of its own.
    fn command(&self, spec: &Spec) -> Result<Command, Error> {
        use std::os::unix::process::CommandExt;
        let dir = spec.git_dir;
        if !dir.is_absolute() || dir.as_os_str().to_string_lossy().starts_with('-') {
            return Err(Error::BadPath(dir.display().to_string()));
        }
        let mut command = Command::new(&self.binary);
        self.isolate(&mut command);
        for (name, value) in &spec.env {
            command.env(name, value);
        }
        let mut forced: Vec<(String, OsString)> = vec![
            ("core.hooksPath".into(), self.hooks.clone().into_os_string()),
            ("safe.directory".into(), dir.as_os_str().to_os_string()),
            ("gc.auto".into(), "0".into()),
            ("maintenance.auto".into(), "false".into()),
            ("receive.autogc".into(), "false".into()),
            ("core.fsmonitor".into(), "false".into()),
            ("core.useReplaceRefs".into(), "false".into()),
            ("core.autocrlf".into(), "false".into()),
        ];
        forced.extend(spec.config.iter().map(|(k, v)| (k.clone(), OsString::from(v))));
        for (key, value) in forced {
            let mut pair = OsString::from(key);
            pair.push("=");
            pair.push(value);
            command.arg("-c").arg(pair);
        }
        let mut git_dir = OsString::from("--git-dir=");
        git_dir.push(dir);
        command.arg(git_dir).args(&spec.args).current_dir(dir).process_group(0);
        Ok(command)
    }

    /// Runs `spec` to completion with stdin empty; keeps at most `output_limit` bytes of stdout
    /// and [`STDERR_LIMIT`] of stderr. A program past its time limit is killed (with its whole
    /// group) and answered [`Error::TimedOut`]; its exit status is the caller's to judge.
    pub fn run(&self, spec: &Spec, output_limit: usize) -> Result<Output, Error> {
        let mut running = self.start(spec, Stdio::null())?;
        let stdout = running.stdout.take();
        let reader = std::thread::Builder::new()
            .name("git-stdout".into())
            .spawn(move || {
                let mut kept = Vec::new();
                let truncated = match stdout {
                    Some(out) => bounded_read(out, output_limit, &mut kept),
                    None => false,
                };
                (kept, truncated)
            })
            .map_err(Error::Io)?;
        let (stdout, truncated) = reader.join().unwrap_or_default();
        let finished = running.finish()?;
        Ok(Output { status: finished.status, stdout, stderr: finished.stderr, truncated })
    }

    /// Starts `spec` with piped stdin and stdout (read stdout while writing stdin, or the two
    /// pipes can fill and stall). Dropping the [`Running`] kills the whole process group and
    /// reaps the child.
    pub fn spawn(&self, spec: &Spec) -> Result<Running, Error> {
        self.start(spec, Stdio::piped())
    }

    fn start(&self, spec: &Spec, stdin: Stdio) -> Result<Running, Error> {
        let mut command = self.command(spec)?;
        command.stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped());
        let spawned = if spec.background { spawn_in_background(&mut command) } else { command.spawn() };
        let mut child = spawned.map_err(|source| Error::Spawn { binary: self.binary.display().to_string(), source })?;
        let stderr_kept = Arc::new(Mutex::new(Vec::new()));
        let stderr_thread = child.stderr.take().and_then(|err| {
            let kept = Arc::clone(&stderr_kept);
            std::thread::Builder::new()
                .name("git-stderr".into())
                .spawn(move || {
                    let mut buf = Vec::new();
                    bounded_read(err, STDERR_LIMIT, &mut buf);
                    *kept.lock().unwrap_or_else(|p| p.into_inner()) = buf;
                })
                .ok()
        });
        let pid = rustix::process::Pid::from_child(&child);
        let timed_out = Arc::new(AtomicBool::new(false));
        let (stop, stopped) = mpsc::channel::<()>();
        let flag = Arc::clone(&timed_out);
        let timeout = spec.timeout;
        let watchdog = std::thread::Builder::new().name("git-watchdog".into()).spawn(move || {
            if let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(timeout) {
                flag.store(true, Ordering::SeqCst);
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            }
        });
        let watchdog = match watchdog {
            Ok(handle) => handle,
            Err(e) => {
                // No watchdog, no time limit: do not let it run unwatched.
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
                let _ = child.wait();
                return Err(Error::Io(e));
            }
        };
        Ok(Running {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            child: Some(child),
            timeout,
            timed_out,
            stop: Some(stop),
            watchdog: Some(watchdog),
            stderr_thread,
            stderr_kept,
        })
    }
}

/// Reads `from` to its end, keeping at most `limit` bytes in `kept`; whether more came.
fn bounded_read(mut from: impl Read, limit: usize, kept: &mut Vec<u8>) -> bool {
    let mut buf = [0u8; 16 * 1024];
    let mut truncated = false;
    loop {
        match from.read(&mut buf) {
            Ok(0) => return truncated,
            Ok(n) => {
                let room = limit.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
                truncated |= n > room;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return truncated,
        }
    }
}

/// How a spawned program ended.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    /// At most [`STDERR_LIMIT`] first bytes of stderr.
    pub stderr: Vec<u8>,
}

/// A program started by [`Git::spawn`]. Its stdin and stdout are the caller's to take; when it
/// is dropped (or [`Running::finish`]ed) its whole process group is killed and the child
/// reaped, so no `pack-objects` or hook outlives the request.
pub struct Running {
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<ChildStdout>,
    child: Option<Child>,
    timeout: Duration,
    timed_out: Arc<AtomicBool>,
    stop: Option<Sender<()>>,
    watchdog: Option<JoinHandle<()>>,
    stderr_thread: Option<JoinHandle<()>>,
    stderr_kept: Arc<Mutex<Vec<u8>>>,
}

impl Running {
    /// Whether the time limit killed it.
    pub fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::SeqCst)
    }

    /// The process id (which is also its process group's).
    pub fn id(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Closes stdin (the program sees the end of its input), waits for the program to exit
    /// (within its time limit), ends what is left of its group, and reaps it.
    pub fn finish(mut self) -> Result<Finished, Error> {
        drop(self.stdin.take());
        let status = self.end(false)?;
        if self.timed_out() {
            return Err(Error::TimedOut(self.timeout));
        }
        let stderr = std::mem::take(&mut *self.stderr_kept.lock().unwrap_or_else(|p| p.into_inner()));
        Ok(Finished { status, stderr })
    }

    /// Waits for the child to exit (or kills its group first when `kill`), kills whatever of its
    /// group remains while the child is not yet reaped (so its group id cannot have been
    /// reused), then reaps it and stops the watchdog.
    fn end(&mut self, kill: bool) -> Result<ExitStatus, Error> {
        let Some(mut child) = self.child.take() else { return Err(Error::Io(io::Error::other("already ended"))) };
        let pid = rustix::process::Pid::from_child(&child);
        if kill {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        // Exited but left waitable: the group id stays reserved while we clear the group.
        while let Err(rustix::io::Errno::INTR) = rustix::process::waitid(
            rustix::process::WaitId::Pid(pid),
            rustix::process::WaitIdOptions::EXITED | rustix::process::WaitIdOptions::NOWAIT,
        ) {}
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        let status = child.wait().map_err(Error::Io);
        drop(self.stop.take());
        if let Some(watchdog) = self.watchdog.take() {
            let _ = watchdog.join();
        }
        drop(self.stdout.take());
        if let Some(thread) = self.stderr_thread.take() {
            let _ = thread.join();
        }
        status
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        drop(self.stdin.take());
        if self.child.is_some() {
            let _ = self.end(true);
        }
    }
}

/// `path` as an absolute, canonical directory with no leading `-`, for a [`Spec`].
pub fn canonical_dir(path: &Path) -> Result<PathBuf, Error> {
    let canonical = path.canonicalize().map_err(Error::Io)?;
    if !canonical.is_dir() || canonical.as_os_str().to_string_lossy().starts_with('-') {
        return Err(Error::BadPath(path.display().to_string()));
    }
    Ok(canonical)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_as_git_prints_them() {
        assert_eq!(parse_version("git version 2.39.5\n"), Some((2, 39, 5)));
        assert_eq!(parse_version("git version 2.45.0.rc1"), Some((2, 45, 0)));
        assert_eq!(parse_version("git version 2.39.5.windows.1"), Some((2, 39, 5)));
        assert_eq!(parse_version("git version 3.0"), Some((3, 0, 0)));
        assert_eq!(parse_version("hub version 2.14.2"), None);
        assert!(parse_version("git version 2.39.3").is_some_and(|v| v < MIN_VERSION));
    }
}
