//! Authentication and the visibility and permission matrix (decisions D3-D4) through the HTTP
//! door, and through the permission function for abilities whose routes come later.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use forgecore::auth::permissions::{authorize_project, ProjectAbility};
use forgecore::auth::Caller;
use forgecore::ApiError;
use serde_json::{json, Value};

fn get(instance: &TestInstance, target: &str, headers: &[(&str, &str)]) -> (u16, Value) {
    let (status, _, body) = instance.request("GET", target, headers, b"");
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

fn git_repo(instance: &TestInstance, name: &str) -> String {
    let dir = instance.data_dir().join("repos").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let status = std::process::Command::new("git").args(["init", "-q", "-b", "main"]).arg(&dir).status().unwrap();
    assert!(status.success());
    dir.to_str().unwrap().to_string()
}

struct World {
    instance: TestInstance,
    admin: String,
    guest: String,
    guest_reader: String,
    reporter: String,
    outsider: String,
}

/// Group `corp` (private) with projects `corp/secret` (private), `corp/inside` (internal),
/// `corp/open` (public); a guest, a guest with a read_code custom role, and a reporter of `corp`.
fn world() -> World {
    let instance = common::open_instance(json!({}));
    let admin = instance.user_with_token("root", true);
    let guest = instance.user_with_token("gus", false);
    let guest_reader = instance.user_with_token("grace", false);
    let reporter = instance.user_with_token("rita", false);
    let outsider = instance.user_with_token("otto", false);
    let repo = git_repo(&instance, "r");
    instance.admin(json!({"command": "group_add", "path": "corp"}));
    for (path, visibility) in [("corp/secret", "private"), ("corp/inside", "internal"), ("corp/open", "public")] {
        let (status, body) =
            instance.admin(json!({"command": "project_add", "path": path, "repo": repo, "visibility": visibility}));
        assert_eq!(status, 201, "{body}");
    }
    let (status, _, role) = instance.request(
        "POST",
        "/api/v4/groups/corp/member_roles",
        &[("PRIVATE-TOKEN", &admin)],
        json!({"name": "Code reader", "base_access_level": 10, "read_code": true}).to_string().as_bytes(),
    );
    let role: Value = serde_json::from_slice(&role).unwrap();
    assert_eq!(status, 201);
    for (user, level, role_id) in
        [("gus", 10, Value::Null), ("grace", 10, role["id"].clone()), ("rita", 20, Value::Null)]
    {
        let (status, body) = instance.admin(json!({"command": "member_add", "group": "corp", "username": user, "access_level": level, "member_role_id": role_id}));
        assert_eq!(status, 201, "{body}");
    }
    World { instance, admin, guest, guest_reader, reporter, outsider }
}

fn project(w: &World, path: &str) -> forgecore::store::projects::Project {
    w.instance.ctx().store.read(|c| forgecore::store::projects::find_by_full_path(c, path)).unwrap().unwrap()
}

fn caller(w: &World, token: Option<&str>) -> Caller {
    let mut credentials = forgecore::auth::Credentials::default();
    credentials.personal.extend(token.map(str::to_string));
    forgecore::auth::identify(w.instance.ctx(), &credentials).unwrap()
}

fn ability(w: &World, token: Option<&str>, path: &str, ability: ProjectAbility) -> Result<(), ApiError> {
    let project = project(w, path);
    let caller = caller(w, token);
    w.instance.ctx().store.read(|c| authorize_project(c, &caller, &project, ability))
}

#[test]
fn private_projects_are_invisible_to_outsiders_with_the_same_404_as_missing_ones() {
    let w = world();
    let missing = get(&w.instance, "/api/v4/projects/corp%2Fnothing", &[]);
    assert_eq!(missing, (404, json!({"message": "404 Project Not Found"})));
    for headers in [vec![], vec![("PRIVATE-TOKEN", w.outsider.as_str())]] {
        for id in ["corp%2Fsecret", "1", "corp%2FSECRET"] {
            assert_eq!(get(&w.instance, &format!("/api/v4/projects/{id}"), &headers), missing, "{id} {headers:?}");
        }
    }
    // Internal: anyone signed in; anonymous callers see nothing.
    assert_eq!(get(&w.instance, "/api/v4/projects/corp%2Finside", &[]), missing);
    assert_eq!(get(&w.instance, "/api/v4/projects/corp%2Finside", &[("PRIVATE-TOKEN", &w.outsider)]).0, 200);
    // Public: anyone.
    let (status, body) = get(&w.instance, "/api/v4/projects/corp%2Fopen", &[("Host", "forge.test:8080")]);
    assert_eq!(status, 200);
    assert_eq!(body["path_with_namespace"], "corp/open");
    assert_eq!(body["default_branch"], "main");
    assert_eq!(body["web_url"], "http://forge.test:8080/corp/open");
    // Members see the private project, by path or id.
    for token in [&w.guest, &w.reporter, &w.admin] {
        let (status, body) = get(&w.instance, "/api/v4/projects/corp%2Fsecret", &[("PRIVATE-TOKEN", token)]);
        assert_eq!((status, body["id"].clone()), (200, json!(1)));
    }
}

#[test]
fn read_code_comes_from_reporter_or_a_custom_role() {
    let w = world();
    let secret = "corp/secret";
    assert_eq!(ability(&w, Some(&w.reporter), secret, ProjectAbility::ReadCode), Ok(()));
    assert_eq!(
        ability(&w, Some(&w.guest_reader), secret, ProjectAbility::ReadCode),
        Ok(()),
        "the custom role's read_code takes effect"
    );
    assert_eq!(ability(&w, Some(&w.guest), secret, ProjectAbility::ReadCode), Err(ApiError::Forbidden(None)));
    assert_eq!(ability(&w, Some(&w.outsider), secret, ProjectAbility::ReadCode), Err(ApiError::NotFound("Project")));
    assert_eq!(ability(&w, None, secret, ProjectAbility::ReadCode), Err(ApiError::NotFound("Project")));
    assert_eq!(ability(&w, Some(&w.admin), secret, ProjectAbility::ReadCode), Ok(()));
    assert_eq!(ability(&w, None, "corp/open", ProjectAbility::ReadCode), Ok(()));
    assert_eq!(ability(&w, Some(&w.outsider), "corp/inside", ProjectAbility::ReadCode), Ok(()));
    assert_eq!(ability(&w, None, "corp/inside", ProjectAbility::ReadCode), Err(ApiError::NotFound("Project")));
    // Pushing needs Developer; health needs Maintainer; a custom role adds neither.
    assert_eq!(ability(&w, Some(&w.reporter), secret, ProjectAbility::PushCode), Err(ApiError::Forbidden(None)));
    assert_eq!(ability(&w, Some(&w.guest_reader), secret, ProjectAbility::ReadHealth), Err(ApiError::Forbidden(None)));
    assert_eq!(ability(&w, Some(&w.admin), secret, ProjectAbility::ReadHealth), Ok(()));
}

#[test]
fn job_tokens_only_read_their_own_projects_changelog() {
    let w = world();
    let (_, token) = w.instance.admin(json!({"command": "job_token_add", "project": "corp/secret"}));
    let token = token["token"].as_str().unwrap().to_string();
    let mut credentials = forgecore::auth::Credentials::default();
    credentials.job.push(token.clone());
    let job = forgecore::auth::identify(w.instance.ctx(), &credentials).unwrap();
    let check = |path: &str, a| w.instance.ctx().store.read(|c| authorize_project(c, &job, &project(&w, path), a));
    assert_eq!(check("corp/secret", ProjectAbility::ReadChangelog), Ok(()));
    assert_eq!(check("corp/secret", ProjectAbility::ReadCode), Err(ApiError::Unauthorized));
    assert_eq!(check("corp/inside", ProjectAbility::ReadChangelog), Err(ApiError::NotFound("Project")));
    // Another project: what the token may not do there is refused only where anyone may see the
    // project; an existing private one answers exactly as a missing one.
    assert_eq!(check("corp/open", ProjectAbility::ReadCode), Err(ApiError::Unauthorized));
    for path in ["corp/inside", "corp%2Finside", "corp/nope"] {
        let target = format!("/api/v4/projects/{}/repository/tree", path.replace('/', "%2F"));
        assert_eq!(
            get(&w.instance, &target, &[("JOB-TOKEN", &token)]),
            (404, json!({"message": "404 Project Not Found"})),
            "{path}"
        );
    }
    // Not accepted on the member-role routes.
    assert_eq!(get(&w.instance, "/api/v4/groups/corp/member_roles", &[("JOB-TOKEN", &token)]).0, 401);
    assert_eq!(get(&w.instance, &format!("/api/v4/member_roles?job_token={token}"), &[]).0, 401);
}

#[test]
fn every_token_spelling_works_and_bad_credentials_are_401() {
    let w = world();
    let ok =
        |headers: &[(&str, &str)], query: &str| get(&w.instance, &format!("/api/v4/member_roles{query}"), headers).0;
    let bearer = format!("Bearer {}", w.admin);
    assert_eq!(ok(&[("PRIVATE-TOKEN", &w.admin)], ""), 200);
    assert_eq!(ok(&[("Private-Token", &w.admin)], ""), 200);
    assert_eq!(ok(&[("private-token", &w.admin)], ""), 200);
    assert_eq!(ok(&[("Authorization", &bearer)], ""), 200);
    assert_eq!(ok(&[], &format!("?private_token={}", w.admin)), 200);
    assert_eq!(ok(&[], &format!("?access_token={}", w.admin)), 200);
    assert_eq!(
        ok(&[("PRIVATE-TOKEN", &w.admin), ("Authorization", &bearer)], ""),
        200,
        "the same token twice is one token"
    );

    let unauthorized = (401, json!({"message": "401 Unauthorized"}));
    let long = "a".repeat(16 * 1024);
    for headers in [
        vec![("PRIVATE-TOKEN", "glpat-nope")],
        vec![("PRIVATE-TOKEN", "")],
        vec![("Authorization", "Bearer ")],
        vec![("Authorization", "Basic cm9vdDpwYXNz")],
        vec![("Authorization", "Bearer  x")],
        vec![("PRIVATE-TOKEN", "tok\u{0}en")],
        vec![("PRIVATE-TOKEN", "t\u{f8}ken")],
        vec![("PRIVATE-TOKEN", long.as_str())],
        vec![("PRIVATE-TOKEN", w.admin.as_str()), ("Authorization", "Bearer glpat-other")],
        vec![("PRIVATE-TOKEN", w.admin.as_str()), ("PRIVATE-TOKEN", w.guest.as_str())],
    ] {
        let answer = get(&w.instance, "/api/v4/member_roles", &headers);
        assert_eq!(answer, unauthorized, "{headers:?}");
    }
    // A bad credential on a public project is not anonymity.
    assert_eq!(get(&w.instance, "/api/v4/projects/corp%2Fopen", &[("PRIVATE-TOKEN", "glpat-nope")]), unauthorized);
}

#[test]
fn a_revoked_token_stops_working_at_once() {
    let w = world();
    assert_eq!(get(&w.instance, "/api/v4/projects/corp%2Fsecret", &[("PRIVATE-TOKEN", &w.guest)]).0, 200);
    let (status, _) = w.instance.admin(json!({"command": "token_revoke", "token": w.guest}));
    assert_eq!(status, 200);
    assert_eq!(get(&w.instance, "/api/v4/projects/corp%2Fsecret", &[("PRIVATE-TOKEN", &w.guest)]).0, 401);
    assert_eq!(w.instance.admin(json!({"command": "token_revoke", "token": w.guest})).0, 404);
}

#[test]
fn tokens_are_stored_only_as_digests() {
    let w = world();
    let bytes = w.instance.stored_bytes();
    assert!(!bytes.windows(w.admin.len()).any(|window| window == w.admin.as_bytes()));
}

#[test]
fn an_empty_token_is_no_token() {
    let w = world();
    // GitLab's Go client built with NewClient("") sends an empty Private-Token: public
    // projects stay readable, as anonymous.
    for headers in [vec![("Private-Token", "")], vec![("Authorization", "Bearer ")], vec![("JOB-TOKEN", "")]] {
        assert_eq!(get(&w.instance, "/api/v4/projects/corp%2Fopen", &headers).0, 200, "{headers:?}");
        assert_eq!(get(&w.instance, "/api/v4/projects/corp%2Fsecret", &headers).0, 404, "{headers:?}");
    }
    assert_eq!(get(&w.instance, "/api/v4/projects/corp%2Fopen?private_token=", &[]).0, 200);
}
