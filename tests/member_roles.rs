//! Member roles A1-A7 (seed §4, decisions D3) through the HTTP door.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use serde_json::{json, Value};

const FLAGS: usize = 21;

/// A JSON request; answers the status and the parsed body (Null when empty).
fn call(instance: &TestInstance, method: &str, target: &str, token: Option<&str>, body: Option<Value>) -> (u16, Value) {
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(token) = token {
        headers.push(("PRIVATE-TOKEN", token));
    }
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let (status, _, bytes) = instance.request(method, target, &headers, body.as_bytes());
    let value = if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).expect("JSON body") };
    (status, value)
}

struct World {
    instance: TestInstance,
    admin: String,
    owner: String,
    maintainer: String,
    outsider: String,
}

/// An admin; group `top` (private) with `top/sub`; an owner and a maintainer of `top`;
/// an outsider; a public group `open`.
fn world() -> World {
    let instance = common::open_instance(json!({}));
    let admin = instance.user_with_token("root", true);
    let owner = instance.user_with_token("olivia", false);
    let maintainer = instance.user_with_token("max", false);
    let outsider = instance.user_with_token("otto", false);
    for command in [
        json!({"command": "group_add", "path": "top"}),
        json!({"command": "group_add", "path": "top/sub"}),
        json!({"command": "group_add", "path": "open", "visibility": "public"}),
        json!({"command": "member_add", "group": "top", "username": "olivia", "access_level": 50}),
        json!({"command": "member_add", "group": "top", "username": "max", "access_level": 40}),
    ] {
        let (status, body) = instance.admin(command);
        assert_eq!(status, 201, "{body}");
    }
    World { instance, admin, owner, maintainer, outsider }
}

impl World {
    /// A POST with a JSON body as the holder of `token`.
    fn post(&self, target: &str, token: &str, body: Value) -> (u16, Value) {
        call(&self.instance, "POST", target, Some(token), Some(body))
    }
}

fn role_count(w: &World) -> usize {
    let (_, instance_roles) = call(&w.instance, "GET", "/api/v4/member_roles", Some(&w.admin), None);
    let (_, group_roles) = call(&w.instance, "GET", "/api/v4/groups/top/member_roles", Some(&w.admin), None);
    instance_roles.as_array().unwrap().len() + group_roles.as_array().unwrap().len()
}

#[test]
fn anonymous_callers_get_401_on_every_route_and_nothing_changes() {
    let w = world();
    let (_, role) = w.post("/api/v4/member_roles", &w.admin, json!({"name": "r", "base_access_level": 10}));
    let id = role["id"].as_i64().unwrap();
    let before = role_count(&w);
    for (method, target) in [
        ("GET", "/api/v4/member_roles".to_string()),
        ("POST", "/api/v4/member_roles".to_string()),
        ("DELETE", format!("/api/v4/member_roles/{id}")),
        ("PUT", format!("/api/v4/member_roles/{id}")),
        ("GET", "/api/v4/groups/top/member_roles".to_string()),
        ("POST", "/api/v4/groups/top/member_roles".to_string()),
        ("DELETE", "/api/v4/groups/top/member_roles/1".to_string()),
    ] {
        let (status, body) =
            call(&w.instance, method, &target, None, Some(json!({"name": "x", "base_access_level": 10})));
        assert_eq!((status, body), (401, json!({"message": "401 Unauthorized"})), "{method} {target}");
    }
    assert_eq!(role_count(&w), before);
}

#[test]
fn instance_routes_are_for_administrators_only() {
    let w = world();
    for token in [&w.owner, &w.outsider] {
        let (status, body) = call(&w.instance, "GET", "/api/v4/member_roles", Some(token), None);
        assert_eq!((status, body), (403, json!({"message": "403 Forbidden"})));
        let (status, _) = w.post("/api/v4/member_roles", token, json!({"name": "x", "base_access_level": 10}));
        assert_eq!(status, 403);
    }
    assert_eq!(role_count(&w), 0);
    let (status, body) = call(&w.instance, "GET", "/api/v4/member_roles", Some(&w.admin), None);
    assert_eq!((status, body), (200, json!([])));
}

#[test]
fn create_answers_201_with_every_flag_present() {
    let w = world();
    let (status, role) = w.post(
        "/api/v4/member_roles",
        &w.admin,
        json!({"name": "Reader", "base_access_level": 10, "read_code": true, "unknown_flag": true}),
    );
    assert_eq!(status, 201, "{role}");
    let object = role.as_object().unwrap();
    assert_eq!(object.len(), 5 + FLAGS, "{role}");
    assert!(role["id"].as_i64().unwrap() > 0);
    assert_eq!(role["group_id"], Value::Null);
    assert_eq!(role["description"], Value::Null);
    assert_eq!(role["base_access_level"], 10);
    assert_eq!(role["read_code"], true);
    let enabled: Vec<_> = object.iter().filter(|(_, v)| **v == Value::Bool(true)).map(|(k, _)| k.clone()).collect();
    assert_eq!(enabled, vec!["read_code"]);
    assert!(object.contains_key("admin_security_testing"));
    let (_, list) = call(&w.instance, "GET", "/api/v4/member_roles", Some(&w.admin), None);
    assert_eq!(list, json!([role]));
}

#[test]
fn missing_and_invalid_parameters_are_400_with_grape_messages() {
    let w = world();
    let post = |body: Value| call(&w.instance, "POST", "/api/v4/member_roles", Some(&w.admin), Some(body));
    assert_eq!(post(json!({"base_access_level": 10})), (400, json!({"error": "name is missing"})));
    assert_eq!(post(json!({"name": "n"})), (400, json!({"error": "base_access_level is missing"})));
    assert_eq!(post(json!({})), (400, json!({"error": "name is missing, base_access_level is missing"})));
    for level in [
        json!(0),
        json!(1),
        json!(5),
        json!(25),
        json!(60),
        json!(-10),
        json!(2147483648i64),
        json!(30.5),
        json!(null),
        json!(true),
        json!("abc"),
    ] {
        assert_eq!(
            post(json!({"name": "n", "base_access_level": level})),
            (400, json!({"error": "base_access_level does not have a valid value"})),
            "{level}"
        );
    }
    for bad in [json!(2), json!("maybe"), json!([true])] {
        assert_eq!(
            post(json!({"name": "n", "base_access_level": 10, "read_code": bad})),
            (400, json!({"error": "read_code is invalid"}))
        );
    }
    assert_eq!(post(json!({"name": "  ", "base_access_level": 10})), (400, json!({"message": "Name can't be blank"})));
    assert_eq!(post(json!({"name": 5, "base_access_level": 10})).0, 201, "Grape coerces numbers to strings");
    let (status, role) =
        post(json!({"name": "nulls", "base_access_level": 10, "read_code": null, "description": null}));
    assert_eq!(
        (status, role["read_code"].clone(), role["description"].clone()),
        (201, json!(false), Value::Null),
        "null is absent"
    );
    assert_eq!(post(json!({"name": {"a": 1}, "base_access_level": 10})), (400, json!({"error": "name is invalid"})));
    assert_eq!(role_count(&w), 2);
}

#[test]
fn digit_strings_and_grape_boolean_words_are_coerced() {
    let w = world();
    let (status, role) = call(
        &w.instance,
        "POST",
        "/api/v4/member_roles",
        Some(&w.admin),
        Some(
            json!({"name": "n", "base_access_level": "30", "read_code": "True", "remove_project": "yes", "read_runners": "0"}),
        ),
    );
    assert_eq!(status, 201, "{role}");
    assert_eq!(
        (
            role["base_access_level"].clone(),
            role["read_code"].clone(),
            role["remove_project"].clone(),
            role["read_runners"].clone()
        ),
        (json!(30), json!(true), json!(true), json!(false))
    );
}

#[test]
fn every_base_access_level_of_the_seed_is_accepted() {
    let w = world();
    for level in [10, 15, 20, 30, 40, 50] {
        let (status, role) =
            w.post("/api/v4/member_roles", &w.admin, json!({"name": format!("l{level}"), "base_access_level": level}));
        assert_eq!((status, role["base_access_level"].clone()), (201, json!(level)));
    }
}

#[test]
fn admin_vulnerability_requires_read_vulnerability_below_developer() {
    let w = world();
    let post = |name: &str, body: Value| {
        let mut body = body;
        body["name"] = json!(name);
        call(&w.instance, "POST", "/api/v4/member_roles", Some(&w.admin), Some(body))
    };
    assert_eq!(
        post("a", json!({"base_access_level": 10, "admin_vulnerability": true})),
        (400, json!({"message": "Read vulnerability has to be enabled in order to enable Admin vulnerability"}))
    );
    assert_eq!(
        post("b", json!({"base_access_level": 10, "admin_vulnerability": true, "read_vulnerability": true})).0,
        201
    );
    assert_eq!(post("c", json!({"base_access_level": 30, "admin_vulnerability": true})).0, 201);
}

#[test]
fn texts_are_bounded_and_stored_literally() {
    let w = world();
    let post = |body: Value| call(&w.instance, "POST", "/api/v4/member_roles", Some(&w.admin), Some(body));
    let huge = "x".repeat(100 * 1024);
    assert_eq!(
        post(json!({"name": huge, "base_access_level": 10})),
        (400, json!({"message": "Name is too long (maximum is 255 characters)"}))
    );
    assert_eq!(
        post(json!({"name": "d", "description": "y".repeat(256), "base_access_level": 10})),
        (400, json!({"message": "Description is too long (maximum is 255 characters)"}))
    );
    // A null byte is refused as GitLab refuses it (and PostgreSQL could not store it).
    assert_eq!(
        post(json!({"name": "nul\u{0}inside", "base_access_level": 10})),
        (400, json!({"message": "400 Bad request - name contains a null byte"}))
    );
    for name in ["Robert'); DROP TABLE member_roles;--", "\u{202e}émoji 🎉", "tab\tinside", "%2F/..\\"] {
        let (status, role) = post(json!({"name": name, "description": name, "base_access_level": 10}));
        assert_eq!(status, 201, "{role}");
        assert_eq!((role["name"].as_str(), role["description"].as_str()), (Some(name), Some(name)));
    }
    let (_, list) = call(&w.instance, "GET", "/api/v4/member_roles", Some(&w.admin), None);
    assert_eq!(list.as_array().unwrap().len(), 4);
}

#[test]
fn names_are_unique_per_namespace_and_lists_are_ordered_by_name() {
    let w = world();
    let post = |target: &str, name: &str| {
        call(&w.instance, "POST", target, Some(&w.admin), Some(json!({"name": name, "base_access_level": 10}))).0
    };
    assert_eq!(post("/api/v4/member_roles", "beta"), 201);
    assert_eq!(post("/api/v4/member_roles", "alpha"), 201);
    let (status, body) = w.post("/api/v4/member_roles", &w.admin, json!({"name": "beta", "base_access_level": 20}));
    assert_eq!((status, body), (400, json!({"message": "Name has already been taken"})));
    assert_eq!(post("/api/v4/groups/top/member_roles", "beta"), 201);
    assert_eq!(post("/api/v4/groups/top/member_roles", "beta"), 400);
    let (_, list) = call(&w.instance, "GET", "/api/v4/member_roles", Some(&w.admin), None);
    let names: Vec<_> = list.as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_string()).collect();
    assert_eq!(names, ["alpha", "beta"]);
}

#[test]
fn group_roles_are_managed_by_owners_of_root_groups() {
    let w = world();
    let (status, role) =
        w.post("/api/v4/groups/top/member_roles", &w.owner, json!({"name": "g", "base_access_level": 20}));
    assert_eq!(status, 201, "{role}");
    let (_, top) = w.instance.admin(json!({"command": "group_add", "path": "other"}));
    assert!(top["id"].as_i64().is_some());
    let (_, groups) = call(&w.instance, "GET", "/api/v4/groups/top", Some(&w.owner), None);
    assert_eq!(role["group_id"], groups["id"]);

    // Subgroups: creation refused, listing shows the root's roles.
    let (status, body) =
        w.post("/api/v4/groups/top%2Fsub/member_roles", &w.owner, json!({"name": "s", "base_access_level": 20}));
    assert_eq!((status, body), (400, json!({"message": "Creation of member role is allowed only for root groups"})));
    let (status, list) = call(&w.instance, "GET", "/api/v4/groups/top%2Fsub/member_roles", Some(&w.owner), None);
    assert_eq!((status, list), (200, json!([role])));

    // Maintainers are members but not owners: 403. Outsiders of a private group: 404.
    let (status, _) = call(&w.instance, "GET", "/api/v4/groups/top/member_roles", Some(&w.maintainer), None);
    assert_eq!(status, 403);
    let (status, _) =
        w.post("/api/v4/groups/top/member_roles", &w.maintainer, json!({"name": "m", "base_access_level": 10}));
    assert_eq!(status, 403);
    let (status, body) = call(&w.instance, "GET", "/api/v4/groups/top/member_roles", Some(&w.outsider), None);
    assert_eq!((status, body), (404, json!({"message": "404 Group Not Found"})));
    // A public group the caller does not own: 403; an unknown group: 404.
    let (status, _) = call(&w.instance, "GET", "/api/v4/groups/open/member_roles", Some(&w.outsider), None);
    assert_eq!(status, 403);
    for unknown in ["nope", "999999", "top%2Fnope"] {
        let (status, body) =
            call(&w.instance, "GET", &format!("/api/v4/groups/{unknown}/member_roles"), Some(&w.admin), None);
        assert_eq!((status, body), (404, json!({"message": "404 Group Not Found"})), "{unknown}");
    }
    // Custom-role flags never make a member an owner.
    let (_, flags_role) = w.post(
        "/api/v4/groups/top/member_roles",
        &w.owner,
        json!({"name": "hm", "base_access_level": 40, "admin_group_member": true}),
    );
    w.instance.admin(json!({"command": "member_add", "group": "top", "username": "max", "access_level": 40, "member_role_id": flags_role["id"]}));
    let (status, _) =
        w.post("/api/v4/groups/top/member_roles", &w.maintainer, json!({"name": "esc", "base_access_level": 10}));
    assert_eq!(status, 403);
}

#[test]
fn a_root_group_holds_at_most_ten_roles() {
    let w = world();
    for i in 0..10 {
        let (status, _) = w.post(
            "/api/v4/groups/top/member_roles",
            &w.owner,
            json!({"name": format!("r{i}"), "base_access_level": 10}),
        );
        assert_eq!(status, 201);
    }
    let (status, body) =
        w.post("/api/v4/groups/top/member_roles", &w.owner, json!({"name": "r10", "base_access_level": 10}));
    assert_eq!(
        (status, body),
        (
            400,
            json!({"message": "Namespace maximum number of Member Roles are already in use by the group hierarchy. Please delete an existing Member Role."})
        )
    );
    // Instance roles have no cap.
    for i in 0..12 {
        assert_eq!(
            call(
                &w.instance,
                "POST",
                "/api/v4/member_roles",
                Some(&w.admin),
                Some(json!({"name": format!("i{i}"), "base_access_level": 10}))
            )
            .0,
            201
        );
    }
}

#[test]
fn concurrent_creates_never_exceed_the_cap() {
    let w = world();
    for i in 0..9 {
        w.post("/api/v4/groups/top/member_roles", &w.owner, json!({"name": format!("r{i}"), "base_access_level": 10}));
    }
    // A second context on the same data directory stands in for a second process.
    let other = w.instance.reopen();
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..20)
            .map(|i| {
                let instance = if i % 2 == 0 { &w.instance } else { &other };
                let token = w.owner.clone();
                scope.spawn(move || {
                    call(
                        instance,
                        "POST",
                        "/api/v4/groups/top/member_roles",
                        Some(&token),
                        Some(json!({"name": format!("race{i}"), "base_access_level": 10})),
                    )
                    .0
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 1, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 400).count(), 19, "{statuses:?}");
    let (_, list) = call(&w.instance, "GET", "/api/v4/groups/top/member_roles", Some(&w.owner), None);
    assert_eq!(list.as_array().unwrap().len(), 10);
}

#[test]
fn delete_answers_204_and_is_scoped_to_its_namespace() {
    let w = world();
    let (_, instance_role) = w.post("/api/v4/member_roles", &w.admin, json!({"name": "i", "base_access_level": 10}));
    let (_, group_role) =
        w.post("/api/v4/groups/top/member_roles", &w.owner, json!({"name": "g", "base_access_level": 10}));
    w.instance.admin(json!({"command": "group_add", "path": "mine"}));
    w.instance.admin(json!({"command": "member_add", "group": "mine", "username": "otto", "access_level": 50}));
    let not_found = (404, json!({"message": "404 Member Role Not Found"}));
    // Another group's owner, and the instance route, cannot reach a group's role.
    assert_eq!(
        call(
            &w.instance,
            "DELETE",
            &format!("/api/v4/groups/mine/member_roles/{}", group_role["id"]),
            Some(&w.outsider),
            None
        ),
        not_found
    );
    assert_eq!(
        call(&w.instance, "DELETE", &format!("/api/v4/member_roles/{}", group_role["id"]), Some(&w.admin), None),
        not_found
    );
    assert_eq!(
        call(
            &w.instance,
            "DELETE",
            &format!("/api/v4/groups/top/member_roles/{}", instance_role["id"]),
            Some(&w.owner),
            None
        ),
        not_found
    );
    assert_eq!(role_count(&w), 2);

    let (status, _, body) = w.instance.request(
        "DELETE",
        &format!("/api/v4/member_roles/{}", instance_role["id"]),
        &[("PRIVATE-TOKEN", &w.admin)],
        b"",
    );
    assert_eq!((status, body.len()), (204, 0));
    assert_eq!(
        call(&w.instance, "DELETE", &format!("/api/v4/member_roles/{}", instance_role["id"]), Some(&w.admin), None),
        not_found
    );
    assert_eq!(
        call(
            &w.instance,
            "DELETE",
            &format!("/api/v4/groups/top/member_roles/{}", group_role["id"]),
            Some(&w.owner),
            None
        )
        .0,
        204
    );
    assert_eq!(role_count(&w), 0);
}

#[test]
fn odd_role_ids_are_4xx_never_5xx() {
    let w = world();
    for id in ["0", "-1", "9223372036854775808", "abc", "1e3", "1%20OR%201=1", "%00", "99999999"] {
        for method in ["DELETE", "PUT"] {
            let (status, body) = call(
                &w.instance,
                method,
                &format!("/api/v4/member_roles/{id}"),
                Some(&w.admin),
                Some(json!({"name": "z"})),
            );
            assert!(status == 400 || status == 404, "{method} {id}: {status} {body}");
        }
    }
}

#[test]
fn a_role_in_use_cannot_be_deleted() {
    let w = world();
    let (_, role) =
        w.post("/api/v4/groups/top/member_roles", &w.owner, json!({"name": "used", "base_access_level": 10}));
    let (status, _) = w.instance.admin(json!({"command": "member_add", "group": "top/sub", "username": "otto", "access_level": 10, "member_role_id": role["id"]}));
    assert_eq!(status, 201);
    let (status, body) =
        call(&w.instance, "DELETE", &format!("/api/v4/groups/top/member_roles/{}", role["id"]), Some(&w.owner), None);
    assert_eq!(status, 400);
    assert!(body["message"].as_str().unwrap().starts_with("Role is assigned to one or more group members"), "{body}");
    assert_eq!(role_count(&w), 1);
}

#[test]
fn update_changes_name_and_description_only() {
    let w = world();
    let (_, role) =
        w.post("/api/v4/member_roles", &w.admin, json!({"name": "old", "base_access_level": 20, "read_code": true}));
    w.post("/api/v4/member_roles", &w.admin, json!({"name": "taken", "base_access_level": 20}));
    let target = format!("/api/v4/member_roles/{}", role["id"]);
    let put = |body: Value| call(&w.instance, "PUT", &target, Some(&w.admin), Some(body));

    let (status, updated) = put(json!({"name": "new", "description": "reads code"}));
    assert_eq!(status, 200, "{updated}");
    let mut expected = role.clone();
    expected["name"] = json!("new");
    expected["description"] = json!("reads code");
    assert_eq!(updated, expected);
    assert_eq!(put(json!({"description": null})).1["description"], Value::Null);
    assert_eq!(
        put(json!({"base_access_level": 30})),
        (400, json!({"message": "Base access level cannot be changed. Please create a new Member Role instead."}))
    );
    assert_eq!(put(json!({"name": "same level", "base_access_level": 20})).0, 200);
    assert_eq!(
        put(json!({})),
        (400, json!({"error": "name, description are missing, at least one parameter must be provided"}))
    );
    assert_eq!(put(json!({"name": "taken"})), (400, json!({"message": "Name has already been taken"})));
    assert_eq!(put(json!({"name": ""})), (400, json!({"message": "Name can't be blank"})));

    // A form body works too.
    let (status, _, body) = w.instance.request(
        "PUT",
        &target,
        &[("PRIVATE-TOKEN", &w.admin), ("Content-Type", "application/x-www-form-urlencoded")],
        b"name=form+name&description=caf%C3%A9",
    );
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!((status, body["name"].as_str(), body["description"].as_str()), (200, Some("form name"), Some("café")));

    // Group roles through the group route only.
    let (_, group_role) =
        w.post("/api/v4/groups/top/member_roles", &w.owner, json!({"name": "g", "base_access_level": 10}));
    assert_eq!(
        call(
            &w.instance,
            "PUT",
            &format!("/api/v4/member_roles/{}", group_role["id"]),
            Some(&w.admin),
            Some(json!({"name": "x"}))
        )
        .0,
        404
    );
    let (status, body) = call(
        &w.instance,
        "PUT",
        &format!("/api/v4/groups/top/member_roles/{}", group_role["id"]),
        Some(&w.owner),
        Some(json!({"name": "x"})),
    );
    assert_eq!((status, body["name"].as_str()), (200, Some("x")));
    assert_eq!(
        call(
            &w.instance,
            "PUT",
            &format!("/api/v4/groups/top/member_roles/{}", group_role["id"]),
            Some(&w.maintainer),
            Some(json!({"name": "y"}))
        )
        .0,
        403
    );
}

/// Every group role route, on the root group and on its subgroup, for every kind of caller.
/// Roles belong to root groups: ownership of `top/sub` alone reaches none of `top`'s roles
/// (a subgroup route finds no role, as GitLab's `group.member_roles.find_by_id` finds none),
/// and listing on a subgroup shows the root's roles to whoever owns the subgroup.
#[test]
fn group_role_routes_by_caller_matrix() {
    let w = world();
    let sub_owner = w.instance.user_with_token("sofia", false);
    let other_owner = w.outsider.clone();
    for command in [
        json!({"command": "member_add", "group": "top/sub", "username": "sofia", "access_level": 50}),
        json!({"command": "group_add", "path": "elsewhere"}),
        json!({"command": "member_add", "group": "elsewhere", "username": "otto", "access_level": 50}),
    ] {
        let (status, body) = w.instance.admin(command);
        assert_eq!(status, 201, "{body}");
    }
    let callers = [
        ("owner of top", w.owner.clone()),
        ("owner of top/sub only", sub_owner),
        ("owner of another group", other_owner),
        ("maintainer of top", w.maintainer.clone()),
        ("administrator", w.admin.clone()),
    ];
    let fresh_role = |name: &str| -> Value {
        let (status, role) =
            w.post("/api/v4/groups/top/member_roles", &w.admin, json!({"name": name, "base_access_level": 10}));
        assert_eq!(status, 201, "{role}");
        role
    };
    let role_exists = |role: &Value| -> Option<Value> {
        let (_, list) = call(&w.instance, "GET", "/api/v4/groups/top/member_roles", Some(&w.admin), None);
        list.as_array().unwrap().iter().find(|r| r["id"] == role["id"]).cloned()
    };
    // (route group, caller index) -> expected statuses of list, create, update, delete.
    let expected: [(&str, [[u16; 4]; 5]); 2] = [
        (
            "top",
            [
                [200, 201, 200, 204],
                [403, 403, 403, 403],
                [404, 404, 404, 404],
                [403, 403, 403, 403],
                [200, 201, 200, 204],
            ],
        ),
        (
            "top%2Fsub",
            [
                [200, 400, 404, 404],
                [200, 400, 404, 404],
                [404, 404, 404, 404],
                [403, 403, 403, 403],
                [200, 400, 404, 404],
            ],
        ),
    ];
    let mut n = 0;
    for (route, rows) in expected {
        for ((who, token), [list, create, update, delete]) in callers.iter().zip(rows) {
            n += 1;
            let base = format!("/api/v4/groups/{route}/member_roles");
            let (status, body) = call(&w.instance, "GET", &base, Some(token), None);
            assert_eq!(status, list, "GET {route} as {who}: {body}");
            if status == 200 {
                assert!(body.as_array().unwrap().iter().all(|r| r["group_id"].is_i64()), "{body}");
            }
            let (status, body) = w.post(&base, token, json!({"name": format!("new {n}"), "base_access_level": 10}));
            assert_eq!(status, create, "POST {route} as {who}: {body}");

            let role = fresh_role(&format!("target {n}"));
            let target = format!("{base}/{}", role["id"]);
            let (status, body) =
                call(&w.instance, "PUT", &target, Some(token), Some(json!({"name": format!("renamed {n}")})));
            assert_eq!(status, update, "PUT {route} as {who}: {body}");
            let after = role_exists(&role).expect("a PUT never deletes");
            let renamed = after["name"] == json!(format!("renamed {n}"));
            assert_eq!(renamed, status == 200, "PUT {route} as {who} changed the role: {after}");

            let (status, body) = call(&w.instance, "DELETE", &target, Some(token), None);
            assert_eq!(status, delete, "DELETE {route} as {who}: {body}");
            assert_eq!(role_exists(&role).is_none(), status == 204, "DELETE {route} as {who}");
            if status == 404 {
                let not_found = if list == 404 { "404 Group Not Found" } else { "404 Member Role Not Found" };
                assert_eq!(body, json!({"message": not_found}), "DELETE {route} as {who}");
            }
            // Keep the root group under its cap of ten roles.
            if let Some(role) = role_exists(&role) {
                call(
                    &w.instance,
                    "DELETE",
                    &format!("/api/v4/groups/top/member_roles/{}", role["id"]),
                    Some(&w.admin),
                    None,
                );
            }
            let (_, list) = call(&w.instance, "GET", "/api/v4/groups/top/member_roles", Some(&w.admin), None);
            for role in list.as_array().unwrap() {
                call(
                    &w.instance,
                    "DELETE",
                    &format!("/api/v4/groups/top/member_roles/{}", role["id"]),
                    Some(&w.admin),
                    None,
                );
            }
        }
    }
}
