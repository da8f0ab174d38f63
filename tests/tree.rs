//! B1, `GET /projects/:id/repository/tree`, through the HTTP door, compared with the git CLI on
//! the fixture repositories (tests/fixtures/repo.sh): listings, order, fields, errors, offset
//! and keyset pagination, `pagination=none`, and visibility.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{git, git_text, TestInstance};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const HOST: &str = "forge.test:8080";
const BASE: &str = "http://forge.test:8080";

struct Fx {
    instance: TestInstance,
    /// The directory repo.sh built: `work`, `bare.git`, `empty.git`.
    repos: PathBuf,
}

/// An instance with the fixture repositories as public projects `fx/work`, `fx/bare`,
/// `fx/empty`, and the admin `root`.
fn fixture() -> Fx {
    let instance = common::open_instance(json!({}));
    instance.user_with_token("root", true);
    let repos = instance.root_dir().join("repos");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repo.sh");
    let status = Command::new("bash").arg(&script).arg(&repos).status().expect("run repo.sh");
    assert!(status.success(), "repo.sh failed");
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    for (name, dir) in [("work", "work"), ("bare", "bare.git"), ("empty", "empty.git")] {
        let repo = repos.join(dir);
        instance.admin_ok(
            json!({"command": "project_add", "path": format!("fx/{name}"), "repo": repo, "visibility": "public"}),
        );
    }
    Fx { instance, repos }
}

fn enc(text: &str) -> String {
    utf8_percent_encode(text, NON_ALPHANUMERIC).to_string()
}

fn tree_url(project: &str, query: &str) -> String {
    format!("/api/v4/projects/{}/repository/tree?{query}", enc(project))
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn list(&self) -> Vec<Value> {
        assert_eq!(self.status, 200, "{}", self.body);
        self.body.as_array().unwrap_or_else(|| panic!("not an array: {}", self.body)).clone()
    }

    /// The `rel="next"` URL of `Link`, if any.
    fn next_link(&self) -> Option<String> {
        let link = self.header("Link")?;
        link.split(", ").find_map(|part| {
            let (url, rel) = part.split_once("; ")?;
            (rel == "rel=\"next\"").then(|| url.trim_start_matches('<').trim_end_matches('>').to_string())
        })
    }
}

fn get_as(instance: &TestInstance, target: &str, token: Option<&str>) -> Answer {
    let mut headers = vec![("Host", HOST)];
    if let Some(token) = token {
        headers.push(("PRIVATE-TOKEN", token));
    }
    let (status, headers, body) = instance.request("GET", target, &headers, b"");
    let body = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("{target}: {status} body is not JSON ({e}): {}", String::from_utf8_lossy(&body)));
    assert!(status < 500, "{target}: {status} {body}");
    Answer { status, headers, body }
}

fn get(fx: &Fx, target: &str) -> Answer {
    get_as(&fx.instance, target, None)
}

/// Follows an absolute link: it must start with the client's base URL.
fn follow(fx: &Fx, url: &str) -> Answer {
    let target = url.strip_prefix(BASE).unwrap_or_else(|| panic!("link is not absolute on {BASE}: {url}"));
    assert!(target.starts_with("/api/v4/projects/"), "{url}");
    get(fx, target)
}

/// The decoded query pairs of a URL.
fn query_of(url: &str) -> Vec<(String, String)> {
    let query = url.split_once('?').map(|(_, q)| q).unwrap_or("");
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (n, v) = pair.split_once('=').unwrap_or((pair, ""));
            let decode = |s: &str| {
                percent_encoding::percent_decode_str(&s.replace('+', " ")).decode_utf8().unwrap().into_owned()
            };
            (decode(n), decode(v))
        })
        .collect()
}

fn git_ok(dir: &Path, args: &[&str]) -> bool {
    Command::new("git").arg("-C").arg(dir).args(args).output().map(|o| o.status.success()).unwrap_or(false)
}

fn rev_parse(dir: &Path, rev: &str) -> String {
    git_text(dir, &["rev-parse", rev])
}

/// `git ls-tree -z <args>` as GitLab tree objects, in git's order (paths lossily decoded).
fn ls_tree(dir: &Path, args: &[&str]) -> Vec<Value> {
    let mut full = vec!["ls-tree", "-z"];
    full.extend_from_slice(args);
    git(dir, &full)
        .split(|b| *b == 0)
        .filter(|record| !record.is_empty())
        .map(|record| {
            let tab = record.iter().position(|b| *b == b'\t').expect("a tab");
            let meta = std::str::from_utf8(&record[..tab]).unwrap();
            let mut fields = meta.split(' ');
            let (mode, kind, id) = (fields.next().unwrap(), fields.next().unwrap(), fields.next().unwrap());
            let path = &record[tab + 1..];
            let name = path.rsplit(|b| *b == b'/').next().unwrap();
            json!({
                "id": id,
                "name": String::from_utf8_lossy(name),
                "type": kind,
                "path": String::from_utf8_lossy(path),
                "mode": mode,
            })
        })
        .collect()
}

/// GitLab's order: trees, then blobs, then submodules, each in the given (git) order.
fn gitlab_order(entries: Vec<Value>) -> Vec<Value> {
    let mut out = Vec::new();
    for kind in ["tree", "blob", "commit"] {
        out.extend(entries.iter().filter(|e| e["type"] == kind).cloned());
    }
    assert_eq!(out.len(), entries.len(), "an entry of another type");
    out
}

/// What the listing must be, from the git CLI: `rev` (None: HEAD), `path` (None: root).
fn expected(dir: &Path, rev: Option<&str>, path: Option<&str>, recursive: bool) -> Vec<Value> {
    let rev = rev.unwrap_or("HEAD");
    let base = path.map(|p| p.trim_end_matches('/').to_string()).filter(|p| !p.is_empty());
    let entries = if recursive {
        let all = ls_tree(dir, &["-r", "-t", rev]);
        match &base {
            None => all,
            Some(base) => {
                let prefix = format!("{base}/");
                all.into_iter().filter(|e| e["path"].as_str().unwrap().starts_with(&prefix)).collect()
            }
        }
    } else {
        match &base {
            None => ls_tree(dir, &[rev]),
            Some(base) => ls_tree(dir, &[rev, &format!("{base}/")]),
        }
    };
    gitlab_order(entries)
}

fn query(rev: Option<&str>, path: Option<&str>, recursive: bool, extra: &str) -> String {
    let mut parts = vec![format!("recursive={}", if recursive { "True" } else { "False" })];
    if let Some(rev) = rev {
        parts.push(format!("ref={}", enc(rev)));
    }
    if let Some(path) = path {
        parts.push(format!("path={}", enc(path)));
    }
    if !extra.is_empty() {
        parts.push(extra.to_string());
    }
    parts.join("&")
}

#[test]
fn listings_match_git_ls_tree_at_every_kind_of_ref_and_path() {
    let fx = fixture();
    let work = fx.repos.join("work");
    let bare = fx.repos.join("bare.git");
    let main_sha = rev_parse(&work, "main");
    let tag_sha = rev_parse(&work, "v1.0.0^{commit}");
    let short = &tag_sha[..8];
    let feature_sha = rev_parse(&work, "feature");
    let refs: Vec<Option<&str>> = vec![
        None,
        Some("main"),
        Some("v1.0.0"),
        Some("light"),
        Some(&main_sha),
        Some(short),
        Some("orphan"),
        Some("feature"),
        Some(&feature_sha),
    ];
    let paths = [
        None,
        Some(""),
        Some("a"),
        Some("a/b/"),
        Some("dir with space"),
        Some("docs"),
        Some("ünïcode"),
        Some("vendor"),
    ];
    let mut compared = 0;
    for (project, dir) in [("fx/work", &work), ("fx/bare", &bare)] {
        for rev in &refs {
            for path in paths {
                let exists = match path.map(|p| p.trim_end_matches('/')).filter(|p| !p.is_empty()) {
                    None => true,
                    Some(p) => {
                        let spec = format!("{}:{p}", rev.unwrap_or("HEAD"));
                        git_ok(dir, &["cat-file", "-e", &spec]) && git(dir, &["cat-file", "-t", &spec]) == b"tree\n"
                    }
                };
                for recursive in [false, true] {
                    let extra = if recursive { "pagination=none" } else { "per_page=100" };
                    let answer = get(&fx, &tree_url(project, &query(*rev, path, recursive, extra)));
                    if !exists {
                        assert_eq!(
                            (answer.status, &answer.body),
                            (404, &json!({"message": "404 invalid revision or path Not Found"})),
                            "{project} {rev:?} {path:?}"
                        );
                        continue;
                    }
                    let want = expected(dir, *rev, path, recursive);
                    assert!(!want.is_empty());
                    assert_eq!(answer.list(), want, "{project} {rev:?} {path:?} recursive={recursive}");
                    compared += 1;
                    if recursive {
                        // The default (legacy) pagination gives the same entries.
                        let legacy = get(&fx, &tree_url(project, &query(*rev, path, recursive, "per_page=100")));
                        assert_eq!(legacy.list(), want);
                    }
                }
            }
        }
    }
    assert!(compared > 100, "{compared}");
}

#[test]
fn entries_carry_ids_modes_types_and_lossily_decoded_names() {
    let fx = fixture();
    let work = fx.repos.join("work");
    let list = get(&fx, &tree_url("fx/work", "per_page=100")).list();
    let find = |path: &str| list.iter().find(|e| e["path"] == path).unwrap_or_else(|| panic!("{path} missing")).clone();
    let blob_id =
        |path: &str| String::from_utf8(git(&work, &["rev-parse", &format!("main:{path}")])).unwrap().trim().to_string();
    assert_eq!(find("a"), json!({"id": blob_id("a"), "name": "a", "type": "tree", "path": "a", "mode": "040000"}));
    assert_eq!(find("script.sh")["mode"], "100755");
    assert_eq!(
        find("link"),
        json!({"id": blob_id("link"), "name": "link", "type": "blob", "path": "link", "mode": "120000"})
    );
    assert_eq!(find("README.md")["mode"], "100644");
    assert_eq!(find("dir with space")["type"], "tree");
    let latin = find("latin\u{FFFD}.txt");
    assert_eq!((latin["name"].clone(), latin["type"].clone()), (json!("latin\u{FFFD}.txt"), json!("blob")));
    // The submodule at the root of `vendor`.
    let vendor = get(&fx, &tree_url("fx/work", "path=vendor")).list();
    assert_eq!(
        vendor,
        vec![
            json!({"id": "0123456789abcdef0123456789abcdef01234567", "name": "lib", "type": "commit", "path": "vendor/lib", "mode": "160000"})
        ]
    );
    // Paths are from the repository root even under `path`; names are the last component.
    let deep = get(&fx, &tree_url("fx/work", "path=a/b/c")).list();
    assert_eq!(
        deep,
        vec![
            json!({"id": blob_id("a/b/c/deep.txt"), "name": "deep.txt", "type": "blob", "path": "a/b/c/deep.txt", "mode": "100644"})
        ]
    );
    let answer = get(&fx, &tree_url("fx/work", ""));
    assert_eq!(answer.header("Content-Type"), Some("application/json"));
}

#[test]
fn trees_come_first_at_every_depth_then_blobs_then_submodules() {
    let fx = fixture();
    let list = get(&fx, &tree_url("fx/work", "recursive=true&pagination=none")).list();
    let kinds: Vec<&str> = list.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let rank = |k: &str| ["tree", "blob", "commit"].iter().position(|x| *x == k).unwrap();
    assert!(kinds.windows(2).all(|w| rank(w[0]) <= rank(w[1])), "{kinds:?}");
    let paths: Vec<&str> = list.iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert_eq!(&paths[..7], &["a", "a/b", "a/b/c", "dir with space", "docs", "vendor", "ünïcode"]);
    assert_eq!(paths.last(), Some(&"vendor/lib"));
    // Non-recursive: the same rule within one directory.
    let top: Vec<String> =
        get(&fx, &tree_url("fx/work", "")).list().iter().map(|e| e["type"].as_str().unwrap().to_string()).collect();
    let first_blob = top.iter().position(|k| k == "blob").unwrap();
    assert!(top[..first_blob].iter().all(|k| k == "tree") && top[first_blob..].iter().all(|k| k == "blob"), "{top:?}");
}

#[test]
fn missing_refs_paths_and_empty_repositories_are_gitlabs_404s() {
    let fx = fixture();
    let tree_not_found = json!({"message": "404 Tree Not Found"});
    let bad_path = json!({"message": "404 invalid revision or path Not Found"});
    for query in ["", "recursive=true", "ref=main", "recursive=true&pagination=none", "pagination=keyset"] {
        let answer = get(&fx, &tree_url("fx/empty", query));
        assert_eq!((answer.status, answer.body), (404, tree_not_found.clone()), "empty repo {query}");
    }
    for rev in ["nope", "HEAD:a", ""] {
        let answer = get(&fx, &tree_url("fx/work", &format!("ref={}", enc(rev))));
        assert_eq!((answer.status, answer.body), (404, tree_not_found.clone()), "ref {rev:?}");
    }
    // What cannot name a revision at all (a range, an option, a NUL) is a bad parameter.
    for rev in ["main..feature", "main...feature", "..main", "-v", "--all", "main\0", "refs/heads/../../x"] {
        let answer = get(&fx, &tree_url("fx/work", &format!("ref={}", enc(rev))));
        assert_eq!((answer.status, answer.body), (400, json!({"error": "ref is invalid"})), "ref {rev:?}");
    }
    let answer = get(&fx, &tree_url("fx/work", "ref=main%00"));
    assert_eq!((answer.status, answer.body), (400, json!({"error": "ref is invalid"})));
    for path in [
        "nope",
        "README.md",
        "a/b/c/deep.txt",
        "vendor/lib",
        "link",
        "../..",
        "a/../a",
        "./a",
        "a//b",
        "/a",
        "a/b/c/d",
        "..",
    ] {
        for recursive in [false, true] {
            let answer = get(&fx, &tree_url("fx/work", &format!("path={}&recursive={recursive}", enc(path))));
            assert_eq!((answer.status, answer.body), (404, bad_path.clone()), "path {path:?}");
        }
    }
    // An unknown ref wins over a bad path, as GitLab checks the commit first.
    let answer = get(&fx, &tree_url("fx/work", "ref=nope&path=nope"));
    assert_eq!(answer.body, tree_not_found);
    // `.` and `/` name the root.
    let root = get(&fx, &tree_url("fx/work", "per_page=100")).list();
    for path in [".", "/", ""] {
        assert_eq!(
            get(&fx, &tree_url("fx/work", &format!("per_page=100&path={}", enc(path)))).list(),
            root,
            "{path:?}"
        );
    }
    let missing_project = get(&fx, &tree_url("fx/nothing", ""));
    assert_eq!((missing_project.status, missing_project.body), (404, json!({"message": "404 Project Not Found"})));
}

#[test]
fn bad_parameters_are_400s_with_grape_bodies() {
    let fx = fixture();
    let cases: Vec<(&str, Value)> = vec![
        ("per_page=0", json!({"error": "per_page does not have a valid value"})),
        ("per_page=-1", json!({"error": "per_page does not have a valid value"})),
        ("per_page=ten", json!({"error": "per_page is invalid"})),
        ("page=x", json!({"error": "page is invalid"})),
        ("recursive=maybe", json!({"error": "recursive is invalid"})),
        ("pagination=offset", json!({"error": "pagination does not have a valid value"})),
        ("pagination=Keyset", json!({"error": "pagination does not have a valid value"})),
        ("pagination=none", json!({"error": "pagination cannot be \"none\" unless \"recursive\" is true"})),
        (
            "pagination=none&recursive=False",
            json!({"error": "pagination cannot be \"none\" unless \"recursive\" is true"}),
        ),
        ("pagination=keyset&page_token=garbage", json!({"error": "page_token is invalid"})),
        ("pagination=keyset&page_token=t.%21%21", json!({"error": "page_token is invalid"})),
        ("pagination=keyset&page_token=x.YQ", json!({"error": "page_token is invalid"})),
        ("pagination=keyset&page_token=t.", json!({"error": "page_token is invalid"})),
        ("pagination=keyset&page_token=b.YS8vYg", json!({"error": "page_token is invalid"})),
        ("pagination=keyset&page_token=b.AA", json!({"error": "page_token is invalid"})),
        (
            "pagination=keyset&page_token=0000000000000000000000000000000000000000",
            json!({"error": "page_token is invalid"}),
        ),
        (
            "pagination=keyset&page_token=%00%FF",
            json!({"message": "400 Bad request - a parameter value is not valid UTF-8"}),
        ),
        // A token from another directory's listing.
        ("pagination=keyset&path=docs&page_token=b.UkVBRE1FLm1k", json!({"error": "page_token is invalid"})),
    ];
    for (query, body) in cases {
        let answer = get(&fx, &tree_url("fx/work", query));
        assert_eq!((answer.status, answer.body), (400, body), "{query}");
    }
    // Larger pages clamp to 100 in both modes.
    let answer = get(&fx, &tree_url("fx/work", "recursive=true&per_page=10000"));
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("X-Per-Page"), Some("100"));
    let answer = get(&fx, &tree_url("fx/work", "recursive=true&per_page=10000&pagination=keyset"));
    assert_eq!(answer.list().len(), expected(&fx.repos.join("work"), None, None, true).len());
    // `page_token` means nothing outside keyset pagination.
    assert_eq!(get(&fx, &tree_url("fx/work", "page_token=garbage")).status, 200);
}

fn collect_offset(fx: &Fx, first: &str) -> (Vec<Value>, usize) {
    let mut answer = get(fx, first);
    let mut all = answer.list();
    let mut pages = 1;
    while let Some(next) = answer.next_link() {
        answer = follow(fx, &next);
        all.extend(answer.list());
        pages += 1;
        assert!(pages < 1000);
    }
    (all, pages)
}

#[test]
fn offset_pagination_sends_gitlab_headers_and_absolute_links_with_every_parameter() {
    let fx = fixture();
    let work = fx.repos.join("work");
    let want = expected(&work, Some("main"), None, true);
    let total = want.len();
    let answer = get(&fx, &tree_url("fx/work", "recursive=True&ref=main&per_page=7"));
    assert_eq!(answer.list(), want[..7].to_vec());
    let pages = total.div_ceil(7);
    assert_eq!(answer.header("X-Page"), Some("1"));
    assert_eq!(answer.header("X-Per-Page"), Some("7"));
    assert_eq!(answer.header("X-Next-Page"), Some("2"));
    assert_eq!(answer.header("X-Prev-Page"), Some(""));
    assert_eq!(answer.header("X-Total"), Some(total.to_string().as_str()));
    assert_eq!(answer.header("X-Total-Pages"), Some(pages.to_string().as_str()));
    let link = answer.header("Link").unwrap();
    for rel in ["next", "first", "last"] {
        assert!(link.contains(&format!("rel=\"{rel}\"")), "{link}");
    }
    let next = answer.next_link().unwrap();
    assert!(next.starts_with(&format!("{BASE}/api/v4/projects/fx%2Fwork/repository/tree?")), "{next}");
    let q = query_of(&next);
    for (name, value) in
        [("recursive", "True"), ("ref", "main"), ("per_page", "7"), ("page", "2"), ("pagination", "legacy")]
    {
        assert!(q.contains(&(name.to_string(), value.to_string())), "{name} in {next}");
    }
    let (all, followed) = collect_offset(&fx, &tree_url("fx/work", "recursive=True&ref=main&per_page=7"));
    assert_eq!(all, want, "following next links gives every entry once, in order");
    assert_eq!(followed, pages);

    // The last page, a middle page, a page past the end.
    let last = get(&fx, &tree_url("fx/work", &format!("recursive=True&ref=main&per_page=7&page={pages}")));
    assert_eq!(last.list(), want[(pages - 1) * 7..].to_vec());
    assert_eq!(
        (last.header("X-Next-Page"), last.header("X-Prev-Page")),
        (Some(""), Some((pages - 1).to_string().as_str()))
    );
    assert!(last.next_link().is_none());
    let middle = get(&fx, &tree_url("fx/work", "recursive=True&ref=main&per_page=7&page=2"));
    assert_eq!(middle.list(), want[7..14].to_vec());
    let past = get(&fx, &tree_url("fx/work", "recursive=True&ref=main&per_page=7&page=99"));
    assert_eq!((past.list(), past.header("X-Total")), (vec![], Some(total.to_string().as_str())));

    // Under a path, with spaces and slashes in the parameters, one entry per page.
    let want = expected(&work, Some("v1.0.0"), Some("dir with space"), true);
    let (all, _) =
        collect_offset(&fx, &tree_url("fx/work", "recursive=true&ref=v1.0.0&path=dir+with+space&per_page=1"));
    assert_eq!(all, want);
    let want = expected(&work, None, Some("a"), true);
    let first = get(&fx, &tree_url("fx/work", "path=a%2F&recursive=1&per_page=1"));
    let q = query_of(&first.next_link().unwrap());
    assert!(q.contains(&("path".into(), "a/".into())) && q.contains(&("recursive".into(), "1".into())), "{q:?}");
    let (all, _) = collect_offset(&fx, &tree_url("fx/work", "path=a%2F&recursive=1&per_page=1"));
    assert_eq!(all, want);
    // Defaults: 20 per page, the default branch, not recursive.
    let answer = get(&fx, &tree_url("fx/work", ""));
    assert_eq!(answer.header("X-Per-Page"), Some("20"));
    assert_eq!(answer.list(), expected(&work, None, None, false));
    let q = query_of(
        answer.header("Link").unwrap().split(", ").next().unwrap().trim_start_matches('<').split('>').next().unwrap(),
    );
    assert!(q.contains(&("recursive".into(), "false".into())), "{q:?}");
}

/// Follows keyset links from `first`: every entry and the number of pages. Checks each page's
/// size, that no offset headers are sent, and that every link repeats `must_repeat`.
fn collect_keyset(fx: &Fx, first: &str, per_page: usize, must_repeat: &[(&str, &str)]) -> (Vec<Value>, usize) {
    let mut answer = get(fx, first);
    let mut all = Vec::new();
    let mut pages = 0;
    loop {
        let page = answer.list();
        pages += 1;
        assert!(pages < 1000);
        for header in ["X-Total", "X-Page", "X-Total-Pages", "X-Next-Page"] {
            assert!(answer.header(header).is_none(), "{header} sent with keyset pagination");
        }
        let next = answer.next_link();
        if next.is_some() {
            assert_eq!(page.len(), per_page, "only full pages have a next link");
        } else {
            assert!(page.len() <= per_page);
        }
        all.extend(page);
        let Some(next) = next else { break };
        assert!(next.starts_with(&format!("{BASE}/api/v4/projects/")), "{next}");
        let q = query_of(&next);
        for (name, value) in must_repeat {
            assert!(q.contains(&(name.to_string(), value.to_string())), "{name}={value} missing in {next}");
        }
        let token = q.iter().find(|(n, _)| n == "page_token").map(|(_, v)| v.clone()).expect("page_token in the link");
        assert!(token.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)), "URL-safe token: {token}");
        assert!(!next.contains(',') && !next.contains(';'), "{next}");
        answer = follow(fx, &next);
    }
    (all, pages)
}

#[test]
fn keyset_pagination_follows_links_to_every_entry_exactly_once() {
    let fx = fixture();
    let work = fx.repos.join("work");
    for (rev, path, recursive) in [
        (None, None, true),
        (None, None, false),
        (Some("main"), Some("docs"), false),
        (Some("v1.0.0"), Some("a"), true),
        (Some("orphan"), None, true),
    ] {
        let want = expected(&work, rev, path, recursive);
        for per_page in [1, 2, 3, 5, want.len(), 100] {
            let q = query(rev, path, recursive, &format!("pagination=keyset&per_page={per_page}"));
            let mut repeat: Vec<(&str, &str)> =
                vec![("pagination", "keyset"), ("recursive", if recursive { "True" } else { "False" })];
            if let Some(rev) = rev {
                repeat.push(("ref", rev));
            }
            if let Some(path) = path {
                repeat.push(("path", path));
            }
            let (all, pages) = collect_keyset(&fx, &tree_url("fx/work", &q), per_page, &repeat);
            assert_eq!(all, want, "{q}");
            assert_eq!(pages, want.len().div_ceil(per_page).max(1), "{q}: the last page has no link, even when full");
        }
    }
}

/// A repository whose entries share ids: identical files and identical directories.
fn repeated_ids_repo(root: &Path) -> PathBuf {
    let dir = root.join("dups");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    for sub in ["", "x/", "y/", "x/inner/", "y/inner/", "z/"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for name in ["same-1.txt", "same-2.txt", "same-3.txt"] {
            std::fs::write(dir.join(format!("{sub}{name}")), "identical\n").unwrap();
        }
    }
    std::fs::write(dir.join("z/other.txt"), "other\n").unwrap();
    git(&dir, &["add", "-A"]);
    git(&dir, &["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "dups"]);
    dir
}

#[test]
fn keyset_pagination_is_exact_when_ids_repeat_and_takes_raw_ids() {
    let fx = fixture();
    let dir = repeated_ids_repo(fx.instance.root_dir());
    fx.instance.admin_ok(json!({"command": "project_add", "path": "fx/dups", "repo": dir, "visibility": "public"}));
    for recursive in [true, false] {
        let want = expected(&dir, None, None, recursive);
        let ids: HashSet<&str> = want.iter().map(|e| e["id"].as_str().unwrap()).collect();
        assert!(ids.len() < want.len(), "the repository repeats ids");
        for per_page in 1..=4 {
            let q = query(None, None, recursive, &format!("pagination=keyset&per_page={per_page}"));
            let (all, _) = collect_keyset(&fx, &tree_url("fx/dups", &q), per_page, &[("pagination", "keyset")]);
            assert_eq!(all, want, "{q}");
        }
        // A raw id: the page starts after the first entry with that id.
        for (index, entry) in want.iter().enumerate() {
            let id = entry["id"].as_str().unwrap();
            let first = want.iter().position(|e| e["id"] == id).unwrap();
            if first != index {
                continue;
            }
            let q = query(None, None, recursive, &format!("pagination=keyset&per_page=3&page_token={id}"));
            let page = get(&fx, &tree_url("fx/dups", &q)).list();
            let end = (first + 4).min(want.len());
            assert_eq!(page, want[first + 1..end].to_vec(), "after {id}");
        }
    }
}

#[test]
fn raw_entry_ids_as_page_token_work_like_gitlabs_links() {
    let fx = fixture();
    let work = fx.repos.join("work");
    let want = expected(&work, None, None, true);
    // GitLab's own client loop: the next token is the last entry's id.
    let mut token: Option<String> = None;
    let mut all = Vec::new();
    loop {
        let extra = match &token {
            Some(t) => format!("pagination=keyset&per_page=4&page_token={t}"),
            None => "pagination=keyset&per_page=4".to_string(),
        };
        let page = get(&fx, &tree_url("fx/work", &query(None, None, true, &extra))).list();
        if page.is_empty() {
            break;
        }
        token = Some(page.last().unwrap()["id"].as_str().unwrap().to_string());
        all.extend(page);
        assert!(all.len() <= want.len() * 2);
    }
    assert_eq!(all, want, "every id in the fixture is unique");
    // The token of a tree, of a submodule (the last entry: an empty page follows).
    let a = want.iter().find(|e| e["path"] == "a").unwrap()["id"].as_str().unwrap().to_string();
    let page =
        get(&fx, &tree_url("fx/work", &format!("recursive=true&pagination=keyset&per_page=2&page_token={a}"))).list();
    assert_eq!(page, want[1..3].to_vec());
    let last = want.last().unwrap()["id"].as_str().unwrap().to_string();
    let answer = get(&fx, &tree_url("fx/work", &format!("recursive=true&pagination=keyset&page_token={last}")));
    assert_eq!(answer.list(), Vec::<Value>::new());
    assert!(answer.next_link().is_none());
    // Upper-case hex is the same id.
    let page = get(
        &fx,
        &tree_url("fx/work", &format!("recursive=true&pagination=keyset&per_page=2&page_token={}", a.to_uppercase())),
    )
    .list();
    assert_eq!(page, want[1..3].to_vec());
}

#[test]
fn pagination_none_returns_everything_without_pagination_headers() {
    let fx = fixture();
    let work = fx.repos.join("work");
    let answer = get(&fx, &tree_url("fx/work", "recursive=true&pagination=none&per_page=2&page=2"));
    assert_eq!(answer.list(), expected(&work, None, None, true));
    for header in ["X-Total", "X-Page", "X-Per-Page", "X-Next-Page", "X-Total-Pages", "Link"] {
        assert!(answer.header(header).is_none(), "{header}");
    }
}

#[test]
fn private_projects_need_read_code() {
    let fx = fixture();
    let instance = &fx.instance;
    let common::Matrix { admin, guest, reader, reporter, outsider } =
        instance.visibility_matrix("boss", &fx.repos.join("bare.git"));
    let target = tree_url("corp/secret", "recursive=true");
    let not_found = json!({"message": "404 Project Not Found"});
    for token in [None, Some(outsider.as_str())] {
        let answer = get_as(instance, &target, token);
        assert_eq!((answer.status, answer.body), (404, not_found.clone()), "{token:?}");
    }
    let answer = get_as(instance, &target, Some(&guest));
    assert_eq!((answer.status, answer.body), (403, json!({"message": "403 Forbidden"})));
    let want = get(&fx, &tree_url("fx/bare", "recursive=true")).list();
    for token in [&reader, &reporter, &admin] {
        assert_eq!(get_as(instance, &target, Some(token)).list(), want);
    }
    // Visibility is checked before parameters: an outsider learns nothing from a bad query.
    let answer = get_as(instance, &tree_url("corp/secret", "pagination=bogus"), None);
    assert_eq!((answer.status, answer.body), (404, not_found));
}

#[test]
fn the_typed_export_answers_like_the_route() {
    let fx = fixture();
    let params = json!({"project": "fx/work", "recursive": true, "pagination": "keyset", "per_page": 3, "ref": "main"});
    let (status, body) = fx.instance.typed(forgecore::ffi::fc_repository_tree, json!({}), params);
    assert_eq!(status, 200);
    let http = get(&fx, &tree_url("fx/work", "recursive=true&pagination=keyset&per_page=3&ref=main")).list();
    assert_eq!(body, Value::Array(http));
}
