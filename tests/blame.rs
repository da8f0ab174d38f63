//! Blame's bounds on a long history (issue #43): a file of 20,000 versions, built with `git
//! fast-import`, blamed as `git blame --porcelain` blames it. Three blames at once hold less
//! memory than one `git blame` of the file holds alone (blame keeps the state of the blame, not
//! every version of the file), and a blame past `limits.blame_timeout_millis` answers what
//! GitLab answers when Gitaly's blame runs past its deadline.
//!
//! The memory is counted by this binary's allocator (the live bytes of the heap and their
//! peak), which is what blame holds; the process's peak resident size is printed beside it. The
//! tests of this binary run one at a time, so that nothing else allocates meanwhile.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{git_text, porcelain_lines, TestInstance};
use serde_json::json;
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

impl Counting {
    fn grew(by: usize) {
        let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }
}

// SAFETY: every call is the system allocator's with the caller's arguments; the counters are
// only arithmetic beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is the system allocator's.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            Counting::grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            Counting::grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, which is the system's, with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator, which is the system's, with `layout`.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        if !moved.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            Counting::grew(new_size);
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Versions of `hot.txt`: one commit each.
const VERSIONS: usize = 20_000;
/// Lines of `hot.txt`; the first half never changes after the first commit, so that every
/// blame walks the whole history to its root.
const LINES: usize = 100;

/// One test at a time (see the module's docs).
static SERIAL: Mutex<()> = Mutex::new(());

/// The `git fast-import` stream of the fixture: commit `v` rewrites one line of the second half
/// of `hot.txt`, a minute after commit `v - 1`; every byte is a function of `v`.
fn history() -> String {
    let mut lines: Vec<String> =
        (0..LINES).map(|j| format!("line {j:04} of the hot file, first written at the start\n")).collect();
    let mut script = String::with_capacity(VERSIONS * (LINES * 55 + 150));
    for v in 0..VERSIONS {
        if v > 0 {
            let j = LINES / 2 + (v * 37) % (LINES - LINES / 2);
            lines[j] = format!("line {j:04} of the hot file, rewritten by commit {v:06}\n");
        }
        let data: String = lines.concat();
        let time = 1_600_000_000 + v * 60;
        let message = format!("version {v:05}\n");
        script.push_str(&format!("commit refs/heads/main\ncommitter C <c@example.com> {time} +0000\n"));
        script.push_str(&format!("data {}\n{message}\n", message.len()));
        script.push_str(&format!("M 100644 inline hot.txt\ndata {}\n", data.len()));
        script.push_str(&data);
        script.push('\n');
    }
    script
}

/// The fixture repository, built under `dir` (a second or two).
fn fixture(dir: &Path) -> PathBuf {
    let repo = dir.join("hot.git");
    common::git(dir, &["init", "-q", "--bare", "-b", "main", &repo.to_string_lossy()]);
    common::fast_import(&repo, &history());
    // As a server's housekeeping leaves it: one pack, objects grouped by kind (fast-import's
    // deltas kept), so that each reader maps the pages of its own kind of object.
    common::git(&repo, &["repack", "-adq", "--no-write-bitmap-index"]);
    repo
}

/// An instance serving the fixture, built in its directory, as the public project `fx/hot`,
/// with `limits`; the fixture's path.
fn instance(limits: serde_json::Value) -> (TestInstance, PathBuf) {
    let instance = common::open_instance(json!({"limits": limits}));
    let repo = fixture(instance.root_dir());
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    instance.admin_ok(json!({"command": "project_add", "path": "fx/hot", "repo": repo, "visibility": "public"}));
    (instance, repo)
}

const BLAME: &str = "/api/v4/projects/fx%2Fhot/repository/files/hot.txt/blame?ref=main";

/// `(commit, line)` of every line of a blame answer.
fn blamed_lines(body: &serde_json::Value) -> Vec<(String, String)> {
    let groups = body.as_array().unwrap_or_else(|| panic!("not a list: {body}"));
    let mut lines = Vec::new();
    for group in groups {
        let id = group["commit"]["id"].as_str().unwrap();
        lines.extend(group["lines"].as_array().unwrap().iter().map(|l| (id.to_string(), l.as_str().unwrap().into())));
    }
    lines
}

/// A field of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`).
fn status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with(&format!("{field}:"))).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

/// The peak resident size of `git blame --porcelain main -- hot.txt` on the fixture, in bytes,
/// from the kernel's accounting of that one child (`wait4`), not of every child so far.
fn git_blame_peak(repo: &Path) -> u64 {
    #[allow(clippy::zombie_processes)] // reaped by `wait4` below, which reads its peak
    let child = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["blame", "--porcelain", "main", "--", "hot.txt"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: all-zero bytes are a valid `rusage` (integers and timevals only).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for (`child` is never waited on: dropping a
    // `Child` does not wait); `status` and `usage` are live and writable for the call.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "git blame failed: {status}");
    u64::try_from(usage.ru_maxrss).unwrap() * 1024
}

/// Three anonymous blames at once of the file of 20,000 versions hold less memory together
/// than one `git blame` of it holds alone, and answer as git does. Blame used to keep every
/// version of the file it had read (gix-blame's diff platform caches each blob it is given and
/// is never cleared while a blame runs): about the file's size times its versions, each.
#[test]
fn three_blames_of_a_long_history_hold_less_than_one_git_blame() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let (instance, repo) = instance(json!({}));
    let expected = porcelain_lines(&repo, "main", "hot.txt");
    assert_eq!(expected.len(), LINES);
    let roots = git_text(&repo, &["rev-list", "--max-parents=0", "main"]);
    assert_eq!(expected.iter().filter(|(commit, _)| *commit == roots).count(), LINES / 2, "lines from the root");
    let git_peak = git_blame_peak(&repo);

    // The peaks from here on: the heap's, and VmHWM (writing 5 to clear_refs sets it to VmRSS).
    let live = LIVE.load(Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
    let resident = status_bytes("VmRSS");
    let answers: Vec<(u16, serde_json::Value)> = std::thread::scope(|scope| {
        let blames: Vec<_> = (0..3).map(|_| scope.spawn(|| instance.request_json("GET", BLAME, &[], b""))).collect();
        blames.into_iter().map(|blame| blame.join().unwrap()).collect()
    });
    let held = (PEAK.load(Ordering::Relaxed) - live) as u64;
    let resident = status_bytes("VmHWM").saturating_sub(resident);
    for (status, body) in &answers {
        assert_eq!(*status, 200, "{body}");
        assert_eq!(blamed_lines(body), expected, "against git blame --porcelain");
    }
    let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
    eprintln!(
        "three blames: heap peak +{:.1} MiB, VmHWM +{:.1} MiB (pack pages mapped by each reader \
         included); one git blame: {:.1} MiB",
        mib(held),
        mib(resident),
        mib(git_peak)
    );
    assert!(
        held < git_peak,
        "three blames held {:.1} MiB at their peak, more than one git blame's peak of {:.1} MiB",
        mib(held),
        mib(git_peak)
    );
}

/// A blame still running past `limits.blame_timeout_millis` stops there and answers what GitLab
/// answers when Gitaly's `RawBlame` passes its deadline: a 500 `{"message":"500 Internal Server
/// Error"}` (the API's `handle_api_exception`); soon, not after the whole history.
#[test]
fn a_blame_past_its_time_limit_answers_gitlabs_500() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let (instance, _) = instance(json!({"blame_timeout_millis": 1}));
    let started = std::time::Instant::now();
    let (status, body) = instance.request_json("GET", BLAME, &[], b"");
    assert_eq!((status, body), (500, json!({"message": "500 Internal Server Error"})));
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    // A range past the end of the file answers before any blame: no time limit applies.
    let (status, body) = instance.request_json("GET", &format!("{BLAME}&range[start]=500&range[end]=600"), &[], b"");
    assert_eq!((status, body), (200, json!([])));
}
