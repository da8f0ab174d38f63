//! Blame's bounds on a long history (issue #43): a file of 20,000 versions, built with `git
//! fast-import`. A blame past `limits.blame_timeout_millis` answers what GitLab answers when
//! Gitaly's blame runs past its deadline.
//!
//! The tests of this binary run one at a time.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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
