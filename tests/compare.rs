//! B5 compare, checked against the git CLI on `tests/fixtures/compare.sh`: commit ids against
//! `git rev-list --reverse`, file flags against `git diff --raw -M`, every `diff` against
//! `git diff -M` from its first `@@`, in both modes, across forks, and within the limits.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{cstr, git, git_text, FfiResponse, TestInstance};
use forgecore::ffi;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The empty tree: what a compare without a merge base diffs against.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// The fixture repositories, built once per test process (deterministic, so reusable).
fn fixture_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| common::shared_fixture("compare"))
}

struct World {
    instance: TestInstance,
    dir: &'static Path,
    /// Project ids: compare, fork, other, secret (a private fork).
    ids: [i64; 4],
}

fn world(config: Value) -> World {
    let instance = common::open_instance(config);
    let dir = fixture_dir();
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    let mut ids = [0; 4];
    let projects = [
        ("fx/compare", "compare.git", "public", None),
        ("fx/fork", "fork.git", "public", Some("fx/compare")),
        ("fx/other", "other.git", "public", None),
        ("fx/secret", "fork.git", "private", Some("fx/compare")),
    ];
    for (i, (path, repo, visibility, forked_from)) in projects.into_iter().enumerate() {
        let mut command =
            json!({"command": "project_add", "path": path, "repo": dir.join(repo), "visibility": visibility});
        if let Some(parent) = forked_from {
            command["forked_from"] = json!(parent);
        }
        ids[i] = instance.admin_ok(command)["id"].as_i64().expect("project id");
    }
    World { instance, dir, ids }
}

fn compare(instance: &TestInstance, project: &str, query: &str) -> (u16, Value) {
    instance.request_json("GET", &format!("/api/v4/projects/{project}/repository/compare?{query}"), &[], b"")
}

fn sha(repo: &Path, rev: &str) -> String {
    git_text(repo, &["rev-parse", &format!("{rev}^{{commit}}")])
}

/// One `git diff --raw` entry, with a type change split into a deletion and an addition as
/// GitLab (Gitaly) lists it.
#[derive(Debug, PartialEq)]
struct Raw {
    old_path: String,
    new_path: String,
    a_mode: String,
    b_mode: String,
    new_file: bool,
    renamed_file: bool,
    deleted_file: bool,
}

fn mode(octal: &str) -> String {
    format!("{:o}", u32::from_str_radix(octal, 8).unwrap())
}

fn raw_entries(repo: &Path, base: &str, to: &str) -> Vec<Raw> {
    let out = git(repo, &["diff", "--raw", "-z", "-M", "--no-abbrev", base, to]);
    let mut fields = out.split(|&b| b == 0).filter(|f| !f.is_empty());
    let mut entries = Vec::new();
    while let Some(meta) = fields.next() {
        let meta = String::from_utf8_lossy(meta).into_owned();
        let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        let (a_mode, b_mode, status) = (mode(parts[0]), mode(parts[1]), parts[4]);
        let old_path = String::from_utf8_lossy(fields.next().unwrap()).into_owned();
        let new_path = if status.starts_with('R') || status.starts_with('C') {
            String::from_utf8_lossy(fields.next().unwrap()).into_owned()
        } else {
            old_path.clone()
        };
        let entry = |a: &str, b: &str, new_file, deleted_file| Raw {
            old_path: old_path.clone(),
            new_path: new_path.clone(),
            a_mode: a.into(),
            b_mode: b.into(),
            new_file,
            renamed_file: old_path != new_path,
            deleted_file,
        };
        match &status[..1] {
            "T" => {
                entries.push(entry(&a_mode, "0", false, true));
                entries.push(entry("0", &b_mode, true, false));
            }
            "A" => entries.push(entry(&a_mode, &b_mode, true, false)),
            "D" => entries.push(entry(&a_mode, &b_mode, false, true)),
            _ => entries.push(entry(&a_mode, &b_mode, false, false)),
        }
    }
    entries
}

fn our_entries(body: &Value) -> Vec<Raw> {
    body["diffs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| Raw {
            old_path: d["old_path"].as_str().unwrap().into(),
            new_path: d["new_path"].as_str().unwrap().into(),
            a_mode: d["a_mode"].as_str().unwrap().into(),
            b_mode: d["b_mode"].as_str().unwrap().into(),
            new_file: d["new_file"].as_bool().unwrap(),
            renamed_file: d["renamed_file"].as_bool().unwrap(),
            deleted_file: d["deleted_file"].as_bool().unwrap(),
        })
        .collect()
}

/// Per file of `git diff -M base to` (with `extra` options first): the text from the first
/// `@@` or binary notice, and the `---`/`+++` lines before it.
fn git_patches(repo: &Path, extra: &[&str], base: &str, to: &str) -> Vec<(String, String)> {
    let args = [extra, &["diff", "-M", base, to]].concat();
    let out = git(repo, &args);
    let mut sections: Vec<Vec<u8>> = Vec::new();
    for line in out.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(b"diff --git ") {
            sections.push(Vec::new());
        }
        sections.last_mut().expect("output starts with diff --git").extend_from_slice(line);
    }
    sections
        .iter()
        .map(|section| {
            let mut header = Vec::new();
            let mut offset = 0;
            for line in section.split_inclusive(|&b| b == b'\n') {
                if line.starts_with(b"@@ ") || line.starts_with(b"Binary files ") {
                    return (
                        String::from_utf8_lossy(&section[offset..]).into_owned(),
                        String::from_utf8_lossy(&header).into_owned(),
                    );
                }
                if line.starts_with(b"--- ") || line.starts_with(b"+++ ") {
                    // git ends a name with a space with a tab (for GNU patch); GitLab does not.
                    match line.strip_suffix(b"\t\n") {
                        Some(name) => header.extend_from_slice(&[name, b"\n"].concat()),
                        None => header.extend_from_slice(line),
                    }
                }
                offset += line.len();
            }
            (String::new(), String::new())
        })
        .collect()
}

/// Checks one compare against git: what the answer must be for `from`, `to` and `straight`.
fn check(w: &World, project: &str, query: &str, repo: &Path, from: &str, to: &str, straight: bool) {
    let (status, body) = compare(&w.instance, project, query);
    assert_eq!(status, 200, "{query}: {body}");
    let (from, to) = (sha(repo, from), sha(repo, to));
    let merge_base = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["merge-base", &from, &to])
        .output()
        .expect("git runs");
    let merge_base = String::from_utf8(merge_base.stdout).unwrap().trim().to_string();
    let base = if straight || from == to { from.clone() } else { merge_base.clone() };
    let diff_base = if base.is_empty() { EMPTY_TREE.to_string() } else { base.clone() };

    // Commits: git rev-list --reverse from..to (equal to <base>..<to> when a base exists).
    let expected: Vec<String> =
        git_text(repo, &["rev-list", "--reverse", &format!("{from}..{to}")]).lines().map(str::to_string).collect();
    if !base.is_empty() && from != to {
        let from_base = git_text(repo, &["rev-list", "--reverse", &format!("{base}..{to}")]);
        assert_eq!(from_base.lines().collect::<Vec<_>>(), expected, "{query}: the fixture has no criss-cross");
    }
    let ids: Vec<&str> = body["commits"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, expected, "{query}: commits");
    assert_eq!(body["commit"], body["commits"].as_array().unwrap().last().cloned().unwrap_or(Value::Null), "{query}");
    for commit in body["commits"].as_array().unwrap() {
        let id = commit["id"].as_str().unwrap();
        let title = git_text(repo, &["log", "-1", "--format=%s", id]);
        assert_eq!(commit["title"], json!(title), "{query}");
        assert_eq!(commit["short_id"], json!(&id[..8]));
        assert!(commit["web_url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/{project_path}/-/commit/{id}", project_path = decode(project))));
    }

    // Files: git diff --raw -M, in git's order.
    let ours = our_entries(&body);
    let theirs = if from == to { Vec::new() } else { raw_entries(repo, &diff_base, &to) };
    assert_eq!(ours, theirs, "{query}: files");

    // Patches: git diff -M from the first @@.
    let patches = if from == to { Vec::new() } else { git_patches(repo, &[], &diff_base, &to) };
    let diffs = body["diffs"].as_array().unwrap();
    assert_eq!(diffs.len(), patches.len(), "{query}");
    for (diff, (patch, _)) in diffs.iter().zip(&patches) {
        assert_eq!(diff["diff"].as_str().unwrap(), patch, "{query}: {}", diff["new_path"]);
        assert_eq!((diff["collapsed"].as_bool(), diff["too_large"].as_bool()), (Some(false), Some(false)));
        assert_eq!(diff["generated_file"], json!(false));
    }

    assert_eq!(body["compare_timeout"], json!(false), "{query}");
    assert_eq!(body["compare_same_ref"], json!(from == to), "{query}");
    let shown_from = if base.is_empty() { &from } else { &base };
    let url = body["web_url"].as_str().unwrap();
    assert!(url.ends_with(&format!("/{}/-/compare/{shown_from}...{to}", decode(project))), "{query}: {url}");
}

fn decode(project: &str) -> String {
    project.replace("%2F", "/")
}

#[test]
fn compares_like_git_in_both_modes() {
    let w = world(json!({}));
    let repo = w.dir.join("compare.git");
    let base = sha(&repo, "base");
    // (from, to, the straight parameter as sent, what it means)
    let cases: &[(&str, &str, &str, bool)] = &[
        ("base", "feature", "", false),
        ("main", "feature", "", false),
        ("main", "feature", "&straight=true", true),
        ("feature", "main", "", false),
        ("feature", "main", "&straight=True", true),
        ("feature", "reversed", "", false),
        ("feature", "reversed", "&straight=1", true),
        ("light", "feature", "&straight=false", false),
        ("reversed", "light", "", false),
        ("main", "orphan", "", false),
        ("main", "orphan", "&straight=true", true),
        (&base[..10], "light", "", false),
    ];
    for &(from, to, extra, straight) in cases {
        check(&w, "fx%2Fcompare", &format!("from={from}&to={to}{extra}"), &repo, from, to, straight);
    }
}

#[test]
fn the_feature_compare_covers_every_kind_of_change() {
    let w = world(json!({}));
    let (_, body) = compare(&w.instance, "fx%2Fcompare", "from=base&to=feature");
    let by_path = |path: &str| -> Value {
        body["diffs"].as_array().unwrap().iter().find(|d| d["new_path"] == json!(path)).cloned().unwrap_or(Value::Null)
    };
    // GitLab's modes for a missing side are "0", not null.
    assert_eq!(
        (by_path("binary-new.dat")["a_mode"].clone(), by_path("binary-new.dat")["b_mode"].clone()),
        (json!("0"), json!("100644"))
    );
    assert_eq!(by_path("delete.txt")["b_mode"], json!("0"));
    assert_eq!(by_path("binary.dat")["diff"], json!("Binary files a/binary.dat and b/binary.dat differ\n"));
    assert_eq!(by_path("binary-new.dat")["diff"], json!("Binary files /dev/null and b/binary-new.dat differ\n"));
    assert_eq!(
        (by_path("mode.sh")["a_mode"].clone(), by_path("mode.sh")["b_mode"].clone()),
        (json!("100644"), json!("100755"))
    );
    assert_eq!(by_path("mode.sh")["diff"], json!(""));
    let renamed = by_path("moved/rename-edit.txt");
    assert_eq!((renamed["old_path"].clone(), renamed["renamed_file"].clone()), (json!("rename-edit.txt"), json!(true)));
    assert!(by_path("noeol.txt")["diff"].as_str().unwrap().ends_with("+THREE\n\\ No newline at end of file\n"));
    assert!(by_path("crlf.txt")["diff"].as_str().unwrap().contains("-line two\r\n+line 2\r\n"));
    let code = by_path("code.c")["diff"].as_str().unwrap().to_string();
    assert_eq!(code.matches("@@ -").count(), 3, "{code}");
    assert!(code.contains(" @@ static int first(int a)\n") && code.contains(" @@ int second(int b)\n"), "{code}");
    assert!(code.contains(" @@ _third:\n"), "{code}");
    assert_eq!(by_path("vendor/sub")["diff"], json!("@@ -1 +1 @@\n-Subproject commit 1111111111111111111111111111111111111111\n+Subproject commit 2222222222222222222222222222222222222222\n"));
    // A type change is a deletion followed by an addition.
    let types: Vec<(bool, bool)> = body["diffs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["new_path"] == json!("type.txt"))
        .map(|d| (d["deleted_file"].as_bool().unwrap(), d["new_file"].as_bool().unwrap()))
        .collect();
    assert_eq!(types, vec![(true, false), (false, true)]);
    assert!(by_path("latin1.txt")["diff"].as_str().unwrap().contains("caf\u{fffd}"));
    assert_eq!(by_path("bad\u{fffd}.txt")["new_file"], json!(true));
}

#[test]
fn unidiff_adds_gits_file_header_lines() {
    let w = world(json!({}));
    let repo = w.dir.join("compare.git");
    for (from, to) in [("base", "feature"), ("feature", "main")] {
        let (status, body) = compare(&w.instance, "fx%2Fcompare", &format!("from={from}&to={to}&unidiff=true"));
        assert_eq!(status, 200);
        let base = git_text(&repo, &["merge-base", from, to]);
        let patches = git_patches(&repo, &["-c", "core.quotepath=false"], &base, to);
        let diffs = body["diffs"].as_array().unwrap();
        assert_eq!(diffs.len(), patches.len());
        for (diff, (patch, header)) in diffs.iter().zip(&patches) {
            let expected = if patch.starts_with("Binary files ") || patch.is_empty() {
                patch.clone()
            } else {
                format!("{header}{patch}")
            };
            assert_eq!(diff["diff"].as_str().unwrap(), expected, "{}", diff["new_path"]);
        }
    }
    let (_, body) = compare(&w.instance, "fx%2Fcompare", "from=base&to=feature&unidiff=true");
    let added = body["diffs"].as_array().unwrap().iter().find(|d| d["new_path"] == json!("topic.txt")).unwrap();
    assert_eq!(added["diff"], json!("--- /dev/null\n+++ b/topic.txt\n@@ -0,0 +1 @@\n+from the topic\n"));
}

#[test]
fn same_commit_is_compare_same_ref() {
    let w = world(json!({}));
    let repo = w.dir.join("compare.git");
    let light = sha(&repo, "light");
    for extra in ["", "&straight=true"] {
        let (status, body) = compare(&w.instance, "fx%2Fcompare", &format!("from=light&to={light}{extra}"));
        assert_eq!(status, 200);
        assert_eq!(
            (&body["commit"], &body["commits"], &body["diffs"], &body["compare_same_ref"], &body["compare_timeout"]),
            (&Value::Null, &json!([]), &json!([]), &json!(true), &json!(false))
        );
        assert!(body["web_url"].as_str().unwrap().ends_with(&format!("/fx/compare/-/compare/{light}...{light}")));
    }
}

#[test]
fn compares_across_a_fork_network() {
    let w = world(json!({}));
    let both = w.dir.join("both.git");
    let [compare_id, fork_id, _, _] = w.ids;
    // `to` in the fork, `from` in its parent (whose main has a commit the fork lacks).
    for extra in ["", "&straight=true"] {
        let query = format!("from=main&to=forkwork&from_project_id={compare_id}{extra}");
        check(&w, "fx%2Ffork", &query, &both, "upstream", "forkwork", !extra.is_empty());
        // The other way round.
        let query = format!("from=forkwork&to=main&from_project_id={fork_id}{extra}");
        check(&w, "fx%2Fcompare", &query, &both, "forkwork", "upstream", !extra.is_empty());
    }
    // The project itself as from_project_id is a plain compare.
    let plain = compare(&w.instance, "fx%2Fcompare", "from=base&to=feature");
    assert_eq!(
        compare(&w.instance, "fx%2Fcompare", &format!("from=base&to=feature&from_project_id={compare_id}")),
        plain
    );
    // `from` resolves in the other project only: the fork has no `upstream` branch.
    assert_eq!(
        compare(&w.instance, "fx%2Ffork", &format!("from=upstream&to=forkwork&from_project_id={compare_id}")),
        (404, json!({"message": "404 Ref Not Found"}))
    );
}

#[test]
fn from_project_id_outside_the_network_or_unreadable() {
    let w = world(json!({}));
    let [_, _, other_id, secret_id] = w.ids;
    assert_eq!(
        compare(&w.instance, "fx%2Fcompare", &format!("from=main&to=main&from_project_id={other_id}")),
        (400, json!({"message": format!("Target project id:{other_id} is not a fork of project id:fx/compare")}))
    );
    assert_eq!(
        compare(&w.instance, "fx%2Fcompare", "from=main&to=main&from_project_id=987654"),
        (400, json!({"message": "Target project id:987654 is not a fork of project id:fx/compare"}))
    );
    // A fork the caller cannot see answers exactly as a missing project: its existence never
    // shows. One they see but may not read (a Guest) is GitLab's 403.
    assert_eq!(
        compare(&w.instance, "fx%2Ffork", &format!("from=main&to=main&from_project_id={secret_id}")),
        (400, json!({"message": format!("Target project id:{secret_id} is not a fork of project id:fx/fork")}))
    );
    let outsider = w.instance.user_with_token("outsider", false);
    let as_user = |token: &str, from_project_id: i64| {
        w.instance.request_json(
            "GET",
            &format!(
                "/api/v4/projects/fx%2Fcompare/repository/compare?from=main&to=main&from_project_id={from_project_id}"
            ),
            &[("PRIVATE-TOKEN", token)],
            b"",
        )
    };
    let (status, body) = as_user(&outsider, secret_id);
    assert_eq!(
        (status, body),
        (400, json!({"message": format!("Target project id:{secret_id} is not a fork of project id:fx/compare")}))
    );
    assert_eq!(as_user(&outsider, 987654).0, 400);
    let guest = w.instance.user_with_token("guest", false);
    w.instance
        .admin_ok(json!({"command": "member_add", "project": "fx/secret", "username": "guest", "access_level": 10}));
    let forbidden = json!({"message": "403 Forbidden - You don't have access to this fork's parent project"});
    assert_eq!(as_user(&guest, secret_id), (403, forbidden));
    let admin = w.instance.user_with_token("root2", true);
    let (status, _) = w.instance.request_json(
        "GET",
        &format!("/api/v4/projects/fx%2Fcompare/repository/compare?from=forkwork&to=main&from_project_id={secret_id}"),
        &[("PRIVATE-TOKEN", &admin)],
        b"",
    );
    assert_eq!(status, 200, "an administrator reads the private fork");
    // The private project itself is invisible to anonymous callers.
    assert_eq!(
        compare(&w.instance, "fx%2Fsecret", "from=main&to=main"),
        (404, json!({"message": "404 Project Not Found"}))
    );
}

#[test]
fn bad_parameters_are_4xx() {
    let w = world(json!({}));
    let cases = [
        ("to=main", 400, json!({"error": "from is missing"})),
        ("from=main", 400, json!({"error": "to is missing"})),
        ("", 400, json!({"error": "from is missing, to is missing"})),
        ("from=main&to=main&straight=maybe", 400, json!({"error": "straight is invalid"})),
        ("from=main&to=main&unidiff=2", 400, json!({"error": "unidiff is invalid"})),
        ("from=main&to=main&from_project_id=abc", 400, json!({"error": "from_project_id is invalid"})),
        ("from=nope&to=main", 404, json!({"message": "404 Ref Not Found"})),
        ("from=main&to=nope", 404, json!({"message": "404 Ref Not Found"})),
        // Revision ranges and options are no revisions (tests/refs.rs tries every parameter).
        ("from=main..feature&to=main", 400, json!({"error": "from is invalid"})),
        ("from=-p&to=main", 400, json!({"error": "from is invalid"})),
        ("from=--output%3Dx&to=main", 400, json!({"error": "from is invalid"})),
        // Reflog forms too (decisions D8).
        ("from=HEAD%40%7B&to=main", 400, json!({"error": "from is invalid"})),
        ("from=&to=main", 404, json!({"message": "404 Ref Not Found"})),
    ];
    for (query, status, body) in cases {
        assert_eq!(compare(&w.instance, "fx%2Fcompare", query), (status, body), "{query}");
    }
    // GitLab strips the refs.
    let (status, body) = compare(&w.instance, "fx%2Fcompare", "from=%20base%20&to=feature%0A");
    assert_eq!(status, 200);
    assert_eq!(body, compare(&w.instance, "fx%2Fcompare", "from=base&to=feature").1);
}

#[test]
fn limits_collapse_cut_and_time_out() {
    let repo_changes = |w: &World| raw_entries(&w.dir.join("compare.git"), "base", "feature").len();

    // 10 files at most (safe: 1): the first patch in full, the others collapsed when they have
    // lines, the list cut after 10 and compare_timeout.
    let w = world(json!({"limits": {"diff_max_files": 10}}));
    assert!(repo_changes(&w) > 10);
    let (status, body) = compare(&w.instance, "fx%2Fcompare", "from=base&to=feature");
    assert_eq!(status, 200);
    let diffs = body["diffs"].as_array().unwrap();
    assert_eq!((diffs.len(), &body["compare_timeout"]), (10, &json!(true)));
    assert!(!diffs[0]["diff"].as_str().unwrap().is_empty());
    for diff in &diffs[1..] {
        assert_eq!(diff["diff"], json!(""), "{diff}");
    }
    let collapsed: Vec<bool> = diffs.iter().map(|d| d["collapsed"].as_bool().unwrap()).collect();
    assert!(collapsed[1..].iter().all(|&c| c), "every later file here has lines: {collapsed:?}");
    assert_eq!(body["commits"].as_array().unwrap().len(), 6, "commits are not limited");

    // A patch of diff_max_patch_bytes or more is too large; one of a tenth of it (40 bytes)
    // collapses, unless it is the only file.
    let w = world(json!({"limits": {"diff_max_patch_bytes": 400}}));
    let (_, body) = compare(&w.instance, "fx%2Fcompare", "from=base&to=feature");
    let find = |body: &Value, path: &str| {
        body["diffs"].as_array().unwrap().iter().find(|d| d["new_path"] == json!(path)).cloned().unwrap()
    };
    let flags = |d: &Value| (d["diff"].as_str().unwrap().len(), d["too_large"].clone(), d["collapsed"].clone());
    assert_eq!(flags(&find(&body, "code.c")), (0, json!(true), json!(false)));
    assert_eq!(flags(&find(&body, "crlf.txt")), (0, json!(false), json!(true)));
    assert_eq!(flags(&find(&body, "topic.txt")), (30, json!(false), json!(false)));
    assert_eq!(body["compare_timeout"], json!(false));
    let (_, single) = compare(&w.instance, "fx%2Fcompare", "from=light&to=reversed");
    assert_eq!(single["diffs"].as_array().unwrap().len(), 1);
    let only = &single["diffs"][0];
    assert!(only["diff"].as_str().unwrap().len() >= 40 && only["collapsed"] == json!(false), "{only}");

    // Lines: past a tenth of diff_max_lines patches collapse; past it the list ends.
    let w = world(json!({"limits": {"diff_max_lines": 30}}));
    let (_, body) = compare(&w.instance, "fx%2Fcompare", "from=base&to=feature");
    let diffs = body["diffs"].as_array().unwrap();
    assert!(diffs.iter().any(|d| d["collapsed"] == json!(true)));
    assert!(diffs.iter().any(|d| d["collapsed"] == json!(false) && d["diff"] != json!("")));
    assert_eq!((diffs.len(), &body["compare_timeout"]), (repo_changes(&w), &json!(false)));
}

#[test]
fn typed_export_answers_what_the_route_answers() {
    let w = world(json!({}));
    let params = cstr(&json!({"project": "fx/compare", "from": "base", "to": "feature", "straight": true}).to_string());
    let auth = cstr("{}");
    let mut response =
        FfiResponse::new(ffi::fc_repository_compare(w.instance.ffi_ctx(), auth.as_ptr(), params.as_ptr()));
    assert_eq!(response.status(), 200);
    let (_, _, http) = w.instance.request(
        "GET",
        "/api/v4/projects/fx%2Fcompare/repository/compare?from=base&to=feature&straight=true",
        &[],
        b"",
    );
    assert_eq!(response.body(), http);
    let fork_id = w.ids[1];
    assert_eq!(
        w.instance
            .typed(
                ffi::fc_repository_compare,
                json!({}),
                json!({"project": "fx/compare", "from": "forkwork", "to": "main", "from_project_id": fork_id})
            )
            .0,
        200
    );
    assert_eq!(
        w.instance.typed(ffi::fc_repository_compare, json!({}), json!({"project": "fx/compare", "to": "main"})),
        (400, json!({"error": "from is missing"}))
    );
}

/// An instance with `config` serving `long.git` as the public project `fx/long`; its admin token.
fn long_world(config: Value) -> (TestInstance, String) {
    let instance = common::open_instance(config);
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    let repo = fixture_dir().join("long.git");
    instance.admin_ok(json!({"command": "project_add", "path": "fx/long", "repo": repo, "visibility": "public"}));
    let admin = instance.user_with_token("root", true);
    (instance, admin)
}

fn long_compare(instance: &TestInstance, token: Option<&str>, query: &str) -> (u16, Value) {
    let headers: Vec<(&str, &str)> = token.map(|t| ("PRIVATE-TOKEN", t)).into_iter().collect();
    instance.request_json("GET", &format!("/api/v4/projects/fx%2Flong/repository/compare?{query}"), &headers, b"")
}

fn commit_ids(body: &Value) -> Vec<String> {
    body["commits"].as_array().expect("commits").iter().map(|c| c["id"].as_str().unwrap().to_string()).collect()
}

/// The commit list holds the newest commits of the range up to `compare_max_commits`, oldest
/// first, as `git rev-list --max-count`, for anonymous callers as for others (decisions D8:
/// GitLab lists every commit of the range; the anonymous cut of 100 is gone).
#[test]
fn long_ranges_list_the_newest_commits_up_to_the_cap_for_every_caller() {
    let repo = fixture_dir().join("long.git");
    let root = git_text(&repo, &["rev-list", "--max-parents=0", "main"]);
    let tip = sha(&repo, "main");
    let newest = |n: usize| -> Vec<String> {
        let text =
            git_text(&repo, &["rev-list", "--reverse", &format!("--max-count={n}"), "main", &format!("^{root}")]);
        text.lines().map(str::to_string).collect()
    };
    let query = format!("from={root}&to=main");

    let (instance, admin) = long_world(json!({"limits": {"compare_max_commits": 250}}));
    let (status, anonymous) = long_compare(&instance, None, &query);
    assert_eq!(status, 200, "{anonymous}");
    assert_eq!(commit_ids(&anonymous), newest(250));
    assert_eq!(anonymous["commit"]["id"], json!(tip), "commit stays the newest");
    let (status, signed_in) = long_compare(&instance, Some(&admin), &query);
    assert_eq!(status, 200);
    assert_eq!(commit_ids(&signed_in), newest(250));
    assert_eq!(signed_in["diffs"], anonymous["diffs"]);
    // 1199 added files: past the 1000-file limit the list ends and says so.
    assert_eq!(signed_in["diffs"].as_array().unwrap().len(), 1000);
    assert_eq!(signed_in["compare_timeout"], json!(true));

    // The default cap (10,000) lists the whole range of hundreds of commits, exactly as git
    // does, to anonymous callers too.
    let (instance, admin) = long_world(json!({}));
    let (status, all) = long_compare(&instance, Some(&admin), &query);
    assert_eq!(status, 200);
    assert_eq!(commit_ids(&all), newest(10_000));
    assert_eq!(commit_ids(&all).len(), 1199);
    let mut response =
        instance.request_response("GET", &format!("/api/v4/projects/fx%2Flong/repository/compare?{query}"), &[], b"");
    assert!(response.streamed(), "a long compare streams");
    let anonymous: Value = serde_json::from_slice(&response.body()).unwrap();
    assert_eq!(commit_ids(&anonymous), commit_ids(&all));
    // The knob of the old anonymous cut is refused, not silently ignored.
    let refused = forgecore::Config::from_json(r#"{"data_dir": "/x", "limits": {"compare_max_commits_anonymous": 5}}"#);
    assert!(refused.unwrap_err().contains("compare_max_commits_anonymous"));
}

/// Past `compare_timeout_millis` a compare stops: a 503 in GitLab's shape while the walk runs,
/// the diffs cut short with `compare_timeout` true after it; never a 500, never a long wait.
#[test]
fn a_compare_past_its_time_budget_stops_early() {
    let repo = fixture_dir().join("long.git");
    let root = git_text(&repo, &["rev-list", "--max-parents=0", "main"]);
    let (instance, admin) = long_world(json!({"limits": {"compare_timeout_millis": 1}}));
    let started = std::time::Instant::now();
    let (status, body) = long_compare(&instance, Some(&admin), &format!("from={root}&to=main"));
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    match status {
        503 => assert_eq!(
            body,
            json!({"message": "503 Service Unavailable - the comparison took longer than its time budget"})
        ),
        200 => {
            assert_eq!(body["compare_timeout"], json!(true));
            assert!(body["diffs"].as_array().unwrap().len() < 1000, "the diffs were cut short");
        }
        other => panic!("{other}: {body}"),
    }
    // The walk itself stops at its deadline.
    let opened = forgecore::git::open(repo.to_str().unwrap()).unwrap();
    let (from, to) = (root.parse().unwrap(), sha(&repo, "main").parse().unwrap());
    let now = std::time::Instant::now();
    let past = now - std::time::Duration::from_millis(1);
    assert_eq!(forgecore::git::range::ids(&opened, from, to, 10, past).expect("the walk"), None);
    let later = now + std::time::Duration::from_secs(60);
    assert_eq!(forgecore::git::range::ids(&opened, from, to, 10, later).unwrap().map(|ids| ids.len()), Some(10));
}

/// The walk's order where it shows: commits of equal dates leave git's queue first in, first
/// out, a commit dated before its parent is walked past with git's slop, and a commit painted
/// after it left the queue is not printed. Checked against `git rev-list` and `git log` with
/// dates and parents from the commit objects and from a commit-graph.
#[test]
fn range_walks_in_gits_order_through_ties_and_skew() {
    let refs = ["base", "a", "b", "c", "d", "main", "main~1", "skew", "skew~1", "skew~2", "b~1", "behind"];
    for name in ["ties.git", "ties-graph.git"] {
        let repo = fixture_dir().join(name);
        let opened = forgecore::git::open(repo.to_str().unwrap()).unwrap();
        let later = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut checked = 0;
        for from in refs {
            for to in refs {
                let range = format!("{from}..{to}");
                let theirs = git_text(&repo, &["rev-list", &range]);
                let theirs: Vec<&str> = theirs.lines().collect();
                let (from_id, to_id) = (sha(&repo, from).parse().unwrap(), sha(&repo, to).parse().unwrap());
                let ours: Vec<String> = forgecore::git::range::ids(&opened, from_id, to_id, 1000, later)
                    .unwrap()
                    .unwrap()
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                assert_eq!(ours, theirs, "{range} in {name}");
                let first_two = forgecore::git::range::ids(&opened, from_id, to_id, 2, later).unwrap().unwrap();
                assert_eq!(first_two.len(), theirs.len().min(2), "{range} in {name}");
                let logged: Vec<String> = forgecore::git::range::commits(&opened, Some(from_id), to_id, 1000)
                    .unwrap()
                    .iter()
                    .map(|c| c.id.to_string())
                    .collect();
                assert_eq!(logged, git_text(&repo, &["log", "--format=%H", &range]).lines().collect::<Vec<_>>());
                checked += usize::from(theirs.len() > 1);
            }
        }
        assert!(checked > 40, "most ranges have an order to get wrong: {checked}");
    }
}

#[test]
fn renames_pair_as_gits_passes_pair_them() {
    let w = world(json!({"limits": {"diff_max_files": 5000, "diff_max_lines": 100000}}));
    let repo = w.dir.join("renames.git");
    w.instance.admin_ok(json!({"command": "project_add", "path": "fx/renames", "repo": repo, "visibility": "public"}));
    // Identical content first (the same basename preferred), then unique basenames at 75 %,
    // then every pair at 50 %, most similar first, ties in path order.
    for branch in ["basename", "identical", "ties"] {
        check(&w, "fx%2Frenames", &format!("from=base&to={branch}"), &repo, "base", branch, false);
    }
    // Past diff.renameLimit only the basename pass pairs.
    let (status, body) = compare(&w.instance, "fx%2Frenames", "from=base&to=limit");
    assert_eq!(status, 200);
    let (ours, theirs) = (our_entries(&body), raw_entries(&repo, "base", "limit"));
    assert_eq!(ours.iter().filter(|e| e.renamed_file).count(), 5, "the unique basenames only");
    assert_eq!(ours, theirs);
}

/// The commit heads that walks without a commit-graph read (merge bases, the commit lists of
/// compares) are the commit objects' first bytes, through the committer line, whatever follows
/// it (a signature, a message).
#[test]
fn commit_heads_are_the_objects_through_the_committer_line() {
    let repo = fixture_dir().join("compare.git");
    let opened = forgecore::git::open(repo.to_str().unwrap()).unwrap();
    let mut heads = forgecore::git::commit_head::Heads::open(&opened).expect("no replacements");
    let (mut read, mut head) = (0, Vec::new());
    for id in git_text(&repo, &["rev-list", "--all"]).lines() {
        let full = git(&repo, &["cat-file", "commit", id]);
        if heads.read(&id.parse::<gix::ObjectId>().unwrap(), &mut head) {
            read += 1;
            let at = full.windows(11).position(|w| w == b"\ncommitter ").unwrap() + 1;
            let end = at + full[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
            assert_eq!(String::from_utf8_lossy(&head), String::from_utf8_lossy(&full[..end]), "{id}");
        }
    }
    assert!(read > 0, "the packed commits are read from the pack");
    // A tree is no commit: the store answers it.
    let tree = git_text(&repo, &["rev-parse", "HEAD^{tree}"]);
    assert!(!heads.read(&tree.parse::<gix::ObjectId>().unwrap(), &mut head));
}

/// The patches are computed while the commits are written: a blob that cannot be read there
/// ends the body with an error (never a clean end that would pass for a whole answer), and a
/// compare of the same repository whose blobs are all there is answered whole, computed and
/// then from the answers cache.
#[test]
fn a_patch_unreadable_while_the_body_is_written_ends_it_with_an_error() {
    let instance = common::open_instance(json!({}));
    let repo = instance.root_dir().join("lost-blob");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    let commit = |content: &str, message: &str| {
        std::fs::write(repo.join("f.txt"), content).unwrap();
        std::fs::write(repo.join("g.txt"), format!("{content} and more\n")).unwrap();
        git(&repo, &["add", "."]);
        git(&repo, &["-c", "user.name=A", "-c", "user.email=a@x", "commit", "-q", "-m", message]);
        sha(&repo, "HEAD")
    };
    let first = commit("one\n", "first");
    let second = commit("two\n", "second");
    instance.admin_ok(json!({"command": "group_add", "path": "lost", "visibility": "public"}));
    instance.admin_ok(
        json!({"command": "project_add", "path": "lost/blob", "repo": repo.join(".git"), "visibility": "public"}),
    );
    let target = format!("/api/v4/projects/lost%2Fblob/repository/compare?from={first}&to={second}");

    let (status, body) = instance.request_json("GET", &target, &[], b"");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["diffs"].as_array().map(Vec::len), Some(2), "{body}");
    let cached = instance.request_json("GET", &target, &[], b"");
    assert_eq!(cached, (200, body.clone()), "the cached answer is the computed one");

    // A later commit whose new blob is lost: its pairing needs no content, its patch does.
    let third = commit("three\n", "third");
    let lost = git_text(&repo, &["rev-parse", "HEAD:f.txt"]);
    std::fs::remove_file(repo.join(".git/objects").join(&lost[..2]).join(&lost[2..])).unwrap();
    let target = format!("/api/v4/projects/lost%2Fblob/repository/compare?from={second}&to={third}");
    let response = instance.request_response("GET", &target, &[], b"");
    assert_eq!(response.status(), 200);
    assert!(response.streamed());
    let mut buf = vec![0u8; 64 * 1024];
    let mut read = Vec::new();
    let ended = loop {
        match ffi::fc_response_read(response.as_ptr(), buf.as_mut_ptr(), buf.len()) {
            0 => break "a clean end",
            n if n > 0 => read.extend_from_slice(&buf[..n as usize]),
            _ => break "an error",
        }
    };
    assert_eq!(ended, "an error", "the body read: {}", String::from_utf8_lossy(&read));
}
