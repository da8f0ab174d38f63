//! Projects and users as tools see them (decisions D8, issue 28): `GET /projects/:id`'s fields,
//! `GET /projects` and `GET /groups/:id/projects` with their filters and both paginations,
//! `GET /user` and `GET /users/:id`, and the visibility matrix over them (private things are
//! 404 to whoever may not see them, never 403).
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use serde_json::{json, Value};

const EXTERNAL: &str = "https://forge.example.com";

fn get(instance: &TestInstance, target: &str, token: Option<&str>) -> (u16, Value) {
    let headers: Vec<(&str, &str)> = token.map(|t| ("PRIVATE-TOKEN", t)).into_iter().collect();
    instance.request_json("GET", target, &headers, b"")
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// The names of the projects of a list answer.
fn paths(body: &Value) -> Vec<String> {
    body.as_array().unwrap().iter().map(|p| p["path_with_namespace"].as_str().unwrap().to_string()).collect()
}

struct World {
    instance: TestInstance,
    fixtures: std::path::PathBuf,
    tokens: Vec<(&'static str, Option<String>)>,
}

impl World {
    fn token(&self, who: &str) -> Option<&str> {
        self.tokens.iter().find(|(name, _)| *name == who).and_then(|(_, t)| t.as_deref())
    }
}

/// The fixture projects (`fx/work`, `fx/bare`, `fx/empty`, public) and the private group
/// `corp` with `corp/secret` (private), `corp/sub/deep` (private, in a subgroup) and
/// `corp/fork` (private, a fork of `fx/work`); members of `corp`: `gus` Guest, `grace` Guest
/// with a `read_code` role, `rita` Reporter, `dev` Developer, `max` Maintainer; `otto` is an
/// outsider, `root` the administrator.
fn world() -> World {
    let instance = common::open_instance(json!({"external_url": EXTERNAL}));
    let fixtures = instance.fixture_repos();
    let work = fixtures.join("work");
    let matrix = instance.visibility_matrix("root", &work);
    let dev = instance.user_with_token("dev", false);
    let max = instance.user_with_token("max", false);
    for (user, level) in [("dev", 30), ("max", 40)] {
        instance.admin_ok(json!({"command": "member_add", "group": "corp", "username": user, "access_level": level}));
    }
    instance.admin_ok(json!({"command": "group_add", "path": "corp/sub"}));
    instance.admin_ok(json!({"command": "project_add", "path": "corp/sub/deep", "repo": work}));
    instance.admin_ok(json!({"command": "project_add", "path": "corp/fork", "repo": work, "forked_from": "fx/work"}));
    let tokens = vec![
        ("anonymous", None),
        ("otto", Some(matrix.outsider)),
        ("gus", Some(matrix.guest)),
        ("grace", Some(matrix.reader)),
        ("rita", Some(matrix.reporter)),
        ("dev", Some(dev)),
        ("max", Some(max)),
        ("root", Some(matrix.admin)),
    ];
    World { instance, fixtures, tokens }
}

#[test]
fn a_project_has_the_fields_tools_read() {
    let w = world();
    let (status, p) = get(&w.instance, "/api/v4/projects/fx%2Fwork", w.token("dev"));
    assert_eq!(status, 200, "{p}");
    assert_eq!(p["http_url_to_repo"], format!("{EXTERNAL}/fx/work.git"));
    assert_eq!(p["web_url"], format!("{EXTERNAL}/fx/work"));
    assert_eq!(p["ssh_url_to_repo"], Value::Null);
    assert_eq!(p["default_branch"], "main");
    assert_eq!((p["empty_repo"].clone(), p["archived"].clone()), (json!(false), json!(false)));
    assert_eq!(p["namespace"]["full_path"], "fx");
    assert_eq!(p["namespace"]["kind"], "group");
    assert_eq!(p["name_with_namespace"], "fx / work");
    assert_eq!((p["topics"].clone(), p["tag_list"].clone()), (json!([]), json!([])));
    assert_eq!(p["repository_access_level"], "enabled");
    assert!(p["created_at"].as_str().unwrap().ends_with('Z') || p["created_at"].as_str().unwrap().contains('+'));
    // Backstage skips a project whose entity has the key at all.
    assert!(p.get("forked_from_project").is_none(), "{p}");
    // dev is a member of corp, not of fx: no access on this project.
    assert_eq!(p["permissions"], json!({"project_access": null, "group_access": null}));

    // The empty repository is empty, and shows GitLab's default branch name.
    let (_, empty) = get(&w.instance, "/api/v4/projects/fx%2Fempty", None);
    assert_eq!((empty["empty_repo"].clone(), empty["default_branch"].clone()), (json!(true), json!("main")));
    // Anonymous callers get ProjectDetails: no permissions.
    let (_, anonymous) = get(&w.instance, "/api/v4/projects/fx%2Fwork", None);
    assert!(anonymous.get("permissions").is_none(), "{anonymous}");
    assert_eq!(anonymous["default_branch"], "main");

    // A member's permissions: the group's level, as semantic-release reads it.
    let (_, secret) = get(&w.instance, "/api/v4/projects/corp%2Fsecret", w.token("dev"));
    assert_eq!(secret["permissions"]["group_access"]["access_level"], 30);
    assert_eq!(secret["permissions"]["project_access"], Value::Null);

    // A fork shows its parent, which the caller can see.
    let (_, fork) = get(&w.instance, "/api/v4/projects/corp%2Ffork", w.token("dev"));
    assert_eq!(fork["forked_from_project"]["path_with_namespace"], "fx/work");
    let (_, work) = get(&w.instance, "/api/v4/projects/fx%2Fwork", None);
    assert_eq!(work["forks_count"], 1);

    // A guest cannot read the private project's code: no default branch at all.
    let (status, guest_view) = get(&w.instance, "/api/v4/projects/corp%2Fsecret", w.token("gus"));
    assert_eq!(status, 200);
    assert!(guest_view.get("default_branch").is_none(), "{guest_view}");
    assert!(guest_view.get("forks_count").is_none(), "{guest_view}");
    // A guest whose custom role grants read_code can.
    let (_, reader_view) = get(&w.instance, "/api/v4/projects/corp%2Fsecret", w.token("grace"));
    assert_eq!(reader_view["default_branch"], "main");
}

#[test]
fn private_projects_are_404_to_whoever_may_not_see_them() {
    let w = world();
    for (who, sees) in [
        ("anonymous", false),
        ("otto", false),
        ("gus", true),
        ("grace", true),
        ("rita", true),
        ("dev", true),
        ("max", true),
        ("root", true),
    ] {
        let (status, body) = get(&w.instance, "/api/v4/projects/corp%2Fsecret", w.token(who));
        assert_eq!(status, if sees { 200 } else { 404 }, "{who}: {body}");
        if !sees {
            assert_eq!(body, json!({"message": "404 Project Not Found"}));
        }
        let (status, list) = get(&w.instance, "/api/v4/projects?per_page=100", w.token(who));
        assert_eq!(status, 200);
        assert_eq!(paths(&list).contains(&"corp/secret".to_string()), sees, "{who}");
        let (status, group) = get(&w.instance, "/api/v4/groups/corp/projects", w.token(who));
        assert_eq!(status, if sees { 200 } else { 404 }, "{who}: {group}");
    }
}

#[test]
fn project_lists_filter_order_and_page() {
    let w = world();
    let dev = w.token("dev");
    // Everything dev sees: the three public fixtures and corp's four.
    let (status, headers, body) = w.instance.request(
        "GET",
        "/api/v4/projects?order_by=id&sort=asc&per_page=2",
        &[("PRIVATE-TOKEN", dev.unwrap())],
        b"",
    );
    assert_eq!(status, 200);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(paths(&body), ["fx/work", "fx/bare"]);
    assert_eq!(header(&headers, "X-Total"), Some("6"));
    assert_eq!(header(&headers, "X-Total-Pages"), Some("3"));
    assert_eq!(header(&headers, "X-Next-Page"), Some("2"));
    assert!(header(&headers, "Link").unwrap().contains(&format!("{EXTERNAL}/api/v4/projects?")));

    // Renovate's query: memberships with at least Developer, not archived.
    let (_, mine) = get(
        &w.instance,
        "/api/v4/projects?membership=true&min_access_level=30&archived=false&with_merge_requests_enabled=true&order_by=path&sort=asc",
        dev,
    );
    assert_eq!(paths(&mine), ["corp/sub/deep", "corp/fork", "corp/secret"]);
    let (_, rita) = get(&w.instance, "/api/v4/projects?min_access_level=30", w.token("rita"));
    assert_eq!(paths(&rita), Vec::<String>::new());
    let (_, archived) = get(&w.instance, "/api/v4/projects?archived=true", dev);
    assert_eq!(paths(&archived), Vec::<String>::new());
    let (_, search) = get(&w.instance, "/api/v4/projects?search=EMP", dev);
    assert_eq!(paths(&search), ["fx/empty"]);
    let (_, private) = get(&w.instance, "/api/v4/projects?visibility=private&order_by=id&sort=asc", dev);
    assert_eq!(paths(&private), ["corp/secret", "corp/sub/deep", "corp/fork"]);
    let (_, anonymous_membership) = get(&w.instance, "/api/v4/projects?membership=true", None);
    assert_eq!(anonymous_membership, json!([]));
    // Anonymous callers and simple=true get BasicProjectDetails.
    let (_, simple) = get(&w.instance, "/api/v4/projects?simple=true", dev);
    assert!(simple[0].get("permissions").is_none() && simple[0].get("visibility").is_none(), "{simple}");
    let (_, full) = get(&w.instance, "/api/v4/projects?order_by=id&sort=asc", dev);
    assert_eq!(full.as_array().unwrap().len(), 6);
    assert!(full[0].get("permissions").is_some());

    // Keyset pages by id, the next page's id in Link only.
    let mut seen = Vec::new();
    let mut target = "/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=4".to_string();
    loop {
        let (status, headers, body) = w.instance.request("GET", &target, &[("PRIVATE-TOKEN", dev.unwrap())], b"");
        assert_eq!(status, 200);
        assert!(header(&headers, "X-Total").is_none());
        seen.extend(paths(&serde_json::from_slice(&body).unwrap()));
        match header(&headers, "Link") {
            Some(link) => {
                let url = link.trim_start_matches('<').split('>').next().unwrap();
                assert!(url.contains("id_after="), "{url}");
                target = url.strip_prefix(EXTERNAL).unwrap().to_string();
            }
            None => break,
        }
    }
    assert_eq!(seen, paths(&full));

    // Bad values are 400s that name the parameter.
    for (query, error) in [
        ("order_by=stars", "order_by does not have a valid value"),
        ("visibility=secret", "visibility does not have a valid value"),
        ("min_access_level=31", "min_access_level does not have a valid value"),
        ("sort=up", "sort does not have a valid value"),
    ] {
        let (status, body) = get(&w.instance, &format!("/api/v4/projects?{query}"), dev);
        assert_eq!((status, body), (400, json!({"error": error})), "{query}");
    }
}

#[test]
fn group_projects_include_subgroups_on_request() {
    let w = world();
    let max = w.token("max");
    let (_, direct) = get(&w.instance, "/api/v4/groups/corp/projects?order_by=path&sort=asc", max);
    assert_eq!(paths(&direct), ["corp/fork", "corp/secret"]);
    let (_, all) = get(&w.instance, "/api/v4/groups/corp/projects?include_subgroups=true&order_by=path&sort=asc", max);
    assert_eq!(paths(&all), ["corp/sub/deep", "corp/fork", "corp/secret"]);
    let (_, fx) = get(&w.instance, "/api/v4/groups/fx/projects?order_by=path&sort=asc", None);
    assert_eq!(paths(&fx), ["fx/bare", "fx/empty", "fx/work"]);
    let _ = &w.fixtures;
}

#[test]
fn the_current_user_and_other_users() {
    let w = world();
    let (status, body) = get(&w.instance, "/api/v4/user", None);
    assert_eq!((status, body), (401, json!({"message": "401 Unauthorized"})));
    let (status, me) = get(&w.instance, "/api/v4/user", w.token("dev"));
    assert_eq!(status, 200);
    assert_eq!(me["username"], "dev");
    assert_eq!(me["web_url"], format!("{EXTERNAL}/dev"));
    assert_eq!(me["state"], "active");
    assert!(me.get("is_admin").is_none(), "{me}");
    assert_eq!(me["commit_email"], me["email"]);
    assert!(me["email"].as_str().unwrap().ends_with("@users.noreply.forge.example.com"), "{me}");
    let (_, root) = get(&w.instance, "/api/v4/user", w.token("root"));
    assert_eq!(root["is_admin"], true);

    let id = me["id"].as_i64().unwrap();
    // GitLab's `GET /users/:id` is for callers who are signed in (`lib/api/users.rb`).
    let (status, body) = get(&w.instance, &format!("/api/v4/users/{id}"), None);
    assert_eq!((status, body), (403, json!({"message": "403 Forbidden - Not authorized!"})));
    let (status, profile) = get(&w.instance, &format!("/api/v4/users/{id}"), w.token("dev"));
    assert_eq!(status, 200);
    assert_eq!(profile["username"], "dev");
    assert!(profile.get("email").is_none(), "{profile}");
    let (_, seen_by_admin) = get(&w.instance, &format!("/api/v4/users/{id}"), w.token("root"));
    assert_eq!(seen_by_admin["is_admin"], false);
    let (status, body) = get(&w.instance, "/api/v4/users/999999", w.token("dev"));
    assert_eq!((status, body), (404, json!({"message": "404 User Not Found"})));
}

/// The typed exports answer exactly what their HTTP routes answer.
#[test]
fn typed_exports_answer_as_the_routes_do() {
    use forgecore::ffi;
    let w = world();
    let dev = w.token("dev").unwrap().to_string();
    let auth = TestInstance::auth(&dev);
    let same = |export: common::TypedExport, params: Value, target: &str| {
        let typed = w.instance.typed(export, auth.clone(), params.clone());
        let http = get(&w.instance, target, Some(&dev));
        assert_eq!(typed, http, "{target} vs {params}");
        typed
    };
    same(ffi::fc_projects_list, json!({"order_by": "id", "sort": "asc"}), "/api/v4/projects?order_by=id&sort=asc");
    same(ffi::fc_group_projects_list, json!({"group": "corp"}), "/api/v4/groups/corp/projects");
    same(ffi::fc_project_get, json!({"project": "corp/secret"}), "/api/v4/projects/corp%2Fsecret");
    same(ffi::fc_user_current, json!({}), "/api/v4/user");
    let (_, me) = same(ffi::fc_user_current, json!({}), "/api/v4/user");
    same(ffi::fc_user_get, json!({"user_id": me["id"].to_string()}), &format!("/api/v4/users/{}", me["id"]));
    same(ffi::fc_branches_list, json!({"project": "fx/work"}), "/api/v4/projects/fx%2Fwork/repository/branches");
    same(
        ffi::fc_branch_get,
        json!({"project": "fx/work", "branch": "feature"}),
        "/api/v4/projects/fx%2Fwork/repository/branches/feature",
    );
    same(
        ffi::fc_tags_list,
        json!({"project": "fx/work", "order_by": "name"}),
        "/api/v4/projects/fx%2Fwork/repository/tags?order_by=name",
    );
    same(
        ffi::fc_tag_get,
        json!({"project": "fx/work", "tag_name": "v1.0.0"}),
        "/api/v4/projects/fx%2Fwork/repository/tags/v1.0.0",
    );
    let (status, body) = w.instance.typed(ffi::fc_branch_get, auth.clone(), json!({"project": "fx/work"}));
    assert_eq!((status, body), (400, json!({"error": "branch is missing"})));

    // Writes through the typed doors, seen by git.
    let (status, body) = w.instance.typed(
        ffi::fc_branch_create,
        auth.clone(),
        json!({"project": "corp/secret", "branch": "t", "ref": "main"}),
    );
    assert_eq!(status, 201, "{body}");
    let work = w.fixtures.join("work");
    assert_eq!(common::git_text(&work, &["rev-parse", "t"]), common::git_text(&work, &["rev-parse", "main"]));
    let (status, _) = w.instance.typed(
        ffi::fc_tag_create,
        auth.clone(),
        json!({"project": "corp/secret", "tag_name": "tt", "ref": "t"}),
    );
    assert_eq!(status, 201);
    let (status, _) =
        w.instance.typed(ffi::fc_tag_delete, auth.clone(), json!({"project": "corp/secret", "tag_name": "tt"}));
    assert_eq!(status, 204);
    let (status, _) =
        w.instance.typed(ffi::fc_branch_delete, auth.clone(), json!({"project": "corp/secret", "branch": "t"}));
    assert_eq!(status, 204);
    assert!(common::git_text(&work, &["for-each-ref", "refs/heads/t", "refs/tags/tt"]).is_empty());
    let max = TestInstance::auth(w.token("max").unwrap());
    let (status, _) = w.instance.typed(
        ffi::fc_protected_branch_create,
        max.clone(),
        json!({"project": "corp/secret", "name": "rel-*"}),
    );
    assert_eq!(status, 201);
    let (status, one) =
        w.instance.typed(ffi::fc_protected_branch_get, max.clone(), json!({"project": "corp/secret", "name": "rel-*"}));
    assert_eq!((status, one["name"].as_str()), (200, Some("rel-*")));
    let (_, list) = w.instance.typed(ffi::fc_protected_branches_list, max.clone(), json!({"project": "corp/secret"}));
    assert_eq!(list.as_array().unwrap().len(), 2);
    let (status, _) = w.instance.typed(
        ffi::fc_protected_branch_delete,
        max.clone(),
        json!({"project": "corp/secret", "name": "rel-*"}),
    );
    assert_eq!(status, 204);
    let (status, body) = w.instance.typed(ffi::fc_branches_delete_merged, max, json!({"project": "corp/secret"}));
    assert_eq!((status, body), (202, json!({"message": "202 Accepted"})));
}
