//! B4 archives through the HTTP door (`fc_request`) and the typed exports, compared with
//! `git archive` on the repositories of tests/fixtures/archive.sh: the tar byte for byte, the
//! compressed formats after decompression, zip member for member; plus LFS substitution,
//! determinism, GitLab's names, headers and errors, the rate limit, a hostile tree, and
//! streaming (a reader that goes away stops the producer).
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{cstr, git, git_text, FfiResponse, TestInstance};
use forgecore::ffi;
use serde_json::{json, Value};
use std::ffi::c_void;
use std::io::Read;
use std::path::{Path, PathBuf};

const FILE_NOT_FOUND: &str = "404 File Not Found";
const LFS_OBJECT: &[u8] = b"LFS object content: the real model, not its pointer.\n";

/// Tests that count archive threads run alone (`write`); every other test holds `read`.
static THREADS: std::sync::RwLock<()> = std::sync::RwLock::new(());

struct Fx {
    _shared: Option<std::sync::RwLockReadGuard<'static, ()>>,
    instance: TestInstance,
    repo: PathBuf,
    hostile: PathBuf,
}

/// An instance with `ar/proj` (repo.git) and `ar/hostile` (hostile.git), both public.
fn setup(config: Value) -> Fx {
    setup_with(config, true)
}

fn setup_with(config: Value, shared: bool) -> Fx {
    let _shared = shared.then(|| THREADS.read().unwrap_or_else(|e| e.into_inner()));
    let instance = common::open_instance(config);
    let dir = instance.root_dir().join("afx");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/archive.sh");
    let status = std::process::Command::new("bash").arg(script).arg(&dir).status().expect("bash runs");
    assert!(status.success(), "tests/fixtures/archive.sh failed");
    instance.admin_ok(json!({"command": "group_add", "path": "ar", "visibility": "public"}));
    for (path, repo) in [("ar/proj", "repo.git"), ("ar/hostile", "hostile.git")] {
        instance
            .admin_ok(json!({"command": "project_add", "path": path, "repo": dir.join(repo), "visibility": "public"}));
    }
    Fx { _shared, instance, repo: dir.join("repo.git"), hostile: dir.join("hostile.git") }
}

fn fixture() -> Fx {
    setup(json!({"rate_limits": {"archive": {"limit": 0, "period_seconds": 60}}}))
}

/// A fixture for a test that counts threads: no other archive test runs meanwhile.
fn exclusive_fixture() -> (std::sync::RwLockWriteGuard<'static, ()>, Fx) {
    let guard = THREADS.write().unwrap_or_else(|e| e.into_inner());
    (guard, setup_with(json!({"rate_limits": {"archive": {"limit": 0, "period_seconds": 60}}}), false))
}

fn get(fx: &Fx, target: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
    fx.instance.request("GET", target, &[], b"")
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// A 200 archive body.
fn archive(fx: &Fx, target: &str) -> Vec<u8> {
    let (status, _, body) = get(fx, target);
    assert_eq!(status, 200, "{target}: {}", String::from_utf8_lossy(&body));
    body
}

/// `git archive --format=<format> --prefix=<prefix>/ <commit> -- <pathspecs>`.
fn git_archive(repo: &Path, format: &str, prefix: &str, commit: &str, pathspecs: &[String]) -> Vec<u8> {
    let format = format!("--format={format}");
    let prefix = format!("--prefix={prefix}/");
    let mut args: Vec<&str> = vec!["archive", &format, &prefix, commit];
    if !pathspecs.is_empty() {
        args.push("--");
        args.extend(pathspecs.iter().map(String::as_str));
    }
    git(repo, &args)
}

/// One tar member as a reader sees it: name (pax path applied), type, mode, link target, data.
#[derive(Debug, PartialEq, Eq)]
struct TarMember {
    name: Vec<u8>,
    kind: u8,
    mode: u32,
    mtime: u64,
    link: Option<Vec<u8>>,
    data: Vec<u8>,
}

fn tar_members(tar: &[u8]) -> Vec<TarMember> {
    let mut archive = tar::Archive::new(tar);
    let mut members = Vec::new();
    for entry in archive.entries().expect("a tar stream") {
        let mut entry = entry.expect("a tar entry");
        let header = entry.header();
        if header.entry_type().is_pax_global_extensions() {
            continue;
        }
        let (kind, mode, mtime) =
            (header.entry_type().as_byte(), header.mode().expect("mode"), header.mtime().expect("mtime"));
        let name = entry.path_bytes().into_owned();
        let link = entry.link_name_bytes().map(|l| l.into_owned());
        let mut data = Vec::new();
        entry.read_to_end(&mut data).expect("member data");
        members.push(TarMember { name, kind, mode, mtime, link, data });
    }
    members
}

fn names(members: &[TarMember]) -> Vec<String> {
    members.iter().map(|m| String::from_utf8_lossy(&m.name).into_owned()).collect()
}

/// Asserts two tars are identical, showing the member lists when they are not.
fn assert_same_tar(ours: &[u8], theirs: &[u8], what: &str) {
    if ours != theirs {
        let (a, b) = (tar_members(ours), tar_members(theirs));
        assert_eq!(names(&a), names(&b), "{what}: member names differ");
        assert_eq!(a, b, "{what}: members differ");
        panic!("{what}: the tars differ in bytes ({} vs {}) although their members agree", ours.len(), theirs.len());
    }
}

fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(data).read_to_end(&mut out).expect("gzip decodes");
    out
}

fn bunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    bzip2::read::MultiBzDecoder::new(data).read_to_end(&mut out).expect("bzip2 decodes");
    out
}

/// One zip member from the central directory, its data inflated.
#[derive(Debug, PartialEq, Eq)]
struct ZipMember {
    name: Vec<u8>,
    made_by_system: u8,
    utf8: bool,
    crc: u32,
    size: u64,
    external: u32,
    /// The internal attributes' text bit (archive-zip's `!is_binary`).
    text: bool,
    data: Vec<u8>,
}

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// The members of a zip file, read from its central directory (ZIP64 end records included).
fn zip_members(zip: &[u8]) -> (Vec<ZipMember>, Vec<u8>) {
    let eocd = (0..=zip.len() - 22).rev().find(|&i| le32(zip, i) == 0x0605_4b50).expect("an end record");
    let comment = zip[eocd + 22..eocd + 22 + le16(zip, eocd + 20) as usize].to_vec();
    let (mut entries, mut dir_offset) = (u64::from(le16(zip, eocd + 10)), u64::from(le32(zip, eocd + 16)));
    if eocd >= 20 && le32(zip, eocd - 20) == 0x0706_4b50 {
        let record = le64(zip, eocd - 20 + 8) as usize;
        assert_eq!(le32(zip, record), 0x0606_4b50, "a ZIP64 end record");
        entries = le64(zip, record + 32);
        dir_offset = le64(zip, record + 48);
    }
    let mut at = dir_offset as usize;
    let mut members = Vec::new();
    for _ in 0..entries {
        assert_eq!(le32(zip, at), 0x0201_4b50, "a central directory header");
        let (name_len, extra_len, comment_len) =
            (le16(zip, at + 28) as usize, le16(zip, at + 30) as usize, le16(zip, at + 32) as usize);
        let name = zip[at + 46..at + 46 + name_len].to_vec();
        let (method, crc) = (le16(zip, at + 10), le32(zip, at + 16));
        let (mut compressed, mut size, mut offset) =
            (u64::from(le32(zip, at + 20)), u64::from(le32(zip, at + 24)), u64::from(le32(zip, at + 42)));
        let mut extra = at + 46 + name_len;
        let extra_end = extra + extra_len;
        while extra + 4 <= extra_end {
            let (tag, len) = (le16(zip, extra), le16(zip, extra + 2) as usize);
            if tag == 1 {
                let mut field = extra + 4;
                for value in [&mut size, &mut compressed, &mut offset] {
                    if *value == u64::from(u32::MAX) {
                        *value = le64(zip, field);
                        field += 8;
                    }
                }
            }
            extra += 4 + len;
        }
        let local = offset as usize;
        assert_eq!(le32(zip, local), 0x0403_4b50, "a local header for {}", String::from_utf8_lossy(&name));
        let start = local + 30 + le16(zip, local + 26) as usize + le16(zip, local + 28) as usize;
        let raw = &zip[start..start + compressed as usize];
        let data = match method {
            0 => raw.to_vec(),
            8 => {
                let mut out = Vec::new();
                flate2::read::DeflateDecoder::new(raw).read_to_end(&mut out).expect("deflate decodes");
                out
            }
            other => panic!("unexpected method {other}"),
        };
        assert_eq!(data.len() as u64, size);
        let mut check = flate2::Crc::new();
        check.update(&data);
        assert_eq!(check.sum(), crc, "crc of {}", String::from_utf8_lossy(&name));
        members.push(ZipMember {
            name,
            made_by_system: (le16(zip, at + 4) >> 8) as u8,
            utf8: le16(zip, at + 8) & (1 << 11) != 0,
            crc,
            size,
            external: le32(zip, at + 38),
            text: le16(zip, at + 36) & 1 == 1,
            data,
        });
        at += 46 + name_len + extra_len + comment_len;
    }
    (members, comment)
}

fn head(fx: &Fx, rev: &str) -> String {
    git_text(&fx.repo, &["rev-parse", &format!("{rev}^{{commit}}")])
}

/// One request's expectations: query, the git pathspecs it stands for, the prefix suffix.
struct Case {
    query: String,
    sha: String,
    ref_part: String,
    pathspecs: Vec<String>,
    path_suffix: String,
}

fn cases(fx: &Fx) -> Vec<Case> {
    let main = head(fx, "main");
    let feature = head(fx, "feature/x");
    let long_dir = "d".repeat(60);
    let case = |query: String, sha: &str, ref_part: &str, pathspecs: &[&str], suffix: &str| Case {
        query,
        sha: sha.to_string(),
        ref_part: ref_part.to_string(),
        pathspecs: pathspecs.iter().map(|s| s.to_string()).collect(),
        path_suffix: suffix.to_string(),
    };
    vec![
        case(String::new(), &main, "main", &[], ""),
        case("sha=feature%2Fx".into(), &feature, "feature-x", &[], ""),
        case(format!("sha={main}"), &main, &main, &[], ""),
        case("path=src".into(), &main, "main", &["src"], "-src"),
        case("path=src/lib/".into(), &main, "main", &["src/lib"], "-src-lib"),
        case("path=src/lib/a.rs".into(), &main, "main", &["src/lib/a.rs"], "-src-lib-a.rs"),
        case(
            format!("path=long/{long_dir}"),
            &main,
            "main",
            &[&format!("long/{long_dir}")],
            &format!("-long-{long_dir}"),
        ),
        case(
            "path=src&exclude_paths=src/lib/b.rs,src/main.rs".into(),
            &main,
            "main",
            &["src", ":(exclude)src/lib/b.rs", ":(exclude)src/main.rs"],
            "-src",
        ),
        case(
            "exclude_paths[]=long&exclude_paths[]=assets/blob.dat".into(),
            &main,
            "main",
            &[":(exclude)long", ":(exclude)assets/blob.dat"],
            "",
        ),
        case(
            "exclude_paths=docs/nested,vendor".into(),
            &main,
            "main",
            &[":(exclude)docs/nested", ":(exclude)vendor"],
            "",
        ),
    ]
}

fn target(format: &str, query: &str, lfs: bool) -> String {
    let suffix = if format.is_empty() { String::new() } else { format!(".{format}") };
    let mut query = query.to_string();
    if !lfs {
        query.push_str(if query.is_empty() { "include_lfs_blobs=false" } else { "&include_lfs_blobs=false" });
    }
    format!("/api/v4/projects/ar%2Fproj/repository/archive{suffix}?{query}")
}

#[test]
fn tar_is_byte_identical_to_git_archive_for_trees_paths_and_excludes() {
    let fx = fixture();
    for case in cases(&fx) {
        let prefix = format!("proj-{}-{}{}", case.ref_part, case.sha, case.path_suffix);
        let expected = git_archive(&fx.repo, "tar", &prefix, &case.sha, &case.pathspecs);
        let ours = archive(&fx, &target("tar", &case.query, false));
        assert_same_tar(&ours, &expected, &case.query);
    }
    // What git leaves out and keeps, so that the comparison above means something.
    let listed = names(&tar_members(&archive(&fx, &target("tar", "", false))));
    let main = head(&fx, "main");
    let top = format!("proj-main-{main}/");
    for kept in ["", "README.md", "docs/nested/nested.tmp", "notes/kept.md", "vendor/lib/", "long/long-target-link"] {
        assert!(listed.contains(&format!("{top}{kept}")), "{kept} is missing from {listed:?}");
    }
    for dropped in ["internal/", "internal/hidden.txt", "src/key.secret", "notes/todo.draft", "docs/nested.tmp"] {
        assert!(!listed.contains(&format!("{top}{dropped}")), "{dropped} is exported");
    }
}

#[test]
fn objects_come_from_every_pack_loose_objects_and_alternates() {
    let fx = fixture();
    let dir = fx.instance.root_dir().join("layers");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layered.sh");
    assert!(std::process::Command::new("bash").arg(script).arg(&dir).status().expect("bash runs").success());
    for name in ["layered", "borrowed"] {
        let repo = dir.join(format!("{name}.git"));
        let path = format!("ar/{name}");
        fx.instance.admin_ok(json!({"command": "project_add", "path": path, "repo": repo, "visibility": "public"}));
        let main = git_text(&repo, &["rev-parse", "main"]);
        let prefix = format!("{name}-main-{main}");
        let expected = git_archive(&repo, "tar", &prefix, &main, &[]);
        for (format, unpack) in
            [("tar", None), ("tar.gz", Some(gunzip as fn(&[u8]) -> Vec<u8>)), ("tar.bz2", Some(bunzip))]
        {
            let body = archive(&fx, &format!("/api/v4/projects/ar%2F{name}/repository/archive.{format}"));
            let ours = unpack.map_or_else(|| body.clone(), |unpack| unpack(&body));
            assert_same_tar(&ours, &expected, &format!("{name}.{format}"));
        }
        let zip = archive(&fx, &format!("/api/v4/projects/ar%2F{name}/repository/archive.zip"));
        let (ours, _) = zip_members(&zip);
        let (theirs, _) = zip_members(&git_archive(&repo, "zip", &prefix, &main, &[]));
        assert_eq!(ours, theirs, "{name}.zip");
        // The zip crate reads the large members back (CRC and deflate checked).
        let mut reader = zip::ZipArchive::new(std::io::Cursor::new(zip)).expect("the zip crate reads it");
        for large in ["grown.txt", "packed.bin"] {
            let mut data = Vec::new();
            reader.by_name(&format!("{prefix}/{large}")).expect(large).read_to_end(&mut data).expect("inflates");
            assert!(data.len() > 1 << 20, "{large} is {} bytes", data.len());
        }
    }
    // What the comparison covers: objects in two packs and loose, and through alternates.
    let layered = dir.join("layered.git/objects");
    let packs = std::fs::read_dir(layered.join("pack")).expect("packs").flatten();
    assert_eq!(packs.filter(|e| e.path().extension().is_some_and(|x| x == "pack")).count(), 2);
    let loose = |objects: &Path| {
        std::fs::read_dir(objects).expect("objects").flatten().filter(|e| e.file_name().len() == 2).count()
    };
    assert!(loose(&layered) > 0 && loose(&dir.join("borrowed.git/objects")) > 0);
    let alternates = std::fs::read_to_string(dir.join("borrowed.git/objects/info/alternates")).expect("alternates");
    assert_eq!(Path::new(alternates.trim()), layered);
    let index = std::fs::read_dir(layered.join("pack")).expect("packs").flatten().map(|e| e.path());
    let deltas = index
        .filter(|path| path.extension().is_some_and(|x| x == "idx"))
        .map(|idx| git_text(&layered, &["verify-pack", "-v", idx.to_str().expect("UTF-8 path")]))
        .filter(|listing| listing.contains("chain length = 1"))
        .count();
    assert!(deltas > 0, "no pack of layered.git holds a delta");
}

#[test]
fn compressed_formats_hold_the_same_tar_under_every_alias() {
    let fx = fixture();
    let main = head(&fx, "main");
    let expected = git_archive(&fx.repo, "tar", &format!("proj-main-{main}-src"), &main, &["src".into()]);
    for format in ["", "tar.gz", "tgz", "gz"] {
        let body = archive(&fx, &target(format, "path=src", false));
        assert_eq!(&body[..2], b"\x1f\x8b", "{format:?} is gzip");
        assert_same_tar(&gunzip(&body), &expected, format);
    }
    for format in ["tar.bz2", "tbz", "tbz2", "tb2", "bz2"] {
        let body = archive(&fx, &target(format, "path=src", false));
        assert_eq!(&body[..3], b"BZh", "{format} is bzip2");
        assert_same_tar(&bunzip(&body), &expected, format);
    }
    // The whole tree too (archives over 1 MiB span several gzip members or bzip2 streams; the
    // unit tests of `forgecore_archive`'s `compress` cover that).
    let whole = git_archive(&fx.repo, "tar", &format!("proj-main-{main}"), &main, &[]);
    assert_same_tar(&gunzip(&archive(&fx, &target("tgz", "", false))), &whole, "tgz whole");
    assert_same_tar(&bunzip(&archive(&fx, &target("tbz2", "", false))), &whole, "tbz2 whole");
}

#[test]
fn zip_members_match_git_archive_zip() {
    let fx = fixture();
    for case in cases(&fx) {
        let prefix = format!("proj-{}-{}{}", case.ref_part, case.sha, case.path_suffix);
        let expected = git_archive(&fx.repo, "zip", &prefix, &case.sha, &case.pathspecs);
        let ours = archive(&fx, &target("zip", &case.query, false));
        assert_eq!(&ours[..4], b"PK\x03\x04");
        let (ours, our_comment) = zip_members(&ours);
        let (theirs, their_comment) = zip_members(&expected);
        let listed =
            |m: &[ZipMember]| m.iter().map(|m| String::from_utf8_lossy(&m.name).into_owned()).collect::<Vec<_>>();
        assert_eq!(listed(&ours), listed(&theirs), "{}: member names", case.query);
        assert_eq!(ours, theirs, "{}: members", case.query);
        assert_eq!(our_comment, their_comment, "{}: the comment is the commit id", case.query);
    }
    // A third-party reader agrees.
    let body = archive(&fx, &target("zip", "", false));
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(body)).expect("the zip crate reads it");
    let mut readme = String::new();
    let main = head(&fx, "main");
    zip.by_name(&format!("proj-main-{main}/README.md")).expect("README.md").read_to_string(&mut readme).unwrap();
    assert_eq!(readme, "# Archive fixture\n");
}

/// The data of the member whose name ends with `suffix`.
fn tar_member<'a>(members: &'a [TarMember], suffix: &str) -> &'a TarMember {
    members.iter().find(|m| m.name.ends_with(suffix.as_bytes())).unwrap_or_else(|| panic!("no member {suffix}"))
}

#[test]
fn lfs_objects_replace_their_pointers_unless_asked_not_to() {
    let fx = fixture();
    let pointer = git(&fx.repo, &["cat-file", "-p", "main:assets/model.bin"]);
    let missing = git(&fx.repo, &["cat-file", "-p", "main:assets/missing.bin"]);
    assert!(pointer.starts_with(b"version https://git-lfs.github.com/spec/v1\n"));

    let with = tar_members(&archive(&fx, &target("tar", "", true)));
    assert_eq!(tar_member(&with, "/assets/model.bin").data, LFS_OBJECT);
    assert_eq!(tar_member(&with, "/assets/missing.bin").data, missing, "a missing object keeps its pointer");
    assert_eq!(tar_member(&with, "/plain/pointer.txt").data, pointer, "no filter=lfs, no substitution");
    let without = tar_members(&archive(&fx, &target("tar", "", false)));
    assert_eq!(tar_member(&without, "/assets/model.bin").data, pointer);
    // Every other member is the same either way.
    let others = |m: &[TarMember]| m.iter().filter(|m| !m.name.ends_with(b"/assets/model.bin")).count();
    assert_eq!(others(&with), others(&without));

    for (format, explicit) in [("tar.gz", "include_lfs_blobs=true"), ("tbz", "include_lfs_blobs=True")] {
        let body = archive(&fx, &target(format, &format!("path=assets&{explicit}"), true));
        let tar = if format == "tbz" { bunzip(&body) } else { gunzip(&body) };
        assert_eq!(tar_member(&tar_members(&tar), "/assets/model.bin").data, LFS_OBJECT, "{format}");
    }
    let (zipped, _) = zip_members(&archive(&fx, &target("zip", "", true)));
    let model = zipped.iter().find(|m| m.name.ends_with(b"/assets/model.bin")).expect("model.bin");
    assert_eq!(model.data, LFS_OBJECT);
    let (zipped, _) = zip_members(&archive(&fx, &target("zip", "include_lfs_blobs=0", true)));
    let model = zipped.iter().find(|m| m.name.ends_with(b"/assets/model.bin")).expect("model.bin");
    assert_eq!(model.data, pointer);
}

#[test]
fn two_downloads_are_byte_identical_in_every_format() {
    let fx = fixture();
    for format in ["tar", "tar.gz", "tar.bz2", "zip"] {
        let first = archive(&fx, &target(format, "", true));
        let second = archive(&fx, &target(format, "", true));
        assert!(first == second, "{format}: two downloads differ");
    }
    // `repository_archive() == repository_archive("main")`, as python-gitlab's own test has it.
    assert_eq!(
        archive(&fx, "/api/v4/projects/ar%2Fproj/repository/archive"),
        archive(&fx, &target("", "sha=main", true))
    );
}

#[test]
fn names_headers_and_timestamps_follow_gitlab() {
    let fx = fixture();
    let main = head(&fx, "main");
    let (status, headers, body) = get(&fx, "/api/v4/projects/ar%2Fproj/repository/archive");
    assert_eq!(status, 200);
    let name = format!("proj-main-{main}");
    assert_eq!(
        header(&headers, "Content-Disposition"),
        Some(format!("attachment; filename=\"{name}.tar.gz\"").as_str())
    );
    assert_eq!(header(&headers, "Content-Type"), Some("application/octet-stream"));
    assert_eq!(header(&headers, "Content-Transfer-Encoding"), Some("binary"));
    assert_eq!(header(&headers, "Content-Length"), None);
    let members = tar_members(&gunzip(&body));
    assert!(members.iter().all(|m| m.name.starts_with(format!("{name}/").as_bytes())), "one top directory");
    // Every mtime is the committer time of the commit (the second commit's, 1700003600).
    assert!(members.iter().all(|m| m.mtime == 1_700_003_600));

    let cases = [
        ("archive.zip?sha=feature/x", format!("proj-feature-x-{}.zip", head(&fx, "feature/x")), "application/zip"),
        (&*format!("archive.tbz?sha={main}"), format!("proj-{main}-{main}.tar.bz2"), "application/octet-stream"),
        ("archive.tgz?path=src/lib", format!("proj-main-{main}-src-lib.tar.gz"), "application/octet-stream"),
        ("archive.tar?sha=main&path=/src/", format!("proj-main-{main}-src.tar"), "application/octet-stream"),
    ];
    for (route, file, content_type) in cases {
        let (status, headers, _) = get(&fx, &format!("/api/v4/projects/ar%2Fproj/repository/{route}"));
        assert_eq!(status, 200, "{route}");
        let disposition = format!("attachment; filename=\"{file}\"");
        assert_eq!(header(&headers, "Content-Disposition"), Some(disposition.as_str()), "{route}");
        assert_eq!(header(&headers, "Content-Type"), Some(content_type), "{route}");
    }
    // The top directory carries the same name.
    let tar = archive(&fx, "/api/v4/projects/ar%2Fproj/repository/archive.tar?path=src/lib");
    assert!(names(&tar_members(&tar))[1].starts_with(&format!("proj-main-{main}-src-lib/")));
    // A project path with dots still routes, the suffix being the format (a GitLab spec case).
    fx.instance.admin_ok(
        json!({"command": "project_add", "path": "ar/path.with.dot", "repo": fx.repo, "visibility": "public"}),
    );
    let (status, headers, _) = get(&fx, "/api/v4/projects/ar%2Fpath.with.dot/repository/archive.zip");
    assert_eq!(status, 200);
    let disposition = format!("attachment; filename=\"path.with.dot-main-{main}.zip\"");
    assert_eq!(header(&headers, "Content-Disposition"), Some(disposition.as_str()));
    // The format may also come as a query parameter (lower-cased, as GitLab does).
    let (_, headers, _) = get(&fx, "/api/v4/projects/ar%2Fproj/repository/archive?format=ZIP");
    assert_eq!(header(&headers, "Content-Type"), Some("application/zip"));
}

#[test]
fn bad_requests_are_json_errors_before_any_byte() {
    let fx = fixture();
    let project = "/api/v4/projects/ar%2Fproj/repository";
    for query in [
        "sha=no-such-ref",
        "sha=",
        "sha=0000000000000000000000000000000000000000",
        "path=no/such/dir",
        "path=../x",
        "path=src/../..",
        "path=src/main.rs/x",
        "exclude_paths=nothing-here",
        "exclude_paths=src,..%2F..",
        "exclude_paths=.",
    ] {
        let (status, body) = fx.instance.request_json("GET", &format!("{project}/archive.zip?{query}"), &[], b"");
        assert_eq!((status, body), (404, json!({"message": FILE_NOT_FOUND})), "{query}");
    }
    for suffix in ["rar", "ZIP", "tar.gz.exe", "tar.gz%00.zip", "", "tar.gz%2F..%2Fx"] {
        let (status, body) = fx.instance.request_json("GET", &format!("{project}/archive.{suffix}"), &[], b"");
        assert_eq!((status, body), (404, json!({"message": "404 Not Found"})), "suffix {suffix:?}");
    }
    let many = (0..1001).map(|i| format!("f{i}")).collect::<Vec<_>>().join(",");
    let huge = "a".repeat(5000);
    for (query, error) in [
        (format!("exclude_paths={many}"), "exclude_paths is invalid"),
        (format!("exclude_paths={huge}"), "exclude_paths is invalid"),
        (format!("path={huge}"), "path is invalid"),
        ("include_lfs_blobs=maybe".to_string(), "include_lfs_blobs is invalid"),
        ("format=rar".to_string(), "format does not have a valid value"),
        // An option to git is no revision (tests/refs.rs tries every revision parameter).
        ("sha=--format=zip".to_string(), "sha is invalid"),
    ] {
        let (status, body) = fx.instance.request_json("GET", &format!("{project}/archive?{query}"), &[], b"");
        assert_eq!((status, body), (400, json!({"error": error})), "{}", &query[..query.len().min(40)]);
    }
    // Empty exclude items are ignored; "a,,b" and the array form agree.
    let listed = |query: &str| names(&tar_members(&archive(&fx, &format!("{project}/archive.tar?{query}"))));
    assert_eq!(listed("exclude_paths=src,,docs,"), listed("exclude_paths[]=src&exclude_paths[]=docs"));
    assert_eq!(listed("exclude_paths=%20src%20,docs"), listed("exclude_paths[]=src&exclude_paths[]=docs"));
    // An empty repository has nothing to archive.
    let empty = fx.instance.root_dir().join("empty.git");
    git(fx.instance.root_dir(), &["init", "-q", "--bare", "-b", "main", empty.to_str().unwrap()]);
    fx.instance.admin_ok(json!({"command": "project_add", "path": "ar/empty", "repo": empty, "visibility": "public"}));
    let (status, body) = fx.instance.request_json("GET", "/api/v4/projects/ar%2Fempty/repository/archive", &[], b"");
    assert_eq!((status, body), (404, json!({"message": FILE_NOT_FOUND})));
}

#[test]
fn private_projects_hide_their_archives() {
    let fx = fixture();
    fx.instance
        .admin_ok(json!({"command": "project_add", "path": "ar/secret", "repo": fx.repo, "visibility": "private"}));
    let (status, body) =
        fx.instance.request_json("GET", "/api/v4/projects/ar%2Fsecret/repository/archive.zip", &[], b"");
    assert_eq!((status, body), (404, json!({"message": "404 Project Not Found"})));
    let token = fx.instance.user_with_token("outsider", false);
    let (status, _) = fx.instance.request_json(
        "GET",
        "/api/v4/projects/ar%2Fsecret/repository/archive.zip",
        &[("PRIVATE-TOKEN", &token)],
        b"",
    );
    assert_eq!(status, 404);
    let admin = fx.instance.user_with_token("boss", true);
    let (status, _, _) = fx.instance.request(
        "GET",
        "/api/v4/projects/ar%2Fsecret/repository/archive.zip",
        &[("PRIVATE-TOKEN", &admin)],
        b"",
    );
    assert_eq!(status, 200);
}

#[test]
fn archives_are_rate_limited_per_user_and_project() {
    let fx = setup(json!({"rate_limits": {"archive": {"limit": 2, "period_seconds": 60}}}));
    let alice = fx.instance.user_with_token("alice", false);
    let bob = fx.instance.user_with_token("bob", false);
    let url = "/api/v4/projects/ar%2Fproj/repository/archive.tar?sha=no-such-ref";
    let as_user = |token: &str| fx.instance.request("GET", url, &[("PRIVATE-TOKEN", token)], b"");
    // Failed requests count too: GitLab checks the limit before it looks at `sha`.
    assert_eq!(as_user(&alice).0, 404);
    assert_eq!(as_user(&alice).0, 404);
    let (status, headers, body) = as_user(&alice);
    assert_eq!(status, 429);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body, json!({"message": {"error": "This archive has been requested too many times. Try again later."}}));
    let retry: u64 = header(&headers, "Retry-After").expect("Retry-After").parse().expect("integer seconds");
    assert!((1..=60).contains(&retry));
    assert_eq!(header(&headers, "RateLimit-Limit"), None);
    // Another user, and the same user on another project, are not affected.
    assert_eq!(as_user(&bob).0, 404);
    let other = fx.instance.request(
        "GET",
        "/api/v4/projects/ar%2Fhostile/repository/archive.tar",
        &[("PRIVATE-TOKEN", &alice)],
        b"",
    );
    assert_eq!(other.0, 200);
    // Anonymous callers share GitLab's larger threshold (100): not throttled after two.
    for _ in 0..3 {
        assert_eq!(get(&fx, url).0, 404);
    }
}

#[test]
fn a_hostile_tree_never_puts_a_member_outside_the_prefix() {
    let fx = fixture();
    let commit = git_text(&fx.hostile, &["rev-parse", "main"]);
    let top = format!("hostile-main-{commit}");
    for format in ["tar", "zip"] {
        let body = archive(&fx, &format!("/api/v4/projects/ar%2Fhostile/repository/archive.{format}"));
        let listed: Vec<(String, Option<Vec<u8>>)> = if format == "tar" {
            tar_members(&body).into_iter().map(|m| (String::from_utf8_lossy(&m.name).into_owned(), m.link)).collect()
        } else {
            zip_members(&body).0.into_iter().map(|m| (String::from_utf8_lossy(&m.name).into_owned(), None)).collect()
        };
        let listed_names: Vec<&str> = listed.iter().map(|(n, _)| n.as_str()).collect();
        let expected = [
            format!("{top}/"),
            format!("{top}/dup"),
            format!("{top}/ok.txt"),
            format!("{top}/passwd-link"),
            format!("{top}/sub/"),
            format!("{top}/sub/inside.txt"),
        ];
        assert_eq!(listed_names, expected.iter().map(String::as_str).collect::<Vec<_>>(), "{format}");
        if format == "tar" {
            // Symlinks are stored as symlinks with their target text, never followed.
            let link = &listed.iter().find(|(n, _)| n.ends_with("/passwd-link")).unwrap().1;
            assert_eq!(link.as_deref(), Some(&b"../../../../etc/passwd"[..]));
        }
    }
    // GNU tar extracts it inside the target directory, writing nothing anywhere else; Python's
    // `data` filter refuses only the link that points outside.
    let tar = archive(&fx, "/api/v4/projects/ar%2Fhostile/repository/archive.tar");
    let out = fx.instance.root_dir().join("extract");
    std::fs::create_dir_all(out.join("x")).unwrap();
    std::fs::write(out.join("a.tar"), &tar).unwrap();
    let status =
        std::process::Command::new("tar").arg("-xf").arg(out.join("a.tar")).arg("-C").arg(out.join("x")).status();
    assert!(status.expect("tar runs").success());
    let mut outside: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
    outside.sort();
    assert_eq!(outside, ["a.tar", "x"]);
    let inside: Vec<_> = std::fs::read_dir(out.join("x").join(&top)).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(inside.len(), 4, "{inside:?}");
    let script = "import sys, tarfile\n\
        with tarfile.open(sys.argv[1]) as t:\n\
        \x20   for m in t.getmembers():\n\
        \x20       try:\n\
        \x20           t.extract(m, sys.argv[2], filter='data')\n\
        \x20       except tarfile.FilterError as e:\n\
        \x20           print(type(e).__name__, m.name.split('/', 1)[1])";
    let output = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(out.join("a.tar"))
        .arg(out.join("y"))
        .output()
        .expect("python3 runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "LinkOutsideDestinationError dup\nLinkOutsideDestinationError passwd-link\n",
    );
}

/// Names of this process's threads that belong to archive producers and their workers.
fn archive_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|tasks| {
            tasks
                .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
                .filter(|name| name.starts_with("fc-archive"))
                .count()
        })
        .unwrap_or(0)
}

fn wait_for_no_archive_threads() -> bool {
    for _ in 0..200 {
        if archive_threads() == 0 {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    false
}

#[test]
fn archives_stream_and_a_reader_that_goes_away_stops_the_producer() {
    let (_alone, fx) = exclusive_fixture();
    for format in ["tar", "tar.gz", "tar.bz2", "zip"] {
        let target = target(format, "", true);
        let response = fx.instance.request_response("GET", &target, &[], b"");
        assert_eq!(response.status(), 200);
        assert!(response.streamed(), "{format} is streamed");
        assert!(response.body_in_memory().is_empty());
        // Read a little, then free the response mid-stream: the producer must stop.
        let mut buf = [0u8; 100];
        let n = ffi::fc_response_read(response.as_ptr(), buf.as_mut_ptr(), buf.len());
        assert!(n > 0, "{format}: the first bytes arrive");
        drop(response);
        assert!(wait_for_no_archive_threads(), "{format}: archive threads are still running after the reader left");
        // Small reads see the same bytes as large ones.
        let mut small = fx.instance.request_response("GET", &target, &[], b"");
        assert_eq!(small.read_all(7), archive(&fx, &target), "{format}");
    }
    assert!(wait_for_no_archive_threads());
}

extern "C" fn collect(user_data: *mut c_void, data: *const u8, len: usize) -> i32 {
    // SAFETY: `user_data` is the `Vec<u8>` the test passes.
    let out = unsafe { &mut *(user_data as *mut Vec<u8>) };
    assert!(len > 0 && len <= 64 * 1024, "pieces are never empty nor over 64 KiB");
    // SAFETY: the core hands `len` readable bytes at `data` for the length of the call.
    out.extend_from_slice(unsafe { std::slice::from_raw_parts(data, len) });
    0
}

extern "C" fn stop_at_once(_: *mut c_void, _: *const u8, _: usize) -> i32 {
    1
}

#[test]
fn typed_exports_answer_what_the_http_route_answers() {
    let (_alone, fx) = exclusive_fixture();
    let main = head(&fx, "main");
    let auth = cstr("{}");
    for (format, suffix) in [("tar", "tar"), ("tgz", "tgz"), ("tb2", "tb2"), ("zip", "zip")] {
        let params = cstr(&json!({"project": "ar/proj", "format": format, "path": "src"}).to_string());
        let expected = archive(&fx, &format!("/api/v4/projects/ar%2Fproj/repository/archive.{suffix}?path=src"));

        let mut streamed =
            FfiResponse::new(ffi::fc_repository_archive(fx.instance.ffi_ctx(), auth.as_ptr(), params.as_ptr()));
        assert_eq!(streamed.status(), 200);
        assert_eq!(streamed.body(), expected, "{format}: fc_repository_archive");

        let mut written: Vec<u8> = Vec::new();
        let response = FfiResponse::new(ffi::fc_repository_archive_write(
            fx.instance.ffi_ctx(),
            auth.as_ptr(),
            params.as_ptr(),
            Some(collect),
            &mut written as *mut Vec<u8> as *mut c_void,
        ));
        assert_eq!(response.status(), 200, "{format}");
        assert!(response.body_in_memory().is_empty());
        let disposition = response.headers().into_iter().find(|(n, _)| n == "Content-Disposition").unwrap().1;
        assert!(disposition.contains(&format!("proj-main-{main}-src.")), "{disposition}");
        assert_eq!(written, expected, "{format}: fc_repository_archive_write");
    }
    // Errors before the first byte are the route's errors, and the callback is never called.
    let mut written: Vec<u8> = Vec::new();
    let params = cstr(&json!({"project": "ar/proj", "sha": "nope"}).to_string());
    let (status, body) = FfiResponse::new(ffi::fc_repository_archive_write(
        fx.instance.ffi_ctx(),
        auth.as_ptr(),
        params.as_ptr(),
        Some(collect),
        &mut written as *mut Vec<u8> as *mut c_void,
    ))
    .status_json();
    assert_eq!((status, body, written.len()), (404, json!({"message": FILE_NOT_FOUND}), 0));
    let params = cstr(&json!({"project": "ar/proj", "format": "rar"}).to_string());
    let (status, _) =
        FfiResponse::new(ffi::fc_repository_archive(fx.instance.ffi_ctx(), auth.as_ptr(), params.as_ptr()))
            .status_json();
    assert_eq!(status, 400);
    // A callback that stops, and a NULL callback.
    let params = cstr(&json!({"project": "ar/proj"}).to_string());
    let ctx = fx.instance.ffi_ctx();
    let stopped = FfiResponse::new(ffi::fc_repository_archive_write(
        ctx,
        auth.as_ptr(),
        params.as_ptr(),
        Some(stop_at_once),
        std::ptr::null_mut(),
    ));
    assert_eq!(stopped.status(), 400);
    let null = FfiResponse::new(ffi::fc_repository_archive_write(
        ctx,
        auth.as_ptr(),
        params.as_ptr(),
        None,
        std::ptr::null_mut(),
    ));
    assert_eq!(null.status(), 400);
    assert!(wait_for_no_archive_threads());
}

/// The repositories of tests/fixtures/archive_attrs.sh: one `.gitattributes` set read under
/// each configuration git's conversion depends on.
const CONVERTING_REPOS: [&str; 6] = ["attrs", "autocrlf-true", "autocrlf-input", "eol-crlf", "bigfile", "info"];

/// [`fixture`] plus the repositories of tests/fixtures/archive_attrs.sh as public projects
/// `at/<name>`; answers the directory that holds them.
fn converting_fixture() -> (Fx, PathBuf) {
    let fx = fixture();
    let dir = fx.instance.root_dir().join("attrs-fx");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/archive_attrs.sh");
    let status = std::process::Command::new("bash").arg(script).arg(&dir).status().expect("bash runs");
    assert!(status.success(), "tests/fixtures/archive_attrs.sh failed");
    fx.instance.admin_ok(json!({"command": "group_add", "path": "at", "visibility": "public"}));
    for name in CONVERTING_REPOS {
        let repo = dir.join(format!("{name}.git"));
        fx.instance.admin_ok(
            json!({"command": "project_add", "path": format!("at/{name}"), "repo": repo, "visibility": "public"}),
        );
    }
    (fx, dir)
}

/// A request's `path`/`exclude_paths`, git's pathspecs for it, and the prefix's suffix.
type ConvertingCase = (&'static str, &'static [&'static str], &'static str);

/// The cases for `attrs.git`: the whole tree (large blobs included), sub-paths, excludes.
const CONVERTING_CASES: [ConvertingCase; 5] = [
    ("", &[], ""),
    ("path=subst", &["subst"], "-subst"),
    ("path=sub", &["sub"], "-sub"),
    ("path=large/ident.dat", &["large/ident.dat"], "-large-ident.dat"),
    ("exclude_paths=large,auto", &[":(exclude)large", ":(exclude)auto"], ""),
];

/// The cases for the other repositories: the same files under another configuration (the
/// large blobs only where the configuration concerns them: `bigfile`).
fn converting_cases(name: &str) -> Vec<ConvertingCase> {
    match name {
        "attrs" => CONVERTING_CASES.to_vec(),
        "bigfile" => vec![("", &[], ""), ("path=large", &["large"], "-large")],
        _ => vec![("exclude_paths=large", &[":(exclude)large"], ""), ("path=sub", &["sub"], "-sub")],
    }
}

#[test]
fn converted_content_matches_git_archive_in_every_format() {
    let (fx, dir) = converting_fixture();
    for name in CONVERTING_REPOS {
        let repo = dir.join(format!("{name}.git"));
        let main = git_text(&repo, &["rev-parse", "main"]);
        for (case, (query, pathspecs, suffix)) in converting_cases(name).into_iter().enumerate() {
            let prefix = format!("{name}-main-{main}{suffix}");
            let pathspecs: Vec<String> = pathspecs.iter().map(|p| p.to_string()).collect();
            let what = format!("{name} {query:?}");
            let url = |format: &str| format!("/api/v4/projects/at%2F{name}/repository/archive.{format}?{query}");
            let expected = git_archive(&repo, "tar", &prefix, &main, &pathspecs);
            assert_same_tar(&archive(&fx, &url("tar")), &expected, &format!("{what} tar"));
            // The compressed formats hold the tar the tar route gives (tested above for every
            // case); compressing the large blobs again for every case would only take time.
            if case < 2 {
                assert_same_tar(&gunzip(&archive(&fx, &url("tar.gz"))), &expected, &format!("{what} tar.gz"));
                assert_same_tar(&bunzip(&archive(&fx, &url("tar.bz2"))), &expected, &format!("{what} tar.bz2"));
            }
            let (ours, our_comment) = zip_members(&archive(&fx, &url("zip")));
            let (theirs, their_comment) = zip_members(&git_archive(&repo, "zip", &prefix, &main, &pathspecs));
            let listed =
                |m: &[ZipMember]| m.iter().map(|m| String::from_utf8_lossy(&m.name).into_owned()).collect::<Vec<_>>();
            assert_eq!(listed(&ours), listed(&theirs), "{what} zip: member names");
            for (ours, theirs) in ours.iter().zip(&theirs) {
                assert!(ours == theirs, "{what} zip: {} differs", String::from_utf8_lossy(&ours.name));
            }
            assert_eq!(our_comment, their_comment);
        }
    }
}

/// The data of `path` in `git archive --format=tar` of `main` in `repo`.
fn git_member(repo: &Path, path: &str) -> Vec<u8> {
    let main = git_text(repo, &["rev-parse", "main"]);
    let tar = git_archive(repo, "tar", "p", &main, &[path.to_string()]);
    tar_member(&tar_members(&tar), &format!("/{path}")).data.clone()
}

#[test]
fn the_converting_fixture_exercises_every_conversion() {
    // What git does to these blobs, so that matching git above means converting them.
    let (_fx, dir) = converting_fixture();
    let attrs = dir.join("attrs.git");
    let main = git_text(&attrs, &["rev-parse", "main"]);
    let blob = |path: &str| git(&attrs, &["cat-file", "-p", &format!("main:{path}")]);
    let crlf_in = |repo: &str, path: &str| git_member(&dir.join(format!("{repo}.git")), path).contains(&b'\r');
    assert_eq!(git_member(&attrs, "a.crlf"), b"a\r\nb\r\nc\r\n");
    assert_eq!(git_member(&attrs, "auto/crlf-in-index.txt"), blob("auto/crlf-in-index.txt"));
    assert_eq!(git_member(&attrs, "auto/crlf/lf.txt"), b"a\r\nb\r\n");
    let ident_id = git_text(&attrs, &["rev-parse", "main:id/ident.c"]);
    assert!(String::from_utf8_lossy(&git_member(&attrs, "id/ident.c")).starts_with(&format!("$Id: {ident_id} $\n")));
    let version = String::from_utf8(git_member(&attrs, "subst/version.txt")).unwrap();
    assert!(version.starts_with(&format!("H={main} h={}", &main[..7])), "{version}");
    assert!(version.contains("refs= (HEAD -> main, tag: v2, tag: v1)"), "{version}");
    // core.autocrlf, core.eol and info/attributes change what text files become.
    assert!(
        !crlf_in("attrs", "plain.txt") && crlf_in("eol-crlf", "plain.txt") && crlf_in("autocrlf-true", "plain.txt")
    );
    assert!(!crlf_in("autocrlf-input", "plain.txt") && !crlf_in("info", "plain.txt"));
    assert!(!crlf_in("attrs", "unmarked.md") && crlf_in("autocrlf-true", "unmarked.md"));
    assert!(!crlf_in("eol-crlf", "raw.raw") && crlf_in("info", "raw.raw"));
    // Past core.bigFileThreshold, only export-subst still converts.
    assert!(crlf_in("attrs", "large/text.crlf") && !crlf_in("bigfile", "large/text.crlf"));
    let subst = git_member(&dir.join("bigfile.git"), "large/subst.dat");
    assert!(subst.starts_with(format!("commit {main}\r\n").as_bytes()), "export-subst, and eol=crlf with it");
    // The zip text flag follows `diff`: set for a blob with a NUL, clear for text marked -diff.
    let (members, _) = zip_members(&git_archive(&attrs, "zip", "p", &main, &[]));
    let text = |suffix: &str| members.iter().find(|m| m.name.ends_with(suffix.as_bytes())).expect(suffix).text;
    assert!(text("/diffset.dat") && !text("/nodiff.md") && text("/plain.txt") && !text("/nul.txt"));
}

/// `%(describe)` in export-subst files: what `git describe` answers (exact tags, the nearest
/// annotated tag, `tags`, `match`, `exclude`, `abbrev`, a tag known by another name, two
/// tags on one commit, no tag at all), one run per archive as git archive allows, malformed
/// arguments left as they are.
#[test]
fn describe_placeholders_match_git_archive() {
    let fx = fixture();
    let dir = fx.instance.root_dir().join("describe-fx");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/archive_describe.sh");
    let status = std::process::Command::new("bash").arg(script).arg(&dir).status().expect("bash runs");
    assert!(status.success(), "tests/fixtures/archive_describe.sh failed");
    let repo = dir.join("describe.git");
    fx.instance.admin_ok(json!({"command": "group_add", "path": "ds", "visibility": "public"}));
    fx.instance
        .admin_ok(json!({"command": "project_add", "path": "ds/describe", "repo": repo, "visibility": "public"}));
    let refs = git_text(&repo, &["for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/tags"]);
    let mut revisions: Vec<String> = refs.lines().map(str::to_string).collect();
    revisions.extend(["main~1", "main~2", "main~3", "main~4", "side~1"].map(String::from));
    let mut described = 0;
    for revision in &revisions {
        let commit = git_text(&repo, &["rev-parse", &format!("{revision}^{{commit}}")]);
        let prefix = format!("describe-{commit}-{commit}");
        let expected = git_archive(&repo, "tar", &prefix, &commit, &[]);
        let ours = archive(&fx, &format!("/api/v4/projects/ds%2Fdescribe/repository/archive.tar?sha={commit}"));
        let ours = tar_members(&ours);
        let theirs = tar_members(&expected);
        assert_eq!(
            String::from_utf8_lossy(&tar_member(&ours, "/d.subst").data),
            String::from_utf8_lossy(&tar_member(&theirs, "/d.subst").data),
            "{revision}"
        );
        assert!(ours == theirs, "{revision}: the archives differ");
        described += usize::from(!tar_member(&theirs, "/d.subst").data.starts_with(b"default  second"));
    }
    assert!(described > 10, "git described most of these: {described}");
}
