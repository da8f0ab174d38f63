//! Members of groups and projects through the API (`gitlab-administration.md` §1, decisions
//! D9): every operation and its texts, inheritance across a three-level group tree, expiry
//! taking effect on access, the escalation refusals, and the `admin_group_member` flag level by
//! level. SQLite under `cargo test`, PostgreSQL under `make test-rust-postgres`.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use serde_json::{json, Value};

struct World {
    instance: TestInstance,
    admin: String,
    /// Owner of `top`.
    owner: String,
    /// Maintainer of `top`.
    maintainer: String,
    /// Developer of `top`.
    developer: String,
    /// Developer of `top` with a custom role holding `admin_group_member`.
    delegate: String,
    outsider: String,
    /// Id of the `admin_group_member` role (base Developer).
    delegate_role: i64,
}

/// An administrator `root`; groups `top` (private) > `top/sub` > `top/sub/leaf`, a private
/// project `top/sub/leaf/app`; `olivia` Owner, `max` Maintainer, `dev` Developer, `della`
/// Developer with an `admin_group_member` role, all of `top`; `otto` and the users `u1`..`u4`
/// belong nowhere.
fn world() -> World {
    let instance = common::open_instance(json!({}));
    let admin = instance.user_with_token("root", true);
    let owner = instance.user_with_token("olivia", false);
    let maintainer = instance.user_with_token("max", false);
    let developer = instance.user_with_token("dev", false);
    let delegate = instance.user_with_token("della", false);
    let outsider = instance.user_with_token("otto", false);
    for user in ["u1", "u2", "u3", "u4"] {
        instance.admin_ok(json!({"command": "user_add", "username": user}));
    }
    let repo = instance.root_dir().join("app.git");
    let status = std::process::Command::new("git").args(["init", "-q", "--bare"]).arg(&repo).status().unwrap();
    assert!(status.success());
    for command in [
        json!({"command": "group_add", "path": "top"}),
        json!({"command": "group_add", "path": "top/sub"}),
        json!({"command": "group_add", "path": "top/sub/leaf"}),
        json!({"command": "project_add", "path": "top/sub/leaf/app", "repo": repo}),
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
        json!({"name": "Member admin", "base_access_level": 30, "admin_group_member": true}),
    );
    assert_eq!(status, 201, "{role}");
    let delegate_role = role["id"].as_i64().unwrap();
    instance.admin_ok(json!({"command": "member_add", "group": "top", "username": "della", "access_level": 30,
                             "member_role_id": delegate_role}));
    World { instance, admin, owner, maintainer, developer, delegate, outsider, delegate_role }
}

impl World {
    fn call(&self, method: &str, target: &str, token: &str, body: Value) -> (u16, Value) {
        self.instance.call(method, target, Some(token), body)
    }

    fn user_id(&self, username: &str) -> i64 {
        self.instance
            .ctx()
            .store
            .read(|db| forgecore::store::users::find_by_username(db, username))
            .unwrap()
            .unwrap()
            .id
    }

    /// Sets a membership's expiry date straight in the store (dates in the past cannot be
    /// given through the API).
    fn set_expiry(&self, username: &str, date: &str) {
        let user_id = self.user_id(username);
        let date = date.to_string();
        let changed = self
            .instance
            .ctx()
            .store
            .write(|db| db.execute("UPDATE members SET expires_at = $1 WHERE user_id = $2", &[&date, &user_id]))
            .unwrap();
        assert!(changed > 0);
    }
}

fn usernames(body: &Value) -> Vec<String> {
    body.as_array().unwrap().iter().map(|m| m["username"].as_str().unwrap().to_string()).collect()
}

#[test]
fn the_member_entity_has_gitlabs_keys_in_order() {
    let w = world();
    let u1 = w.user_id("u1");
    let (status, body) = w.call(
        "POST",
        "/api/v4/groups/top/members",
        &w.owner,
        json!({"user_id": u1, "access_level": 20, "expires_at": "2099-12-31"}),
    );
    assert_eq!(status, 201, "{body}");
    // Key order as sent (a parsed `Value` sorts its keys).
    let (_, _, raw) =
        w.instance.request("GET", &format!("/api/v4/groups/top/members/{u1}"), &[("PRIVATE-TOKEN", &w.owner)], b"");
    let raw = String::from_utf8(raw).unwrap();
    let order = [
        "\"id\"",
        "\"username\"",
        "\"name\"",
        "\"state\"",
        "\"locked\"",
        "\"avatar_url\"",
        "\"web_url\"",
        "\"access_level\"",
        "\"created_at\"",
        "\"created_by\"",
        "\"expires_at\"",
        "\"membership_state\"",
    ];
    let positions: Vec<usize> =
        order.iter().map(|key| raw.find(key).unwrap_or_else(|| panic!("{key} in {raw}"))).collect();
    assert!(positions.windows(2).all(|p| p[0] < p[1]), "{raw}");
    assert_eq!(body.as_object().unwrap().len(), order.len(), "{body}");
    assert_eq!(body["id"], u1);
    assert_eq!(body["username"], "u1");
    assert_eq!(body["access_level"], 20);
    assert_eq!(body["expires_at"], "2099-12-31");
    assert_eq!(body["created_by"]["username"], "olivia");
    assert!(body["created_at"].as_str().unwrap().ends_with('Z') || body["created_at"].as_str().unwrap().contains('+'));
    // A member made by the administration commands has no creator; a role shows as an object.
    let (status, della) =
        w.call("GET", &format!("/api/v4/groups/top/members/{}", w.user_id("della")), &w.owner, Value::Null);
    assert_eq!(status, 200);
    assert!(della.get("created_by").is_none(), "{della}");
    assert_eq!(della["member_role"]["id"], w.delegate_role);
    assert_eq!(della["member_role"]["admin_group_member"], true);
    let (_, _, raw) = w.instance.request(
        "GET",
        &format!("/api/v4/groups/top/members/{}", w.user_id("della")),
        &[("PRIVATE-TOKEN", &w.owner)],
        b"",
    );
    let raw = String::from_utf8(raw).unwrap();
    assert!(raw.find("\"member_role\"").unwrap() > raw.find("\"membership_state\"").unwrap(), "{raw}");
}

#[test]
fn list_filters_and_pages() {
    let w = world();
    let (status, body) = w.call("GET", "/api/v4/groups/top/members", &w.developer, Value::Null);
    assert_eq!(status, 200);
    assert_eq!(usernames(&body), ["olivia", "max", "dev", "della"]);
    let (_, body) = w.call("GET", "/api/v4/groups/top/members?query=OLI", &w.developer, Value::Null);
    assert_eq!(usernames(&body), ["olivia"]);
    let (max, dev) = (w.user_id("max"), w.user_id("dev"));
    let (_, body) = w.call(
        "GET",
        &format!("/api/v4/groups/top/members?user_ids[]={max}&user_ids[]={dev}"),
        &w.developer,
        Value::Null,
    );
    assert_eq!(usernames(&body), ["max", "dev"]);
    let (_, body) = w.call("GET", &format!("/api/v4/groups/top/members?skip_users[]={max}"), &w.developer, Value::Null);
    assert_eq!(usernames(&body), ["olivia", "dev", "della"]);
    let (status, headers, bytes) = w.instance.request(
        "GET",
        "/api/v4/groups/top/members?per_page=3&page=2",
        &[("PRIVATE-TOKEN", &w.developer)],
        b"",
    );
    assert_eq!(status, 200);
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(usernames(&body), ["della"]);
    let header = |name: &str| headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
    assert_eq!(header("X-Total").as_deref(), Some("4"));
    assert_eq!(header("X-Total-Pages").as_deref(), Some("2"));
    assert_eq!(header("X-Prev-Page").as_deref(), Some("1"));
    // Subgroups have no direct members; invisible sources are 404; anonymous 401.
    let (_, body) = w.call("GET", "/api/v4/groups/top%2Fsub/members", &w.developer, Value::Null);
    assert_eq!(body, json!([]));
    let (status, body) = w.call("GET", "/api/v4/groups/top/members", &w.outsider, Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Group Not Found"})));
    let (status, body) = w.call("GET", "/api/v4/projects/top%2Fsub%2Fleaf%2Fapp/members", &w.outsider, Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Project Not Found"})));
    let (status, _) = w.instance.call("GET", "/api/v4/groups/top/members", None, Value::Null);
    assert_eq!(status, 401);
    let (status, body) = w.call("GET", "/api/v4/groups/top/members?user_ids[]=x", &w.developer, Value::Null);
    assert_eq!((status, body), (400, json!({"error": "user_ids is invalid"})));
}

#[test]
fn members_all_inherits_across_three_levels_and_the_highest_level_wins() {
    let w = world();
    let (u1, u2, u3) = (w.user_id("u1"), w.user_id("u2"), w.user_id("u3"));
    let add = |target: &str, user: i64, level: i64| {
        let (status, body) = w.call("POST", target, &w.admin, json!({"user_id": user, "access_level": level}));
        assert_eq!(status, 201, "{body}");
    };
    add("/api/v4/groups/top%2Fsub/members", u1, 20);
    add("/api/v4/groups/top%2Fsub%2Fleaf/members", u1, 40);
    add("/api/v4/groups/top%2Fsub%2Fleaf/members", u2, 10);
    add("/api/v4/projects/top%2Fsub%2Fleaf%2Fapp/members", u2, 30);
    add("/api/v4/projects/top%2Fsub%2Fleaf%2Fapp/members", u3, 20);
    // `max` is Maintainer of `top`; a Guest row below does not lower him.
    add("/api/v4/groups/top%2Fsub/members", w.user_id("max"), 10);
    let (status, body) =
        w.call("GET", "/api/v4/projects/top%2Fsub%2Fleaf%2Fapp/members/all", &w.developer, Value::Null);
    assert_eq!(status, 200, "{body}");
    let levels: Vec<(String, i64)> = body
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["username"].as_str().unwrap().to_string(), m["access_level"].as_i64().unwrap()))
        .collect();
    let expect = |name: &str| levels.iter().find(|(n, _)| n == name).map(|(_, l)| *l);
    assert_eq!(levels.len(), 7, "{levels:?}");
    assert_eq!(expect("u1"), Some(40));
    assert_eq!(expect("u2"), Some(30));
    assert_eq!(expect("u3"), Some(20));
    assert_eq!(expect("max"), Some(40));
    assert_eq!(expect("olivia"), Some(50));
    let (_, direct) = w.call("GET", "/api/v4/projects/top%2Fsub%2Fleaf%2Fapp/members", &w.developer, Value::Null);
    assert_eq!(usernames(&direct), ["u2", "u3"]);
    // From the middle group: only itself and above.
    let (_, sub) = w.call("GET", "/api/v4/groups/top%2Fsub/members/all", &w.developer, Value::Null);
    let names = usernames(&sub);
    assert!(names.contains(&"u1".to_string()) && !names.contains(&"u2".to_string()), "{names:?}");
    let (status, one) = w.call("GET", &format!("/api/v4/groups/top%2Fsub/members/all/{u1}"), &w.developer, Value::Null);
    assert_eq!((status, one["access_level"].clone()), (200, json!(20)));
    let (status, one) =
        w.call("GET", &format!("/api/v4/projects/top%2Fsub%2Fleaf%2Fapp/members/all/{u1}"), &w.developer, Value::Null);
    assert_eq!((status, one["access_level"].clone()), (200, json!(40)));
    // The direct get does not see inherited members: GitLab's `find_by!` text.
    let (status, body) =
        w.call("GET", &format!("/api/v4/projects/top%2Fsub%2Fleaf%2Fapp/members/{u1}"), &w.developer, Value::Null);
    assert_eq!((status, body), (404, json!({"message": "404 Not found"})));
    // Pages of `all` are pages of users.
    let (status, headers, bytes) = w.instance.request(
        "GET",
        "/api/v4/projects/top%2Fsub%2Fleaf%2Fapp/members/all?per_page=3&page=3",
        &[("PRIVATE-TOKEN", &w.developer)],
        b"",
    );
    assert_eq!(status, 200);
    let page: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(page.as_array().unwrap().len(), 1);
    assert!(headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("X-Total") && v == "7"));
}

#[test]
fn create_texts_and_statuses() {
    let w = world();
    let u1 = w.user_id("u1");
    let post = |token: &str, body: Value| w.call("POST", "/api/v4/groups/top/members", token, body);
    assert_eq!(post(&w.owner, json!({"user_id": u1})), (400, json!({"error": "access_level is missing"})));
    assert_eq!(
        post(&w.owner, json!({"user_id": u1, "access_level": 35})),
        (400, json!({"error": "access_level does not have a valid value"}))
    );
    assert_eq!(
        post(&w.owner, json!({"access_level": 30})),
        (400, json!({"error": "user_id, username are missing, exactly one parameter must be provided"}))
    );
    assert_eq!(
        post(&w.owner, json!({"user_id": 999_999, "access_level": 30})),
        (404, json!({"message": "404 User Not Found"}))
    );
    assert_eq!(
        post(&w.owner, json!({"username": "u1", "access_level": 30, "expires_at": "2001-01-01"})),
        (400, json!({"message": {"expires_at": ["cannot be a date in the past"]}}))
    );
    assert_eq!(
        post(&w.owner, json!({"username": "u1", "access_level": 30, "expires_at": "soon"})),
        (400, json!({"error": "expires_at is invalid"}))
    );
    let (status, body) = post(&w.owner, json!({"username": "u1", "access_level": 30, "expires_at": null}));
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["expires_at"], Value::Null);
    assert_eq!(
        post(&w.owner, json!({"user_id": u1, "access_level": 30})),
        (409, json!({"message": "Member already exists"}))
    );
    // Not allowed: a Developer, a Maintainer of the group.
    assert_eq!(
        post(&w.developer, json!({"username": "u2", "access_level": 10})),
        (403, json!({"message": "403 Forbidden"}))
    );
    assert_eq!(post(&w.maintainer, json!({"username": "u2", "access_level": 10})).0, 403);
    assert_eq!(post(&w.outsider, json!({"username": "u2", "access_level": 10})).0, 404);
    // Comma lists.
    let (status, body) = post(&w.owner, json!({"username": "u2,u3", "access_level": 20}));
    assert_eq!((status, body), (201, json!({"status": "success"})));
    let (status, body) = post(&w.owner, json!({"username": "u4,nobody", "access_level": 20}));
    assert_eq!(status, 201);
    assert_eq!(body["status"], "error");
    assert_eq!(body["message"]["nobody"], "404 User Not Found");
    let (_, all) = w.call("GET", "/api/v4/groups/top/members", &w.owner, Value::Null);
    assert!(usernames(&all).contains(&"u4".to_string()));
}

#[test]
fn update_and_delete_texts_and_statuses() {
    let w = world();
    let dev = w.user_id("dev");
    let target = format!("/api/v4/groups/top/members/{dev}");
    assert_eq!(w.call("PUT", &target, &w.owner, json!({})), (400, json!({"error": "access_level is missing"})));
    let (status, body) = w.call("PUT", &target, &w.owner, json!({"access_level": 40, "expires_at": "2098-01-02"}));
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["access_level"].clone(), body["expires_at"].clone()), (json!(40), json!("2098-01-02")));
    let (_, body) = w.call("PUT", &target, &w.owner, json!({"access_level": 30}));
    assert_eq!(body["expires_at"], "2098-01-02", "absent keeps the date");
    let (_, body) = w.call("PUT", &target, &w.owner, json!({"access_level": 30, "expires_at": null}));
    assert_eq!(body["expires_at"], Value::Null, "null clears it");
    let missing = format!("/api/v4/groups/top/members/{}", w.user_id("u1"));
    assert_eq!(
        w.call("PUT", &missing, &w.owner, json!({"access_level": 30})),
        (404, json!({"message": "404 Not found"}))
    );
    assert_eq!(w.call("PUT", &target, &w.maintainer, json!({"access_level": 20})).0, 403);
    assert_eq!(w.call("PUT", "/api/v4/groups/top/members/abc", &w.owner, json!({"access_level": 20})).0, 400);
    // Delete: 403 for a Maintainer, 404 for a non-member, 204, then gone.
    assert_eq!(w.call("DELETE", &target, &w.maintainer, Value::Null).0, 403);
    assert_eq!(w.call("DELETE", &missing, &w.owner, Value::Null), (404, json!({"message": "404 Not found"})));
    assert_eq!(w.call("DELETE", &target, &w.owner, Value::Null), (204, Value::Null));
    assert_eq!(w.call("GET", &target, &w.owner, Value::Null).0, 404);
    // Anyone may leave.
    let max = w.user_id("max");
    assert_eq!(w.call("DELETE", &format!("/api/v4/groups/top/members/{max}"), &w.maintainer, Value::Null).0, 204);
    assert_eq!(w.call("GET", "/api/v4/groups/top/members", &w.maintainer, Value::Null).0, 404);
}

#[test]
fn the_last_owner_stays() {
    let w = world();
    let olivia = w.user_id("olivia");
    let target = format!("/api/v4/groups/top/members/{olivia}");
    assert_eq!(w.call("DELETE", &target, &w.owner, Value::Null).0, 403);
    assert_eq!(w.call("DELETE", &target, &w.admin, Value::Null).0, 403);
    assert_eq!(w.call("PUT", &target, &w.owner, json!({"access_level": 40})).0, 403);
    // With a second owner, the first may go.
    let u1 = w.user_id("u1");
    assert_eq!(
        w.call("POST", "/api/v4/groups/top/members", &w.owner, json!({"user_id": u1, "access_level": 50})).0,
        201
    );
    assert_eq!(w.call("PUT", &target, &w.owner, json!({"access_level": 40})).0, 200);
    // A subgroup's own owner can be removed while `top` has owners.
    let u2 = w.user_id("u2");
    assert_eq!(
        w.call("POST", "/api/v4/groups/top%2Fsub/members", &w.admin, json!({"user_id": u2, "access_level": 50})).0,
        201
    );
    assert_eq!(w.call("DELETE", &format!("/api/v4/groups/top%2Fsub/members/{u2}"), &w.admin, Value::Null).0, 204);
}

#[test]
fn project_members_need_a_maintainer_and_owner_needs_an_owner() {
    let w = world();
    let app = "/api/v4/projects/top%2Fsub%2Fleaf%2Fapp/members";
    let u1 = w.user_id("u1");
    assert_eq!(w.call("POST", app, &w.developer, json!({"user_id": u1, "access_level": 20})).0, 403);
    // A Maintainer making an Owner: refused.
    assert_eq!(
        w.call("POST", app, &w.maintainer, json!({"user_id": u1, "access_level": 50})),
        (403, json!({"message": "403 Forbidden"}))
    );
    let (status, body) = w.call("POST", app, &w.maintainer, json!({"user_id": u1, "access_level": 40}));
    assert_eq!(status, 201, "{body}");
    assert_eq!(w.call("PUT", &format!("{app}/{u1}"), &w.maintainer, json!({"access_level": 50})).0, 403);
    assert_eq!(w.call("POST", app, &w.owner, json!({"username": "u2", "access_level": 50})).0, 201);
    // A Maintainer may not touch the Owner.
    let u2 = w.user_id("u2");
    assert_eq!(w.call("DELETE", &format!("{app}/{u2}"), &w.maintainer, Value::Null).0, 403);
    assert_eq!(w.call("DELETE", &format!("{app}/{u1}"), &w.maintainer, Value::Null).0, 204);
}

#[test]
fn expiry_takes_effect_on_access() {
    let w = world();
    let token = w.instance.user_with_token("temp", false);
    let temp = w.user_id("temp");
    let app = "/api/v4/projects/top%2Fsub%2Fleaf%2Fapp";
    let (status, _) = w.call(
        "POST",
        &format!("{app}/members"),
        &w.owner,
        json!({"user_id": temp, "access_level": 20, "expires_at": "2099-01-01"}),
    );
    assert_eq!(status, 201);
    assert_eq!(w.call("GET", app, &token, Value::Null).0, 200);
    // The membership's day has come: GitLab's `expires_at > today` no longer holds.
    w.set_expiry("temp", &forgecore::store::today());
    assert_eq!(w.call("GET", app, &token, Value::Null), (404, json!({"message": "404 Project Not Found"})));
    let (_, members) = w.call("GET", &format!("{app}/members"), &w.owner, Value::Null);
    assert!(!usernames(&members).contains(&"temp".to_string()), "an expired member is gone");
    // Adding the user again replaces the expired membership.
    let (status, _) = w.call("POST", &format!("{app}/members"), &w.owner, json!({"user_id": temp, "access_level": 20}));
    assert_eq!(status, 201);
    assert_eq!(w.call("GET", app, &token, Value::Null).0, 200);
    // Group memberships expire too.
    w.set_expiry("dev", "2020-05-05");
    assert_eq!(w.call("GET", "/api/v4/groups/top", &w.developer, Value::Null).0, 404);
}

#[test]
fn escalation_is_refused() {
    let w = world();
    let top = "/api/v4/groups/top/members";
    let (u1, u2, u3) = (w.user_id("u1"), w.user_id("u2"), w.user_id("u3"));
    let base_msg =
        json!({"message": {"base": ["the member access level can't be higher than the current user's one"]}});
    // A Maintainer in a group adds no one.
    assert_eq!(w.call("POST", top, &w.maintainer, json!({"user_id": u1, "access_level": 10})).0, 403);
    // The Developer-based `admin_group_member` role: a Maintainer refused, a Reporter allowed,
    // an Owner refused, a Developer allowed.
    assert_eq!(w.call("POST", top, &w.delegate, json!({"user_id": u1, "access_level": 40})), (400, base_msg.clone()));
    assert_eq!(w.call("POST", top, &w.delegate, json!({"user_id": u1, "access_level": 50})), (400, base_msg.clone()));
    assert_eq!(w.call("POST", top, &w.delegate, json!({"user_id": u1, "access_level": 20})).0, 201);
    assert_eq!(w.call("POST", top, &w.delegate, json!({"user_id": u2, "access_level": 30})).0, 201);
    // Raising someone above themselves: 403 on update; a downgrade passes.
    assert_eq!(w.call("PUT", &format!("{top}/{u1}"), &w.delegate, json!({"access_level": 40})).0, 403);
    assert_eq!(w.call("PUT", &format!("{top}/{u2}"), &w.delegate, json!({"access_level": 10})).0, 200);
    // Members above the delegate are out of reach.
    let max = w.user_id("max");
    assert_eq!(w.call("PUT", &format!("{top}/{max}"), &w.delegate, json!({"access_level": 30})).0, 403);
    assert_eq!(w.call("DELETE", &format!("{top}/{max}"), &w.delegate, Value::Null).0, 403);
    assert_eq!(w.call("DELETE", &format!("{top}/{u2}"), &w.delegate, Value::Null).0, 204);
    // A role with a flag the delegate lacks: refused; their own role: allowed.
    let (_, wide) = w.call(
        "POST",
        "/api/v4/groups/top/member_roles",
        &w.owner,
        json!({"name": "Wide", "base_access_level": 20, "admin_group_member": true, "remove_group": true}),
    );
    let (_, narrow) = w.call(
        "POST",
        "/api/v4/groups/top/member_roles",
        &w.owner,
        json!({"name": "Narrow", "base_access_level": 30, "admin_group_member": true}),
    );
    assert_eq!(
        w.call("POST", top, &w.delegate, json!({"user_id": u3, "access_level": 20, "member_role_id": wide["id"]})),
        (400, base_msg)
    );
    assert_eq!(
        w.call("POST", top, &w.delegate, json!({"user_id": u3, "access_level": 30, "member_role_id": narrow["id"]})).0,
        201
    );
    assert_eq!(
        w.call("POST", top, &w.delegate, json!({"user_id": u3, "access_level": 30, "member_role_id": w.delegate_role}))
            .0,
        409
    );
    // The Owner may give any role.
    assert_eq!(
        w.call("POST", top, &w.owner, json!({"username": "u4", "access_level": 20, "member_role_id": wide["id"]})).0,
        201
    );
}

#[test]
fn custom_role_validations() {
    let w = world();
    let top = "/api/v4/groups/top/members";
    let u1 = w.user_id("u1");
    let (_, reporter_role) = w.call(
        "POST",
        "/api/v4/groups/top/member_roles",
        &w.owner,
        json!({"name": "R", "base_access_level": 20, "read_code": true}),
    );
    let role = reporter_role["id"].as_i64().unwrap();
    assert_eq!(
        w.call("POST", top, &w.owner, json!({"user_id": u1, "access_level": 30, "member_role_id": role})),
        (
            400,
            json!({"message": {"member_role_id": ["the custom role's base access level does not match the current access level"]}})
        )
    );
    assert_eq!(
        w.call("POST", top, &w.owner, json!({"user_id": u1, "access_level": 20, "member_role_id": 999_999})),
        (400, json!({"message": {"member_role": ["not found"]}}))
    );
    // A role of another root group.
    w.instance.admin_ok(json!({"command": "group_add", "path": "other"}));
    let (_, foreign) =
        w.call("POST", "/api/v4/groups/other/member_roles", &w.admin, json!({"name": "F", "base_access_level": 20}));
    assert_eq!(
        w.call("POST", top, &w.owner, json!({"user_id": u1, "access_level": 20, "member_role_id": foreign["id"]})),
        (400, json!({"message": {"member_namespace": ["must be in same hierarchy as custom role's namespace"]}}))
    );
    // In a subgroup, the root's role is in the hierarchy.
    let (status, body) = w.call(
        "POST",
        "/api/v4/groups/top%2Fsub/members",
        &w.owner,
        json!({"user_id": u1, "access_level": 20, "member_role_id": role}),
    );
    assert_eq!(status, 201, "{body}");
    let member = format!("/api/v4/groups/top%2Fsub/members/{u1}");
    // The level may not change while the role stays; both together may; null clears the role.
    assert_eq!(
        w.call("PUT", &member, &w.owner, json!({"access_level": 30})),
        (
            400,
            json!({"message": {"access_level": ["cannot be changed because of an existing association with a custom role"]}})
        )
    );
    assert_eq!(w.call("PUT", &member, &w.owner, json!({"access_level": 30, "member_role_id": w.delegate_role})).0, 200);
    let (status, body) = w.call("PUT", &member, &w.owner, json!({"access_level": 40, "member_role_id": null}));
    assert_eq!(status, 200, "{body}");
    assert!(body.get("member_role").is_none(), "{body}");
    assert_eq!(body["access_level"], 40);
}

/// What `admin_group_member` makes possible, level by level: a role with the flag on each base
/// level may add members up to that level and no higher, and never Owner.
#[test]
fn admin_group_member_flag_matrix() {
    let w = world();
    let levels = [10, 15, 20, 30, 40];
    for (index, base) in levels.iter().enumerate() {
        let name = format!("agm{base}");
        let (status, role) = w.call(
            "POST",
            "/api/v4/groups/top/member_roles",
            &w.owner,
            json!({"name": name, "base_access_level": base, "admin_group_member": true}),
        );
        assert_eq!(status, 201, "{role}");
        let token = w.instance.user_with_token(&name, false);
        w.instance.admin_ok(json!({"command": "member_add", "group": "top", "username": name, "access_level": base, "member_role_id": role["id"]}));
        for target_level in [10, 20, 30, 40, 50] {
            let invitee = format!("i{index}_{target_level}");
            w.instance.admin_ok(json!({"command": "user_add", "username": invitee}));
            let (status, body) = w.call(
                "POST",
                "/api/v4/groups/top%2Fsub/members",
                &token,
                json!({"username": invitee, "access_level": target_level}),
            );
            let expected = if target_level <= *base { 201 } else { 400 };
            assert_eq!(status, expected, "base {base} adding {target_level}: {body}");
        }
    }
    // Without the flag, the same levels add nobody.
    let (_, plain) = w.call(
        "POST",
        "/api/v4/groups/top/member_roles",
        &w.owner,
        json!({"name": "plain", "base_access_level": 40, "read_code": true}),
    );
    let token = w.instance.user_with_token("plainer", false);
    w.instance.admin_ok(json!({"command": "member_add", "group": "top", "username": "plainer", "access_level": 40, "member_role_id": plain["id"]}));
    assert_eq!(
        w.call("POST", "/api/v4/groups/top/members", &token, json!({"username": "u1", "access_level": 10})).0,
        403
    );
}

#[test]
fn the_cli_adds_through_the_same_operation() {
    let w = world();
    let (status, body) = w.instance.admin(json!({"command": "member_add", "group": "top", "username": "u1", "access_level": 20, "expires_at": "2001-01-01"}));
    assert_eq!((status, body), (400, json!({"message": {"expires_at": ["cannot be a date in the past"]}})));
    let (status, body) = w.instance.admin(json!({"command": "member_add", "group": "top", "username": "u1", "access_level": 30, "member_role_id": 999_999}));
    assert_eq!((status, body), (400, json!({"message": {"member_role": ["not found"]}})));
    let body =
        w.instance.admin_ok(json!({"command": "member_add", "group": "top", "username": "u1", "access_level": 20}));
    assert_eq!(body["access_level"], 20);
    // A second add changes the membership.
    let body = w.instance.admin_ok(json!({"command": "member_add", "group": "top", "username": "u1", "access_level": 30, "member_role_id": w.delegate_role}));
    assert_eq!(body["member_role_id"], w.delegate_role);
    let (_, member) = w.call("GET", &format!("/api/v4/groups/top/members/{}", w.user_id("u1")), &w.admin, Value::Null);
    assert_eq!(member["access_level"], 30);
    assert_eq!(member["member_role"]["name"], "Member admin");
}

#[test]
fn leaving_a_group_leaves_what_is_below_unless_skipped() {
    let w = world();
    let (u1, u2) = (w.user_id("u1"), w.user_id("u2"));
    for (target, user, level) in [
        ("/api/v4/groups/top/members", u1, 20),
        ("/api/v4/groups/top%2Fsub%2Fleaf/members", u1, 30),
        ("/api/v4/projects/top%2Fsub%2Fleaf%2Fapp/members", u1, 30),
        ("/api/v4/groups/top/members", u2, 20),
        ("/api/v4/groups/top%2Fsub/members", u2, 30),
    ] {
        let (status, body) = w.call("POST", target, &w.admin, json!({"user_id": user, "access_level": level}));
        assert_eq!(status, 201, "{body}");
    }
    assert_eq!(w.call("DELETE", &format!("/api/v4/groups/top/members/{u1}"), &w.owner, Value::Null).0, 204);
    let (_, all) = w.call("GET", "/api/v4/projects/top%2Fsub%2Fleaf%2Fapp/members/all", &w.owner, Value::Null);
    assert!(!usernames(&all).contains(&"u1".to_string()), "{all}");
    assert_eq!(
        w.call("DELETE", &format!("/api/v4/groups/top/members/{u2}?skip_subresources=true"), &w.owner, Value::Null).0,
        204
    );
    let (status, kept) = w.call("GET", &format!("/api/v4/groups/top%2Fsub/members/{u2}"), &w.owner, Value::Null);
    assert_eq!((status, kept["access_level"].clone()), (200, json!(30)));
}
