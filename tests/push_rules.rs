//! Push rules (issue #42, decisions D12): the project and group routes with GitLab's statuses,
//! texts and key order, who may use them (Maintainers, a custom role's `admin_push_rules`),
//! and each rule refusing and allowing over a real `git push` (GitLab's text on the client's
//! terminal), over REST writes (400 with the text), and in a merge; only new commits are
//! read; a new project in a group starts with the group's rule. SQLite, and PostgreSQL under
//! `FORGECORE_TEST_POSTGRES`.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::serve::serve_connection;
use common::{open_instance, TestInstance};
use serde_json::{json, Value};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

const RULE: &str = "/api/v4/projects/grp%2Fapp/push_rule";
const GROUP_RULE: &str = "/api/v4/groups/grp/push_rule";

struct Forge {
    instance: Arc<TestInstance>,
    url: String,
    maintainer: String,
    developer: String,
    admin: String,
    work: PathBuf,
}

fn git_in(dir: &Path, args: &[&str]) -> Output {
    let home = dir.join(".home");
    std::fs::create_dir_all(&home).unwrap();
    Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("HOME", &home)
        .env("GIT_AUTHOR_NAME", "Mona N")
        .env("GIT_AUTHOR_EMAIL", "mona@example.com")
        .env("GIT_COMMITTER_NAME", "Mona N")
        .env("GIT_COMMITTER_EMAIL", "mona@example.com")
        .output()
        .unwrap()
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = git_in(dir, args);
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn forge() -> Forge {
    let instance = Arc::new(open_instance(json!({})));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let served = Arc::clone(&instance);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let served = Arc::clone(&served);
            std::thread::spawn(move || {
                let _ = serve_connection(served.ctx(), stream);
            });
        }
    });
    let root = instance.root_dir().to_path_buf();
    let seed = root.join("seed");
    std::fs::create_dir_all(&seed).unwrap();
    ok(&seed, &["init", "-q", "-b", "main"]);
    std::fs::write(seed.join("README.md"), "hello\n").unwrap();
    ok(&seed, &["add", "."]);
    ok(&seed, &["commit", "-q", "-m", "seed"]);
    // A commit on a side branch only: pushing a new branch at it later brings no new commit.
    ok(&seed, &["checkout", "-q", "-b", "old-work"]);
    std::fs::write(seed.join("notes.txt"), "old\n").unwrap();
    ok(&seed, &["add", "."]);
    ok(&seed, &["commit", "-q", "-m", "old work without a ticket"]);
    ok(&seed, &["checkout", "-q", "main"]);
    let bare = root.join("app.git");
    ok(&root, &["clone", "-q", "--bare", &seed.to_string_lossy(), &bare.to_string_lossy()]);
    instance.admin_ok(json!({"command": "group_add", "path": "grp", "visibility": "private"}));
    instance.admin_ok(json!({"command": "project_add", "path": "grp/app", "repo": bare, "visibility": "private"}));
    let mut tokens = Vec::new();
    for (user, level) in [("mona", 40), ("dev", 30)] {
        instance.admin_ok(json!({"command": "user_add", "username": user, "name": format!("{user} N"),
                                 "email": format!("{user}@example.com")}));
        instance.admin_ok(json!({"command": "member_add", "username": user, "group": "grp", "access_level": level}));
        tokens.push(
            instance.admin_ok(json!({"command": "token_add", "username": user}))["token"].as_str().unwrap().to_string(),
        );
    }
    let developer = tokens.pop().unwrap();
    let maintainer = tokens.pop().unwrap();
    let admin = instance.user_with_token("root", true);
    let work = root.join("work");
    let remote = url.replacen("http://", &format!("http://mona:{maintainer}@"), 1) + "/grp/app.git";
    ok(&root, &["clone", "-q", &remote, &work.to_string_lossy()]);
    Forge { instance, url, maintainer, developer, admin, work }
}

impl Forge {
    fn call(&self, method: &str, target: &str, body: Value) -> (u16, Value) {
        self.instance.call(method, target, Some(&self.maintainer), body)
    }

    fn rule(&self, body: Value) -> Value {
        let (status, rule) = self.call("POST", RULE, body);
        assert_eq!(status, 201, "{rule}");
        rule
    }

    /// Commits a file and pushes `refspec`; the push's output and whether git says it worked.
    fn commit_and_push(&self, file: &str, message: &str, refspec: &str) -> (bool, String) {
        std::fs::write(self.work.join(file), format!("{message}\n")).unwrap();
        ok(&self.work, &["add", "-A"]);
        ok(&self.work, &["commit", "-q", "-m", message]);
        self.push(&[refspec])
    }

    fn push(&self, refspecs: &[&str]) -> (bool, String) {
        let mut args = vec!["push", "origin"];
        args.extend_from_slice(refspecs);
        let out = git_in(&self.work, &args);
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    }

    fn remote_tip(&self, branch: &str) -> String {
        let out = ok(&self.work, &["ls-remote", "origin", &format!("refs/heads/{branch}")]);
        out.split_whitespace().next().unwrap_or("").to_string()
    }
}

/// Whether `keys` first appear in `text` in this order.
fn assert_order(text: &str, keys: &[&str]) {
    let at: Vec<usize> = keys
        .iter()
        .map(|k| text.find(&format!("\"{k}\":")).unwrap_or_else(|| panic!("{k} missing in {text}")))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "keys out of GitLab's order: {keys:?} in {text}");
}

#[test]
fn the_routes_answer_as_gitlab_for_projects_and_groups() {
    let forge = forge();
    // No rule yet: a project's is `null`, a group's 404.
    assert_eq!(forge.call("GET", RULE, Value::Null), (200, Value::Null));
    assert_eq!(forge.call("GET", GROUP_RULE, Value::Null), (404, json!({"message": "404 Not Found"})));
    assert_eq!(forge.call("PUT", RULE, json!({"deny_delete_tag": true})).0, 404);
    assert_eq!(forge.call("DELETE", RULE, Value::Null), (404, json!({"message": "404 Push rule Not Found"})));
    // At least one parameter; patterns must be RE2.
    let (status, none) = forge.call("POST", RULE, json!({}));
    assert_eq!(status, 400, "{none}");
    assert!(none["error"].as_str().unwrap().ends_with("are missing, at least one parameter must be provided"));
    let (status, invalid) = forge.call("POST", RULE, json!({"commit_message_regex": "(?<=x)y", "max_file_size": -1}));
    assert_eq!(status, 400, "{invalid}");
    assert!(invalid["message"]["commit_message_regex"][0].as_str().unwrap().starts_with("not valid RE2 syntax"));
    assert_eq!(invalid["message"]["max_file_size"], json!(["must be greater than or equal to 0"]));
    assert_eq!(forge.call("GET", RULE, Value::Null), (200, Value::Null), "nothing stored");

    let made = forge.rule(json!({"commit_message_regex": "^JIRA-\\d+", "deny_delete_tag": true, "max_file_size": 5}));
    assert_eq!(made["commit_message_regex"], "^JIRA-\\d+");
    assert_eq!((made["deny_delete_tag"].clone(), made["max_file_size"].clone()), (json!(true), json!(5)));
    assert_eq!(made["branch_name_regex"], Value::Null);
    let (_, _, raw) = forge.instance.request("GET", RULE, &[("PRIVATE-TOKEN", &forge.maintainer)], b"");
    let text = String::from_utf8(raw).unwrap();
    assert_order(
        &text,
        &[
            "id",
            "project_id",
            "created_at",
            "commit_message_regex",
            "commit_message_negative_regex",
            "branch_name_regex",
            "deny_delete_tag",
            "member_check",
            "prevent_secrets",
            "author_email_regex",
            "file_name_regex",
            "max_file_size",
            "commit_committer_check",
            "commit_committer_name_check",
            "reject_unsigned_commits",
            "reject_non_dco_commits",
        ],
    );
    assert_eq!(
        forge.call("POST", RULE, json!({"deny_delete_tag": false})),
        (422, json!({"message": "Project push rule exists"}))
    );
    let (status, edited) = forge.call("PUT", RULE, json!({"branch_name_regex": "^(feature|fix)/"}));
    assert_eq!(status, 200, "{edited}");
    assert_eq!(
        (edited["branch_name_regex"].clone(), edited["commit_message_regex"].clone(), edited["id"].clone()),
        (json!("^(feature|fix)/"), json!("^JIRA-\\d+"), made["id"].clone())
    );
    assert_eq!(forge.call("PUT", RULE, json!({"branch_name_regex": "(unclosed"})).0, 400);
    assert_eq!(forge.call("GET", RULE, Value::Null).1["branch_name_regex"], "^(feature|fix)/", "kept");

    // Group: made, in GroupPushRule's order, 422 once it exists, deleted.
    let (status, group_rule) = forge.call("POST", GROUP_RULE, json!({"prevent_secrets": true}));
    assert_eq!(status, 201, "{group_rule}");
    assert!(group_rule.get("project_id").is_none());
    let (_, _, raw) = forge.instance.request("GET", GROUP_RULE, &[("PRIVATE-TOKEN", &forge.maintainer)], b"");
    assert_order(
        &String::from_utf8(raw).unwrap(),
        &[
            "id",
            "created_at",
            "commit_message_regex",
            "author_email_regex",
            "file_name_regex",
            "deny_delete_tag",
            "max_file_size",
            "reject_non_dco_commits",
        ],
    );
    assert_eq!(
        forge.call("POST", GROUP_RULE, json!({"member_check": true})),
        (422, json!({"message": "Group push rule exists, try updating"}))
    );
    assert_eq!(forge.call("DELETE", GROUP_RULE, Value::Null).0, 204);
    assert_eq!(forge.call("DELETE", GROUP_RULE, Value::Null), (404, json!({"message": "404 Not Found"})));
    assert_eq!(forge.call("DELETE", RULE, Value::Null).0, 204);
    assert_eq!(forge.call("GET", RULE, Value::Null), (200, Value::Null));
}

#[test]
fn maintainers_and_the_custom_role_flag_may_manage_rules_developers_may_not() {
    let forge = forge();
    let dev = |method: &str, target: &str| {
        forge.instance.call(method, target, Some(&forge.developer), json!({"member_check": true}))
    };
    assert_eq!(dev("GET", RULE).0, 403);
    assert_eq!(dev("POST", RULE).0, 403);
    assert_eq!(dev("GET", GROUP_RULE), (404, json!({"message": "404 Not Found"})));
    assert_eq!(forge.instance.call("GET", RULE, None, Value::Null).0, 401);

    // A Guest with a custom role granting `admin_push_rules` manages both.
    let (status, role) = forge.instance.call(
        "POST",
        "/api/v4/groups/grp/member_roles",
        Some(&forge.admin),
        json!({"name": "Rule keeper", "base_access_level": 10, "admin_push_rules": true}),
    );
    assert_eq!(status, 201, "{role}");
    assert_eq!(role["admin_push_rules"], true);
    let guest = forge.instance.user_with_token("gwen", false);
    forge.instance.admin_ok(json!({"command": "member_add", "group": "grp", "username": "gwen", "access_level": 10,
                                   "member_role_id": role["id"]}));
    let gwen = |method: &str, target: &str, body: Value| forge.instance.call(method, target, Some(&guest), body);
    assert_eq!(gwen("POST", RULE, json!({"deny_delete_tag": true})).0, 201);
    assert_eq!(gwen("GET", RULE, Value::Null).1["deny_delete_tag"], true);
    assert_eq!(gwen("POST", GROUP_RULE, json!({"member_check": true})).0, 201);
    // A plain Guest may not.
    let plain = forge.instance.user_with_token("gus", false);
    forge.instance.admin_ok(json!({"command": "member_add", "group": "grp", "username": "gus", "access_level": 10}));
    assert_eq!(forge.instance.call("GET", RULE, Some(&plain), Value::Null).0, 403);
    assert_eq!(forge.instance.call("GET", GROUP_RULE, Some(&plain), Value::Null).0, 404);
}

#[test]
fn git_pushes_are_refused_with_gitlabs_text_and_allowed_when_they_follow_the_rule() {
    let forge = forge();
    forge.rule(json!({"commit_message_regex": "^JIRA-\\d+", "branch_name_regex": "^(feature|fix)/",
                      "file_name_regex": "\\.exe$", "deny_delete_tag": true}));
    let before = forge.remote_tip("main");

    let (pushed, out) = forge.commit_and_push("a.txt", "no ticket", "HEAD:main");
    assert!(!pushed, "{out}");
    assert!(out.contains("remote: GitLab: Commit message does not follow the pattern '^JIRA-\\d+'"), "{out}");
    assert!(out.contains("(pre-receive hook declined)"), "{out}");
    assert_eq!(forge.remote_tip("main"), before, "nothing moved");

    ok(&forge.work, &["commit", "-q", "--amend", "-m", "JIRA-7 with a ticket"]);
    let (pushed, out) = forge.push(&["HEAD:main"]);
    assert!(pushed, "{out}");
    assert_eq!(forge.remote_tip("main"), ok(&forge.work, &["rev-parse", "HEAD"]));

    // A new file the name rule forbids.
    let (pushed, out) = forge.commit_and_push("setup.exe", "JIRA-8 a binary", "HEAD:main");
    assert!(!pushed, "{out}");
    assert!(out.contains("remote: GitLab: File name setup.exe was prohibited by the pattern \"\\\\.exe$\"."), "{out}");
    ok(&forge.work, &["reset", "-q", "--hard", "HEAD~1"]);

    // Branch names: the default branch is exempt, new branches must follow the pattern.
    let (pushed, out) = forge.push(&["HEAD:refs/heads/random"]);
    assert!(!pushed, "{out}");
    assert!(out.contains("GitLab: Branch name does not follow the pattern '^(feature|fix)/'"), "{out}");
    assert!(forge.push(&["HEAD:refs/heads/feature/ok"]).0);

    // Only new commits are read: a branch at an old commit (made before the rule, reachable
    // from a ref) brings none, so its message is not judged.
    let (pushed, out) = forge.push(&["origin/old-work:refs/heads/fix/old"]);
    assert!(pushed, "{out}");

    // Tags: deleting one is refused on a push.
    ok(&forge.work, &["tag", "v1"]);
    assert!(forge.push(&["v1"]).0);
    let (pushed, out) = forge.push(&[":refs/tags/v1"]);
    assert!(!pushed, "{out}");
    assert!(out.contains("GitLab: You cannot delete a tag"), "{out}");

    // Without the rule, the same pushes pass.
    assert_eq!(forge.call("DELETE", RULE, Value::Null).0, 204);
    assert!(forge.push(&[":refs/tags/v1"]).0);
    assert!(forge.commit_and_push("b.txt", "no ticket again", "HEAD:main").0);
}

#[test]
fn pushes_check_authors_sizes_secrets_and_signoffs() {
    let forge = forge();
    forge.rule(json!({"author_email_regex": "@example\\.com$", "max_file_size": 1, "prevent_secrets": true,
                      "reject_non_dco_commits": true, "member_check": true}));
    let signed = "work\n\nSigned-off-by: Mona N <mona@example.com>";
    let (pushed, out) = forge.commit_and_push("a.txt", "work without signoff", "HEAD:main");
    assert!(!pushed && out.contains("GitLab: Commit message must contain a DCO signoff"), "{out}");
    ok(&forge.work, &["commit", "-q", "--amend", "-m", signed]);
    assert!(forge.push(&["HEAD:main"]).0);

    std::fs::write(forge.work.join("big.bin"), vec![b'x'; 1024 * 1024 + 1]).unwrap();
    ok(&forge.work, &["add", "-A"]);
    ok(&forge.work, &["commit", "-q", "-m", signed]);
    let (pushed, out) = forge.push(&["HEAD:main"]);
    assert!(!pushed, "{out}");
    assert!(
        out.contains(
            "GitLab: File \"big.bin\" is larger than the allowed size of 1 MiB. Use Git LFS to manage this file."
        ),
        "{out}"
    );
    ok(&forge.work, &["reset", "-q", "--hard", "HEAD~1"]);

    std::fs::create_dir_all(forge.work.join("keys")).unwrap();
    std::fs::write(forge.work.join("keys/id_rsa"), "-----BEGIN-----\n").unwrap();
    ok(&forge.work, &["add", "-A"]);
    ok(&forge.work, &["commit", "-q", "-m", signed]);
    let (pushed, out) = forge.push(&["HEAD:main"]);
    assert!(!pushed && out.contains("GitLab: File name keys/id_rsa was prohibited by the pattern"), "{out}");
    ok(&forge.work, &["reset", "-q", "--hard", "HEAD~1"]);

    // The committer's email follows the pattern too on a push; an author no user has is refused.
    std::fs::write(forge.work.join("c.txt"), "c\n").unwrap();
    ok(&forge.work, &["add", "-A"]);
    let out = Command::new("git")
        .current_dir(&forge.work)
        .args(["-c", "user.name=Eve", "-c", "user.email=eve@evil.org", "commit", "-q", "-m", signed])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", forge.work.join(".home"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (pushed, out) = forge.push(&["HEAD:main"]);
    assert!(!pushed, "{out}");
    assert!(
        out.contains("GitLab: Committer's email 'eve@evil.org' does not follow the pattern '@example\\.com$'"),
        "{out}"
    );
    ok(&forge.work, &["commit", "-q", "--amend", "--reset-author", "-m", signed]);
    assert!(forge.push(&["HEAD:main"]).0);

    let out = Command::new("git")
        .current_dir(&forge.work)
        .args(["commit", "-q", "--allow-empty", "-m", signed])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", forge.work.join(".home"))
        .env("GIT_AUTHOR_NAME", "Nobody")
        .env("GIT_AUTHOR_EMAIL", "nobody@example.com")
        .env("GIT_COMMITTER_NAME", "Mona N")
        .env("GIT_COMMITTER_EMAIL", "mona@example.com")
        .output()
        .unwrap();
    assert!(out.status.success());
    let (pushed, out) = forge.push(&["HEAD:main"]);
    assert!(!pushed && out.contains("GitLab: Author 'nobody@example.com' is not a member of team"), "{out}");
}

#[test]
fn rest_writes_answer_the_rules_text_with_400() {
    let forge = forge();
    forge.rule(json!({"commit_message_regex": "^JIRA-\\d+", "branch_name_regex": "^(main|feature/.*)$",
                      "file_name_regex": "\\.exe$", "deny_delete_tag": true}));
    let files = "/api/v4/projects/grp%2Fapp/repository/files";
    let before = forge.remote_tip("main");
    let (status, refused) = forge.call(
        "POST",
        &format!("{files}/new.txt"),
        json!({"branch": "main", "content": "x", "commit_message": "no ticket"}),
    );
    assert_eq!((status, refused), (400, json!({"message": "Commit message does not follow the pattern '^JIRA-\\d+'"})));
    assert_eq!(forge.remote_tip("main"), before);
    let (status, made) = forge.call(
        "POST",
        &format!("{files}/new.txt"),
        json!({"branch": "main", "content": "x", "commit_message": "JIRA-1 a file"}),
    );
    assert_eq!(status, 201, "{made}");
    assert_ne!(forge.remote_tip("main"), before);

    let commits = "/api/v4/projects/grp%2Fapp/repository/commits";
    let (status, refused) = forge.call(
        "POST",
        commits,
        json!({"branch": "main", "commit_message": "JIRA-2 tools",
               "actions": [{"action": "create", "file_path": "bin/tool.exe", "content": "MZ"}]}),
    );
    assert_eq!(
        (status, refused),
        (400, json!({"message": "File name bin/tool.exe was prohibited by the pattern \"\\\\.exe$\"."}))
    );
    // A commit on a new branch whose name breaks the rule.
    let (status, refused) = forge.call(
        "POST",
        commits,
        json!({"branch": "wip", "start_branch": "main", "commit_message": "JIRA-3 x",
               "actions": [{"action": "create", "file_path": "x.txt", "content": "x"}]}),
    );
    assert_eq!(
        (status, refused),
        (400, json!({"message": "Branch name does not follow the pattern '^(main|feature/.*)$'"}))
    );

    let branches = "/api/v4/projects/grp%2Fapp/repository/branches";
    let (status, refused) = forge.call("POST", branches, json!({"branch": "other", "ref": "main"}));
    assert_eq!(
        (status, refused["message"].clone()),
        (400, json!("Branch name does not follow the pattern '^(main|feature/.*)$'"))
    );
    assert_eq!(forge.call("POST", branches, json!({"branch": "feature/x", "ref": "main"})).0, 201);

    // Deleting a tag over the API is allowed: GitLab skips `deny_delete_tag` for web writes.
    let tags = "/api/v4/projects/grp%2Fapp/repository/tags";
    assert_eq!(forge.call("POST", tags, json!({"tag_name": "v1", "ref": "main"})).0, 201);
    assert_eq!(forge.call("DELETE", &format!("{tags}/v1"), Value::Null).0, 204);
}

#[test]
fn a_merge_is_judged_by_its_merge_commit() {
    let forge = forge();
    let branches = "/api/v4/projects/grp%2Fapp/repository/branches";
    assert_eq!(forge.call("POST", branches, json!({"branch": "feature", "ref": "main"})).0, 201);
    let (status, _) = forge.call(
        "POST",
        "/api/v4/projects/grp%2Fapp/repository/files/f.txt",
        json!({"branch": "feature", "content": "f", "commit_message": "JIRA-5 feature work"}),
    );
    assert_eq!(status, 201);
    let mrs = "/api/v4/projects/grp%2Fapp/merge_requests";
    let (status, mr) =
        forge.call("POST", mrs, json!({"source_branch": "feature", "target_branch": "main", "title": "Feature"}));
    assert_eq!(status, 201, "{mr}");
    forge.rule(json!({"commit_message_regex": "^JIRA-\\d+"}));
    let merge = format!("{mrs}/{}/merge", mr["iid"]);
    let before = forge.remote_tip("main");
    // GitLab's default merge commit message ("Merge branch ...") breaks the rule.
    let (status, refused) = forge.call("PUT", &merge, json!({}));
    assert_eq!((status, refused), (422, json!({"message": "Branch cannot be merged"})));
    assert_eq!(forge.remote_tip("main"), before, "the target did not move");
    let (_, now) = forge.call("GET", &format!("{mrs}/{}", mr["iid"]), Value::Null);
    assert_eq!(
        now["merge_error"],
        "Something went wrong during merge pre-receive hook. Commit message does not follow the pattern '^JIRA-\\d+'"
    );
    let (status, merged) = forge.call("PUT", &merge, json!({"merge_commit_message": "JIRA-5 merge the feature"}));
    assert_eq!(status, 200, "{merged}");
    assert_eq!(merged["state"], "merged");
}

#[test]
fn a_new_project_in_a_group_starts_with_a_copy_of_the_nearest_groups_rule() {
    let forge = forge();
    let (status, _) = forge.instance.call(
        "POST",
        GROUP_RULE,
        Some(&forge.admin),
        json!({"commit_message_regex": "^JIRA-\\d+", "member_check": true, "max_file_size": 3}),
    );
    assert_eq!(status, 201);
    let (status, sub) = forge.instance.call(
        "POST",
        "/api/v4/groups",
        Some(&forge.admin),
        json!({"name": "sub", "path": "sub", "parent_id": forge.instance.call("GET", "/api/v4/groups/grp", Some(&forge.admin), Value::Null).1["id"]}),
    );
    assert_eq!(status, 201, "{sub}");
    let (status, project) = forge.instance.call(
        "POST",
        "/api/v4/projects",
        Some(&forge.admin),
        json!({"name": "svc", "namespace_id": sub["id"]}),
    );
    assert_eq!(status, 201, "{project}");
    let (status, copied) = forge.instance.call(
        "GET",
        &format!("/api/v4/projects/{}/push_rule", project["id"]),
        Some(&forge.admin),
        Value::Null,
    );
    assert_eq!(status, 200, "{copied}");
    assert_eq!(copied["project_id"], project["id"]);
    assert_eq!(
        (copied["commit_message_regex"].clone(), copied["member_check"].clone(), copied["max_file_size"].clone()),
        (json!("^JIRA-\\d+"), json!(true), json!(3))
    );
    // A copy: the group's rule changing later leaves the project's as it was.
    assert_eq!(forge.instance.call("PUT", GROUP_RULE, Some(&forge.admin), json!({"max_file_size": 9})).0, 200);
    let (_, still) = forge.instance.call(
        "GET",
        &format!("/api/v4/projects/{}/push_rule", project["id"]),
        Some(&forge.admin),
        Value::Null,
    );
    assert_eq!(still["max_file_size"], 3);
    // Outside the group, nothing is copied.
    let (_, own) = forge.instance.call("POST", "/api/v4/projects", Some(&forge.admin), json!({"name": "mine"}));
    let (_, none) = forge.instance.call(
        "GET",
        &format!("/api/v4/projects/{}/push_rule", own["id"]),
        Some(&forge.admin),
        Value::Null,
    );
    assert_eq!(none, Value::Null);
    let _ = &forge.url;
}
