//! Keyset pagination of `GET /projects` (`pagination=keyset&order_by=id`, `id_after` /
//! `id_before` in `Link: <...>; rel="next"`, for every caller) and of `GET /groups` (anonymous
//! callers, by name ascending, `cursor`), as GitLab pages them (`lib/api/helpers/
//! pagination_strategies.rb`, `lib/gitlab/pagination/keyset.rb`, `cursor_based_keyset.rb`):
//! the pages visit every item exactly once in order; GitLab's 405 for a keyset page of an
//! order it does not page by keyset and for an offset page past 50,000; offset pages as before.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use serde_json::{json, Value};
use std::collections::HashMap;

const EXTERNAL: &str = "https://forge.example.test";

struct World {
    instance: TestInstance,
    member: String,
    admin: String,
}

fn world() -> World {
    let instance = common::open_instance(json!({"external_url": EXTERNAL}));
    let repo = instance.root_dir().join("empty.git");
    let status = std::process::Command::new("git").args(["init", "-q", "--bare"]).arg(&repo).status().unwrap();
    assert!(status.success());
    let admin = instance.user_with_token("root", true);
    let member = instance.user_with_token("mem", false);
    for (group, visibility) in [("a", "private"), ("b", "public"), ("c", "internal"), ("d", "private")] {
        instance.admin_ok(json!({"command": "group_add", "path": group, "visibility": visibility}));
    }
    instance.admin_ok(json!({"command": "member_add", "group": "a", "username": "mem", "access_level": 30}));
    // Interleaved so that each caller's projects are spread over the ids.
    for i in 0..5 {
        for (group, visibility) in [("a", "private"), ("b", "public"), ("c", "internal"), ("d", "private")] {
            if group == "c" && i > 2 {
                continue;
            }
            let path = format!("{group}/p{i}");
            instance.admin_ok(json!({"command": "project_add", "path": path, "repo": repo, "visibility": visibility}));
        }
    }
    // Groups for the anonymous keyset pages by name: public ones, names in mixed case, and
    // private ones anonymous callers must not see.
    for (path, name, visibility) in [
        ("g1", "Zeta", "public"),
        ("g2", "alpha", "public"),
        ("g3", "Beta", "public"),
        ("g4", "gamma", "private"),
        ("g5", "Delta", "public"),
        ("g6", "epsilon", "public"),
        ("b/g7", "Eta", "public"),
    ] {
        instance.admin_ok(json!({"command": "group_add", "path": path, "name": name, "visibility": visibility}));
    }
    World { instance, member, admin }
}

fn headers_map(headers: &[(String, String)]) -> HashMap<String, String> {
    headers.iter().map(|(n, v)| (n.to_ascii_lowercase(), v.clone())).collect()
}

fn get(w: &World, target: &str, token: Option<&str>) -> (u16, HashMap<String, String>, Value) {
    let headers: Vec<(&str, &str)> = token.map(|t| ("PRIVATE-TOKEN", t)).into_iter().collect();
    let (status, head, body) = w.instance.request("GET", target, &headers, b"");
    let body = if body.is_empty() { Value::Null } else { serde_json::from_slice(&body).unwrap() };
    (status, headers_map(&head), body)
}

/// The query parameters of a `Link` URL.
fn link_params(url: &str) -> HashMap<String, String> {
    let query = url.split_once('?').unwrap().1;
    query
        .split('&')
        .map(|pair| {
            let (n, v) = pair.split_once('=').unwrap();
            (n.to_string(), percent_decode(v))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// Follows `Link` rel="next" from `first`: every item's `key`, the number of pages. Checks
/// each page's headers: no offset headers, one `next` link repeating the request's parameters
/// (`repeat`) with `cursor_name` set.
fn walk(
    w: &World,
    first: &str,
    token: Option<&str>,
    cursor_name: &str,
    repeat: &[(&str, &str)],
) -> (Vec<Value>, usize) {
    let (mut target, mut seen, mut pages) = (first.to_string(), Vec::new(), 0);
    loop {
        let (status, headers, body) = get(w, &target, token);
        assert_eq!(status, 200, "{target}: {body}");
        for offset_header in ["x-total", "x-total-pages", "x-page", "x-next-page", "x-prev-page", "x-per-page"] {
            assert!(!headers.contains_key(offset_header), "{offset_header} on a keyset page: {target}");
        }
        let items = body.as_array().unwrap();
        pages += 1;
        assert!(pages < 100, "the pages do not end");
        seen.extend(items.iter().cloned());
        let Some(link) = headers.get("link") else { break };
        // `<url>; rel="next"` and nothing else.
        assert!(link.starts_with('<') && link.ends_with(">; rel=\"next\""), "{link}");
        assert_eq!(link.matches("rel=").count(), 1, "{link}");
        let url = &link[1..link.len() - ">; rel=\"next\"".len()];
        assert!(url.starts_with(&format!("{EXTERNAL}/api/v4/")), "{url}");
        let params = link_params(url);
        for (name, value) in repeat {
            assert_eq!(params.get(*name).map(String::as_str), Some(*value), "{name} in {url}");
        }
        assert!(params.contains_key(cursor_name), "{cursor_name} in {url}");
        target = url.strip_prefix(EXTERNAL).unwrap().to_string();
    }
    (seen, pages)
}

fn ids(items: &[Value]) -> Vec<i64> {
    items.iter().map(|p| p["id"].as_i64().unwrap()).collect()
}

#[test]
fn project_keyset_pages_visit_every_project_once_in_order_for_every_caller() {
    let w = world();
    let (member, admin) = (Some(w.member.as_str()), Some(w.admin.as_str()));
    for (who, token, count) in [("member", member, 13), ("admin", admin, 18), ("anonymous", None, 5)] {
        for (sort, cursor) in [("asc", "id_after"), ("desc", "id_before")] {
            let (status, _, all) = get(&w, &format!("/api/v4/projects?order_by=id&sort={sort}&per_page=100"), token);
            assert_eq!(status, 200);
            let all = ids(all.as_array().unwrap());
            assert_eq!(all.len(), count, "{who} sees {count} projects");
            let mut sorted = all.clone();
            sorted.sort_unstable();
            if sort == "desc" {
                sorted.reverse();
            }
            assert_eq!(all, sorted, "{who} {sort}");
            let first = format!("/api/v4/projects?pagination=keyset&order_by=id&sort={sort}&per_page=4");
            let repeat = [("pagination", "keyset"), ("order_by", "id"), ("sort", sort), ("per_page", "4")];
            let (seen, pages) = walk(&w, &first, token, cursor, &repeat);
            assert_eq!(ids(&seen), all, "{who} {sort}");
            assert_eq!(pages, count / 4 + 1, "{who} {sort}: full pages and one more (possibly empty)");
        }
    }
    // Keyset without order_by pages by id, descending (GitLab's default sort).
    let (_, all) = (0, get(&w, "/api/v4/projects?order_by=id&per_page=100", member).2);
    let (seen, _) = walk(&w, "/api/v4/projects?pagination=keyset&per_page=5", member, "id_before", &[]);
    assert_eq!(ids(&seen), ids(all.as_array().unwrap()));
    // membership=true: the member's group's 5 projects only, newest first.
    let (seen, pages) = walk(
        &w,
        "/api/v4/projects?pagination=keyset&membership=true&per_page=2",
        member,
        "id_before",
        &[("membership", "true")],
    );
    let paths: Vec<&str> = seen.iter().map(|p| p["path_with_namespace"].as_str().unwrap()).collect();
    assert_eq!(paths, ["a/p4", "a/p3", "a/p2", "a/p1", "a/p0"]);
    assert_eq!(pages, 3);
    // A page's cursor is honoured as given.
    let (_, _, page) =
        get(&w, &format!("/api/v4/projects?pagination=keyset&order_by=id&sort=asc&id_after={}", ids(&seen)[1]), member);
    assert!(ids(page.as_array().unwrap()).iter().all(|&id| id > ids(&seen)[1]));
}

#[test]
fn project_keyset_refusals_and_offset_pages_are_gitlabs() {
    let w = world();
    let member = Some(w.member.as_str());
    let not_yet = json!({"message": "Keyset pagination is not yet available for this type of request"});
    for query in ["order_by=name", "order_by=path", "order_by=created_at", "order_by=star_count", "order_by=similarity"]
    {
        let (status, _, body) = get(&w, &format!("/api/v4/projects?pagination=keyset&{query}"), member);
        assert_eq!((status, body), (405, not_yet.clone()), "{query}");
    }
    // Bad values are 400s before that.
    let (status, _, body) = get(&w, "/api/v4/projects?pagination=keyset&order_by=stars", member);
    assert_eq!((status, body), (400, json!({"error": "order_by does not have a valid value"})));
    let (status, _, body) = get(&w, "/api/v4/projects?pagination=pages", member);
    assert_eq!((status, body), (400, json!({"error": "pagination does not have a valid value"})));
    // Offset pages: as before, with totals; past GitLab's offset limit of 50,000, 405.
    let (status, headers, body) = get(&w, "/api/v4/projects?per_page=5&page=2&order_by=id", member);
    assert_eq!(status, 200);
    assert_eq!(body.as_array().unwrap().len(), 5);
    assert_eq!((headers["x-total"].as_str(), headers["x-page"].as_str()), ("13", "2"));
    // Later offset pages (their ids picked first, then their columns) hold the same projects
    // in the same order as one long page, with the caller's levels.
    for (token, order) in
        [(member, "id&sort=asc"), (member, "name"), (Some(w.admin.as_str()), "path&sort=asc"), (None, "created_at")]
    {
        let (_, _, all) = get(&w, &format!("/api/v4/projects?order_by={order}&per_page=100"), token);
        let mut pages = Vec::new();
        for page in 1..=5 {
            let (_, _, items) = get(&w, &format!("/api/v4/projects?order_by={order}&per_page=4&page={page}"), token);
            pages.extend(items.as_array().unwrap().iter().cloned());
        }
        assert_eq!(pages, *all.as_array().unwrap(), "{order}");
    }
    let (status, _, body) = get(&w, "/api/v4/projects?per_page=100&page=500", member);
    assert_eq!((status, body), (200, json!([])));
    let (status, _, body) = get(&w, "/api/v4/projects?per_page=100&page=501", None);
    assert_eq!(status, 405);
    assert_eq!(
        body,
        json!({"message": "Offset pagination has a maximum allowed offset of 50000 for requests that return objects of \
                           type Project. Remaining records can be retrieved using keyset pagination."})
    );
}

#[test]
fn anonymous_group_keyset_pages_go_by_name_and_signed_in_callers_get_offset_pages() {
    let w = world();
    let (status, _, all) = get(&w, "/api/v4/groups?per_page=100", None);
    assert_eq!(status, 200);
    let names: Vec<&str> = all.as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["alpha", "b", "Beta", "Delta", "epsilon", "Eta", "Zeta"]);
    let repeat = [("pagination", "keyset"), ("per_page", "2")];
    let (seen, pages) = walk(&w, "/api/v4/groups?pagination=keyset&per_page=2", None, "cursor", &repeat);
    assert_eq!(seen, *all.as_array().unwrap());
    assert_eq!(pages, 4);
    let (seen, _) = walk(&w, "/api/v4/groups?pagination=keyset&per_page=3&order_by=name&sort=asc", None, "cursor", &[]);
    assert_eq!(seen, *all.as_array().unwrap());

    // Other orders are not paged by keyset; bad values and cursors are 400s.
    let not_yet = json!({"message": "Keyset pagination is not yet available for this type of request"});
    for query in ["order_by=id", "order_by=path", "sort=desc", "order_by=similarity"] {
        let (status, _, body) = get(&w, &format!("/api/v4/groups?pagination=keyset&{query}"), None);
        assert_eq!((status, body), (405, not_yet.clone()), "{query}");
    }
    let (status, _, body) = get(&w, "/api/v4/groups?pagination=keyset&order_by=size", None);
    assert_eq!((status, body), (400, json!({"error": "order_by does not have a valid value"})));
    for cursor in ["garbage!", "eyJuYW1lIjoxfQ", "bm90IGpzb24"] {
        let (status, _, body) = get(&w, &format!("/api/v4/groups?pagination=keyset&cursor={cursor}"), None);
        assert_eq!((status, body), (400, json!({"error": "cursor is invalid"})), "{cursor}");
    }
    // Anonymous offset pages end at GitLab's offset limit.
    let (status, _, body) = get(&w, "/api/v4/groups?per_page=100&page=501", None);
    assert_eq!(status, 405);
    assert!(body["message"].as_str().unwrap().contains("for requests that return objects of type Group"), "{body}");

    // Signed-in callers: offset pages whatever `pagination` says, and no offset limit.
    let (status, headers, body) = get(&w, "/api/v4/groups?pagination=keyset&per_page=2", Some(&w.admin));
    assert_eq!(status, 200);
    assert_eq!(body.as_array().unwrap().len(), 2);
    assert_eq!((headers["x-total"].as_str(), headers["x-page"].as_str()), ("11", "1"), "{headers:?}");
    let (status, headers, body) = get(&w, "/api/v4/groups?pagination=keyset&per_page=2", Some(&w.member));
    assert_eq!(status, 200);
    assert_eq!(body[0]["full_path"], "a");
    assert_eq!(headers["x-total"], "1");
    let (status, _, body) = get(&w, "/api/v4/groups?per_page=100&page=501", Some(&w.admin));
    assert_eq!((status, body), (200, json!([])));
}
