//! B10 repository health: reports of repositories in different states (tests/fixtures/health.sh)
//! compared with `git count-objects -v` and with the files on disk as `find` lists them; the
//! 404 -> generate -> 200 flow, who may read and generate, the rate limit and the feature switch.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{git_text, TestInstance};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

const HEALTH: &str = "/api/v4/projects/{}/repository/health";
const NOT_FOUND: &str = r#"{"message":"404 Not Found"}"#;

fn url(project: &str, query: &str) -> String {
    format!("{}{query}", HEALTH.replace("{}", &project.replace('/', "%2F")))
}

fn health(instance: &TestInstance, project: &str, query: &str, token: Option<&str>) -> (u16, Value) {
    let headers: Vec<(&str, &str)> = token.map(|t| ("PRIVATE-TOKEN", t)).into_iter().collect();
    instance.request_json("GET", &url(project, query), &headers, b"")
}

/// Builds the health fixtures under the instance's directory; answers their directory.
fn health_fixtures(instance: &TestInstance) -> PathBuf {
    let dir = instance.root_dir().join("health");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/health.sh");
    let status = Command::new("bash").arg(script).arg(&dir).status().expect("bash runs");
    assert!(status.success(), "tests/fixtures/health.sh failed");
    dir
}

fn add_project(instance: &TestInstance, path: &str, repo: &Path, visibility: &str) {
    instance.admin_ok(json!({"command": "project_add", "path": path, "repo": repo, "visibility": visibility}));
}

/// `git count-objects -v`: its `key: value` lines, `alternate` values joined by newlines.
fn count_objects(git_dir: &Path) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for line in git_text(git_dir, &["count-objects", "-v"]).lines() {
        let (key, value) = line.split_once(": ").expect("key: value");
        out.entry(key.to_string()).and_modify(|v| *v = format!("{v}\n{value}")).or_insert_with(|| value.to_string());
    }
    out
}

fn num(map: &BTreeMap<String, String>, key: &str) -> u64 {
    map[key].parse().unwrap()
}

/// Every non-directory under `dir` with its apparent size, as `find` sees them.
fn files_on_disk(dir: &Path) -> Vec<(String, u64)> {
    let output =
        Command::new("find").arg(".").args(["!", "-type", "d", "-printf", "%P\\t%s\\n"]).current_dir(dir).output();
    let output = output.expect("find runs");
    assert!(output.status.success());
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let (path, size) = line.rsplit_once('\t').unwrap();
            (path.to_string(), size.parse().unwrap())
        })
        .collect()
}

fn is_loose_object(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    matches!(parts.as_slice(), ["objects", shard, name]
        if shard.len() == 2 && name.len() == 38 && format!("{shard}{name}").bytes().all(|b| b.is_ascii_hexdigit()))
}

fn mtime_seconds(path: &Path) -> i64 {
    let modified = std::fs::metadata(path).unwrap().modified().unwrap();
    modified.duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

/// Milliseconds since the epoch of `YYYY-MM-DDTHH:MM:SS.mmmZ`; panics on any other shape.
fn parse_iso_millis(text: &str) -> i64 {
    let b = text.as_bytes();
    assert!(text.len() == 24 && b[4] == b'-' && b[10] == b'T' && b[19] == b'.' && b[23] == b'Z', "{text}");
    let n = |range: std::ops::Range<usize>| text[range].parse::<i64>().unwrap();
    let (y, m, d) = (n(0..4), n(5..7), n(8..10));
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    ((days * 24 + n(11..13)) * 60 + n(14..16)) * 60 * 1000 + n(17..19) * 1000 + n(20..23)
}

fn now_millis() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

/// What must hold of every report: counts as `git count-objects -v` gives them, sizes as the
/// files on disk add up.
fn check_against_git_and_disk(name: &str, git_dir: &Path, report: &Value) {
    let git = count_objects(git_dir);
    let files = files_on_disk(git_dir);
    let sum = |keep: &dyn Fn(&str) -> bool| -> u64 { files.iter().filter(|(p, _)| keep(p)).map(|(_, s)| s).sum() };
    let count = |keep: &dyn Fn(&str) -> bool| -> u64 { files.iter().filter(|(p, _)| keep(p)).count() as u64 };
    let in_pack_dir = |p: &str, ext: &str| p.starts_with("objects/pack/pack-") && p.ends_with(ext);
    let has = |p: &str| files.iter().any(|(f, _)| f == p);
    let stem_has = |p: &str, ext: &str| has(&format!("{}{ext}", p.trim_end_matches(".pack")));
    let objects = &report["objects"];
    let context = format!("{name}: {report}");

    assert_eq!(report["size"], json!(sum(&|_| true)), "{context}");
    assert_eq!(objects["loose_objects_count"], json!(num(&git, "count")), "{context}");
    assert_eq!(objects["loose_objects_garbage_count"], json!(num(&git, "garbage")), "{context}");
    assert_eq!(objects["packfile_count"], json!(num(&git, "packs")), "{context}");
    let pack_bytes = sum(&|p| in_pack_dir(p, ".pack"));
    let index_bytes = sum(&|p| in_pack_dir(p, ".idx"));
    assert_eq!((pack_bytes + index_bytes) / 1024, num(&git, "size-pack"), "{context}");
    assert_eq!(objects["size"], json!(sum(&|p| is_loose_object(p)) + pack_bytes), "{context}");
    assert_eq!(objects["reverse_index_count"], json!(count(&|p| in_pack_dir(p, ".rev"))), "{context}");
    assert_eq!(objects["keep_count"], json!(count(&|p| in_pack_dir(p, ".keep"))), "{context}");
    assert_eq!(objects["keep_size"], json!(sum(&|p| in_pack_dir(p, ".pack") && stem_has(p, ".keep"))), "{context}");
    assert_eq!(objects["cruft_count"], json!(count(&|p| in_pack_dir(p, ".mtimes"))), "{context}");
    let cruft_bytes = sum(&|p| in_pack_dir(p, ".pack") && stem_has(p, ".mtimes"));
    let stale_loose = objects["stale_size"].as_u64().unwrap() - cruft_bytes;
    assert_eq!(objects["recent_size"].as_u64().unwrap(), objects["size"].as_u64().unwrap() - stale_loose - cruft_bytes);

    let refs = &report["references"];
    assert_eq!(refs["reference_backend"], json!("REFERENCE_BACKEND_FILES"), "{context}");
    assert_eq!(refs["loose_count"], json!(count(&|p| p.starts_with("refs/"))), "{context}");
    assert_eq!(refs["packed_size"], json!(sum(&|p| p == "packed-refs")), "{context}");
    let alternates: Vec<String> =
        git.get("alternate").map(|a| a.lines().map(str::to_string).collect()).unwrap_or_default();
    if alternates.is_empty() {
        assert_eq!(report["alternates"], Value::Null, "{context}");
    } else {
        assert_eq!(report["alternates"]["object_directories"], json!(alternates), "{context}");
    }
    // Numbers are JSON integers.
    for value in objects.as_object().unwrap().values() {
        assert!(value.is_u64(), "{context}");
    }
}

#[test]
fn reports_agree_with_git_count_objects_and_the_files_on_disk() {
    let instance =
        common::open_instance(json!({"rate_limits": {"health_generate": {"limit": 0, "period_seconds": 60}}}));
    let admin = instance.user_with_token("root", true);
    let dir = health_fixtures(&instance);
    let pool = std::fs::read_dir(dir.join("@pools")).unwrap().next().unwrap().unwrap().path();
    let pool = std::fs::read_dir(&pool).unwrap().next().unwrap().unwrap().path();
    let pool = std::fs::read_dir(&pool).unwrap().next().unwrap().unwrap().path();
    let states: Vec<(&str, PathBuf)> = vec![
        ("loose", dir.join("loose/.git")),
        ("onepack", dir.join("onepack.git")),
        ("keep", dir.join("keep/.git")),
        ("gc", dir.join("gc.git")),
        ("midx", dir.join("midx.git")),
        ("split", dir.join("split/.git")),
        ("cruft", dir.join("cruft/.git")),
        ("alternates", dir.join("alternates.git")),
        ("pool", pool.clone()),
    ];
    instance.admin_ok(json!({"command": "group_add", "path": "h", "visibility": "private"}));
    let mut reports = BTreeMap::new();
    for (name, git_dir) in &states {
        add_project(&instance, &format!("h/{name}"), git_dir, "private");
        let started = now_millis();
        let (status, report) = health(&instance, &format!("h/{name}"), "?generate=true", Some(&admin));
        let ended = now_millis();
        assert_eq!(status, 200, "{name}: {report}");
        let updated_at = parse_iso_millis(report["updated_at"].as_str().unwrap());
        assert!(started <= updated_at && updated_at <= ended, "{name}: {report}");
        check_against_git_and_disk(name, git_dir, &report);
        assert_eq!(report["is_object_pool"], json!(*name == "pool"), "{name}");
        reports.insert(*name, report);
    }
    let keys: Vec<&String> = reports["gc"].as_object().unwrap().keys().collect();
    let mut expected_keys = [
        "size",
        "references",
        "objects",
        "commit_graph",
        "bitmap",
        "multi_pack_index",
        "multi_pack_index_bitmap",
        "alternates",
        "is_object_pool",
        "last_full_repack",
        "updated_at",
        "maintenance",
    ];
    expected_keys.sort();
    assert_eq!(keys, expected_keys, "every field of GitLab's entity, forgecore's maintenance, and no other");

    // Only loose objects: the first commit's three are stale, one stray file is garbage.
    let loose = &reports["loose"];
    let git_dir = dir.join("loose/.git");
    let first = git_text(&git_dir, &["rev-list", "--max-parents=0", "main"]);
    let stale: Vec<String> = git_text(&git_dir, &["rev-list", "--objects", &first])
        .lines()
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect();
    let stale_bytes: u64 = stale
        .iter()
        .map(|id| std::fs::metadata(git_dir.join(format!("objects/{}/{}", &id[..2], &id[2..]))).unwrap().len())
        .sum();
    assert_eq!(stale.len(), 3);
    assert_eq!(loose["objects"]["loose_objects_count"], json!(12), "{loose}");
    assert_eq!(loose["objects"]["stale_loose_objects_count"], json!(3), "{loose}");
    assert_eq!(loose["objects"]["stale_size"], json!(stale_bytes), "{loose}");
    assert_eq!(loose["objects"]["loose_objects_garbage_count"], json!(1), "{loose}");
    assert_eq!(loose["objects"]["packfile_count"], json!(0));
    for field in
        ["commit_graph", "bitmap", "multi_pack_index", "multi_pack_index_bitmap", "alternates", "last_full_repack"]
    {
        assert_eq!(loose[field], Value::Null, "{field}: {loose}");
    }

    // One pack, refs packed and two loose.
    let onepack = &reports["onepack"];
    assert_eq!(onepack["objects"]["packfile_count"], json!(1));
    assert_eq!(onepack["objects"]["loose_objects_count"], json!(0));
    assert_eq!(onepack["references"]["loose_count"], json!(2), "{onepack}");
    assert!(onepack["references"]["packed_size"].as_u64().unwrap() > 0);

    // Three packs, one kept.
    let keep = &reports["keep"];
    assert_eq!(
        (keep["objects"]["packfile_count"].clone(), keep["objects"]["keep_count"].clone()),
        (json!(3), json!(1))
    );
    assert!(keep["objects"]["keep_size"].as_u64().unwrap() > 0);

    // git gc: a single commit-graph file with generation data; a pack bitmap with its name-hash
    // cache and lookup table; the bitmap dates the last full repack.
    let gc = &reports["gc"];
    assert_eq!(
        gc["commit_graph"],
        json!({"commit_graph_chain_length": 0, "has_bloom_filters": false, "has_generation_data": true,
               "has_generation_data_overflow": false})
    );
    assert_eq!(gc["bitmap"], json!({"has_hash_cache": true, "has_lookup_table": true, "version": 1}));
    assert_eq!((gc["multi_pack_index"].clone(), gc["multi_pack_index_bitmap"].clone()), (Value::Null, Value::Null));
    assert_eq!(gc["objects"]["reverse_index_count"], json!(1));
    let bitmap = std::fs::read_dir(dir.join("gc.git/objects/pack"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "bitmap"))
        .unwrap();
    assert_eq!(gc["last_full_repack"], json!({"seconds": mtime_seconds(&bitmap), "nanos": 0}));

    // repack -adb --write-midx: the multi-pack-index and its bitmap, no pack bitmap.
    let midx = &reports["midx"];
    assert_eq!(midx["multi_pack_index"], json!({"packfile_count": 1, "version": 1}));
    assert_eq!(midx["multi_pack_index_bitmap"]["version"], json!(1), "{midx}");
    assert_eq!(midx["multi_pack_index_bitmap"]["has_hash_cache"], json!(true), "{midx}");
    assert_eq!(midx["bitmap"], Value::Null);

    // A split commit-graph of two layers with Bloom filters.
    let chain = std::fs::read_to_string(dir.join("split/.git/objects/info/commit-graphs/commit-graph-chain")).unwrap();
    assert_eq!(chain.lines().count(), 2);
    assert_eq!(
        reports["split"]["commit_graph"],
        json!({"commit_graph_chain_length": 2, "has_bloom_filters": true, "has_generation_data": true,
               "has_generation_data_overflow": false})
    );

    // A cruft pack is stale.
    let cruft = &reports["cruft"]["objects"];
    assert_eq!((cruft["packfile_count"].clone(), cruft["cruft_count"].clone()), (json!(2), json!(1)));
    assert!(cruft["stale_size"].as_u64().unwrap() > 0);

    // Alternates: the line as written, without the comment and the blank line; the file's time.
    let alternates = &reports["alternates"]["alternates"];
    let file = dir.join("alternates.git/objects/info/alternates");
    assert_eq!(alternates["object_directories"], json!([dir.join("onepack.git/objects")]));
    let last_modified = parse_iso_millis(alternates["last_modified"].as_str().unwrap());
    assert_eq!(last_modified / 1000, mtime_seconds(&file));

    // The pool sits at @pools/xx/yy/<sha256>.git.
    assert!(pool.to_str().unwrap().contains("/@pools/"));
}

#[test]
fn no_report_until_one_is_generated_then_the_stored_one() {
    let instance = common::open_instance(json!({}));
    let admin = instance.user_with_token("root", true);
    let dir = instance.fixture_repos();
    let (status, _, body) = instance.request("GET", &url("fx/work", ""), &[("PRIVATE-TOKEN", &admin)], b"");
    assert_eq!((status, String::from_utf8(body).unwrap().as_str()), (404, NOT_FOUND));
    assert_eq!(health(&instance, "fx/work", "?generate=false", Some(&admin)).0, 404);

    // python-gitlab sends `generate=True`.
    let (status, first) = health(&instance, "fx/work", "?generate=True", Some(&admin));
    assert_eq!(status, 200, "{first}");
    check_against_git_and_disk("work", &dir.join("work/.git"), &first);
    let (_, headers, stored) = instance.request("GET", &url("fx/work", ""), &[("PRIVATE-TOKEN", &admin)], b"");
    assert_eq!(serde_json::from_slice::<Value>(&stored).unwrap(), first, "the stored report is served as generated");
    assert!(headers.iter().any(|(n, v)| n == "Content-Type" && v == "application/json"));
    // Other projects have their own reports.
    assert_eq!(health(&instance, "fx/bare", "", Some(&admin)).0, 404);

    // A new report replaces the old one.
    std::thread::sleep(std::time::Duration::from_millis(5));
    common::git(&dir.join("work"), &["branch", "another"]);
    let (status, second) = health(&instance, "fx/work", "?generate=1", Some(&admin));
    assert_eq!(status, 200);
    assert!(
        parse_iso_millis(second["updated_at"].as_str().unwrap())
            > parse_iso_millis(first["updated_at"].as_str().unwrap())
    );
    assert_eq!(
        second["references"]["loose_count"].as_u64(),
        first["references"]["loose_count"].as_u64().map(|n| n + 1)
    );
    assert_eq!(health(&instance, "fx/work", "", Some(&admin)).1, second);

    // The typed C export answers the same.
    let auth = TestInstance::auth(&admin);
    let (status, typed) =
        instance.typed(forgecore::ffi::fc_repository_health, auth.clone(), json!({"project": "fx/work"}));
    assert_eq!((status, typed), (200, second));
    let (status, typed) = instance.typed(
        forgecore::ffi::fc_repository_health,
        auth.clone(),
        json!({"project": "fx/bare", "generate": true}),
    );
    assert_eq!(status, 200, "{typed}");
    assert_eq!(health(&instance, "fx/bare", "", Some(&admin)).1, typed);
    let (status, body) = instance.typed(forgecore::ffi::fc_repository_health, auth, json!({"generate": true}));
    assert_eq!((status, body), (400, json!({"error": "project is missing"})));

    // An empty repository has a report too.
    let (status, empty) = health(&instance, "fx/empty", "?generate=true", Some(&admin));
    assert_eq!(status, 200, "{empty}");
    assert_eq!(empty["objects"]["packfile_count"], json!(0));
    assert_eq!(empty["objects"]["loose_objects_count"], json!(0));
}

#[test]
fn bad_parameters_and_vanished_repositories() {
    let instance = common::open_instance(json!({}));
    let admin = instance.user_with_token("root", true);
    let dir = instance.fixture_repos();
    assert_eq!(
        health(&instance, "fx/work", "?generate=maybe", Some(&admin)),
        (400, json!({"error": "generate is invalid"}))
    );
    assert_eq!(
        health(&instance, "nope%2Fnothing", "?generate=true", Some(&admin)),
        (404, json!({"message": "404 Project Not Found"}))
    );
    // The repository went away after it was registered: 404, and nothing is stored.
    std::fs::rename(dir.join("bare.git"), dir.join("gone.git")).unwrap();
    assert_eq!(
        health(&instance, "fx/bare", "?generate=true", Some(&admin)),
        (404, json!({"message": "404 Not Found"}))
    );
    std::fs::rename(dir.join("gone.git"), dir.join("bare.git")).unwrap();
    assert_eq!(health(&instance, "fx/bare", "", Some(&admin)).0, 404);
    assert_eq!(health(&instance, "fx/bare", "?generate=true", Some(&admin)).0, 200);
}

/// Group `corp` with a private, an internal and a public project; members of every level.
struct World {
    instance: TestInstance,
    tokens: BTreeMap<&'static str, String>,
}

fn world(extra_config: Value) -> World {
    let instance = common::open_instance(extra_config);
    let dir = instance.fixture_repos();
    let mut tokens = BTreeMap::new();
    tokens.insert("admin", instance.user_with_token("root", true));
    for user in ["guest", "reader", "reporter", "developer", "maintainer", "owner", "outsider", "projmaint"] {
        tokens.insert(user, instance.user_with_token(user, false));
    }
    instance.admin_ok(json!({"command": "group_add", "path": "corp", "visibility": "private"}));
    for (path, visibility) in [("corp/secret", "private"), ("corp/inside", "internal"), ("corp/open", "public")] {
        add_project(&instance, path, &dir.join("bare.git"), visibility);
    }
    let (status, _, role) = instance.request(
        "POST",
        "/api/v4/groups/corp/member_roles",
        &[("PRIVATE-TOKEN", &tokens["admin"])],
        json!({"name": "Code reader", "base_access_level": 10, "read_code": true}).to_string().as_bytes(),
    );
    assert_eq!(status, 201);
    let role: Value = serde_json::from_slice(&role).unwrap();
    for (user, level, role_id) in [
        ("guest", 10, Value::Null),
        ("reader", 10, role["id"].clone()),
        ("reporter", 20, Value::Null),
        ("developer", 30, Value::Null),
        ("maintainer", 40, Value::Null),
        ("owner", 50, Value::Null),
    ] {
        instance.admin_ok(json!({"command": "member_add", "group": "corp", "username": user, "access_level": level, "member_role_id": role_id}));
    }
    instance.admin_ok(
        json!({"command": "member_add", "project": "corp/secret", "username": "projmaint", "access_level": 40}),
    );
    World { instance, tokens }
}

#[test]
fn maintainers_and_administrators_only_and_invisible_projects_are_404() {
    let w = world(json!({"rate_limits": {"health_generate": {"limit": 0, "period_seconds": 60}}}));
    let forbidden = (403, json!({"message": "403 Forbidden"}));
    let hidden = (404, json!({"message": "404 Project Not Found"}));
    let cases: &[(&str, Option<&str>, u16)] = &[
        ("corp/secret", None, 404),
        ("corp/secret", Some("outsider"), 404),
        ("corp/secret", Some("guest"), 403),
        ("corp/secret", Some("reader"), 403),
        ("corp/secret", Some("reporter"), 403),
        ("corp/secret", Some("developer"), 403),
        ("corp/secret", Some("maintainer"), 200),
        ("corp/secret", Some("owner"), 200),
        ("corp/secret", Some("projmaint"), 200),
        ("corp/secret", Some("admin"), 200),
        ("corp/inside", None, 404),
        ("corp/inside", Some("outsider"), 403),
        ("corp/inside", Some("projmaint"), 403),
        ("corp/inside", Some("maintainer"), 200),
        ("corp/open", None, 403),
        ("corp/open", Some("outsider"), 403),
        ("corp/open", Some("developer"), 403),
        ("corp/open", Some("maintainer"), 200),
    ];
    for &(project, user, expected) in cases {
        let token = user.map(|u| w.tokens[u].as_str());
        for query in ["?generate=true", ""] {
            let (status, body) = health(&w.instance, project, query, token);
            match expected {
                200 => {
                    assert!(status == 200 || (query.is_empty() && status == 404), "{project} {user:?}: {status} {body}")
                }
                403 => assert_eq!((status, body), forbidden, "{project} {user:?} {query}"),
                _ => assert_eq!((status, body), hidden, "{project} {user:?} {query}"),
            }
        }
    }
    // Once generated, every maintainer reads the same report.
    let (_, report) = health(&w.instance, "corp/secret", "", Some(&w.tokens["owner"]));
    assert_eq!(health(&w.instance, "corp/secret", "", Some(&w.tokens["projmaint"])), (200, report));
    // A revoked or unknown token is 401 before anything else.
    assert_eq!(health(&w.instance, "corp/open", "", Some("glpat-nope")).0, 401);
}

#[test]
fn generation_is_rate_limited_per_project_and_plain_reads_are_not() {
    let w = world(json!({"rate_limits": {"health_generate": {"limit": 3, "period_seconds": 3600}}}));
    let generate = |project: &str, user: &str| health(&w.instance, project, "?generate=true", Some(&w.tokens[user]));
    // Refused callers do not use up the project's budget.
    assert_eq!(generate("corp/secret", "developer").0, 403);
    for user in ["maintainer", "owner", "admin"] {
        assert_eq!(generate("corp/secret", user).0, 200, "{user}");
    }
    let (status, headers, body) = w.instance.request(
        "GET",
        &url("corp/secret", "?generate=true"),
        &[("PRIVATE-TOKEN", &w.tokens["projmaint"])],
        b"",
    );
    assert_eq!(status, 429);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({"message": {"error": "Repository health has been requested too many times. Try again later."}})
    );
    let retry_after: u64 = headers.iter().find(|(n, _)| n == "Retry-After").expect("Retry-After").1.parse().unwrap();
    assert!((1..=3600).contains(&retry_after), "{retry_after}");
    assert!(!headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("RateLimit-Limit")));
    // Reading the stored report is not limited; other projects have their own budget.
    for _ in 0..5 {
        assert_eq!(health(&w.instance, "corp/secret", "", Some(&w.tokens["maintainer"])).0, 200);
    }
    assert_eq!(generate("corp/open", "maintainer").0, 200);
    // The counter lives in the store: another context on the same data directory agrees.
    let other = w.instance.reopen();
    assert_eq!(health(&other, "corp/secret", "?generate=true", Some(&w.tokens["admin"])).0, 429);
}

#[test]
fn the_feature_switch_turns_the_route_off() {
    let w = world(json!({"features": {"repository_health": false}}));
    for query in ["?generate=true", ""] {
        assert_eq!(
            health(&w.instance, "corp/secret", query, Some(&w.tokens["admin"])),
            (404, json!({"message": "404 Not Found"}))
        );
        assert_eq!(health(&w.instance, "corp/open", query, None), (404, json!({"message": "404 Not Found"})));
        // The project is looked up first: an invisible one is still "Project Not Found".
        assert_eq!(
            health(&w.instance, "corp/secret", query, Some(&w.tokens["outsider"])),
            (404, json!({"message": "404 Project Not Found"}))
        );
    }
}
