//! forgecore's `pre-receive` hook and the channel a push's hook talks to the core through.
//!
//! receive-pack runs forgecore's own hook ([`PRE_RECEIVE`], installed in forgecore's
//! `core.hooksPath` by `git::command`; a repository's hooks never run). The hook hands the
//! pushed ref lines and the quarantine's object directories over two FIFOs in a private (0700)
//! directory under [`pushes_dir`] ([`HookChannel`]) and prints the answer it reads back. What
//! the answer is (the push policy) is the transport's; this module only carries it. Directories
//! that a host which died mid-push left behind are removed at open ([`sweep`]).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

/// The longest hook request read: ref lines and three paths, bounded as a push's command list
/// is (git-http-backend's `GIT_HTTP_MAX_REQUEST_BUFFER` default).
const MAX_REQUEST_BYTES: u64 = 10 << 20;

/// Where the pushes' private directories are made under a data directory.
pub fn pushes_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("git").join("pushes")
}

/// forgecore's `pre-receive` hook (POSIX `sh`, no program of ours): the ref lines and the
/// quarantine's directories to `$FORGECORE_PUSH_DIR/request`, then the core's answer from
/// `$FORGECORE_PUSH_DIR/answer`: a first line `ok` accepts, anything else refuses, and the lines
/// after it are shown to the client. Without the directory (a receive-pack forgecore did not
/// start), it refuses.
pub const PRE_RECEIVE: &str = r#"#!/bin/sh
# forgecore's pre-receive: installed by forgecore in its own core.hooksPath (a repository's
# hooks never run). It hands the pushed ref lines and the quarantine's object directories to
# the forgecore process serving the push, and prints its answer.
dir=$FORGECORE_PUSH_DIR
if [ -z "$dir" ] || [ ! -p "$dir/request" ] || [ ! -p "$dir/answer" ]; then
    echo "GitLab: pushes are accepted only through forgecore" >&2
    exit 1
fi
{
    printf 'quarantine %s\n' "$GIT_QUARANTINE_PATH"
    printf 'objects %s\n' "$GIT_OBJECT_DIRECTORY"
    printf 'alternates %s\n' "$GIT_ALTERNATE_OBJECT_DIRECTORIES"
    printf '\n'
    cat
} > "$dir/request"
{
    IFS= read -r verdict
    cat >&2
} < "$dir/answer"
[ "$verdict" = ok ]
"#;

/// The hooks forgecore installs in its `core.hooksPath`.
pub const HOOKS: &[(&str, &str)] = &[("pre-receive", PRE_RECEIVE)];

/// The private directory and the two FIFOs one push's hook talks to the core through, and the
/// thread that waits for the hook. Dropping it unblocks that thread and removes the directory.
pub struct HookChannel {
    dir: PathBuf,
    requests: Receiver<(String, Sender<String>)>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Set once a hook's request has been read: from then on the thread's last step is the
    /// blocking open of `answer`, whose reader is that hook.
    heard: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// How long a dropped channel lets a hook that was heard open `answer` and take its answer
/// before the channel opens it itself (the hook is gone, or never reads it).
const ANSWER_GRACE: Duration = Duration::from_secs(2);

/// A hook's request and where its answer goes.
pub type HookCall = (String, Sender<String>);

impl HookChannel {
    /// Makes the directory (0700) under `base` with its FIFOs, and the waiting thread.
    pub fn new(base: &Path) -> std::io::Result<HookChannel> {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::create_dir_all(base)?;
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let dir = base.join(format!("push-{}-{n}-{nanos}", std::process::id()));
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        let mode = rustix::fs::Mode::from_raw_mode(0o600);
        for name in ["request", "answer"] {
            rustix::fs::mkfifoat(rustix::fs::CWD, dir.join(name), mode)?;
        }
        let (tx, requests) = mpsc::channel();
        let (request, answer) = (dir.join("request"), dir.join("answer"));
        let heard = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = heard.clone();
        let thread = std::thread::Builder::new().name("git-pre-receive".into()).spawn(move || {
            let _ = serve_once(&request, &answer, &tx, &flag);
        });
        let thread = match thread {
            Ok(thread) => thread,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(e);
            }
        };
        Ok(HookChannel { dir, requests, thread: Some(thread), heard })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The hook's request, if it came within `wait`.
    pub fn poll(&self, wait: Duration) -> Option<HookCall> {
        self.requests.recv_timeout(wait).ok()
    }
}

/// Removes the push directories under `base` that processes no longer running left behind
/// (a host that died mid-push); those of live processes, this one's included, stay.
pub fn sweep(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid =
            name.strip_prefix("push-").and_then(|rest| rest.split('-').next()).and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            if !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// Waits for one hook: reads its request to the end, hands it on, writes the answer back.
fn serve_once(
    request: &Path,
    answer: &Path,
    tx: &Sender<HookCall>,
    heard: &std::sync::atomic::AtomicBool,
) -> std::io::Result<()> {
    let mut text = String::new();
    std::fs::File::open(request)?.take(MAX_REQUEST_BYTES).read_to_string(&mut text)?;
    if text.is_empty() {
        return Ok(());
    }
    heard.store(true, std::sync::atomic::Ordering::SeqCst);
    let (reply_tx, reply_rx) = mpsc::channel();
    if tx.send((text, reply_tx)).is_err() {
        return Ok(());
    }
    let reply = reply_rx.recv().unwrap_or_else(|_| "refused\nGitLab: The push could not be checked.\n".into());
    std::fs::OpenOptions::new().write(true).open(answer)?.write_all(reply.as_bytes())
}

impl Drop for HookChannel {
    fn drop(&mut self) {
        use std::os::unix::fs::OpenOptionsExt;
        // The thread may still wait for a reply, or in a blocking open of either FIFO: opening
        // the other end without blocking lets it through (an empty request, or an answer no one
        // reads).
        if let Some(thread) = self.thread.take() {
            let nonblocking = libc::O_NONBLOCK;
            // A hook that was heard is about to read its answer: opening `answer` here first
            // would take the answer from it and leave it waiting for a writer forever. It gets
            // a moment to read it (an unanswered request is refused meanwhile).
            let grace = std::time::Instant::now() + ANSWER_GRACE;
            while self.heard.load(std::sync::atomic::Ordering::SeqCst)
                && !thread.is_finished()
                && std::time::Instant::now() < grace
            {
                while self.requests.try_recv().is_ok() {}
                std::thread::sleep(Duration::from_millis(5));
            }
            while !thread.is_finished() {
                // A request nobody will answer: dropping it drops its reply's sender, so the
                // thread answers a refusal instead of waiting.
                while self.requests.try_recv().is_ok() {}
                let writer =
                    std::fs::OpenOptions::new().write(true).custom_flags(nonblocking).open(self.dir.join("request"));
                let reader =
                    std::fs::OpenOptions::new().read(true).custom_flags(nonblocking).open(self.dir.join("answer"));
                std::thread::sleep(Duration::from_millis(5));
                drop((writer, reader));
            }
            let _ = thread.join();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("fc-hook-test-{}-{:?}", std::process::id(), std::thread::current().id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_channel_nobody_used_ends_at_once() {
        let base = scratch();
        let channel = HookChannel::new(&base).unwrap();
        let dir = channel.dir().to_path_buf();
        assert!(dir.join("request").exists());
        let started = std::time::Instant::now();
        drop(channel);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(!dir.exists());
        let _ = std::fs::remove_dir_all(base);
    }

    #[test]
    fn a_hook_gets_its_answer_and_an_unanswered_one_a_refusal() {
        let base = scratch();
        for answer in [true, false] {
            let channel = HookChannel::new(&base).unwrap();
            let dir = channel.dir().to_path_buf();
            let hook = std::thread::spawn(move || {
                std::fs::write(dir.join("request"), "objects /x\n\nline\n").unwrap();
                std::fs::read_to_string(dir.join("answer")).unwrap()
            });
            let (request, reply) = channel.poll(Duration::from_secs(10)).unwrap();
            assert_eq!(request, "objects /x\n\nline\n");
            if answer {
                reply.send("ok\n".into()).unwrap();
                assert_eq!(hook.join().unwrap(), "ok\n");
                drop(channel);
            } else {
                // Unanswered, and the channel dropped at once: the hook still gets the refusal
                // (the channel's drop must not take the answer from it).
                drop(reply);
                drop(channel);
                assert!(hook.join().unwrap().starts_with("refused\n"));
            }
        }
        let _ = std::fs::remove_dir_all(base);
    }

    #[test]
    fn leftovers_of_dead_processes_are_swept() {
        let base = scratch();
        let dead = base.join("push-999999999-0-0");
        let mine = base.join(format!("push-{}-0-0", std::process::id()));
        for dir in [&dead, &mine] {
            std::fs::create_dir_all(dir).unwrap();
        }
        sweep(&base);
        assert!(!dead.exists() && mine.exists());
        let _ = std::fs::remove_dir_all(base);
    }
}
