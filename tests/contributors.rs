//! B6 contributors (decisions D5), compared with `git log --no-merges` on the fixtures.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::git;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// email -> (commits, name on the newest commit), from git.
fn expected(dir: &std::path::Path, rev: &str) -> BTreeMap<String, (u64, String)> {
    let log = String::from_utf8(git(dir, &["log", "--no-merges", "--format=%ae%x00%an", rev])).unwrap();
    let mut out: BTreeMap<String, (u64, String)> = BTreeMap::new();
    for line in log.lines() {
        let (email, name) = line.split_once('\0').unwrap();
        let entry = out.entry(email.to_string()).or_insert((0, name.to_string()));
        entry.0 += 1;
    }
    out
}

fn list(instance: &common::TestInstance, query: &str) -> (u16, Vec<(String, String)>, Value) {
    let (status, headers, body) =
        instance.request("GET", &format!("/api/v4/projects/fx%2Fwork/repository/contributors?{query}"), &[], b"");
    (status, headers, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

fn as_map(body: &Value) -> BTreeMap<String, (u64, String)> {
    body.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["email"].as_str().unwrap().to_string(),
                (c["commits"].as_u64().unwrap(), c["name"].as_str().unwrap().to_string()),
            )
        })
        .collect()
}

#[test]
fn counts_every_non_merge_commit_by_exact_email() {
    let instance = common::open_instance(json!({}));
    let dir = instance.fixture_repos();
    let work = dir.join("work");
    for (query, rev) in [
        ("per_page=100", "main"),
        ("ref=feature&per_page=100", "feature"),
        ("ref=v1.0.0&per_page=100", "v1.0.0"),
        ("ref=orphan", "orphan"),
    ] {
        let (status, _, body) = list(&instance, query);
        assert_eq!(status, 200);
        assert_eq!(as_map(&body), expected(&work, rev), "{query}");
        for c in body.as_array().unwrap() {
            assert_eq!((c["additions"].clone(), c["deletions"].clone()), (json!(0), json!(0)));
        }
    }
    // ALICE@example.com and alice@example.com are different contributors.
    let (_, _, body) = list(&instance, "");
    let emails: Vec<&str> = body.as_array().unwrap().iter().map(|c| c["email"].as_str().unwrap()).collect();
    assert!(emails.contains(&"ALICE@example.com") && emails.contains(&"alice@example.com"), "{emails:?}");
}

#[test]
fn orders_by_recent_commit_by_default_and_by_name_email_or_commits() {
    let instance = common::open_instance(json!({}));
    instance.fixture_repos();
    let names = |query: &str| -> Vec<String> {
        let (_, _, body) = list(&instance, query);
        body.as_array().unwrap().iter().map(|c| c["email"].as_str().unwrap().to_string()).collect()
    };
    // Newest first: dave (after the merge), ALICE (Update README), carol, bob? alice's newest is
    // "Add a submodule", after bob's commit.
    assert_eq!(
        names(""),
        ["dave@example.com", "ALICE@example.com", "carol@example.com", "alice@example.com", "bob@example.com"]
    );
    assert_eq!(
        names("sort=asc"),
        ["bob@example.com", "alice@example.com", "carol@example.com", "ALICE@example.com", "dave@example.com"]
    );
    let by_email = names("order_by=email");
    let mut sorted = by_email.clone();
    sorted.sort_by_key(|e| e.to_lowercase());
    assert_eq!(by_email, sorted);
    let (_, _, body) = list(&instance, "order_by=commits&sort=desc");
    let counts: Vec<u64> = body.as_array().unwrap().iter().map(|c| c["commits"].as_u64().unwrap()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    assert_eq!(counts[0], 3);
    let (_, _, body) = list(&instance, "order_by=name&sort=asc");
    let names: Vec<String> =
        body.as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_lowercase()).collect();
    assert!(names.windows(2).all(|w| w[0] <= w[1]), "{names:?}");
}

#[test]
fn pages_carry_offset_headers_and_absolute_links() {
    let instance = common::open_instance(json!({"external_url": "http://forge.test:9000/"}));
    instance.fixture_repos();
    let (status, headers, body) = list(&instance, "per_page=2&page=2&order_by=email");
    assert_eq!(status, 200);
    assert_eq!(body.as_array().unwrap().len(), 2);
    let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).unwrap_or_default();
    assert_eq!(
        (
            header("X-Page"),
            header("X-Per-Page"),
            header("X-Next-Page"),
            header("X-Prev-Page"),
            header("X-Total"),
            header("X-Total-Pages")
        ),
        ("2".into(), "2".into(), "3".into(), "1".into(), "5".into(), "3".into())
    );
    let link = header("Link");
    assert!(link.contains("<http://forge.test:9000/api/v4/projects/fx%2Fwork/repository/contributors?order_by=email&page=3&per_page=2>; rel=\"next\""), "{link}");
    assert!(link.contains("rel=\"prev\"") && link.contains("rel=\"first\"") && link.contains("rel=\"last\""));
    let (_, headers, _) = list(&instance, "per_page=2&page=3");
    assert!(headers.iter().any(|(n, v)| n == "X-Next-Page" && v.is_empty()));
}

#[test]
fn bad_input_is_4xx() {
    let instance = common::open_instance(json!({}));
    instance.fixture_repos();
    for (query, status) in [
        ("ref=nope", 404),
        ("ref=main..feature", 400),
        ("ref=-v", 400),
        ("order_by=size", 400),
        ("sort=up", 400),
        ("per_page=0", 400),
        ("per_page=-1", 400),
        ("page=abc", 400),
    ] {
        assert_eq!(list(&instance, query).0, status, "{query}");
    }
    let (status, headers, body) = list(&instance, "per_page=10000");
    assert_eq!((status, body.as_array().unwrap().len()), (200, 5));
    assert!(headers.iter().any(|(n, v)| n == "X-Per-Page" && v == "100"));
    let (status, _, body) = instance.request("GET", "/api/v4/projects/fx%2Fempty/repository/contributors", &[], b"");
    assert_eq!((status, body), (200, b"[]".to_vec()));
}

/// A history long enough to be read on several threads (with a commit-graph), with authors whose
/// names change, blank names, equal commit dates and merges: counts, names and the default
/// order are git log's, with and without the commit-graph.
#[test]
fn a_long_history_agrees_with_git_log_with_and_without_a_commit_graph() {
    let mut script = String::new();
    let authors = ["ann", "bo", "cy", "di", "ed", "fay", "gus"];
    for i in 1..=3000u32 {
        let who = authors[(i as usize * 7 + i as usize / 13) % authors.len()];
        // Names change over time; every 11th commit has a blank name.
        let name = if i % 11 == 0 { " ".to_string() } else { format!("{who} v{}", i / 500) };
        // Runs of equal dates, so the log's order among them is git's first-in, first-out.
        let time = 1_600_000_000 + i / 4 * 60;
        script.push_str(&format!(
            "commit refs/heads/main\nmark :{i}\nauthor {name} <{who}@example.com> {time} +0000\ncommitter C <c@example.com> {time} +0000\ndata <<EOF\ncommit {i}\nEOF\n"
        ));
        if i > 1 {
            script.push_str(&format!("from :{}\n", i - 1));
        }
        if i % 97 == 0 && i > 10 {
            script.push_str(&format!("merge :{}\n", i - 5));
        }
        script.push('\n');
    }
    let dir = tempfile_dir("contributors-long");
    let (plain, graph) = common::imported_with_and_without_graph(&dir, &script);

    for repo in [&plain, &graph] {
        let log = String::from_utf8(git(repo, &["log", "--no-merges", "--format=%ae%x00%an", "main"])).unwrap();
        // email -> (commits, first non-blank name, first position)
        let mut want: BTreeMap<String, (usize, String, usize)> = BTreeMap::new();
        for (position, line) in log.lines().enumerate() {
            let (email, name) = line.split_once('\0').unwrap();
            let entry = want.entry(email.to_string()).or_insert((0, String::new(), position));
            entry.0 += 1;
            if entry.1.is_empty() {
                entry.1 = name.trim().to_string();
            }
        }
        let opened = forgecore::git::open(repo).unwrap();
        let tip = forgecore::git::resolve_commit(&opened, "main").unwrap();
        let ours = forgecore::git::contributors::collect(&opened, tip).unwrap();
        let got: BTreeMap<String, (usize, String, usize)> =
            ours.iter().map(|c| (c.email.clone(), (c.commits, c.name.clone(), c.newest))).collect();
        let got_counts: BTreeMap<&String, (usize, &String)> = got.iter().map(|(e, v)| (e, (v.0, &v.1))).collect();
        let want_counts: BTreeMap<&String, (usize, &String)> = want.iter().map(|(e, v)| (e, (v.0, &v.1))).collect();
        assert_eq!(got_counts, want_counts, "{}", repo.display());
        let order = |map: &BTreeMap<String, (usize, String, usize)>| {
            let mut emails: Vec<(&String, usize)> = map.iter().map(|(e, v)| (e, v.2)).collect();
            emails.sort_by_key(|(_, position)| *position);
            emails.into_iter().map(|(e, _)| e.clone()).collect::<Vec<_>>()
        };
        assert_eq!(order(&got), order(&want), "{}", repo.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_packed_history_without_a_commit_graph_read_ahead_counts_the_same() {
    // Long enough (2,000 commits, in one pack, no commit-graph) for the commits to be read
    // ahead on a second core (src/git/prefetch.rs); a merge and a side branch so that the walk
    // is not one line.
    let instance = common::open_instance(json!({}));
    let repo = instance.root_dir().join("long.git");
    git(instance.root_dir(), &["init", "-q", "--bare", "-b", "main", repo.to_str().unwrap()]);
    let mut stream = String::new();
    for i in 1..=2000u32 {
        let who = ["Ann", "Ben", "Cat", "Dan", "Eve"][i as usize % 5];
        let when = 1_700_000_000 + i * 60;
        let (content, message) = (format!("line {i}\n"), format!("commit {i}\n"));
        // old.txt: added by the first commit, one line changed half-way, so that its blame and
        // last commit walk most of the history.
        let old = match i {
            1 => "M 100644 inline old.txt\ndata 12\none\ntwo\nsix\n".to_string(),
            1000 => "M 100644 inline old.txt\ndata 14\none\nthree\nsix\n".to_string(),
            _ => String::new(),
        };
        stream.push_str(&format!(
            "commit refs/heads/{branch}\nmark :{i}\nauthor {who} <{lower}@example.com> {when} +0000\n\
             committer C <c@example.com> {when} +0000\ndata {mlen}\n{message}{from}M 100644 inline f{file}.txt\n\
             data {len}\n{content}{old}\n",
            mlen = message.len(),
            branch = if i % 97 == 0 { "side" } else { "main" },
            lower = who.to_lowercase(),
            from = if i == 1 { String::new() } else { format!("from :{}\n", i - 1) },
            file = i % 17,
            len = content.len(),
        ));
    }
    // A branch forked from the fifth commit: its merge base with main walks all of main.
    stream.push_str(
        "commit refs/heads/fork\nauthor Ann <ann@example.com> 1800000000 +0000\n\
         committer C <c@example.com> 1800000000 +0000\ndata 5\nfork\nfrom :5\n\
         M 100644 inline fork.txt\ndata 5\nfork\n\n",
    );
    common::fast_import(&repo, &stream);
    git(&repo, &["repack", "-adq"]);
    assert!(!repo.join("objects/info/commit-graph").exists() && !repo.join("objects/info/commit-graphs").exists());
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    instance.admin_ok(json!({"command": "project_add", "path": "fx/long", "repo": repo, "visibility": "public"}));
    for rev in ["main", "side"] {
        let target = format!("/api/v4/projects/fx%2Flong/repository/contributors?ref={rev}&per_page=100");
        let (status, _, body) = instance.request("GET", &target, &[], b"");
        assert_eq!(status, 200);
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(as_map(&body), expected(&repo, rev), "{rev}");
    }
    // So does a merge base (src/git/merge_base.rs), from both its tips.
    for refs in ["refs[]=main&refs[]=fork", "refs[]=fork&refs[]=main", "refs[]=side&refs[]=fork"] {
        let target = format!("/api/v4/projects/fx%2Flong/repository/merge_base?{refs}");
        let (status, base) = instance.request_json("GET", &target, &[], b"");
        assert_eq!(status, 200, "{base}");
        let names: Vec<&str> = refs.split('&').map(|r| r.trim_start_matches("refs[]=")).collect();
        let want = String::from_utf8(git(&repo, &[&["merge-base"][..], &names].concat())).unwrap();
        assert_eq!(base["id"], json!(want.trim()), "{refs}");
    }
    // The path walks read ahead too (src/git/log.rs): the commits list of a path, and a file's
    // last commit.
    for path in ["f3.txt", "f16.txt"] {
        let target = format!("/api/v4/projects/fx%2Flong/repository/commits?path={path}&per_page=100&page=2");
        let (status, list) = instance.request_json("GET", &target, &[], b"");
        assert_eq!(status, 200, "{list}");
        let ids: Vec<&str> = list.as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
        let log =
            String::from_utf8(git(&repo, &["log", "--format=%H", "--skip=100", "-100", "main", "--", path])).unwrap();
        assert_eq!(ids, log.lines().collect::<Vec<_>>(), "{path}");
        assert!(ids.len() > 10, "{path}: a second page of a path changed every 17th commit");
    }
    // Its blame and last commit walk back 1,000 and 2,000 commits, read ahead, with trees read
    // from chains of deltas (src/git/packs.rs): fast-import made each version a delta of the one
    // before, and the repack kept them.
    let (status, file) =
        instance.request_json("GET", "/api/v4/projects/fx%2Flong/repository/files/old.txt?ref=main", &[], b"");
    assert_eq!(status, 200, "{file}");
    let last = String::from_utf8(git(&repo, &["log", "-1", "--format=%H", "main", "--", "old.txt"])).unwrap();
    assert_eq!(file["last_commit_id"], json!(last.trim()));
    let (status, groups) =
        instance.request_json("GET", "/api/v4/projects/fx%2Flong/repository/files/old.txt/blame?ref=main", &[], b"");
    assert_eq!(status, 200, "{groups}");
    let mut got = Vec::new();
    for group in groups.as_array().unwrap() {
        for _ in group["lines"].as_array().unwrap() {
            got.push(group["commit"]["id"].as_str().unwrap().to_string());
        }
    }
    let want: Vec<String> =
        common::porcelain_lines(&repo, "main", "old.txt").into_iter().map(|(commit, _)| commit).collect();
    assert_eq!(got.len(), 3);
    assert_eq!(got, want);
    assert_ne!(got[0], got[1], "two commits");
}

#[test]
fn trees_read_from_packs_keeping_their_delta_bases_are_the_objects_gix_reads() {
    // src/git/packs.rs, against gix, for every object of a fast-import pack (each version of a
    // tree a delta of the one before), in the order a walk meets them and in reverse.
    let dir = tempfile_dir("packs");
    let repo = dir.join("chains.git");
    git(&dir, &["init", "-q", "--bare", "-b", "main", repo.to_str().unwrap()]);
    let mut stream = String::new();
    for i in 1..=300u32 {
        let content = format!("version {i}\n");
        stream.push_str(&format!(
            "commit refs/heads/main\nmark :{i}\ncommitter C <c@example.com> {when} +0000\ndata 2\nc\n{from}\
             M 100644 inline d{d}/f{f}.txt\ndata {len}\n{content}\n",
            when = 1_700_000_000 + i,
            from = if i == 1 { String::new() } else { format!("from :{}\n", i - 1) },
            d = i % 3,
            f = i % 11,
            len = content.len(),
        ));
    }
    common::fast_import(&repo, &stream);
    git(&repo, &["repack", "-adq"]);
    let listed = String::from_utf8(git(&repo, &["log", "--format=%T", "main"])).unwrap();
    let all =
        String::from_utf8(git(&repo, &["cat-file", "--batch-all-objects", "--batch-check=%(objectname)"])).unwrap();
    let mut ids: Vec<gix::ObjectId> = listed.lines().chain(all.lines()).map(|l| l.parse().unwrap()).collect();
    let bases = git(&repo, &["cat-file", "--batch-all-objects", "--batch-check=%(deltabase)"]);
    let deltas = String::from_utf8(bases).unwrap().lines().filter(|l| l.bytes().any(|b| b != b'0')).count();
    assert!(deltas > 300, "chains of deltas to read: {deltas}");
    let gix_repo = gix::open(&repo).unwrap();
    for order in 0..2 {
        if order == 1 {
            ids.reverse();
        }
        let mut packs = forgecore::git::packs::Packs::open(&repo.join("objects"), gix::hash::Kind::Sha1);
        let mut buf = Vec::new();
        for id in &ids {
            let kind = packs.find(id, &mut buf).expect("every object is in the pack");
            let object = gix_repo.find_object(*id).unwrap();
            assert_eq!((kind, buf.as_slice()), (object.kind, object.data.as_slice()), "{id}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
