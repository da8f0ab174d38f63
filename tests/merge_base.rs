//! B7 merge base, compared with `git merge-base` on the fixture repositories.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::git_text;
use serde_json::{json, Value};

fn merge_base(instance: &common::TestInstance, project: &str, query: &str) -> (u16, Value) {
    instance.request_json("GET", &format!("/api/v4/projects/{project}/repository/merge_base?{query}"), &[], b"")
}

#[test]
fn answers_what_git_merge_base_prints() {
    let instance = common::open_instance(json!({}));
    let dir = instance.fixture_repos();
    let work = dir.join("work");
    let cases: &[&[&str]] = &[
        &["main", "feature"],
        &["feature", "main"],
        &["main", "v1.0.0"],
        &["light", "feature"],
        &["main", "feature", "v1.0.0"],
        &["feature", "main", "main"],
        &["main", "main"],
    ];
    for refs in cases {
        let expected = git_text(&work, &[&["merge-base"][..], refs].concat());
        let query: Vec<String> = refs.iter().map(|r| format!("refs%5B%5D={r}")).collect();
        for project in ["fx%2Fwork", "fx%2Fbare"] {
            let (status, body) = merge_base(&instance, project, &query.join("&"));
            assert_eq!((status, body["id"].as_str()), (200, Some(expected.as_str())), "{refs:?} {project}: {body}");
        }
        // The comma-separated spelling too.
        let (status, body) = merge_base(&instance, "fx%2Fwork", &format!("refs={}", refs.join(",")));
        assert_eq!((status, body["id"].as_str()), (200, Some(expected.as_str())));
    }
    // A full SHA and an abbreviated one work as refs.
    let main = git_text(&work, &["rev-parse", "main"]);
    let feature = git_text(&work, &["rev-parse", "feature"]);
    let expected = git_text(&work, &["merge-base", &main, &feature]);
    let (_, body) = merge_base(&instance, "fx%2Fwork", &format!("refs[]={}&refs[]={}", main, &feature[..10]));
    assert_eq!(body["id"], json!(expected));
}

#[test]
fn answers_the_full_commit_entity_with_rfc3339_times() {
    let instance = common::open_instance(json!({}));
    let dir = instance.fixture_repos();
    let work = dir.join("work");
    // Bob's commit, with trailers and a -05:00 offset, is the base of main and itself.
    let bob = git_text(&work, &["rev-parse", "v1.0.0~1"]);
    let (status, body) = merge_base(&instance, "fx%2Fwork", &format!("refs[]=main&refs[]={bob}"));
    assert_eq!(status, 200);
    assert_eq!(body["id"], json!(bob));
    let id = body["id"].as_str().unwrap();
    let fields = git_text(&work, &["show", "-s", "--format=%P%n%an%n%ae%n%aI%n%cn%n%ce%n%cI%n%s", id]);
    let fields: Vec<&str> = fields.lines().collect();
    assert_eq!(body["short_id"], json!(&id[..8]));
    assert_eq!(body["parent_ids"], json!(fields[0].split(' ').collect::<Vec<_>>()));
    assert_eq!(body["author_name"], json!(fields[1]));
    assert_eq!(body["author_email"], json!(fields[2]));
    // git's %aI has no fraction; GitLab's has milliseconds. Same instant, same offset.
    assert_eq!(body["authored_date"].as_str().unwrap().replace(".000", ""), fields[3]);
    assert_eq!(body["committer_name"], json!(fields[4]));
    assert_eq!(body["committer_email"], json!(fields[5]));
    assert_eq!(body["committed_date"].as_str().unwrap().replace(".000", ""), fields[6]);
    assert_eq!(body["created_at"], body["committed_date"]);
    assert_eq!(body["title"], json!(fields[7]));
    let message = String::from_utf8(common::git(&work, &["log", "-1", "--format=%B", id])).unwrap();
    assert_eq!(body["message"].as_str().unwrap().trim_end(), message.trim_end());
    assert!(body["authored_date"].as_str().unwrap().ends_with("-05:00"), "{body}");
    // As GitLab (which loads trailers only for the commits list): empty, although Bob's commit
    // has trailers. Arrays in extended_trailers would break GitLab's Go client.
    assert_eq!(body["trailers"], json!({}));
    assert_eq!(body["extended_trailers"], json!({}));
    assert!(body["web_url"].as_str().unwrap().ends_with(&format!("/fx/work/-/commit/{id}")));
}

#[test]
fn bad_refs_are_4xx() {
    let instance = common::open_instance(json!({}));
    instance.fixture_repos();
    let cases = [
        ("refs[]=main", 400, json!({"message": "Provide at least 2 refs"})),
        ("", 400, json!({"error": "refs is missing"})),
        ("refs[]=main&refs[]=nope", 400, json!({"message": "Could not find ref: nope"})),
        ("refs[]=x&refs[]=main&refs[]=y", 400, json!({"message": "Could not find refs: x, y"})),
        ("refs[]=main..feature&refs[]=main", 400, json!({"message": "Could not find ref: main..feature"})),
        ("refs[]=-v&refs[]=main", 400, json!({"message": "Could not find ref: -v"})),
        ("refs[]=ma%00in&refs[]=main", 400, json!({"message": "Could not find ref: ma\u{0}in"})),
        ("refs[]=main&refs[]=orphan", 404, json!({"message": "404 Merge Base Not Found"})),
    ];
    for (query, status, body) in cases {
        assert_eq!(merge_base(&instance, "fx%2Fwork", query), (status, body), "{query}");
    }
    let many: Vec<String> = (0..10_000).map(|i| format!("refs[]=r{i}")).collect();
    let (status, _) = merge_base(&instance, "fx%2Fwork", &many.join("&"));
    assert_eq!(status, 400);
    let (status, body) = merge_base(&instance, "fx%2Fempty", "refs[]=main&refs[]=main");
    assert_eq!((status, body), (400, json!({"message": "Could not find refs: main, main"})));
}

#[test]
fn a_long_walk_sees_replaced_commits_as_git_does() {
    // 1,200 commits in one pack, no commit-graph: the walk from main reads ahead (src/git/
    // prefetch.rs) before it meets main~600, which `git replace` makes main~1100's content, so
    // main~601 to main~1100 are no longer main's history. The read-ahead reads the pack's objects
    // as they are stored, so it must not serve a repository with replacements.
    let instance = common::open_instance(json!({}));
    let repo = instance.root_dir().join("replaced.git");
    common::git(instance.root_dir(), &["init", "-q", "--bare", "-b", "main", repo.to_str().unwrap()]);
    let mut stream = String::new();
    for i in 1..=1200u32 {
        let when = 1_700_000_000 + i * 60;
        let message = format!("commit {i}\n");
        stream.push_str(&format!(
            "commit refs/heads/main\nmark :{i}\ncommitter C <c@example.com> {when} +0000\ndata {}\n{message}{}\
             M 100644 inline f.txt\ndata {}\n{i}\n\n",
            message.len(),
            if i == 1 { String::new() } else { format!("from :{}\n", i - 1) },
            i.to_string().len() + 1,
        ));
    }
    common::fast_import(&repo, &stream);
    common::git(&repo, &["repack", "-adq"]);
    let replaced = common::git_text(&repo, &["rev-parse", "main~600"]);
    let with = common::git_text(&repo, &["rev-parse", "main~1100"]);
    let old = common::git_text(&repo, &["rev-parse", "main~800"]);
    common::git(&repo, &["replace", &replaced, &with]);
    let want = common::git_text(&repo, &["merge-base", "main", &old]);
    assert_ne!(want, old, "the replacement changes the answer");
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    instance.admin_ok(json!({"command": "project_add", "path": "fx/replaced", "repo": repo, "visibility": "public"}));
    let (status, body) = merge_base(&instance, "fx%2Freplaced", &format!("refs[]=main&refs[]={old}"));
    assert_eq!((status, body["id"].as_str()), (200, Some(want.as_str())), "{body}");
}
