//! The administration bench's data-set builder (`examples/bench_admin/dataset.rs`) at a tiny
//! size, so that the harness cannot rot: it builds the counts it says, trees five levels deep,
//! memberships confined to each user's tree, and the caller it names sees exactly its tree's
//! projects, by keyset pages that visit each once, and reaches the probe through its ancestors.
//! On SQLite in `cargo test`, on PostgreSQL in `make test-rust-postgres`.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

#[path = "../examples/bench_admin/dataset.rs"]
mod dataset;

use common::open_instance;
use serde_json::{json, Value};

const TINY: dataset::Size = dataset::Size { users: 50, projects: 500, roots: 2, fanout: 2, per_user: 20 };

fn header<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

#[test]
fn the_data_set_is_what_it_says_and_the_caller_sees_its_tree() {
    let instance = open_instance(json!({}));
    instance.admin_ok(json!({"command": "user_add", "username": "root", "admin": true}));
    let store = &instance.ctx().store;
    let built = store.write(|db| dataset::build(db, TINY, "/nonexistent/repo.git")).unwrap();
    // 2 roots of 1 + 2 + 4 + 8 + 16 groups.
    assert_eq!(
        (built.users, built.groups, built.projects, built.memberships, built.caller_projects),
        (50, 62, 500, 50 * 20, 10)
    );
    let count = |sql: &str| store.read(|db| db.one(sql, &[], |r| r.i64(0))).unwrap();
    assert_eq!(count("SELECT count(*) FROM users"), 51, "the built users and root");
    assert_eq!(count("SELECT count(*) FROM groups"), 62);
    assert_eq!(count("SELECT count(*) FROM projects"), 500);
    assert_eq!(count("SELECT count(*) FROM members"), 1000);
    // Depth: the longest chain is 5 groups, every project is in a group at depth 5.
    let depth = "WITH RECURSIVE t(id, depth) AS (
                     SELECT id, CAST(1 AS BIGINT) FROM groups WHERE parent_id IS NULL
                     UNION ALL SELECT g.id, t.depth + 1 FROM groups g JOIN t ON g.parent_id = t.id)";
    assert_eq!(count(&format!("{depth} SELECT max(depth) FROM t")), 5);
    assert_eq!(count(&format!("{depth} SELECT count(*) FROM t WHERE depth = 5")), 32);
    assert_eq!(
        count(&format!("{depth} SELECT count(*) FROM projects p JOIN t ON t.id = p.group_id WHERE t.depth = 5")),
        500
    );
    assert_eq!(built.leaf_chain.len(), 5);
    assert_eq!(built.leaf_chain.last(), Some(&built.caller_root_id));
    // Every user is a member of its root and of 9 groups and 10 projects below it, at most once each.
    assert_eq!(count("SELECT count(*) FROM (SELECT DISTINCT user_id, group_id, project_id FROM members) m"), 1000);
    assert_eq!(count("SELECT count(DISTINCT user_id) FROM members"), 50);
    assert_eq!(count(&format!("SELECT count(*) FROM members WHERE user_id = {}", built.caller_id)), 20);
    assert_eq!(
        count(&format!("SELECT count(*) FROM members WHERE group_id = {}", built.caller_root_id)),
        25,
        "half the users belong to each root"
    );
    assert!(built.leaf_members >= 25, "{built:?}");

    // New rows get ids after the built ones (PostgreSQL's sequences were moved on).
    instance.admin_ok(json!({"command": "user_add", "username": "after"}));
    assert_eq!(count("SELECT max(id) FROM users"), built.caller_id + 50);

    // The caller's keyset pages: its root's 250 projects, newest first, each once.
    let token = instance.admin_ok(json!({"command": "token_add", "username": built.caller_username}));
    let token = token["token"].as_str().unwrap().to_string();
    let mut target =
        "/api/v4/projects?membership=true&simple=true&pagination=keyset&order_by=id&per_page=20".to_string();
    let (mut seen, mut pages) = (Vec::new(), 0);
    loop {
        let (status, headers, body) = instance.request("GET", &target, &[("PRIVATE-TOKEN", &token)], b"");
        assert_eq!(status, 200, "{target}: {}", String::from_utf8_lossy(&body));
        assert!(header(&headers, "X-Total").is_none());
        let items: Vec<Value> = serde_json::from_slice(&body).unwrap();
        seen.extend(items.iter().map(|p| p["id"].as_i64().unwrap()));
        pages += 1;
        match header(&headers, "Link") {
            Some(link) => {
                let url = link.trim_start_matches('<').split('>').next().unwrap();
                target = format!("/api/v4{}", url.split_once("/api/v4").unwrap().1);
            }
            None => break,
        }
    }
    let expected: Vec<i64> = (0..250).rev().map(|k| built.first_project_id + 2 * k).collect();
    assert_eq!(seen, expected);
    assert_eq!(pages, 13, "12 full pages and a last of 10");

    // The probe: reached through the tree's groups only.
    let (status, project) =
        instance.call("GET", &format!("/api/v4/projects/{}", built.probe_project_id), Some(&token), Value::Null);
    assert_eq!(status, 200, "{project}");
    assert_eq!(project["permissions"]["project_access"], Value::Null);
    assert_eq!(project["permissions"]["group_access"]["access_level"], json!(built.caller_level));
    // A project of the other tree is not found for the caller.
    let (status, _) =
        instance.call("GET", &format!("/api/v4/projects/{}", built.first_project_id + 1), Some(&token), Value::Null);
    assert_eq!(status, 404);
}
