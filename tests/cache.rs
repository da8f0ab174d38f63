//! Repeated reads: answers that are pure functions of commit ids computed once, archives cached
//! on disk as Workhorse caches them, and conditional requests (`ETag`, `If-None-Match`, 304)
//! on answers addressed by object ids. Every cached answer is byte-identical to a fresh one,
//! and nothing is stale: a key names commits, never branches.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{git, git_text, TestInstance};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn world(config: Value) -> (TestInstance, PathBuf) {
    let instance = common::open_instance(config);
    let fixtures = instance.fixture_repos();
    (instance, fixtures.join("work"))
}

fn get(instance: &TestInstance, target: &str, headers: &[(&str, &str)]) -> (u16, Vec<(String, String)>, Vec<u8>) {
    instance.request("GET", target, headers, b"")
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// A new commit on `main` of the work tree, by a new author.
fn commit_on_main(work: &Path, author: &str) -> String {
    std::fs::write(work.join("moved.txt"), format!("{author}\n")).unwrap();
    git(work, &["add", "moved.txt"]);
    git(
        work,
        &[
            "-c",
            &format!("user.name={author}"),
            "-c",
            &format!("user.email={author}@example.com"),
            "commit",
            "-q",
            "-m",
            author,
        ],
    );
    git_text(work, &["rev-parse", "HEAD"])
}

/// The cache directory's entries: (final files, temporary files).
fn cache_files(instance: &TestInstance) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let dir = instance.data_dir().join("archive-cache");
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    files.sort();
    files.into_iter().partition(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
}

#[test]
fn cached_answers_are_byte_identical_and_follow_a_moving_branch() {
    let (instance, work) = world(json!({}));
    let targets = [
        "/api/v4/projects/fx%2Fwork/repository/contributors?per_page=2&page=1",
        "/api/v4/projects/fx%2Fwork/repository/contributors?per_page=2&page=2&order_by=email",
        "/api/v4/projects/fx%2Fwork/repository/compare?from=feature&to=main",
        "/api/v4/projects/fx%2Fwork/repository/merge_base?refs[]=main&refs[]=feature",
        "/api/v4/projects/fx%2Fwork/repository/archive.tar",
        "/api/v4/projects/fx%2Fwork/repository/archive.zip?path=docs",
    ];
    let first: Vec<_> = targets.iter().map(|t| get(&instance, t, &[])).collect();
    assert!(first.iter().all(|(status, _, _)| *status == 200), "{:?}", first.iter().map(|r| r.0).collect::<Vec<_>>());
    let again: Vec<_> = targets.iter().map(|t| get(&instance, t, &[])).collect();
    for ((target, a), b) in targets.iter().zip(&first).zip(&again) {
        assert_eq!(a.2, b.2, "{target}: a cached answer is the same bytes");
    }
    assert_eq!(cache_files(&instance).0.len(), 2, "two archives, each built once and kept");

    // main moves: every answer follows it at once.
    let tip = commit_on_main(&work, "newcomer");
    let (_, _, contributors) = get(&instance, "/api/v4/projects/fx%2Fwork/repository/contributors?per_page=100", &[]);
    assert!(String::from_utf8_lossy(&contributors).contains("newcomer@example.com"));
    let (_, _, compare) = get(&instance, targets[2], &[]);
    let compare: Value = serde_json::from_slice(&compare).unwrap();
    assert_eq!(compare["commit"]["id"], json!(tip));
    let (_, headers, _) = get(&instance, targets[4], &[]);
    assert!(header(&headers, "Content-Disposition").unwrap().contains(&tip), "the new tip's archive");
    assert_eq!(cache_files(&instance).0.len(), 3);
}

#[test]
fn concurrent_first_downloads_build_once() {
    let (instance, work) = world(json!({}));
    let ctx = instance.ctx();
    let target = "/api/v4/projects/fx%2Fwork/repository/archive.tar.bz2?sha=main";
    let bodies: Vec<Vec<u8>> = std::thread::scope(|s| {
        let downloads: Vec<_> = (0..4)
            .map(|_| s.spawn(|| forgecore::http::handle(ctx, "GET", target, Vec::new(), b"").into_bytes().unwrap()))
            .collect();
        downloads.into_iter().map(|d| d.join().unwrap()).collect()
    });
    let archives = ctx.caches.archives.as_ref().unwrap();
    assert_eq!(archives.builds(), 1, "four concurrent first downloads, one build");
    assert!(bodies.windows(2).all(|w| w[0] == w[1]));
    assert!(!bodies[0].is_empty());
    // The cached bytes are git's archive (compressed by us, so compare what is inside).
    let tar = {
        use std::io::Read;
        let mut tar = Vec::new();
        bzip2::read::BzDecoder::new(&bodies[0][..]).read_to_end(&mut tar).unwrap();
        tar
    };
    let commit = git_text(&work, &["rev-parse", "main"]);
    let expected = git(&work, &["archive", "--format=tar", &format!("--prefix=work-main-{commit}/"), "main"]);
    assert_eq!(tar, expected);
}

#[test]
fn an_abandoned_download_leaves_no_entry_and_the_cap_holds() {
    let (instance, work) = world(json!({"cache": {"archive_bytes": 40_000}}));
    // A branch whose archive is several times the lead a build may take on its readers, so the
    // download below is abandoned while its build is still under way, however the threads run.
    let mut noise = vec![0u8; 4 << 20];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for byte in &mut noise {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *byte = x as u8;
    }
    std::fs::write(work.join("noise.bin"), &noise).unwrap();
    git(&work, &["checkout", "-q", "-b", "big"]);
    git(&work, &["add", "noise.bin"]);
    git(&work, &["-c", "user.name=noise", "-c", "user.email=noise@example.com", "commit", "-q", "-m", "noise"]);
    git(&work, &["checkout", "-q", "main"]);
    let target = "/api/v4/projects/fx%2Fwork/repository/archive.tar?sha=big";
    let abandoned = instance.request_response("GET", target, &[], b"");
    let mut some = [0u8; 512];
    assert_eq!(forgecore::ffi::fc_response_read(abandoned.as_ptr(), some.as_mut_ptr(), some.len()), 512);
    drop(abandoned);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while cache_files(&instance) != (vec![], vec![]) {
        assert!(std::time::Instant::now() < deadline, "{:?}", cache_files(&instance));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Many archives, a cap of 40 kB: the least recently used go.
    for format in ["tar", "zip", "tar.gz", "tar.bz2"] {
        for path in ["", "&path=docs", "&path=src"] {
            let (status, _, _) =
                get(&instance, &format!("/api/v4/projects/fx%2Fwork/repository/archive.{format}?sha=main{path}"), &[]);
            assert!(status == 200 || status == 404, "{format}{path}: {status}");
            let total: u64 = cache_files(&instance).0.iter().map(|p| p.metadata().unwrap().len()).sum();
            assert!(total <= 40_000, "{total} bytes kept");
        }
    }
    assert!(!cache_files(&instance).0.is_empty());
}

#[test]
fn answers_addressed_by_object_ids_are_not_modified_only_when_the_tag_matches() {
    let (instance, work) = world(json!({}));
    let blob = git_text(&work, &["rev-parse", "main:README.md"]);
    let (main, feature) = (git_text(&work, &["rev-parse", "main"]), git_text(&work, &["rev-parse", "feature"]));
    let addressed = [
        format!("/api/v4/projects/fx%2Fwork/repository/blobs/{blob}"),
        format!("/api/v4/projects/fx%2Fwork/repository/blobs/{blob}/raw"),
        format!("/api/v4/projects/fx%2Fwork/repository/archive.zip?sha={main}"),
        format!("/api/v4/projects/fx%2Fwork/repository/compare?from={feature}&to={main}"),
    ];
    for target in &addressed {
        let (status, headers, body) = get(&instance, target, &[]);
        assert_eq!(status, 200, "{target}");
        let tag = header(&headers, "ETag").unwrap_or_else(|| panic!("{target}: no ETag")).to_string();
        assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");
        let (status, headers, empty) = get(&instance, target, &[("If-None-Match", &tag)]);
        assert_eq!((status, empty.len()), (304, 0), "{target}");
        assert_eq!(header(&headers, "ETag"), Some(tag.as_str()));
        let (status, _, again) = get(&instance, target, &[("If-None-Match", "\"something else\"")]);
        assert_eq!(status, 200, "{target}: another tag is no match");
        assert_eq!(again, body);
    }
    // The blob's tag is its id.
    let (_, headers, _) = get(&instance, &addressed[0], &[]);
    assert_eq!(header(&headers, "ETag"), Some(format!("\"{blob}\"").as_str()));
    // A branch name can move: no tag, and If-None-Match changes nothing.
    for target in [
        "/api/v4/projects/fx%2Fwork/repository/archive.zip?sha=main",
        "/api/v4/projects/fx%2Fwork/repository/compare?from=feature&to=main",
    ] {
        let (status, headers, _) = get(&instance, target, &[("If-None-Match", "*")]);
        assert_eq!((status, header(&headers, "ETag")), (200, None), "{target}");
    }
    // A tag never opens what the caller may not read.
    instance.admin_ok(json!({"command": "project_add", "path": "fx/secret", "repo": work, "visibility": "private"}));
    let (status, _, _) =
        get(&instance, &format!("/api/v4/projects/fx%2Fsecret/repository/blobs/{blob}"), &[("If-None-Match", "*")]);
    assert_eq!(status, 404);
}

/// Issue #25: `If-None-Match: *` matches only a current representation (RFC 9110), so ids that
/// name nothing are their 404s, never 304s; and for objects that exist it changes nothing.
#[test]
fn if_none_match_star_is_no_304_for_objects_that_do_not_exist() {
    let (instance, work) = world(json!({}));
    let missing = "0123456789abcdef0123456789abcdef01234567";
    for target in [
        format!("/api/v4/projects/fx%2Fwork/repository/blobs/{missing}"),
        format!("/api/v4/projects/fx%2Fwork/repository/blobs/{missing}/raw"),
        format!("/api/v4/projects/fx%2Fwork/repository/archive.zip?sha={missing}"),
        format!("/api/v4/projects/fx%2Fwork/repository/compare?from={missing}&to={missing}"),
    ] {
        let (status, _, _) = get(&instance, &target, &[("If-None-Match", "*")]);
        assert_eq!(status, 404, "{target}");
    }
    let blob = git_text(&work, &["rev-parse", "main:README.md"]);
    let (status, _, body) =
        get(&instance, &format!("/api/v4/projects/fx%2Fwork/repository/blobs/{blob}/raw"), &[("If-None-Match", "*")]);
    assert_eq!(status, 200);
    assert_eq!(body, git(&work, &["cat-file", "blob", &blob]), "`*` on an existing blob is its content");
}

/// A branch `name` of the work tree whose one new file is `len` bytes of noise: its tar
/// archive is about `len` bytes, compressed or not.
fn noise_branch(work: &Path, name: &str, len: usize) -> String {
    let mut noise = vec![0u8; len];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ len as u64;
    for byte in &mut noise {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *byte = x as u8;
    }
    git(work, &["checkout", "-q", "-b", name]);
    std::fs::write(work.join(format!("{name}.bin")), &noise).unwrap();
    git(work, &["add", &format!("{name}.bin")]);
    git(work, &["-c", "user.name=noise", "-c", "user.email=noise@example.com", "commit", "-q", "-m", name]);
    git(work, &["checkout", "-q", "main"]);
    git_text(work, &["rev-parse", name])
}

/// A request through the Rust context (`TestInstance::ctx`), whose caches the test can look at.
fn rust_get(ctx: &forgecore::Context, target: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let response = forgecore::http::handle(ctx, "GET", target, Vec::new(), b"");
    let (status, headers) = (response.status, response.headers.clone());
    (status, headers, response.into_bytes().unwrap())
}

/// Bytes in the cache directory, entries and temporary files together.
fn cache_bytes(instance: &TestInstance) -> u64 {
    let (entries, temps) = cache_files(instance);
    entries.iter().chain(&temps).filter_map(|p| p.metadata().ok()).map(|m| m.len()).sum()
}

/// Issue #25: `path`, `./path`, `/path` (and `a/../path`, `path/`) are one archive: one build,
/// one entry, the same bytes under one name.
#[test]
fn spellings_of_a_path_are_one_archive() {
    let (instance, _) = world(json!({}));
    let ctx = instance.ctx();
    let archives = ctx.caches.archives.as_ref().unwrap();
    let bodies: Vec<(Option<String>, Vec<u8>)> = ["docs", "./docs", "/docs", "src/../docs", "docs/"]
        .iter()
        .map(|path| {
            let target = format!("/api/v4/projects/fx%2Fwork/repository/archive.tar?sha=main&path={path}");
            let (status, headers, body) = rust_get(ctx, &target);
            assert_eq!(status, 200, "{path}");
            (header(&headers, "Content-Disposition").map(str::to_string), body)
        })
        .collect();
    assert_eq!(archives.builds(), 1, "one build for every spelling");
    assert!(bodies.windows(2).all(|w| w[0] == w[1]), "the same name and bytes");
    assert_eq!(cache_files(&instance).0.len(), 1);
    // Excludes too: their order and spelling change nothing.
    for excludes in ["a/b,README.md", "./README.md,/a/b/", "README.md,a/b,README.md", "a/b/c/..,README.md"] {
        let target = format!("/api/v4/projects/fx%2Fwork/repository/archive.tar?sha=main&exclude_paths={excludes}");
        assert_eq!(rust_get(ctx, &target).0, 200, "{excludes}");
    }
    assert_eq!(archives.builds(), 2);
}

/// Issue #25: bytes being written count against the capacity. A build that passes it stops
/// caching (the disk never holds more than the capacity) yet streams whole to its client, and
/// it evicts nothing: the entries cached before are still there.
#[test]
fn a_build_larger_than_the_cache_streams_whole_and_evicts_nothing() {
    let capacity = 300_000u64;
    let (instance, work) = world(json!({"cache": {"archive_bytes": capacity}}));
    let big = noise_branch(&work, "big", 3 << 20);
    let small = "/api/v4/projects/fx%2Fwork/repository/archive.tar?sha=main";
    assert_eq!(get(&instance, small, &[]).0, 200);
    let kept = cache_files(&instance).0;
    assert_eq!(kept.len(), 1);

    let response =
        instance.request_response("GET", "/api/v4/projects/fx%2Fwork/repository/archive.tar?sha=big", &[], b"");
    assert_eq!(response.status(), 200);
    let mut body = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = forgecore::ffi::fc_response_read(response.as_ptr(), chunk.as_mut_ptr(), chunk.len());
        assert!(n >= 0, "the download failed after {} bytes", body.len());
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n as usize]);
        assert!(cache_bytes(&instance) <= capacity, "{} bytes on disk", cache_bytes(&instance));
    }
    drop(response);
    let expected = git(&work, &["archive", "--format=tar", &format!("--prefix=work-big-{big}/"), "big"]);
    assert!(body == expected, "the whole archive ({} bytes, git's {})", body.len(), expected.len());
    assert_eq!(cache_files(&instance), (kept, vec![]), "nothing evicted, nothing of the big one left");
    assert!(cache_bytes(&instance) <= capacity);
}

/// Issue #25: archive builds are bounded: past `limits.archive_builds`, a build waits its turn
/// up to `archive_queue_millis`, then is a 503; a cached archive needs no turn, and the turn
/// comes back when a build ends.
#[test]
fn concurrent_archive_builds_are_bounded() {
    let (instance, work) = world(json!({"limits": {"archive_builds": 1, "archive_queue_millis": 300}}));
    let ctx = instance.ctx();
    noise_branch(&work, "big", 4 << 20);
    let cached = "/api/v4/projects/fx%2Fwork/repository/archive.zip?sha=main";
    assert_eq!(rust_get(ctx, cached).0, 200);
    // A download that reads nothing keeps its build (and its slot) busy.
    let stalled =
        forgecore::http::handle(ctx, "GET", "/api/v4/projects/fx%2Fwork/repository/archive.tar?sha=big", vec![], b"");
    assert_eq!(stalled.status, 200);
    let started = std::time::Instant::now();
    let (status, _, body) = rust_get(ctx, "/api/v4/projects/fx%2Fwork/repository/archive.tar?sha=main");
    assert_eq!(status, 503, "{}", String::from_utf8_lossy(&body));
    assert!(started.elapsed() >= std::time::Duration::from_millis(250), "it waited its turn first");
    let message: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        message,
        json!({"message": "503 Service Unavailable - too many archives are being built, try again later"})
    );
    assert_eq!(rust_get(ctx, cached).0, 200, "a cached archive needs no build");
    assert_eq!(ctx.archive_builds.busy(), 1);
    drop(stalled);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while ctx.archive_builds.busy() > 0 {
        assert!(std::time::Instant::now() < deadline, "the abandoned build gave its slot back");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(rust_get(ctx, "/api/v4/projects/fx%2Fwork/repository/archive.tar?sha=main").0, 200);
}

/// Issue #25: opening the same data directory (another host, a worker starting, the admin CLI)
/// removes only temporary files whose writer is gone: a download in progress elsewhere
/// completes whole, and its archive is kept.
#[test]
fn opening_a_data_directory_leaves_other_writers_temporary_files() {
    let (instance, work) = world(json!({}));
    let big = noise_branch(&work, "big", 4 << 20);
    let dir = instance.data_dir().join("archive-cache");
    std::fs::create_dir_all(&dir).unwrap();
    let stale = dir.join(".stale.1.2.tmp");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::create(&stale).unwrap().set_modified(old).unwrap();

    let mut response =
        instance.request_response("GET", "/api/v4/projects/fx%2Fwork/repository/archive.tar?sha=big", &[], b"");
    assert_eq!(response.status(), 200);
    let mut first = [0u8; 512];
    assert_eq!(forgecore::ffi::fc_response_read(response.as_ptr(), first.as_mut_ptr(), first.len()), 512);
    let temps = cache_files(&instance).1;
    assert_eq!(temps.len(), 2, "{temps:?}");
    // Old enough that only its writer's lock keeps it.
    for temp in &temps {
        std::fs::OpenOptions::new().write(true).open(temp).unwrap().set_modified(old).unwrap();
    }
    let other = instance.reopen();
    assert!(!stale.exists(), "a file nobody writes is removed");
    let live: Vec<PathBuf> = temps.into_iter().filter(|t| *t != stale).collect();
    assert!(live[0].exists(), "the download in progress keeps its file");
    let mut body = first.to_vec();
    body.extend(response.read_all(64 * 1024));
    drop(response);
    let expected = git(&work, &["archive", "--format=tar", &format!("--prefix=work-big-{big}/"), "big"]);
    assert!(body == expected, "the whole archive ({} bytes, git's {})", body.len(), expected.len());
    assert_eq!(cache_files(&instance).0.len(), 1, "and it was kept");
    drop(other);
}
