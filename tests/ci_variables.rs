//! CI/CD variables of projects, groups and the instance through the HTTP door: every route,
//! GitLab's errors, hidden values, environment scopes, who may manage them (Maintainers of a
//! project, Owners of a group, administrators for the instance, and a custom role's
//! `admin_cicd_variables`), and that a deleted project or group takes its variables along.
//! SQLite under `cargo test`, PostgreSQL under `make test-rust-postgres`.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use forgecore::store::ci_variables::{self, Owner};
use serde_json::{json, Value};

const PROJECT: &str = "/api/v4/projects/top%2Fapp/variables";
const GROUP: &str = "/api/v4/groups/top/variables";
const INSTANCE: &str = "/api/v4/admin/ci/variables";

struct World {
    instance: TestInstance,
    admin: String,
    owner: String,
    maintainer: String,
    developer: String,
    delegate: String,
    outsider: String,
}

/// An admin; private group `top` with project `top/app`; its owner, a maintainer, a developer,
/// a developer whose custom role carries `admin_cicd_variables`, and an outsider. Deleting
/// purges at once.
fn world() -> World {
    let instance = common::open_instance(json!({"limits": {"deletion_delay_days": 0}}));
    let admin = instance.user_with_token("root", true);
    let owner = instance.user_with_token("olivia", false);
    let maintainer = instance.user_with_token("max", false);
    let developer = instance.user_with_token("dev", false);
    let delegate = instance.user_with_token("della", false);
    let outsider = instance.user_with_token("otto", false);
    let repo = instance.root_dir().join("app.git");
    let status = std::process::Command::new("git").args(["init", "-q", "--bare"]).arg(&repo).status().unwrap();
    assert!(status.success());
    for command in [
        json!({"command": "group_add", "path": "top"}),
        json!({"command": "project_add", "path": "top/app", "repo": repo}),
        json!({"command": "member_add", "group": "top", "username": "olivia", "access_level": 50}),
        json!({"command": "member_add", "group": "top", "username": "max", "access_level": 40}),
        json!({"command": "member_add", "group": "top", "username": "dev", "access_level": 30}),
    ] {
        instance.admin_ok(command);
    }
    let (status, role) = instance.call(
        "POST",
        "/api/v4/groups/top/member_roles",
        Some(&admin),
        json!({"name": "Variables", "base_access_level": 30, "admin_cicd_variables": true}),
    );
    assert_eq!(status, 201, "{role}");
    instance.admin_ok(json!({"command": "member_add", "group": "top", "username": "della", "access_level": 30,
                             "member_role_id": role["id"]}));
    World { instance, admin, owner, maintainer, developer, delegate, outsider }
}

impl World {
    fn call(&self, method: &str, target: &str, token: &str, body: Value) -> (u16, Value) {
        self.instance.call(method, target, Some(token), body)
    }
}

fn keys(list: &Value) -> Vec<String> {
    list.as_array().unwrap().iter().map(|v| v["key"].as_str().unwrap().to_string()).collect()
}

#[test]
fn project_variables_every_route() {
    let w = world();
    let (status, created) = w.call(
        "POST",
        PROJECT,
        &w.maintainer,
        json!({"key": "DEPLOY_URL", "value": "https://example.com", "protected": true, "variable_type": "file",
               "description": "where to deploy"}),
    );
    assert_eq!(status, 201, "{created}");
    assert_eq!(
        created,
        json!({"variable_type": "file", "key": "DEPLOY_URL", "value": "https://example.com", "hidden": false,
               "protected": true, "masked": false, "raw": false, "environment_scope": "*",
               "description": "where to deploy"})
    );
    // Defaults, and a key with spaces around it stored stripped.
    let (status, second) = w.call("POST", PROJECT, &w.maintainer, json!({"key": " TOKEN ", "value": ""}));
    assert_eq!(status, 201, "{second}");
    assert_eq!(
        second,
        json!({"variable_type": "env_var", "key": "TOKEN", "value": "", "hidden": false, "protected": false,
               "masked": false, "raw": false, "environment_scope": "*", "description": null})
    );

    let (status, list) = w.call("GET", PROJECT, &w.maintainer, Value::Null);
    assert_eq!(status, 200);
    assert_eq!(keys(&list), ["DEPLOY_URL", "TOKEN"]);
    let (status, headers, body) = w.instance.request(
        "GET",
        &format!("{PROJECT}?per_page=1&page=2"),
        &[("PRIVATE-TOKEN", w.maintainer.as_str())],
        b"",
    );
    assert_eq!(status, 200);
    assert_eq!(keys(&serde_json::from_slice(&body).unwrap()), ["TOKEN"]);
    assert!(headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("x-total") && v == "2"), "{headers:?}");

    let (status, got) = w.call("GET", &format!("{PROJECT}/DEPLOY_URL"), &w.maintainer, Value::Null);
    assert_eq!((status, got), (200, created));

    let (status, updated) = w.call(
        "PUT",
        &format!("{PROJECT}/DEPLOY_URL"),
        &w.maintainer,
        json!({"value": "https://example.org", "protected": false, "raw": true, "variable_type": "env_var"}),
    );
    assert_eq!(status, 200, "{updated}");
    assert_eq!(
        (&updated["value"], &updated["protected"], &updated["raw"], &updated["variable_type"], &updated["description"]),
        (&json!("https://example.org"), &json!(false), &json!(true), &json!("env_var"), &json!("where to deploy"))
    );
    let (_, got) = w.call("GET", &format!("{PROJECT}/DEPLOY_URL"), &w.maintainer, Value::Null);
    assert_eq!(got, updated);

    let (status, body) = w.call("DELETE", &format!("{PROJECT}/DEPLOY_URL"), &w.maintainer, Value::Null);
    assert_eq!((status, body), (204, Value::Null));
    for method in ["GET", "PUT", "DELETE"] {
        let (status, body) = w.call(method, &format!("{PROJECT}/DEPLOY_URL"), &w.maintainer, json!({"value": "x"}));
        assert_eq!((status, body), (404, json!({"message": "404 Variable Not Found"})), "{method}");
    }
    let (_, list) = w.call("GET", PROJECT, &w.maintainer, Value::Null);
    assert_eq!(keys(&list), ["TOKEN"]);
}

#[test]
fn group_variables_every_route() {
    let w = world();
    let (status, created) = w.call("POST", GROUP, &w.owner, json!({"key": "SHARED", "value": "v1", "raw": true}));
    assert_eq!(status, 201, "{created}");
    assert_eq!(
        created,
        json!({"variable_type": "env_var", "key": "SHARED", "value": "v1", "hidden": false, "protected": false,
               "masked": false, "raw": true, "environment_scope": "*", "description": null})
    );
    let (status, list) = w.call("GET", GROUP, &w.owner, Value::Null);
    assert_eq!((status, keys(&list)), (200, vec!["SHARED".to_string()]));
    let (status, got) = w.call("GET", &format!("{GROUP}/SHARED"), &w.owner, Value::Null);
    assert_eq!((status, &got), (200, &created));
    let (status, updated) = w.call("PUT", &format!("{GROUP}/SHARED"), &w.owner, json!({"value": "v2"}));
    assert_eq!((status, &updated["value"]), (200, &json!("v2")));
    let (status, _) = w.call("DELETE", &format!("{GROUP}/SHARED"), &w.owner, Value::Null);
    assert_eq!(status, 204);
    for method in ["GET", "PUT", "DELETE"] {
        let (status, body) = w.call(method, &format!("{GROUP}/SHARED"), &w.owner, json!({"value": "x"}));
        assert_eq!((status, body), (404, json!({"message": "404 GroupVariable Not Found"})), "{method}");
    }
    // A group by id too.
    let (status, _) = w.call("GET", "/api/v4/groups/999999/variables", &w.admin, Value::Null);
    assert_eq!(status, 404);
}

#[test]
fn instance_variables_every_route() {
    let w = world();
    // Instance variables have no hidden and no environment scope: `masked_and_hidden` and
    // `environment_scope` are not theirs, and are ignored.
    let (status, created) = w.call(
        "POST",
        INSTANCE,
        &w.admin,
        json!({"key": "GLOBAL", "value": "secret_value", "masked_and_hidden": true, "environment_scope": "prod"}),
    );
    assert_eq!(status, 201, "{created}");
    assert_eq!(
        created,
        json!({"variable_type": "env_var", "key": "GLOBAL", "value": "secret_value", "protected": false,
               "masked": false, "raw": false, "description": null})
    );
    let (status, list) = w.call("GET", INSTANCE, &w.admin, Value::Null);
    assert_eq!((status, keys(&list)), (200, vec!["GLOBAL".to_string()]));
    let (status, updated) =
        w.call("PUT", &format!("{INSTANCE}/GLOBAL"), &w.admin, json!({"description": "new", "masked": true}));
    assert_eq!(status, 200, "{updated}");
    assert_eq!((&updated["description"], &updated["masked"]), (&json!("new"), &json!(true)));
    let (_, got) = w.call("GET", &format!("{INSTANCE}/GLOBAL"), &w.admin, Value::Null);
    assert_eq!(got, updated);

    let (status, body) = w.call("POST", INSTANCE, &w.admin, json!({"key": "GLOBAL", "value": "again"}));
    assert_eq!((status, body), (400, json!({"message": {"key": ["(GLOBAL) has already been taken"]}})));
    let (status, body) = w.call("POST", INSTANCE, &w.admin, json!({"key": "LONG", "value": "x".repeat(10_001)}));
    assert_eq!(
        (status, body),
        (400, json!({"message": {"value": ["The value of the provided variable exceeds the 10000 character limit"]}}))
    );
    let (status, _) = w.call("POST", INSTANCE, &w.admin, json!({"key": "LONG", "value": "x".repeat(10_000)}));
    assert_eq!(status, 201);

    let (status, _) = w.call("DELETE", &format!("{INSTANCE}/GLOBAL"), &w.admin, Value::Null);
    assert_eq!(status, 204);
    for method in ["GET", "PUT", "DELETE"] {
        let (status, body) = w.call(method, &format!("{INSTANCE}/GLOBAL"), &w.admin, json!({"value": "x"}));
        assert_eq!((status, body), (404, json!({"message": "404 InstanceVariable Not Found"})), "{method}");
    }
}

#[test]
fn model_rules_and_parameter_errors() {
    let w = world();
    let post = |body: Value| w.call("POST", PROJECT, &w.maintainer, body);
    assert_eq!(post(json!({"value": "v"})), (400, json!({"error": "key is missing"})));
    assert_eq!(post(json!({"key": "K"})), (400, json!({"error": "value is missing"})));
    assert_eq!(
        post(json!({"key": "bad-key", "value": "v"})),
        (400, json!({"message": {"key": ["can contain only letters, digits and '_'."]}}))
    );
    assert_eq!(
        post(json!({"key": "  ", "value": "v"})),
        (400, json!({"message": {"key": ["can't be blank", "can contain only letters, digits and '_'."]}}))
    );
    assert_eq!(
        post(json!({"key": "K".repeat(256), "value": "v"})),
        (400, json!({"message": {"key": ["is too long (maximum is 255 characters)"]}}))
    );
    assert_eq!(
        post(json!({"key": "K", "value": "v", "variable_type": "bogus"})),
        (400, json!({"error": "variable_type does not have a valid value"}))
    );
    assert_eq!(
        post(json!({"key": "K", "value": "v", "protected": "maybe"})),
        (400, json!({"error": "protected is invalid"}))
    );
    assert_eq!(
        post(json!({"key": "K", "value": "v", "description": "d".repeat(256)})),
        (400, json!({"message": {"description": ["is too long (maximum is 255 characters)"]}}))
    );
    assert_eq!(
        post(json!({"key": "K", "value": "v", "environment_scope": "a|b"})),
        (
            400,
            json!({"message": {"environment_scope":
                ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces"]}})
        )
    );
    // Masked values: 8 characters of the Base64 alphabet and `@:.~` (`Ci::Maskable::REGEX`),
    // or for a raw variable any 8 characters but spaces (`MASK_AND_RAW_REGEX`).
    for value in ["short", "has spaces in it", "dollar$sign", "two\nlines!"] {
        assert_eq!(
            post(json!({"key": "M", "value": value, "masked": true})),
            (400, json!({"message": {"value": ["is invalid"]}})),
            "{value:?}"
        );
    }
    assert_eq!(post(json!({"key": "M", "value": "abc+/=@:.~-_123", "masked": true})).0, 201);
    assert_eq!(post(json!({"key": "R", "value": "dollar$sign%", "masked": true, "raw": true})).0, 201);
    assert_eq!(
        post(json!({"key": "R2", "value": "has space!", "masked": true, "raw": true})),
        (400, json!({"message": {"value": ["is invalid"]}}))
    );
    // Unmasking a masked variable whose value could not be masked is fine; masking it is not.
    let (status, body) = w.call("PUT", &format!("{PROJECT}/M"), &w.maintainer, json!({"value": "short"}));
    assert_eq!((status, body), (400, json!({"message": {"value": ["is invalid"]}})));
    let (status, body) =
        w.call("PUT", &format!("{PROJECT}/M"), &w.maintainer, json!({"value": "short", "masked": false}));
    assert_eq!((status, &body["value"], &body["masked"]), (200, &json!("short"), &json!(false)));
    // A duplicate key in the same scope.
    assert_eq!(
        post(json!({"key": "M", "value": "v"})),
        (400, json!({"message": {"key": ["(M) has already been taken"]}}))
    );
    // A null byte is refused, not stored.
    let (status, _) = post(json!({"key": "N", "value": "a\u{0}b"}));
    assert_eq!(status, 400);
    let (_, list) = w.call("GET", PROJECT, &w.maintainer, Value::Null);
    assert_eq!(keys(&list), ["M", "R"]);
}

#[test]
fn hidden_variables_never_show_their_value() {
    let w = world();
    for base in [PROJECT, GROUP] {
        let (status, created) = w.call(
            "POST",
            base,
            &w.owner,
            json!({"key": "SECRET", "value": "secret_value", "masked_and_hidden": true}),
        );
        assert_eq!(status, 201, "{created}");
        assert_eq!(
            created,
            json!({"variable_type": "env_var", "key": "SECRET", "value": null, "hidden": true, "protected": false,
                   "masked": true, "raw": false, "environment_scope": "*", "description": null})
        );
        let (_, got) = w.call("GET", &format!("{base}/SECRET"), &w.owner, Value::Null);
        assert_eq!(got, created);
        let (_, list) = w.call("GET", base, &w.owner, Value::Null);
        assert_eq!(list, json!([created]));
        // python-gitlab's `save()` resends the value it read, null: the value stays.
        let (status, updated) = w.call(
            "PUT",
            &format!("{base}/SECRET"),
            &w.owner,
            json!({"key": "SECRET", "value": null, "description": "new_description"}),
        );
        assert_eq!(status, 200, "{updated}");
        assert_eq!((&updated["value"], &updated["description"]), (&Value::Null, &json!("new_description")));
        // Its visibility is fixed.
        let (status, body) = w.call("PUT", &format!("{base}/SECRET"), &w.owner, json!({"masked": false}));
        assert_eq!(
            (status, body),
            (
                400,
                json!({"message": {"base": ["The visibility setting cannot be changed for masked and hidden variables."]}})
            )
        );
        // A new value must still be maskable, and is stored without being shown.
        let (status, _) = w.call("PUT", &format!("{base}/SECRET"), &w.owner, json!({"value": "no"}));
        assert_eq!(status, 400);
        let (status, body) = w.call("PUT", &format!("{base}/SECRET"), &w.owner, json!({"value": "rotated_value"}));
        assert_eq!((status, &body["value"]), (200, &Value::Null));
        // Hidden means masked: the value must be maskable.
        let (status, body) =
            w.call("POST", base, &w.owner, json!({"key": "SHORT", "value": "short", "masked_and_hidden": true}));
        assert_eq!((status, body), (400, json!({"message": {"value": ["is invalid"]}})));
    }
    let stored = w.instance.ctx().store.read(|db| ci_variables::list(db, Owner::Group(1))).unwrap();
    assert_eq!(
        stored.iter().map(|v| (v.key.as_str(), v.value.as_str())).collect::<Vec<_>>(),
        [("SECRET", "rotated_value")]
    );
}

#[test]
fn environment_scopes_keep_keys_apart() {
    let w = world();
    for base in [PROJECT, GROUP] {
        let post = |body: Value| w.call("POST", base, &w.owner, body);
        assert_eq!(post(json!({"key": "URL", "value": "any"})).0, 201);
        let (status, prod) = post(json!({"key": "URL", "value": "prod", "environment_scope": "production"}));
        assert_eq!((status, &prod["environment_scope"]), (201, &json!("production")));
        assert_eq!(
            post(json!({"key": "URL", "value": "again", "environment_scope": "production"})),
            (400, json!({"message": {"key": ["(URL) has already been taken"]}}))
        );
        let many = json!({"message":
            "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'"});
        let (status, body) = w.call("GET", &format!("{base}/URL"), &w.owner, Value::Null);
        assert_eq!((status, body), (409, many.clone()));
        let (status, body) =
            w.call("GET", &format!("{base}/URL?filter[environment_scope]=production"), &w.owner, Value::Null);
        assert_eq!((status, body), (200, prod.clone()));
        let (status, _) =
            w.call("GET", &format!("{base}/URL?filter[environment_scope]=staging"), &w.owner, Value::Null);
        assert_eq!(status, 404);
        // A filter in a JSON body, as clients send it on PUT.
        let (status, body) = w.call(
            "PUT",
            &format!("{base}/URL"),
            &w.owner,
            json!({"value": "prod2", "filter": {"environment_scope": "production"}}),
        );
        assert_eq!((status, &body["value"], &body["environment_scope"]), (200, &json!("prod2"), &json!("production")));
        // Moving one into the other's scope is the uniqueness rule.
        let (status, body) = w.call(
            "PUT",
            &format!("{base}/URL?filter[environment_scope]=production"),
            &w.owner,
            json!({"environment_scope": "*"}),
        );
        assert_eq!((status, body), (400, json!({"message": {"key": ["(URL) has already been taken"]}})));
        let (status, body) = w.call("PUT", &format!("{base}/URL"), &w.owner, json!({"value": "which?"}));
        if base == PROJECT {
            assert_eq!((status, body), (409, many.clone()));
        } else {
            // Groups update the first without a filter (`lib/api/group_variables.rb`).
            assert_eq!((status, &body["environment_scope"], &body["value"]), (200, &json!("*"), &json!("which?")));
        }
        let (status, _) = w.call("DELETE", &format!("{base}/URL"), &w.owner, Value::Null);
        assert_eq!(status, 409);
        let (status, _) =
            w.call("DELETE", &format!("{base}/URL?filter[environment_scope]=production"), &w.owner, Value::Null);
        assert_eq!(status, 204);
        let (status, body) = w.call("GET", &format!("{base}/URL"), &w.owner, Value::Null);
        assert_eq!((status, &body["environment_scope"]), (200, &json!("*")));
    }
}

#[test]
fn who_may_manage_variables() {
    let w = world();
    let anonymous = |target: &str| w.instance.call("GET", target, None, Value::Null);
    for target in [PROJECT, GROUP, INSTANCE] {
        assert_eq!(anonymous(target), (401, json!({"message": "401 Unauthorized"})), "{target}");
    }
    let forbidden = (403, json!({"message": "403 Forbidden"}));
    // An outsider cannot see the private group or its project.
    assert_eq!(w.call("GET", PROJECT, &w.outsider, Value::Null), (404, json!({"message": "404 Project Not Found"})));
    assert_eq!(w.call("GET", GROUP, &w.outsider, Value::Null), (404, json!({"message": "404 Group Not Found"})));
    // Instance variables are for administrators.
    for token in [&w.owner, &w.delegate, &w.outsider] {
        assert_eq!(w.call("GET", INSTANCE, token, Value::Null), forbidden);
        assert_eq!(w.call("POST", INSTANCE, token, json!({"key": "K", "value": "v"})), forbidden);
    }
    // A Developer may not; a Maintainer may on the project but not the group (Owner's).
    assert_eq!(w.call("GET", PROJECT, &w.developer, Value::Null), forbidden);
    assert_eq!(w.call("POST", PROJECT, &w.developer, json!({"key": "K", "value": "v"})), forbidden);
    assert_eq!(w.call("GET", GROUP, &w.developer, Value::Null), forbidden);
    assert_eq!(w.call("POST", PROJECT, &w.maintainer, json!({"key": "BY_MAINTAINER", "value": "v"})).0, 201);
    assert_eq!(w.call("GET", GROUP, &w.maintainer, Value::Null), forbidden);
    assert_eq!(w.call("POST", GROUP, &w.maintainer, json!({"key": "K", "value": "v"})), forbidden);
    assert_eq!(w.call("POST", GROUP, &w.owner, json!({"key": "BY_OWNER", "value": "v"})).0, 201);
    // A Developer whose custom role carries `admin_cicd_variables` manages both.
    for base in [PROJECT, GROUP] {
        let (status, body) = w.call("POST", base, &w.delegate, json!({"key": "BY_DELEGATE", "value": "v"}));
        assert_eq!(status, 201, "{base}: {body}");
        assert_eq!(w.call("GET", &format!("{base}/BY_DELEGATE"), &w.delegate, Value::Null).0, 200);
        assert_eq!(w.call("PUT", &format!("{base}/BY_DELEGATE"), &w.delegate, json!({"value": "w"})).0, 200);
        assert_eq!(w.call("DELETE", &format!("{base}/BY_DELEGATE"), &w.delegate, Value::Null).0, 204);
        // ...and the plain Developer still none of it.
        assert_eq!(w.call("GET", &format!("{base}/BY_MAINTAINER"), &w.developer, Value::Null), forbidden);
    }
    let (_, list) = w.call("GET", PROJECT, &w.delegate, Value::Null);
    assert_eq!(keys(&list), ["BY_MAINTAINER"]);
    // Administrators manage all three.
    for base in [PROJECT, GROUP, INSTANCE] {
        assert_eq!(w.call("POST", base, &w.admin, json!({"key": "BY_ADMIN", "value": "v"})).0, 201, "{base}");
    }
}

#[test]
fn deleting_a_project_or_group_deletes_its_variables() {
    let w = world();
    assert_eq!(w.call("POST", PROJECT, &w.owner, json!({"key": "P", "value": "v"})).0, 201);
    assert_eq!(w.call("POST", GROUP, &w.owner, json!({"key": "G", "value": "v"})).0, 201);
    assert_eq!(w.call("POST", INSTANCE, &w.admin, json!({"key": "I", "value": "v"})).0, 201);
    let (_, project) = w.call("GET", "/api/v4/projects/top%2Fapp", &w.admin, Value::Null);
    let (_, group) = w.call("GET", "/api/v4/groups/top", &w.admin, Value::Null);
    let (project, group) = (project["id"].as_i64().unwrap(), group["id"].as_i64().unwrap());
    let count = |owner| w.instance.ctx().store.read(|db| ci_variables::list(db, owner)).unwrap().len();
    assert_eq!((count(Owner::Project(project)), count(Owner::Group(group))), (1, 1));

    let (status, body) = w.call("DELETE", "/api/v4/projects/top%2Fapp", &w.admin, Value::Null);
    assert_eq!(status, 202, "{body}");
    assert_eq!(w.call("GET", PROJECT, &w.admin, Value::Null).0, 404);
    assert_eq!(count(Owner::Project(project)), 0);
    assert_eq!(count(Owner::Group(group)), 1);

    let (status, body) = w.call("DELETE", "/api/v4/groups/top", &w.admin, Value::Null);
    assert_eq!(status, 202, "{body}");
    assert_eq!(w.call("GET", GROUP, &w.admin, Value::Null).0, 404);
    assert_eq!(count(Owner::Group(group)), 0);
    // The instance's stay.
    let (_, list) = w.call("GET", INSTANCE, &w.admin, Value::Null);
    assert_eq!(keys(&list), ["I"]);
}
