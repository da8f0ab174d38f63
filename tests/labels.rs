//! Project labels (issue #40) through the HTTP door: the entity in GitLab's key order, create
//! (409 on a taken title, 400 on a bad color), get by id and by title, update, delete, counts,
//! permissions (anonymous 401, outsiders 404, guests read, Reporters and above write), and the
//! store's API for issues and merge requests (set/add/remove by name creating missing labels
//! with GitLab's default color, many targets at once, the list filter). SQLite under
//! `cargo test`, PostgreSQL under `make test-rust-postgres`.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use forgecore::store::labels::{self, Target, TargetType};
use serde_json::{json, Value};

struct World {
    instance: TestInstance,
    root: String,
    reporter: String,
    guest: String,
    outsider: String,
    project_id: i64,
}

/// Group `top` (private) with project `top/app`; a Reporter and a Guest of `top`; an outsider.
fn world() -> World {
    let instance = common::open_instance(json!({}));
    let root = instance.user_with_token("root", true);
    let reporter = instance.user_with_token("rita", false);
    let guest = instance.user_with_token("gus", false);
    let outsider = instance.user_with_token("otto", false);
    let group = instance.admin_ok(json!({"command": "group_add", "path": "top"}));
    let (status, project) =
        instance.call("POST", "/api/v4/projects", Some(&root), json!({"path": "app", "namespace_id": group["id"]}));
    assert_eq!(status, 201, "{project}");
    instance.admin_ok(json!({"command": "member_add", "group": "top", "username": "rita", "access_level": 20}));
    instance.admin_ok(json!({"command": "member_add", "group": "top", "username": "gus", "access_level": 10}));
    World { instance, root, reporter, guest, outsider, project_id: project["id"].as_i64().unwrap() }
}

impl World {
    fn call(&self, method: &str, target: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        self.instance.call(method, target, token, body)
    }
}

#[test]
fn create_get_update_delete_with_gitlab_entity() {
    let w = world();
    let (status, label) = w.call(
        "POST",
        "/api/v4/projects/top%2Fapp/labels",
        Some(&w.reporter),
        json!({"name": "bug", "color": "#d9534f", "description": "Broken <things>"}),
    );
    assert_eq!(status, 201, "{label}");
    assert_eq!(label["name"], "bug");
    assert_eq!(label["color"], "#d9534f");
    assert_eq!(label["text_color"], "#FFFFFF");
    assert_eq!(label["description"], "Broken <things>");
    assert!(label["description_html"].as_str().unwrap().contains("Broken &lt;things&gt;"));
    assert_eq!(label["is_project_label"], true);
    assert_eq!(label["priority"], Value::Null);
    // GitLab's key order (raw text: serde_json's map sorts, so order is read from the bytes).
    let (_, _, raw) =
        w.instance.request("GET", "/api/v4/projects/top%2Fapp/labels/bug", &[("PRIVATE-TOKEN", w.guest.as_str())], b"");
    let text = String::from_utf8(raw).unwrap();
    let order = [
        "\"id\"",
        "\"name\"",
        "\"color\"",
        "\"description\"",
        "\"description_html\"",
        "\"text_color\"",
        "\"remove_on_close\"",
        "\"subscribed\"",
        "\"priority\"",
        "\"is_project_label\"",
    ];
    let positions: Vec<usize> = order.iter().map(|k| text.find(k).unwrap_or_else(|| panic!("{k} in {text}"))).collect();
    assert!(positions.windows(2).all(|p| p[0] < p[1]), "key order of {text}");

    let id = label["id"].as_i64().unwrap();
    let (status, by_id) =
        w.call("GET", &format!("/api/v4/projects/top%2Fapp/labels/{id}"), Some(&w.guest), Value::Null);
    assert_eq!((status, by_id["name"].clone()), (200, json!("bug")));

    let (status, body) =
        w.call("POST", "/api/v4/projects/top%2Fapp/labels", Some(&w.reporter), json!({"name": "bug", "color": "#fff"}));
    assert_eq!((status, body), (409, json!({"message": "Label already exists"})));
    let (status, body) =
        w.call("POST", "/api/v4/projects/top%2Fapp/labels", Some(&w.reporter), json!({"name": "x", "color": "nope"}));
    assert_eq!((status, body), (400, json!({"message": {"color": ["must be a valid color code"]}})));
    let (status, body) = w.call("POST", "/api/v4/projects/top%2Fapp/labels", Some(&w.reporter), json!({"name": "x"}));
    assert_eq!((status, body), (400, json!({"error": "color is missing"})));

    let (status, updated) = w.call(
        "PUT",
        &format!("/api/v4/projects/top%2Fapp/labels/{id}"),
        Some(&w.reporter),
        json!({"new_name": "defect", "color": "red", "priority": 3}),
    );
    assert_eq!(status, 200, "{updated}");
    assert_eq!(
        (updated["name"].clone(), updated["color"].clone(), updated["priority"].clone()),
        (json!("defect"), json!("#FF0000"), json!(3))
    );
    let (status, body) = w.call("PUT", "/api/v4/projects/top%2Fapp/labels/defect", Some(&w.reporter), json!({}));
    assert_eq!(status, 400, "{body}");
    let (status, _) = w.call("GET", "/api/v4/projects/top%2Fapp/labels/bug", Some(&w.reporter), Value::Null);
    assert_eq!(status, 404);

    let (status, _) = w.call("DELETE", "/api/v4/projects/top%2Fapp/labels/defect", Some(&w.reporter), Value::Null);
    assert_eq!(status, 204);
    let (status, body) = w.call("GET", &format!("/api/v4/projects/top%2Fapp/labels/{id}"), Some(&w.root), Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Label Not Found"})));
}

#[test]
fn who_may_read_and_write_labels() {
    let w = world();
    let create = |token: Option<&str>, name: &str| {
        w.call("POST", "/api/v4/projects/top%2Fapp/labels", token, json!({"name": name, "color": "#00ff00"})).0
    };
    assert_eq!(create(None, "a"), 401);
    assert_eq!(create(Some(&w.outsider), "a"), 404);
    assert_eq!(create(Some(&w.guest), "a"), 403);
    assert_eq!(create(Some(&w.reporter), "a"), 201);
    assert_eq!(create(Some(&w.root), "b"), 201);
    let list = |token: Option<&str>| w.call("GET", "/api/v4/projects/top%2Fapp/labels", token, Value::Null);
    assert_eq!(list(None).0, 401);
    assert_eq!(list(Some(&w.outsider)).0, 404);
    let (status, body) = list(Some(&w.guest));
    assert_eq!(status, 200);
    assert_eq!(common::names(&body), ["a", "b"]);
    for (method, body) in [("PUT", json!({"color": "#000"})), ("DELETE", Value::Null)] {
        let (status, _) = w.call(method, "/api/v4/projects/top%2Fapp/labels/a", Some(&w.guest), body);
        assert_eq!(status, 403, "{method} by a guest");
    }
    // `search` and pagination.
    let (status, body) = w.call("GET", "/api/v4/projects/top%2Fapp/labels?search=B", Some(&w.guest), Value::Null);
    assert_eq!((status, common::names(&body)), (200, vec!["b".to_string()]));
    let (_, headers, _) = w.instance.request(
        "GET",
        "/api/v4/projects/top%2Fapp/labels?per_page=1",
        &[("PRIVATE-TOKEN", w.guest.as_str())],
        b"",
    );
    assert!(headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("x-total") && v == "2"), "{headers:?}");
}

#[test]
fn the_store_api_sets_adds_removes_reads_and_filters_by_name() {
    let w = world();
    let project = w.project_id;
    let store = &w.instance.ctx().store;
    let (one, two, mr) = (
        Target { kind: TargetType::Issue, id: 101 },
        Target { kind: TargetType::Issue, id: 102 },
        Target { kind: TargetType::MergeRequest, id: 101 },
    );
    let titles = |labels: &[labels::Label]| labels.iter().map(|l| l.title.clone()).collect::<Vec<_>>();
    let s = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    store
        .write(|db| -> Result<(), forgecore::store::StoreError> {
            let set = labels::set(db, project, one, &s(&["renovate", "dependencies", "renovate", " "]))?;
            assert_eq!(titles(&set), ["dependencies", "renovate"], "sorted, duplicates and blanks dropped");
            assert!(set.iter().all(|l| l.color == labels::DEFAULT_COLOR), "created with GitLab's default color");
            assert_eq!(titles(&labels::add(db, project, two, &s(&["bug"]))?), ["bug"]);
            assert_eq!(titles(&labels::add(db, project, one, &s(&["bug"]))?), ["bug", "dependencies", "renovate"]);
            assert_eq!(
                titles(&labels::remove(db, project, one, &s(&["renovate", "absent"]))?),
                ["bug", "dependencies"]
            );
            assert_eq!(titles(&labels::set(db, project, mr, &s(&["dependencies"]))?), ["dependencies"]);
            // Many targets at once: the merge request with the same id is another target.
            let all = labels::of_targets(db, TargetType::Issue, &[101, 102, 103])?;
            assert_eq!(titles(&all[&101]), ["bug", "dependencies"]);
            assert_eq!(titles(&all[&102]), ["bug"]);
            assert!(!all.contains_key(&103));
            assert_eq!(labels::list(db, project, None)?.len(), 3, "labels are the project's, made once each");
            Ok(())
        })
        .unwrap();
    // The filter, in a query of its own over the two ids.
    let matching = |names: &[&str]| -> Vec<i64> {
        store
            .read(|db| -> Result<Vec<i64>, forgecore::store::StoreError> {
                let mut params: Vec<Box<dyn forgecore::store::Param>> = Vec::new();
                let condition = labels::filter_sql(TargetType::Issue, "t.id", &s(names), &mut params);
                let refs: Vec<&dyn forgecore::store::Param> = params.iter().map(|p| p.as_ref()).collect();
                db.rows(
                    &format!("SELECT t.id FROM (SELECT CAST(101 AS BIGINT) AS id UNION SELECT CAST(102 AS BIGINT) UNION SELECT CAST(103 AS BIGINT)) t WHERE {condition} ORDER BY t.id"),
                    &refs,
                    |r| r.i64(0),
                )
            })
            .unwrap()
    };
    assert_eq!(matching(&["bug"]), [101, 102]);
    assert_eq!(matching(&["bug", "dependencies"]), [101]);
    assert_eq!(matching(&["None"]), [103]);
    assert_eq!(matching(&["Any"]), [101, 102]);
    assert_eq!(matching(&[]), [101, 102, 103]);
    // Deleting a label takes it off its targets.
    let (status, _) = w.call("DELETE", "/api/v4/projects/top%2Fapp/labels/bug", Some(&w.root), Value::Null);
    assert_eq!(status, 204);
    assert_eq!(matching(&["bug"]), Vec::<i64>::new());
}
