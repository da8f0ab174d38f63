//! Issue #38's flag x level matrix (decisions D9): for each of the 21 custom-role flags and
//! each base level below Owner, a member of a subgroup holding a role with that one flag does
//! exactly what its level plus the flag allow, on representative routes of every family the
//! flag acts on (project, its group, git); the same member at the same level without the role
//! is refused. Flags D9 stores without effect grant nothing beyond the level. One context,
//! one project. Also: flags stay out of shares, and a demoted administrator's sudo token
//! escalates nothing.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use base64::Engine as _;
use common::TestInstance;
use forgecore::auth::roles::{DEVELOPER, GUEST, MAINTAINER, OWNER, PERMISSION_FLAGS, PLANNER, REPORTER};
use serde_json::{json, Value};

const GROUP: &str = "g%2Fs";
const PROJECT: &str = "g%2Fs%2Fp";

/// One representative route: who may call it by level alone and which flags add it.
struct Probe {
    name: &'static str,
    /// Lowest base level allowed without any flag.
    level: i64,
    /// Flags that allow it below that level.
    flags: &'static [&'static str],
    /// The refusal a member sees.
    refused: u16,
}

const PROBES: &[Probe] = &[
    Probe { name: "tree", level: REPORTER, flags: &["read_code", "admin_merge_request"], refused: 403 },
    Probe { name: "merge_requests", level: REPORTER, flags: &["admin_merge_request"], refused: 403 },
    Probe { name: "git fetch", level: REPORTER, flags: &["admin_merge_request"], refused: 403 },
    Probe { name: "git push", level: DEVELOPER, flags: &[], refused: 403 },
    Probe { name: "edit project", level: MAINTAINER, flags: &[], refused: 403 },
    // GitLab's resource_access_tokens.rb refuses list with `unauthorized!`: 401.
    Probe { name: "project access tokens", level: MAINTAINER, flags: &["manage_project_access_tokens"], refused: 401 },
    Probe { name: "project deploy tokens", level: MAINTAINER, flags: &["manage_deploy_tokens"], refused: 403 },
    Probe { name: "project hooks", level: MAINTAINER, flags: &["admin_web_hook"], refused: 403 },
    Probe { name: "project variables", level: MAINTAINER, flags: &["admin_cicd_variables"], refused: 403 },
    Probe { name: "project push rule", level: MAINTAINER, flags: &["admin_push_rules"], refused: 403 },
    Probe { name: "archive project", level: OWNER, flags: &["archive_project"], refused: 403 },
    Probe { name: "remove project", level: OWNER, flags: &["remove_project"], refused: 403 },
    Probe { name: "group members", level: OWNER, flags: &["admin_group_member"], refused: 403 },
    Probe { name: "group access tokens", level: OWNER, flags: &["manage_group_access_tokens"], refused: 401 },
    Probe { name: "group deploy tokens", level: MAINTAINER, flags: &["manage_deploy_tokens"], refused: 403 },
    Probe { name: "group variables", level: OWNER, flags: &["admin_cicd_variables"], refused: 403 },
    // GitLab's group push rule API hides the group: `not_found!` unless `change_push_rules`.
    Probe { name: "group push rule", level: MAINTAINER, flags: &["admin_push_rules"], refused: 404 },
    Probe { name: "remove subgroup", level: OWNER, flags: &["remove_group"], refused: 403 },
];

/// Flags D9 names as taking effect (and `admin_cicd_variables`, which main honours on project and
/// group variables); the others are stored and answered only.
const ACTING: &[&str] = &[
    "read_code",
    "admin_group_member",
    "archive_project",
    "remove_project",
    "remove_group",
    "manage_project_access_tokens",
    "manage_group_access_tokens",
    "manage_deploy_tokens",
    "admin_merge_request",
    "admin_web_hook",
    "admin_cicd_variables",
    "admin_push_rules",
];

struct World {
    instance: TestInstance,
    admin: String,
    member: String,
}

fn call(instance: &TestInstance, method: &str, target: &str, token: &str, body: Value) -> (u16, Value) {
    instance.call(method, target, Some(token), body)
}

fn world() -> World {
    let instance = common::open_instance(json!({}));
    let admin = instance.user_with_token("root", true);
    let member = instance.user_with_token("mia", false);
    instance.user_with_token("xavi", false);
    instance.admin_ok(json!({"command": "group_add", "path": "g"}));
    let sub = instance.admin_ok(json!({"command": "group_add", "path": "g/s"}));
    let (status, project) = call(
        &instance,
        "POST",
        "/api/v4/projects",
        &admin,
        json!({"path": "p", "namespace_id": sub["id"], "initialize_with_readme": true, "visibility": "private"}),
    );
    assert_eq!(status, 201, "{project}");
    World { instance, admin, member }
}

impl World {
    /// Runs one probe as the member: its status (an allowed write is undone at once).
    fn probe(&self, name: &str) -> u16 {
        let i = &self.instance;
        let t = self.member.as_str();
        let get = |path: &str| call(i, "GET", path, t, Value::Null).0;
        match name {
            "tree" => get(&format!("/api/v4/projects/{PROJECT}/repository/tree")),
            "merge_requests" => get(&format!("/api/v4/projects/{PROJECT}/merge_requests")),
            "git fetch" => self.git_refs("git-upload-pack"),
            "git push" => self.git_refs("git-receive-pack"),
            "edit project" => call(i, "PUT", &format!("/api/v4/projects/{PROJECT}"), t, json!({"description": "d"})).0,
            "project access tokens" => get(&format!("/api/v4/projects/{PROJECT}/access_tokens")),
            "project deploy tokens" => get(&format!("/api/v4/projects/{PROJECT}/deploy_tokens")),
            "project hooks" => get(&format!("/api/v4/projects/{PROJECT}/hooks")),
            "project variables" => get(&format!("/api/v4/projects/{PROJECT}/variables")),
            "project push rule" => get(&format!("/api/v4/projects/{PROJECT}/push_rule")),
            "group push rule" => {
                let rule = format!("/api/v4/groups/{GROUP}/push_rule");
                let (status, body) = call(i, "POST", &rule, t, json!({"member_check": true}));
                if status == 201 {
                    assert_eq!(body["member_check"], true, "{body}");
                    assert_eq!(call(i, "DELETE", &rule, t, Value::Null).0, 204);
                }
                status
            }
            "group access tokens" => get(&format!("/api/v4/groups/{GROUP}/access_tokens")),
            "group deploy tokens" => get(&format!("/api/v4/groups/{GROUP}/deploy_tokens")),
            "group variables" => get(&format!("/api/v4/groups/{GROUP}/variables")),
            "archive project" => {
                let (status, body) = call(i, "POST", &format!("/api/v4/projects/{PROJECT}/archive"), t, Value::Null);
                if status == 201 {
                    assert_eq!(body["archived"], true, "{body}");
                    let (back, body) =
                        call(i, "POST", &format!("/api/v4/projects/{PROJECT}/unarchive"), t, Value::Null);
                    assert_eq!((back, &body["archived"]), (201, &json!(false)), "{body}");
                }
                status
            }
            "remove project" => {
                let (status, body) = call(i, "DELETE", &format!("/api/v4/projects/{PROJECT}"), t, Value::Null);
                if status == 202 {
                    let (back, body) = call(i, "POST", &format!("/api/v4/projects/{PROJECT}/restore"), t, Value::Null);
                    assert_eq!(back, 201, "{body}");
                } else {
                    assert_ne!(body, Value::Null);
                }
                status
            }
            "remove subgroup" => {
                let (status, _) = call(i, "DELETE", &format!("/api/v4/groups/{GROUP}"), t, Value::Null);
                if status == 202 {
                    let (back, body) = call(i, "POST", &format!("/api/v4/groups/{GROUP}/restore"), t, Value::Null);
                    assert_eq!(back, 201, "{body}");
                }
                status
            }
            "group members" => {
                let (_, xavi) = call(i, "GET", "/api/v4/users?username=xavi", &self.admin, Value::Null);
                let id = xavi[0]["id"].as_i64().unwrap();
                let (status, body) = call(
                    i,
                    "POST",
                    &format!("/api/v4/groups/{GROUP}/members"),
                    t,
                    json!({"user_id": id, "access_level": GUEST}),
                );
                if status == 201 {
                    assert_eq!(body["access_level"], GUEST, "{body}");
                    let (gone, body) =
                        call(i, "DELETE", &format!("/api/v4/groups/{GROUP}/members/{id}"), t, Value::Null);
                    assert_eq!(gone, 204, "{body}");
                }
                status
            }
            other => panic!("no probe {other}"),
        }
    }

    /// git's first request, as a client sends it with the member's token as password.
    fn git_refs(&self, service: &str) -> u16 {
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("mia:{}", self.member));
        let auth = format!("Basic {basic}");
        let target = format!("/g/s/p.git/info/refs?service={service}");
        self.instance.request("GET", &target, &[("Authorization", &auth)], b"").0
    }

    /// Makes the member a member of the subgroup at `level` with `role` (or none).
    fn seat(&self, level: i64, role: Option<i64>) {
        let made = self.instance.admin_ok(
            json!({"command": "member_add", "group": "g/s", "username": "mia", "access_level": level, "member_role_id": role}),
        );
        assert_eq!((made["access_level"].as_i64(), made["member_role_id"].as_i64()), (Some(level), role), "{made}");
    }

    /// Checks every probe for a member at `level` holding `flags`.
    fn check(&self, level: i64, flags: &[&str], wrong: &mut Vec<String>) {
        for probe in PROBES {
            let allowed = level >= probe.level || probe.flags.iter().any(|f| flags.contains(f));
            let status = self.probe(probe.name);
            if allowed != (200..300).contains(&status) || (!allowed && status != probe.refused) {
                wrong.push(format!("{} at {level} with {flags:?}: {status}", probe.name));
            }
        }
    }
}

#[test]
fn every_flag_at_every_level_does_what_d9_says_and_nothing_more() {
    let w = world();
    let mut wrong = Vec::new();
    for level in [GUEST, PLANNER, REPORTER, DEVELOPER, MAINTAINER] {
        // Without a role: the level alone.
        w.seat(level, None);
        w.check(level, &[], &mut wrong);
        for flag in PERMISSION_FLAGS {
            let mut body = json!({"name": format!("{flag}-{level}"), "base_access_level": level, flag: true});
            // GitLab's requirement: admin_vulnerability needs read_vulnerability below Developer.
            if flag == "admin_vulnerability" && level < DEVELOPER {
                body["read_vulnerability"] = json!(true);
            }
            let (status, role) = call(&w.instance, "POST", "/api/v4/member_roles", &w.admin, body);
            assert_eq!((status, &role[flag]), (201, &json!(true)), "{role}");
            w.seat(level, role["id"].as_i64());
            let acting: &[&str] = if ACTING.contains(&flag) { &[flag] } else { &[] };
            w.check(level, acting, &mut wrong);
        }
    }
    // The flags only add: an Owner without a role still may do everything.
    w.seat(OWNER, None);
    w.check(OWNER, &[], &mut wrong);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_flag_d9_stores_without_effect_has_no_probe_and_every_acting_one_has() {
    for flag in PERMISSION_FLAGS {
        let probed = PROBES.iter().any(|p| p.flags.contains(&flag));
        assert_eq!(probed, ACTING.contains(&flag), "{flag}");
    }
}

#[test]
fn custom_role_flags_do_not_pass_through_shares() {
    // A share gives its members at most the link's level (GitLab's group links; the link's own
    // `member_role_id` is EE's and not ours): a Developer of `d` whose role carries
    // `admin_web_hook` and `read_code` reaches `g`'s project through a Maintainer link as a
    // Developer, with no flag.
    let w = world();
    let sam = w.instance.user_with_token("sam", false);
    let d = w.instance.admin_ok(json!({"command": "group_add", "path": "d"}));
    let (status, role) = call(
        &w.instance,
        "POST",
        "/api/v4/member_roles",
        &w.admin,
        json!({"name": "hooks", "base_access_level": DEVELOPER, "admin_web_hook": true, "read_code": true}),
    );
    assert_eq!(status, 201, "{role}");
    w.instance.admin_ok(json!({"command": "member_add", "group": "d", "username": "sam", "access_level": DEVELOPER,
                               "member_role_id": role["id"]}));
    let hooks = format!("/api/v4/projects/{PROJECT}/hooks");
    assert_eq!(call(&w.instance, "GET", &hooks, &sam, Value::Null).0, 404, "unshared, unseen");
    let (status, body) =
        call(&w.instance, "POST", "/api/v4/groups/g/share", &w.admin, json!({"group_id": d["id"], "group_access": 40}));
    assert_eq!(status, 201, "{body}");
    let (status, project) = call(&w.instance, "GET", &format!("/api/v4/projects/{PROJECT}"), &sam, Value::Null);
    assert_eq!(status, 200, "{project}");
    assert_eq!(
        call(&w.instance, "GET", &format!("/api/v4/projects/{PROJECT}/repository/tree"), &sam, Value::Null).0,
        200
    );
    assert_eq!(call(&w.instance, "GET", &hooks, &sam, Value::Null).0, 403, "the flag stays in d");
    assert_eq!(
        call(&w.instance, "PUT", &format!("/api/v4/projects/{PROJECT}"), &sam, json!({"description": "x"})).0,
        403
    );
    // In `d` itself the role works as everywhere.
    let (status, _) =
        call(&w.instance, "POST", "/api/v4/projects", &w.admin, json!({"path": "q", "namespace_id": d["id"]}));
    assert_eq!(status, 201);
    assert_eq!(call(&w.instance, "GET", "/api/v4/projects/d%2Fq/hooks", &sam, Value::Null).0, 200);
}

#[test]
fn a_sudo_token_of_a_demoted_administrator_is_refused_sudo() {
    // Escalation: a `sudo` token outlives its holder's administrator flag, never its power
    // (GitLab checks `current_user.admin?` on each sudo: "Must be admin to use sudo").
    let w = world();
    let made = w.instance.admin_ok(json!({"command": "token_add", "username": "root", "scopes": ["api", "sudo"]}));
    let sudo = made["token"].as_str().unwrap().to_string();
    let me = |token: &str| {
        let (status, _, body) =
            w.instance.request("GET", "/api/v4/user", &[("PRIVATE-TOKEN", token), ("Sudo", "mia")], b"");
        (status, serde_json::from_slice::<Value>(&body).unwrap())
    };
    assert_eq!(me(&sudo).1["username"], "mia");
    let (_, other) = call(
        &w.instance,
        "POST",
        "/api/v4/users",
        &w.admin,
        json!({"username": "ada", "name": "Ada", "email": "ada@x.org", "password": "Secret-pass-1234", "admin": true}),
    );
    let ada = w.instance.admin_ok(json!({"command": "token_add", "username": "ada", "scopes": ["api", "sudo"]}));
    let ada = ada["token"].as_str().unwrap().to_string();
    assert_eq!(me(&ada).1["username"], "mia", "{other}");
    let (status, body) =
        call(&w.instance, "PUT", &format!("/api/v4/users/{}", other["id"]), &w.admin, json!({"admin": false}));
    assert_eq!((status, &body["is_admin"]), (200, &json!(false)), "{body}");
    assert_eq!(me(&ada), (403, json!({"message": "403 Forbidden - Must be admin to use sudo"})));
    // Nor may she mint users or tokens for others any more.
    let (status, _) = call(
        &w.instance,
        "POST",
        "/api/v4/users",
        &ada,
        json!({"username": "eve", "name": "Eve", "email": "eve@x.org", "password": "Secret-pass-1234"}),
    );
    assert_eq!(status, 403);
    let (_, mia) = call(&w.instance, "GET", "/api/v4/users?username=mia", &w.admin, Value::Null);
    let (status, _) = call(
        &w.instance,
        "POST",
        &format!("/api/v4/users/{}/personal_access_tokens", mia[0]["id"]),
        &ada,
        json!({"name": "x", "scopes": ["api"]}),
    );
    assert_eq!(status, 403);
}
