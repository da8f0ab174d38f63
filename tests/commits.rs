//! The commits read routes, checked against the git CLI on `tests/fixtures/commits.sh` (with
//! and without a commit-graph): the list against `git log` for every filter and order, every
//! field of every commit against `git log`/`git cat-file`/`git show --numstat`, pagination
//! without totals, the single commit, its diff against `git diff --raw -M`, its refs against
//! `git branch/tag --contains`, its sequence against `git rev-list --count`, and revision
//! syntax in the ref parameters of the other routes.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{git, git_text, porcelain_lines, TestInstance};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The fixture repositories, built once per test process (deterministic, so reusable).
fn fixture_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| common::shared_fixture("commits"))
}

struct World {
    instance: TestInstance,
    dir: &'static Path,
    /// The id of `fx/commits`.
    commits_id: i64,
}

/// The projects: `fx/commits` (no commit-graph), `fx/graph` (the same history with one) and
/// `fx/empty`.
fn world() -> World {
    let instance = common::open_instance(json!({}));
    let dir = fixture_dir();
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    let mut commits_id = 0;
    for (path, repo) in [("fx/commits", "commits.git"), ("fx/graph", "graph.git"), ("fx/empty", "empty.git")] {
        let added = instance
            .admin_ok(json!({"command": "project_add", "path": path, "repo": dir.join(repo), "visibility": "public"}));
        if path == "fx/commits" {
            commits_id = added["id"].as_i64().unwrap();
        }
    }
    World { instance, dir, commits_id }
}

/// Both projects with a history, and their repositories.
fn histories(w: &World) -> [(&'static str, PathBuf); 2] {
    [("fx%2Fcommits", w.dir.join("commits.git")), ("fx%2Fgraph", w.dir.join("graph.git"))]
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

fn get(w: &World, target: &str) -> (u16, Vec<(String, String)>, Value) {
    let (status, headers, body) = w.instance.request("GET", &format!("/api/v4/projects/{target}"), &[], b"");
    let value = if body.is_empty() { Value::Null } else { serde_json::from_slice(&body).unwrap() };
    (status, headers, value)
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

/// `git log --format=%H` with `args`.
fn git_log(repo: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["log", "--format=%H"];
    all.extend_from_slice(args);
    git_text(repo, &all).lines().map(str::to_string).collect()
}

/// `git log -1 --format=<format>` of one commit.
fn show(repo: &Path, id: &str, format: &str) -> String {
    String::from_utf8_lossy(&git(repo, &["log", "-1", &format!("--format={format}"), id]))
        .trim_end_matches('\n')
        .to_string()
}

/// The commit whose subject is `subject`, among every ref's history.
fn by_subject(repo: &Path, subject: &str) -> String {
    let log = String::from_utf8_lossy(&git(repo, &["log", "--all", "--format=%H %s"])).into_owned();
    log.lines()
        .find_map(|line| line.split_once(' ').filter(|(_, s)| *s == subject).map(|(id, _)| id.to_string()))
        .unwrap_or_else(|| panic!("no commit {subject:?}"))
}

/// Git's ISO dates with GitLab's milliseconds.
fn with_millis(iso: &str) -> String {
    format!("{}.000{}", &iso[..19], &iso[19..])
}

#[test]
fn the_list_is_what_git_log_lists_for_every_filter_and_order() {
    let w = world();
    for (project, repo) in histories(&w) {
        let date = |subject: &str| show(&repo, &by_subject(&repo, subject), "%cI");
        let (since, until) = (date("More 1"), date("Same date 1"));
        let merge = by_subject(&repo, "Merge branch 'feature'");
        let cases: Vec<(String, Vec<String>)> = vec![
            (String::new(), vec!["main".into()]),
            ("ref_name=".into(), vec!["main".into()]),
            ("ref_name=feature".into(), vec!["feature".into()]),
            ("ref_name=v1.0".into(), vec!["v1.0".into()]),
            ("ref_name=light".into(), vec!["light".into()]),
            ("ref_name=HEAD".into(), vec!["HEAD".into()]),
            (format!("ref_name={}", &merge[..10]), vec![merge.clone()]),
            ("ref_name=main~3".into(), vec!["main~3".into()]),
            (format!("ref_name={merge}%5E2"), vec![format!("{merge}^2")]),
            ("ref_name=stale..main".into(), vec!["stale..main".into()]),
            ("ref_name=v1.0..feature".into(), vec!["v1.0..feature".into()]),
            ("ref_name=feature...main".into(), vec!["feature...main".into()]),
            ("ref_name=orphan...stale".into(), vec!["orphan...stale".into()]),
            ("ref_name=stale...".into(), vec!["stale...".into()]),
            ("ref_name=feature...main&path=deep".into(), vec!["feature...main".into(), "--".into(), "deep".into()]),
            // A range prunes what a TREESAME merge's other parent brought in (undo), as git does.
            (
                "ref_name=stale..main&path=deep%2Fa%2Fb%2Fc%2Ffile.txt".into(),
                vec!["stale..main".into(), "--".into(), "deep/a/b/c/file.txt".into()],
            ),
            ("ref_name=stale..main&path=deep".into(), vec!["stale..main".into(), "--".into(), "deep".into()]),
            ("ref_name=undo...main&path=deep".into(), vec!["undo...main".into(), "--".into(), "deep".into()]),
            ("ref_name=v1.0..undo&path=deep".into(), vec!["v1.0..undo".into(), "--".into(), "deep".into()]),
            (
                "ref_name=stale..main&path=deep&first_parent=true".into(),
                vec!["--first-parent".into(), "stale..main".into(), "--".into(), "deep".into()],
            ),
            ("ref_name=stale..main&first_parent=true".into(), vec!["--first-parent".into(), "stale..main".into()]),
            (
                format!("ref_name=stale..main&path=deep&since={}", since.replace('+', "%2B")),
                vec![format!("--since={since}"), "stale..main".into(), "--".into(), "deep".into()],
            ),
            ("path=deep%2Fa%2Fb%2Fc%2Ffile.txt".into(), vec!["main".into(), "--".into(), "deep/a/b/c/file.txt".into()]),
            ("path=deep".into(), vec!["main".into(), "--".into(), "deep".into()]),
            ("path=deep%2F".into(), vec!["main".into(), "--".into(), "deep/".into()]),
            ("path=README.md".into(), vec!["main".into(), "--".into(), "README.md".into()]),
            ("path=blob.bin".into(), vec!["main".into(), "--".into(), "blob.bin".into()]),
            ("path=renamed-to.txt".into(), vec!["main".into(), "--".into(), "renamed-to.txt".into()]),
            ("path=side.txt".into(), vec!["main".into(), "--".into(), "side.txt".into()]),
            ("path=no-such-file".into(), vec!["main".into(), "--".into(), "no-such-file".into()]),
            ("author=Alice".into(), vec!["--author=Alice".into(), "main".into()]),
            ("author=bob%40example.com".into(), vec!["--author=bob@example.com".into(), "main".into()]),
            ("author=".into(), vec!["main".into()]),
            ("author=Nobody".into(), vec!["--author=Nobody".into(), "main".into()]),
            // git reads the pattern as a basic regular expression.
            ("author=%5EA.*ce".into(), vec!["--author=^A.*ce".into(), "main".into()]),
            ("author=example%5C.com%3E%24".into(), vec!["--author=example\\.com>$".into(), "main".into()]),
            ("author=Alice%5C%7CBob".into(), vec!["--author=Alice\\|Bob".into(), "main".into()]),
            ("author=(b".into(), vec!["--author=(b".into(), "main".into()]),
            ("author=b%2B".into(), vec!["--author=b+".into(), "main".into()]),
            (format!("since={}", since.replace('+', "%2B")), vec![format!("--since={since}"), "main".into()]),
            (format!("until={}", until.replace('+', "%2B")), vec![format!("--until={until}"), "main".into()]),
            ("first_parent=true".into(), vec!["--first-parent".into(), "main".into()]),
            (
                "first_parent=true&path=deep%2Fa%2Fb%2Fc%2Ffile.txt".into(),
                vec!["--first-parent".into(), "main".into(), "--".into(), "deep/a/b/c/file.txt".into()],
            ),
            ("order=topo".into(), vec!["--topo-order".into(), "main".into()]),
            ("order=default".into(), vec!["main".into()]),
            ("order=topo&path=deep".into(), vec!["--topo-order".into(), "main".into(), "--".into(), "deep".into()]),
            ("all=true".into(), vec!["--all".into()]),
            ("all=true&ref_name=feature".into(), vec!["--all".into()]),
            ("all=true&path=deep".into(), vec!["--all".into(), "--".into(), "deep".into()]),
            ("all=true&order=topo".into(), vec!["--topo-order".into(), "--all".into()]),
            (
                "order=topo&first_parent=true".into(),
                vec!["--topo-order".into(), "--first-parent".into(), "main".into()],
            ),
            ("order=topo&author=Alice".into(), vec!["--topo-order".into(), "--author=Alice".into(), "main".into()]),
            (
                "order=topo&all=true&path=deep%2Fa%2Fb%2Fc%2Ffile.txt".into(),
                vec!["--topo-order".into(), "--all".into(), "--".into(), "deep/a/b/c/file.txt".into()],
            ),
            (
                format!("order=topo&since={}", since.replace('+', "%2B")),
                vec!["--topo-order".into(), format!("--since={since}"), "main".into()],
            ),
        ];
        for (query, args) in cases {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (status, _, list) = get(&w, &format!("{project}/repository/commits?per_page=100&{query}"));
            assert_eq!(status, 200, "{project} {query}: {list}");
            assert_eq!(ids(&list), git_log(&repo, &args), "{project} {query} against git log {args:?}");
        }
        // Pages of the topological order: git log --skip.
        for (page, per_page) in [(1, 4), (2, 4), (3, 7), (6, 5)] {
            let (_, _, list) =
                get(&w, &format!("{project}/repository/commits?order=topo&all=true&page={page}&per_page={per_page}"));
            let skip = format!("--skip={}", (page - 1) * per_page);
            let count = format!("-{per_page}");
            assert_eq!(
                ids(&list),
                git_log(&repo, &["--topo-order", "--all", &skip, &count]),
                "{project} topo page {page}"
            );
        }
        // The default page is the first 20.
        let (_, _, list) = get(&w, &format!("{project}/repository/commits"));
        assert_eq!(ids(&list), git_log(&repo, &["-20", "main"]), "{project}");
    }
}

#[test]
fn every_field_of_every_commit_is_gits() {
    let w = world();
    for (project, repo) in histories(&w) {
        let (status, _, list) =
            get(&w, &format!("{project}/repository/commits?all=true&per_page=100&trailers=true&with_stats=true"));
        assert_eq!(status, 200, "{list}");
        let list = list.as_array().unwrap();
        assert_eq!(list.len(), git_log(&repo, &["--all"]).len());
        let path = project.replace("%2F", "/");
        let mut seen_trailers = false;
        for commit in list {
            let id = commit["id"].as_str().unwrap();
            assert_eq!(commit["short_id"], json!(&id[..8]));
            let parents: Vec<String> = show(&repo, id, "%P").split_whitespace().map(str::to_string).collect();
            assert_eq!(commit["parent_ids"], json!(parents), "{id}");
            let raw = git(&repo, &["cat-file", "commit", id]);
            let at = raw.windows(2).position(|w| w == b"\n\n").unwrap();
            let message = String::from_utf8_lossy(&raw[at + 2..]).into_owned();
            assert_eq!(commit["message"], json!(message), "{id}");
            assert_eq!(commit["title"], json!(message.lines().next().unwrap_or("")), "{id}");
            assert_eq!(commit["author_name"], json!(show(&repo, id, "%an")));
            assert_eq!(commit["author_email"], json!(show(&repo, id, "%ae")));
            assert_eq!(commit["authored_date"], json!(with_millis(&show(&repo, id, "%aI"))));
            assert_eq!(commit["committer_name"], json!(show(&repo, id, "%cn")));
            assert_eq!(commit["committer_email"], json!(show(&repo, id, "%ce")));
            assert_eq!(commit["committed_date"], json!(with_millis(&show(&repo, id, "%cI"))));
            assert_eq!(commit["created_at"], commit["committed_date"]);
            assert_eq!(commit["web_url"], json!(format!("http://localhost/{path}/-/commit/{id}")));
            // Trailers: git's own parse of the message.
            let parsed = show(&repo, id, "%(trailers:only,unfold)");
            let mut last = serde_json::Map::new();
            let mut all = serde_json::Map::new();
            for line in parsed.lines().filter(|l| !l.is_empty()) {
                let (key, value) = line.split_once(": ").unwrap();
                last.insert(key.to_string(), json!(value));
                all.entry(key.to_string()).or_insert_with(|| json!([])).as_array_mut().unwrap().push(json!(value));
            }
            seen_trailers |= !last.is_empty();
            assert_eq!(commit["trailers"], Value::Object(last), "{id}");
            assert_eq!(commit["extended_trailers"], Value::Object(all), "{id}");
            // Stats: git's numstat against the first parent (everything for a root commit).
            let numstat = match parents.first() {
                Some(parent) => git(&repo, &["diff", "--numstat", "-M", parent, id]),
                None => git(&repo, &["show", "--numstat", "--format=", id]),
            };
            let (mut additions, mut deletions) = (0, 0);
            for line in String::from_utf8_lossy(&numstat).lines() {
                let mut fields = line.split('\t');
                additions += fields.next().unwrap().parse::<u64>().unwrap_or(0);
                deletions += fields.next().unwrap().parse::<u64>().unwrap_or(0);
            }
            assert_eq!(
                commit["stats"],
                json!({"additions": additions, "deletions": deletions, "total": additions + deletions}),
                "{id}"
            );
        }
        assert!(seen_trailers, "the fixture has a commit with trailers");
        let latin1 = list.iter().find(|c| c["title"].as_str().unwrap().starts_with("caf")).unwrap();
        assert!(latin1["message"].as_str().unwrap().contains('\u{fffd}'), "a non-UTF-8 message is read lossily");
        // Without the flags: trailers are {} and there are no stats.
        let (_, _, plain) = get(&w, &format!("{project}/repository/commits?all=true&per_page=100"));
        for commit in plain.as_array().unwrap() {
            assert_eq!(commit["trailers"], json!({}));
            assert_eq!(commit["extended_trailers"], json!({}));
            assert!(commit.get("stats").is_none());
        }
    }
}

#[test]
fn pages_have_no_totals_and_a_next_page_only_when_full() {
    let w = world();
    let repo = w.dir.join("commits.git");
    let all = git_log(&repo, &["main"]);
    let mut collected = Vec::new();
    let mut page = 1;
    loop {
        let (status, headers, list) = get(&w, &format!("fx%2Fcommits/repository/commits?per_page=7&page={page}"));
        assert_eq!(status, 200);
        let got = ids(&list);
        assert_eq!(header(&headers, "X-Page"), Some(page.to_string().as_str()));
        assert_eq!(header(&headers, "X-Per-Page"), Some("7"));
        assert_eq!(header(&headers, "X-Total"), None);
        assert_eq!(header(&headers, "X-Total-Pages"), None);
        let link = header(&headers, "Link").unwrap();
        assert!(!link.contains("rel=\"last\""), "{link}");
        let full = got.len() == 7;
        let next = header(&headers, "X-Next-Page").unwrap();
        assert_eq!(next, if full { (page + 1).to_string() } else { String::new() }, "page {page}");
        assert_eq!(link.contains("rel=\"next\""), full, "{link}");
        if full {
            assert!(link.contains(&format!("page={}&per_page=7>; rel=\"next\"", page + 1)), "{link}");
        }
        assert_eq!(
            header(&headers, "X-Prev-Page").unwrap(),
            if page > 1 { (page - 1).to_string() } else { String::new() }
        );
        collected.extend(got);
        if !full {
            break;
        }
        page += 1;
    }
    assert_eq!(collected, all, "following the pages lists git log exactly once");
    // Past the end: an empty page, no next.
    let (status, headers, list) = get(&w, "fx%2Fcommits/repository/commits?per_page=7&page=99");
    assert_eq!((status, list), (200, json!([])));
    assert_eq!(header(&headers, "X-Next-Page"), Some(""));
}

#[test]
fn unknown_refs_and_empty_repositories_list_nothing_and_bad_values_are_400() {
    let w = world();
    for target in [
        "fx%2Fcommits/repository/commits?ref_name=nope",
        "fx%2Fcommits/repository/commits?ref_name=nope..main",
        "fx%2Fcommits/repository/commits?ref_name=main~999",
        "fx%2Fempty/repository/commits",
        "fx%2Fempty/repository/commits?all=true",
    ] {
        let (status, _, list) = get(&w, target);
        assert_eq!((status, list), (200, json!([])), "{target}");
    }
    let bad = [
        ("ref_name=-x", json!({"message": "ref_name is invalid"})),
        ("ref_name=ma%20in", json!({"message": "ref_name is invalid"})),
        ("ref_name=main%00", json!({"message": "ref_name is invalid"})),
        ("ref_name=main@%7B1%7D", json!({"message": "ref_name is invalid"})),
        ("since=yesterday", json!({"error": "since is invalid"})),
        ("until=2024-13-01", json!({"error": "until is invalid"})),
        ("order=newest", json!({"error": "order does not have a valid value"})),
        ("per_page=0", json!({"error": "per_page does not have a valid value"})),
        ("with_stats=maybe", json!({"error": "with_stats is invalid"})),
    ];
    for (query, body) in bad {
        let (status, _, answer) = get(&w, &format!("fx%2Fcommits/repository/commits?{query}"));
        assert_eq!((status, answer), (400, body), "{query}");
    }
    let (status, _, answer) = get(&w, "fx%2Fnope/repository/commits");
    assert_eq!((status, answer), (404, json!({"message": "404 Project Not Found"})));
}

#[test]
fn one_commit_is_the_list_entity_with_stats_status_project_and_pipeline() {
    let w = world();
    let repo = w.dir.join("commits.git");
    let (_, _, listed) = get(&w, "fx%2Fcommits/repository/commits?per_page=100&with_stats=true");
    for name in ["main", "v1.0", "light", "feature", "HEAD~3", "main%5E%7Bcommit%7D", "v1.0%5E0"] {
        let decoded = name.replace("%5E", "^").replace("%7B", "{").replace("%7D", "}");
        let id = git_text(&repo, &["rev-parse", &format!("{decoded}^{{commit}}")]);
        for sha in [name.to_string(), id.clone(), id[..7].to_string()] {
            let (status, _, commit) = get(&w, &format!("fx%2Fcommits/repository/commits/{sha}"));
            assert_eq!(status, 200, "{sha}: {commit}");
            assert_eq!(commit["id"], json!(id), "{sha}");
            assert_eq!(commit["status"], Value::Null);
            assert_eq!(commit["last_pipeline"], Value::Null);
            assert_eq!(commit["project_id"], json!(w.commits_id));
            assert_eq!(commit["trailers"], json!({}));
            if let Some(same) = listed.as_array().unwrap().iter().find(|c| c["id"] == json!(id)) {
                for field in ["message", "title", "parent_ids", "authored_date", "committed_date", "web_url", "stats"] {
                    assert_eq!(commit[field], same[field], "{sha} {field}");
                }
            }
        }
    }
    let (_, _, without) = get(&w, "fx%2Fcommits/repository/commits/main?stats=false");
    assert!(without.get("stats").is_none(), "{without}");
    for unknown in ["nope", "0000000000000000000000000000000000000000", "main~999", "main@%7B1%7D", "main:README.md"] {
        let (status, _, body) = get(&w, &format!("fx%2Fcommits/repository/commits/{unknown}"));
        assert_eq!((status, body), (404, json!({"message": "404 Commit Not Found"})), "{unknown}");
    }
}

#[test]
fn a_commits_diff_is_gits_against_its_first_parent() {
    let w = world();
    let repo = w.dir.join("commits.git");
    for subject in [
        "Initial commit",
        "Rename with an edit",
        "Change the binary file",
        "Make README executable",
        "Merge branch 'feature'",
        "Delete the binary file",
    ] {
        let id = by_subject(&repo, subject);
        let parent = git_text(&repo, &["rev-list", "--parents", "-n1", &id]).split(' ').nth(1).map(str::to_string);
        let (status, headers, diffs) = get(&w, &format!("fx%2Fcommits/repository/commits/{id}/diff?per_page=100"));
        assert_eq!(status, 200, "{subject}: {diffs}");
        let base = parent.clone().unwrap_or_else(|| "4b825dc642cb6eb9a060e54bf8d69288fbee4904".into());
        let raw = git_text(&repo, &["diff", "--raw", "-M", "--no-abbrev", &base, &id]);
        let diffs = diffs.as_array().unwrap();
        assert_eq!(diffs.len(), raw.lines().count(), "{subject}: {raw}");
        assert_eq!(header(&headers, "X-Total"), Some(diffs.len().to_string().as_str()));
        for (entity, line) in diffs.iter().zip(raw.lines()) {
            let (meta, paths) = line.split_once('\t').unwrap();
            let status = meta.split(' ').nth(4).unwrap();
            let paths: Vec<&str> = paths.split('\t').collect();
            assert_eq!(entity["old_path"], json!(paths[0]), "{subject}");
            assert_eq!(entity["new_path"], json!(paths.last().unwrap()), "{subject}");
            assert_eq!(entity["renamed_file"], json!(status.starts_with('R')), "{subject}");
            assert_eq!(entity["new_file"], json!(status == "A"), "{subject}");
            assert_eq!(entity["deleted_file"], json!(status == "D"), "{subject}");
            let patch = String::from_utf8_lossy(&git(
                &repo,
                &["diff", "-M", &base, &id, "--", paths[0], paths.last().unwrap()],
            ))
            .into_owned();
            let from_hunk = patch
                .find("\n@@")
                .map(|at| &patch[at + 1..])
                .or_else(|| patch.find("Binary files").map(|at| &patch[at..]))
                .unwrap_or("");
            assert_eq!(entity["diff"], json!(from_hunk), "{subject} {}", paths[0]);
            assert_eq!(entity["collapsed"], json!(false));
            assert_eq!(entity["too_large"], json!(false));
        }
    }
    // unidiff: the file header lines first.
    let id = by_subject(&repo, "Rename with an edit");
    let (_, _, diffs) = get(&w, &format!("fx%2Fcommits/repository/commits/{id}/diff?unidiff=true"));
    assert!(
        diffs[0]["diff"].as_str().unwrap().starts_with("--- a/renamed-from.txt\n+++ b/renamed-to.txt\n@@"),
        "{diffs}"
    );
    // Pages with totals.
    let root = by_subject(&repo, "Initial commit");
    let (_, headers, page) = get(&w, &format!("fx%2Fcommits/repository/commits/{root}/diff?per_page=2&page=2"));
    assert_eq!(page.as_array().unwrap().len(), 2);
    assert_eq!(header(&headers, "X-Total"), Some("4"));
    assert_eq!(header(&headers, "X-Total-Pages"), Some("2"));
    let (status, _, body) = get(&w, "fx%2Fcommits/repository/commits/nope/diff");
    assert_eq!((status, body), (404, json!({"message": "404 Commit Not Found"})));
}

#[test]
fn refs_are_the_branches_and_tags_that_contain_the_commit() {
    let w = world();
    for (project, repo) in histories(&w) {
        for subject in
            ["Initial commit", "Feature: deep change", "Same date 3", "More 12", "Orphan root", "Last commit on main"]
        {
            let id = by_subject(&repo, subject);
            let branches: Vec<Value> = git_text(&repo, &["branch", "--contains", &id, "--format=%(refname:short)"])
                .lines()
                .map(|name| json!({"type": "branch", "name": name}))
                .collect();
            let tags: Vec<Value> = git_text(&repo, &["tag", "--contains", &id])
                .lines()
                .map(|name| json!({"type": "tag", "name": name}))
                .collect();
            let both: Vec<Value> = branches.iter().chain(&tags).cloned().collect();
            for (query, expected) in [("", &both), ("type=all", &both), ("type=branch", &branches), ("type=tag", &tags)]
            {
                let (status, _, refs) =
                    get(&w, &format!("{project}/repository/commits/{id}/refs?per_page=100&{query}"));
                assert_eq!(status, 200, "{refs}");
                assert_eq!(&refs, &json!(expected), "{project} {subject} {query}");
            }
        }
        let (status, _, body) = get(&w, &format!("{project}/repository/commits/main/refs?type=remote"));
        assert_eq!((status, body), (400, json!({"error": "type does not have a valid value"})));
    }
}

#[test]
fn sequence_counts_what_rev_list_counts() {
    let w = world();
    for (project, repo) in histories(&w) {
        for rev in ["main", "feature", "v1.0", "orphan", "main~2"] {
            let count: u64 = git_text(&repo, &["rev-list", "--count", rev]).parse().unwrap();
            let first: u64 = git_text(&repo, &["rev-list", "--count", "--first-parent", rev]).parse().unwrap();
            let (status, _, body) = get(&w, &format!("{project}/repository/commits/{rev}/sequence"));
            assert_eq!((status, body), (200, json!({"count": count})), "{rev}");
            let (_, _, body) = get(&w, &format!("{project}/repository/commits/{rev}/sequence?first_parent=true"));
            assert_eq!(body, json!({"count": first}), "{rev}");
        }
        assert!(
            git_text(&repo, &["rev-list", "--count", "main"])
                != git_text(&repo, &["rev-list", "--count", "--first-parent", "main"])
        );
    }
}

#[test]
fn revision_syntax_works_in_the_ref_parameters_of_other_routes() {
    let w = world();
    let repo = w.dir.join("commits.git");
    let (status, _, compare) = get(&w, "fx%2Fcommits/repository/compare?from=HEAD~5&to=HEAD");
    assert_eq!(status, 200, "{compare}");
    let expected: Vec<String> =
        git_text(&repo, &["rev-list", "--reverse", "HEAD~5..HEAD"]).lines().map(str::to_string).collect();
    assert_eq!(ids(&compare["commits"]), expected);
    let merge = by_subject(&repo, "Merge branch 'feature'");
    let (status, _, tree) = get(&w, &format!("fx%2Fcommits/repository/tree?ref={merge}%5E2"));
    assert_eq!(status, 200, "{tree}");
    let names: Vec<&str> = tree.as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"feature.txt") && !names.contains(&"meanwhile.txt"), "{names:?}");
    let (status, _, base) = get(&w, "fx%2Fcommits/repository/merge_base?refs[]=feature~1&refs[]=main%5E%7Bcommit%7D");
    assert_eq!(status, 200, "{base}");
    assert_eq!(base["id"], json!(git_text(&repo, &["merge-base", "feature~1", "main"])));
    for bad in ["main@%7B1%7D", "%3A%2FTrailers", "ma%20in"] {
        let (status, _, body) = get(&w, &format!("fx%2Fcommits/repository/tree?ref={bad}"));
        assert_eq!((status, body), (400, json!({"error": "ref is invalid"})), "{bad}");
    }
    for unknown in ["main~999", "main%5E3", "main%5E%7Btree%7D", "v1.0~x"] {
        let (status, _, _) = get(&w, &format!("fx%2Fcommits/repository/tree?ref={unknown}"));
        assert_eq!(status, 404, "{unknown}");
    }
}

#[test]
fn the_typed_exports_answer_as_the_routes_do() {
    let w = world();
    let admin = w.instance.user_with_token("root", true);
    let auth = TestInstance::auth(&admin);
    let (_, _, listed) = get(&w, "fx%2Fcommits/repository/commits?per_page=5&path=deep");
    let (status, typed) = w.instance.typed(
        forgecore::ffi::fc_repository_commits,
        auth.clone(),
        json!({"project": "fx/commits", "per_page": 5, "path": "deep"}),
    );
    assert_eq!((status, &typed), (200, &listed));
    let (_, _, one) = get(&w, "fx%2Fcommits/repository/commits/v1.0");
    let (status, typed) = w.instance.typed(
        forgecore::ffi::fc_repository_commit,
        auth.clone(),
        json!({"project": "fx/commits", "sha": "v1.0"}),
    );
    assert_eq!((status, &typed), (200, &one));
    let (_, _, diff) = get(&w, "fx%2Fcommits/repository/commits/v1.0/diff");
    let (status, typed) = w.instance.typed(
        forgecore::ffi::fc_repository_commit_diff,
        auth.clone(),
        json!({"project": "fx/commits", "sha": "v1.0"}),
    );
    assert_eq!((status, &typed), (200, &diff));
    let (_, _, refs) = get(&w, "fx%2Fcommits/repository/commits/v1.0/refs");
    let (status, typed) = w.instance.typed(
        forgecore::ffi::fc_repository_commit_refs,
        auth.clone(),
        json!({"project": "fx/commits", "sha": "v1.0"}),
    );
    assert_eq!((status, &typed), (200, &refs));
    let (status, typed) = w.instance.typed(
        forgecore::ffi::fc_repository_commit_sequence,
        auth.clone(),
        json!({"project": "fx/commits", "sha": "v1.0"}),
    );
    let count: u64 = git_text(&w.dir.join("commits.git"), &["rev-list", "--count", "v1.0"]).parse().unwrap();
    assert_eq!((status, typed), (200, json!({"count": count})));
    let (status, typed) =
        w.instance.typed(forgecore::ffi::fc_repository_commit, auth, json!({"project": "fx/commits"}));
    assert_eq!((status, typed), (400, json!({"error": "sha is missing"})));
}

#[test]
fn changed_path_filters_are_read_as_git_writes_them() {
    let dir = fixture_dir().join("graph.git");
    let filters = forgecore::git::bloom::load(&dir.join("objects")).expect("graph.git has changed-path filters");
    for path in ["deep/a/b/c/file.txt", "deep", "README.md", "side.txt", "no-such-file"] {
        let components: Vec<Vec<u8>> = path.split('/').map(|c| c.as_bytes().to_vec()).collect();
        let keys = forgecore::git::bloom::Keys::new(&components);
        let (mut skipped, mut unchanged) = (0, 0);
        for id in git_log(&dir, &["--all"]) {
            let oid = gix::ObjectId::from_hex(id.as_bytes()).unwrap();
            // What git's filter was made from: the diff against the first parent.
            let changed = !git_text(
                &dir,
                &[
                    "diff-tree",
                    "--no-commit-id",
                    "--name-only",
                    "-r",
                    "--root",
                    "-m",
                    "--first-parent",
                    &id,
                    "--",
                    path,
                ],
            )
            .is_empty();
            let certain = filters.certainly_unchanged(&oid, &keys);
            // A position hint from another reading of the graph is checked, never trusted blindly.
            let position = forgecore::git::open(&dir).unwrap().commit_graph().unwrap().lookup(oid).unwrap().0;
            assert_eq!(filters.certainly_unchanged_at(&oid, Some(position), &keys), certain);
            assert_eq!(filters.certainly_unchanged_at(&oid, Some(0), &keys), certain, "a wrong hint");
            assert!(!(changed && certain), "{path} changed in {id}, yet the filter says it did not");
            unchanged += usize::from(!changed);
            skipped += usize::from(certain);
        }
        // A filter may say "maybe" (small filters often do for a one-component path), but it
        // spares most commits a tree read for a deep path, whose every directory must match.
        assert!(skipped > 0, "{path}: the filters never answered");
        if path.contains('/') {
            assert!(skipped * 10 >= unchanged * 8, "{path}: {skipped} of {unchanged} unchanged commits skipped");
        }
    }
    let unknown = gix::ObjectId::from_hex(b"0123456789012345678901234567890123456789").unwrap();
    assert!(!filters.certainly_unchanged(&unknown, &forgecore::git::bloom::Keys::new(&[b"x".to_vec()])));
    assert!(forgecore::git::bloom::load(&w_plain_objects()).is_none(), "no graph, no filters");
}

fn w_plain_objects() -> PathBuf {
    fixture_dir().join("commits.git").join("objects")
}

#[test]
fn private_projects_follow_the_visibility_matrix() {
    let w = world();
    let common::Matrix { admin, guest, reader, reporter, outsider } =
        w.instance.visibility_matrix("boss", &w.dir.join("commits.git"));
    let project_not_found = json!({"message": "404 Project Not Found"});
    for route in ["commits", "commits/main", "commits/main/diff", "commits/main/refs", "commits/main/sequence"] {
        let target = format!("/api/v4/projects/corp%2Fsecret/repository/{route}");
        let answer = |token: Option<&str>| {
            let headers: Vec<(&str, &str)> = token.map(|t| vec![("PRIVATE-TOKEN", t)]).unwrap_or_default();
            w.instance.request_json("GET", &target, &headers, b"")
        };
        assert_eq!(answer(None), (404, project_not_found.clone()), "anonymous {route}");
        assert_eq!(answer(Some(&outsider)), (404, project_not_found.clone()), "outsider {route}");
        assert_eq!(answer(Some(&guest)), (403, json!({"message": "403 Forbidden"})), "guest {route}");
        assert_eq!(answer(Some("glpat-not-a-token")).0, 401, "bad token {route}");
        for (who, token) in [("custom read_code role", &reader), ("reporter", &reporter), ("admin", &admin)] {
            assert_eq!(answer(Some(token)).0, 200, "{who} {route}");
        }
    }
}

#[test]
fn blame_is_gits_with_and_without_changed_path_filters() {
    // With filters, blame skips what they vouch for (src/git/blame/skip.rs); the answer must not
    // move: the deep file (merges that change it, and one that changes it and back), a renamed
    // file (blamed again without skipping), files of one side branch.
    let w = world();
    let files = ["deep/a/b/c/file.txt", "README.md", "renamed-to.txt", "run.sh", "same.txt", "more.txt"];
    let mut compared = 0;
    for (project, repo) in histories(&w) {
        for (rev, path) in files.iter().map(|f| ("main", *f)).chain([
            ("undo", "deep/a/b/c/file.txt"),
            ("feature", "deep/a/b/c/file.txt"),
            ("feature", "feature.txt"),
            ("v1.0", "README.md"),
        ]) {
            let expected = porcelain_lines(&repo, rev, path);
            let target =
                format!("/api/v4/projects/{project}/repository/files/{}/blame?ref={rev}", path.replace('/', "%2F"));
            let (status, body) = w.instance.request_json("GET", &target, &[], b"");
            assert_eq!(status, 200, "{project} {rev}:{path}: {body}");
            let got: Vec<(String, String)> = body
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|group| {
                    let id = group["commit"]["id"].as_str().unwrap().to_string();
                    group["lines"].as_array().unwrap().iter().map(move |l| (id.clone(), l.as_str().unwrap().into()))
                })
                .collect();
            assert!(!expected.is_empty(), "{rev}:{path}");
            assert_eq!(got, expected, "{project} {rev}:{path} against git blame");
            compared += 1;
        }
    }
    assert_eq!(compared, 20);
}

#[test]
fn commits_newer_than_the_commit_graph_are_walked_with_those_in_it() {
    // A repository between a push and its next maintenance: a commit-graph of the older
    // history, newer commits only as objects (a merge among them whose second parent is an old
    // commit the graph holds). Path walks, plain lists, first parents and last commits must be
    // git's across the boundary.
    let w = world();
    let dir = w.instance.root_dir().join("partial");
    std::fs::create_dir_all(&dir).unwrap();
    let repo = dir.join("partial.git");
    git(&dir, &["init", "-q", "--bare", "-b", "main", &repo.to_string_lossy()]);
    let commit = |n: u32, from: &str, merge: &str, path: &str| {
        format!(
            "commit refs/heads/main\nmark :{n}\ncommitter C <c@example.com> {when} +0000\ndata 3\nc{m}\n{from}{merge}\
             M 100644 inline {path}\ndata 4\nv{m:02}\n\n",
            when = 1_700_000_000 + n * 60,
            m = n % 100,
        )
    };
    let mut old = String::new();
    for n in 1..=60 {
        let from = if n == 1 { String::new() } else { format!("from :{}\n", n - 1) };
        old.push_str(&commit(n, &from, "", &format!("d{}/f{}.txt", n % 3, n % 7)));
    }
    common::fast_import(&repo, &old);
    git(&repo, &["commit-graph", "write", "--reachable", "--changed-paths"]);
    let mut new = String::new();
    for n in 61..=80 {
        let from = if n == 61 { "from refs/heads/main^0\n".to_string() } else { format!("from :{}\n", n - 1) };
        let merge =
            if n == 70 { format!("merge {}\n", git_text(&repo, &["rev-parse", "main~30"])) } else { String::new() };
        new.push_str(&commit(n, &from, &merge, &format!("d{}/f{}.txt", n % 3, n % 5)));
    }
    common::fast_import(&repo, &new);
    let in_graph = git_text(&repo, &["rev-list", "--count", "main"]);
    assert_eq!(in_graph, "80");
    w.instance.admin_ok(json!({"command": "project_add", "path": "fx/partial", "repo": repo, "visibility": "public"}));
    for query in
        ["", "path=d1/f1.txt", "path=d2", "path=d0/f6.txt&first_parent=true", "first_parent=true", "path=d1/f3.txt"]
    {
        let (status, _, body) = get(&w, &format!("fx%2Fpartial/repository/commits?per_page=100&{query}"));
        assert_eq!(status, 200, "{query}: {body}");
        let mut args = vec!["main"];
        if query.contains("first_parent") {
            args.push("--first-parent");
        }
        if let Some(path) = query.split('&').find_map(|q| q.strip_prefix("path=")) {
            args.extend(["--", path]);
        }
        let expected = git_log(&repo, &args);
        assert!(!expected.is_empty(), "{query}");
        assert_eq!(ids(&body), expected, "{query} against git log");
    }
    for path in ["d1/f1.txt", "d0/f6.txt", "d2/f2.txt"] {
        let (status, _, body) =
            get(&w, &format!("fx%2Fpartial/repository/files/{}?ref=main", path.replace('/', "%2F")));
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(
            body["last_commit_id"],
            json!(git_text(&repo, &["log", "-1", "--format=%H", "main", "--", path])),
            "{path}"
        );
    }
}
