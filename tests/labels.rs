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
            let here = labels::Available::for_project(db, project, None)?;
            let set =
                labels::set(db, &here, project, one, &s(&["renovate", "dependencies", "renovate", " "]), Some(1))?;
            assert_eq!(titles(&set), ["dependencies", "renovate"], "sorted, duplicates and blanks dropped");
            assert!(set.iter().all(|l| l.color == labels::DEFAULT_COLOR), "created with GitLab's default color");
            assert_eq!(titles(&labels::add(db, &here, project, two, &s(&["bug"]), Some(1))?), ["bug"]);
            assert_eq!(
                titles(&labels::add(db, &here, project, one, &s(&["bug"]), None)?),
                ["bug", "dependencies", "renovate"]
            );
            assert_eq!(
                titles(&labels::remove(db, one, &s(&["renovate", "absent"]), Some(1))?),
                ["bug", "dependencies"]
            );
            assert_eq!(titles(&labels::set(db, &here, project, mr, &s(&["dependencies"]), Some(1))?), ["dependencies"]);
            // Many targets at once: the merge request with the same id is another target.
            let all = labels::of_targets(db, TargetType::Issue, &[101, 102, 103])?;
            assert_eq!(titles(&all[&101]), ["bug", "dependencies"]);
            assert_eq!(titles(&all[&102]), ["bug"]);
            assert!(!all.contains_key(&103));
            assert_eq!(labels::list(db, &here, None)?.len(), 3, "labels are the project's, made once each");
            // Every change was recorded as label events, the actor with it; setting the same
            // labels again records nothing.
            let events = labels::events(db, one)?;
            let seen: Vec<(String, String, Option<i64>)> =
                events.iter().map(|e| (e.action.clone(), e.label.as_ref().unwrap().title.clone(), e.user_id)).collect();
            assert_eq!(
                seen,
                [
                    ("add".into(), "renovate".into(), Some(1)),
                    ("add".into(), "dependencies".into(), Some(1)),
                    ("add".into(), "bug".into(), None),
                    ("remove".into(), "renovate".into(), Some(1)),
                ]
            );
            labels::set(db, &here, project, mr, &s(&["dependencies"]), Some(1))?;
            assert_eq!(labels::events(db, mr)?.len(), 1);
            assert_eq!(labels::event(db, mr, events[0].id)?, None, "an event is found only on its own target");
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
    // `with_counts` counts issues by state (none of these ids is a stored issue yet).
    let (_, issue) =
        w.call("POST", "/api/v4/projects/top%2Fapp/issues", Some(&w.root), json!({"title": "t", "labels": "bug"}));
    assert_eq!(issue["labels"], json!(["bug"]));
    let (_, counted) = w.call("GET", "/api/v4/projects/top%2Fapp/labels?with_counts=true", Some(&w.root), Value::Null);
    let bug = counted.as_array().unwrap().iter().find(|l| l["name"] == "bug").unwrap().clone();
    assert_eq!(
        (
            bug["open_issues_count"].clone(),
            bug["closed_issues_count"].clone(),
            bug["open_merge_requests_count"].clone()
        ),
        (json!(1), json!(0), json!(0))
    );
    // Deleting a label takes it off its targets.
    let (status, _) = w.call("DELETE", "/api/v4/projects/top%2Fapp/labels/bug", Some(&w.root), Value::Null);
    assert_eq!(status, 204);
    assert_eq!(matching(&["bug"]), Vec::<i64>::new());
}

#[test]
fn group_labels_reach_the_groups_projects_and_subgroups() {
    let w = world();
    let (status, sub) = w.call(
        "POST",
        "/api/v4/groups",
        Some(&w.root),
        json!({"name": "sub", "path": "sub", "parent_id": w.call("GET", "/api/v4/groups/top", Some(&w.root), Value::Null).1["id"]}),
    );
    assert_eq!(status, 201, "{sub}");
    let (status, label) = w.call(
        "POST",
        "/api/v4/groups/top/labels",
        Some(&w.reporter),
        json!({"name": "team", "color": "#112233", "description": "bar"}),
    );
    assert_eq!(status, 201, "{label}");
    assert_eq!(label["name"], "team");
    assert_eq!(label["subscribed"], false);
    assert!(label.get("is_project_label").is_none() && label.get("priority").is_none(), "GroupLabel: {label}");
    let (status, _) =
        w.call("POST", "/api/v4/groups/top/labels", Some(&w.guest), json!({"name": "g", "color": "#112233"}));
    assert_eq!(status, 403, "guests do not change labels");
    let (status, taken) =
        w.call("POST", "/api/v4/groups/top/labels", Some(&w.reporter), json!({"name": "team", "color": "red"}));
    assert_eq!((status, taken), (409, json!({"message": "Label already exists"})));
    // Update through the path and through the deprecated form python-gitlab's save uses.
    let (status, label) = w.call(
        "PUT",
        "/api/v4/groups/top/labels/team",
        Some(&w.reporter),
        json!({"description": "baz", "new_name": "Label:that requires:encoding"}),
    );
    assert_eq!(status, 200, "{label}");
    let (status, got) =
        w.call("GET", "/api/v4/groups/top/labels/Label%3Athat%20requires%3Aencoding", Some(&w.guest), Value::Null);
    assert_eq!(status, 200, "{got}");
    assert_eq!(got["description"], "baz");
    // A subgroup sees its ancestors' labels, unless it asks for its own only.
    let (_, listed) = w.call("GET", "/api/v4/groups/top%2Fsub/labels", Some(&w.root), Value::Null);
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    let (_, own) =
        w.call("GET", "/api/v4/groups/top%2Fsub/labels?include_ancestor_groups=false", Some(&w.root), Value::Null);
    assert_eq!(own, json!([]));
    // The project sees it, as no project label; an issue takes it by title, no copy made.
    let (status, project_labels) = w.call("GET", "/api/v4/projects/top%2Fapp/labels", Some(&w.guest), Value::Null);
    assert_eq!(status, 200);
    assert_eq!(project_labels[0]["id"], label["id"]);
    assert_eq!(project_labels[0]["is_project_label"], false);
    let (status, issue) = w.call(
        "POST",
        "/api/v4/projects/top%2Fapp/issues",
        Some(&w.reporter),
        json!({"title": "t", "labels": "Label:that requires:encoding,local"}),
    );
    assert_eq!(status, 201, "{issue}");
    let (_, project_labels) = w.call("GET", "/api/v4/projects/top%2Fapp/labels", Some(&w.guest), Value::Null);
    let names: Vec<&str> = project_labels.as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Label:that requires:encoding", "local"]);
    let (_, found) = w.call(
        "GET",
        "/api/v4/projects/top%2Fapp/issues?labels=Label:that%20requires:encoding",
        Some(&w.guest),
        Value::Null,
    );
    assert_eq!(found.as_array().unwrap().len(), 1);
    // A project cannot change or delete its group's label; the group can.
    let (status, _) =
        w.call("DELETE", &format!("/api/v4/projects/top%2Fapp/labels/{}", label["id"]), Some(&w.reporter), Value::Null);
    assert_eq!(status, 404);
    let (status, _) = w.call(
        "DELETE",
        "/api/v4/groups/top/labels?name=Label:that%20requires:encoding",
        Some(&w.reporter),
        Value::Null,
    );
    assert_eq!(status, 204);
    let (_, issue) = w.call("GET", "/api/v4/projects/top%2Fapp/issues/1", Some(&w.guest), Value::Null);
    assert_eq!(issue["labels"], json!(["local"]));
}

#[test]
fn subscriptions_and_promotion() {
    let w = world();
    let app = "/api/v4/projects/top%2Fapp/labels";
    let (status, label) = w.call("POST", app, Some(&w.reporter), json!({"name": "promoteme", "color": "#778899"}));
    assert_eq!(status, 201, "{label}");
    let (status, subscribed) = w.call("POST", &format!("{app}/promoteme/subscribe"), Some(&w.guest), Value::Null);
    assert_eq!(status, 201, "{subscribed}");
    assert_eq!(subscribed["subscribed"], true);
    let (status, _, body) =
        w.instance.request("POST", &format!("{app}/promoteme/subscribe"), &[("PRIVATE-TOKEN", w.guest.as_str())], b"");
    assert_eq!((status, body.len()), (304, 0), "already subscribed");
    let (_, seen) = w.call("GET", &format!("{app}/promoteme"), Some(&w.guest), Value::Null);
    assert_eq!(seen["subscribed"], true);
    let (_, other) = w.call("GET", &format!("{app}/promoteme"), Some(&w.reporter), Value::Null);
    assert_eq!(other["subscribed"], false, "subscriptions are the caller's own");
    let (status, _) = w.call("POST", &format!("{app}/promoteme/subscribe"), None, Value::Null);
    assert_eq!(status, 401);

    // Promotion: the label becomes the group's; the issue keeps it; the subscription follows.
    let (status, issue) = w.call(
        "POST",
        "/api/v4/projects/top%2Fapp/issues",
        Some(&w.reporter),
        json!({"title": "t", "labels": "promoteme"}),
    );
    assert_eq!(status, 201, "{issue}");
    let (status, denied) = w.call("PUT", &format!("{app}/promoteme/promote"), Some(&w.guest), Value::Null);
    assert_eq!(status, 403, "{denied}");
    let (status, promoted) = w.call("PUT", &format!("{app}/promoteme/promote"), Some(&w.reporter), Value::Null);
    assert_eq!(status, 200, "{promoted}");
    assert_eq!(promoted["name"], "promoteme");
    assert_eq!(promoted["color"], "#778899");
    assert!(promoted.get("is_project_label").is_none(), "GroupLabel: {promoted}");
    let (_, group_labels) = w.call("GET", "/api/v4/groups/top/labels", Some(&w.guest), Value::Null);
    assert_eq!(group_labels.as_array().unwrap().len(), 1);
    assert_eq!(group_labels[0]["id"], promoted["id"]);
    let (_, issue) = w.call("GET", "/api/v4/projects/top%2Fapp/issues/1", Some(&w.guest), Value::Null);
    assert_eq!(issue["labels"], json!(["promoteme"]));
    let (_, seen) = w.call("GET", &format!("{app}/promoteme"), Some(&w.guest), Value::Null);
    assert_eq!((seen["id"].clone(), seen["subscribed"].clone()), (promoted["id"].clone(), json!(true)));
    assert_eq!(seen["is_project_label"], false);
    // Unsubscribe, twice.
    let (status, off) = w.call("POST", &format!("{app}/promoteme/unsubscribe"), Some(&w.guest), Value::Null);
    assert_eq!((status, off["subscribed"].clone()), (201, json!(false)));
    let (status, _, _) = w.instance.request(
        "POST",
        &format!("{app}/promoteme/unsubscribe"),
        &[("PRIVATE-TOKEN", w.guest.as_str())],
        b"",
    );
    assert_eq!(status, 304);
    // A group's label is not the project's to promote; a project in no group cannot promote.
    let (status, _) = w.call("PUT", &format!("{app}/promoteme/promote"), Some(&w.reporter), Value::Null);
    assert_eq!(status, 404);
    let (status, mine) = w.call("POST", "/api/v4/projects", Some(&w.reporter), json!({"path": "mine"}));
    assert_eq!(status, 201, "{mine}");
    let own = format!("/api/v4/projects/{}/labels", mine["id"]);
    w.call("POST", &own, Some(&w.reporter), json!({"name": "x", "color": "#778899"}));
    let (status, body) = w.call("PUT", &format!("{own}/x/promote"), Some(&w.reporter), Value::Null);
    assert_eq!((status, body), (400, json!({"message": "Failed to promote project label to group label"})));
}
