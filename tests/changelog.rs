//! B8 and B9 changelogs (decisions D4-D6) on the repository of tests/fixtures/changelog.sh:
//! generation (tags, reverts, trailers, merge requests, authors, configurations and their
//! errors) and commits (insertion, idempotency, concurrent writers), checked with the git CLI.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{git, git_text, TestInstance};
use serde_json::{json, Value};
use std::path::PathBuf;

struct World {
    instance: TestInstance,
    repo: PathBuf,
    /// alice: Developer on fx/log, email alice@example.com.
    developer: String,
    /// rita: Reporter on fx/log.
    reporter: String,
}

fn world_with(config: Value) -> World {
    let instance = common::open_instance(config);
    let dir = instance.root_dir().join("changelog");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/changelog.sh");
    let status = std::process::Command::new("bash").arg(script).arg(&dir).status().expect("bash runs");
    assert!(status.success(), "tests/fixtures/changelog.sh failed");
    let repo = dir.join("log.git");
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    instance.admin_ok(json!({"command": "group_add", "path": "team", "visibility": "public"}));
    instance.admin_ok(json!({"command": "project_add", "path": "fx/log", "repo": repo, "visibility": "public"}));
    for (user, email) in [
        ("alice", "alice@example.com"),
        ("bob", "BOB@example.com"),
        ("carol", "carol@example.com"),
        ("rita", "rita@example.com"),
    ] {
        instance.admin_ok(json!({"command": "user_add", "username": user, "name": user, "email": email}));
    }
    instance.admin_ok(json!({"command": "member_add", "username": "alice", "project": "fx/log", "access_level": 30}));
    instance.admin_ok(json!({"command": "member_add", "username": "rita", "project": "fx/log", "access_level": 20}));
    instance.admin_ok(json!({"command": "member_add", "username": "carol", "group": "team", "access_level": 30}));
    let token = |user: &str| {
        instance.admin_ok(json!({"command": "token_add", "username": user}))["token"].as_str().unwrap().to_string()
    };
    let (developer, reporter) = (token("alice"), token("rita"));
    World { instance, repo, developer, reporter }
}

fn world() -> World {
    world_with(json!({"external_url": "http://forge.test"}))
}

const BASE: &str = "/api/v4/projects/fx%2Flog/repository/changelog";

impl World {
    fn get(&self, query: &str) -> (u16, Value) {
        self.instance.request_json("GET", &format!("{BASE}?{query}"), &[], b"")
    }

    fn post(&self, token: &str, body: Value) -> (u16, Value) {
        self.instance.request_json(
            "POST",
            BASE,
            &[("PRIVATE-TOKEN", token), ("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        )
    }

    fn sha(&self, rev: &str) -> String {
        git_text(&self.repo, &["rev-parse", &format!("{rev}^{{commit}}")])
    }

    /// The commit whose subject is `subject`.
    fn by_subject(&self, subject: &str) -> String {
        let log = git_text(&self.repo, &["log", "--format=%H %s", "main"]);
        log.lines()
            .find_map(|l| l.split_once(' ').filter(|(_, s)| *s == subject).map(|(h, _)| h.to_string()))
            .unwrap_or_else(|| panic!("no commit {subject}"))
    }

    fn url(&self, subject: &str) -> String {
        format!("http://forge.test/fx/log/-/commit/{}", self.by_subject(subject))
    }

    fn file(&self, rev: &str, path: &str) -> String {
        String::from_utf8(git(&self.repo, &["show", &format!("{rev}:{path}")])).unwrap()
    }
}

fn notes(body: &Value) -> &str {
    body["notes"].as_str().unwrap_or_else(|| panic!("no notes in {body}"))
}

fn message(body: &Value) -> &str {
    body["message"].as_str().unwrap_or_else(|| panic!("no message in {body}"))
}

#[test]
fn default_template_from_the_previous_tag() {
    let w = world();
    let long =
        "Make the title of this commit far longer than one hundred characters so that GitLab truncates it in lists";
    let expected = format!(
        "## 2.1.0 (2024-01-02)\n\n\
         ### performance (1 change)\n\n- [Speed up]({}) by @carol\n\n\
         ### other (1 change)\n\n- [Make the title of this commit far longer than one hundred characters so that...]({})\n\n\
         ### added (2 changes)\n\n- [Add import]({}) by @bob\n- [Feature step]({}) ([merge request](http://forge.test/fx/log/-/merge_requests/7))\n\n\
         ### removed (1 change)\n\n- [Revert \"Add export\"]({}) by @bob\n\n\
         ### security (1 change)\n\n- [Security fix]({})\n\n\
         ### fixed (1 change)\n\n- [Fix {{{{ author }}}} in {{% each %}} docs]({})\n",
        w.url("Speed up"),
        w.url(long),
        w.url("Add import"),
        w.url("Feature step"),
        w.url("Revert \"Add export\""),
        w.url("Security fix"),
        w.url("Fix {{ author }} in {% each %} docs"),
    );
    let (status, body) = w.get("version=2.1.0&date=2024-01-02");
    assert_eq!(status, 200, "{body}");
    assert_eq!(notes(&body), expected);
    // A leading v is the same request; an explicit from equal to the tag too.
    assert_eq!(w.get("version=v2.1.0&date=2024-01-02").1, body);
    assert_eq!(w.get(&format!("version=2.1.0&date=2024-01-02&from={}", w.sha("v2.0.0"))).1, body);
    assert_eq!(w.get("version=2.1.0&date=2024-01-02&from=v2.0.0&to=main").1, body);
}

#[test]
fn previous_tag_follows_the_seed_example() {
    let w = world();
    // The entries show which range was used: each range starts after the chosen tag.
    let titles = |version: &str| -> Vec<String> {
        let (status, body) = w.get(&format!("version={version}&date=2024-01-02&to=v2.0.0"));
        assert_eq!(status, 200, "{version}: {body}");
        notes(&body)
            .lines()
            .filter_map(|l| l.strip_prefix("- ["))
            .map(|l| l.split(']').next().unwrap().to_string())
            .collect()
    };
    // 2.1.0 uses v2.0.0: nothing between v2.0.0 and v2.0.0.
    let (_, body) = w.get("version=2.1.0&date=2024-01-02&to=v2.0.0");
    assert_eq!(notes(&body), "## 2.1.0 (2024-01-02)\n\nNo changes.\n");
    // 1.1.1 and 1.2.0 use v1.1.0 (the range v1.1.0..v2.0.0 is "Rework API").
    assert_eq!(titles("1.1.1"), ["Rework API"]);
    assert_eq!(titles("1.2.0"), ["Rework API"]);
    // 1.0.5 uses v1.0.0 (pre-releases are skipped); 2.0.0 itself uses v1.1.0.
    assert_eq!(titles("1.0.5"), ["Rework API", "Fix crash"]);
    assert_eq!(titles("2.0.0"), ["Rework API"]);
    // Nothing before 1.0.0 but a pre-release: no start.
    let (status, body) = w.get("version=1.0.0");
    assert_eq!(status, 422);
    assert_eq!(
        message(&body),
        "Failed to generate the changelog: The commit start range is unspecified, and no previous tag could be found to use instead"
    );
    // A configured tag_regex: release-3.0.0 is the previous tag of 4.0.0.
    let (status, body) = w.get("version=4.0.0&date=2024-01-02&config_file=configs/release_tags.yml");
    assert_eq!(status, 200, "{body}");
    assert!(notes(&body).contains("[Security fix]") && !notes(&body).contains("{{ author }}"), "{body}");
}

#[test]
fn reverts_trailers_and_merge_requests_match_git() {
    let w = world();
    // Every commit of the range with a case-sensitive `Changelog` trailer, as git reads trailers,
    // minus reverted pairs: Add broken thing + its revert, and Add export (its revert stays).
    let log = String::from_utf8(git(
        &w.repo,
        &["log", "--format=%H%x00%s%x00%(trailers:key=Changelog,valueonly=false,separator=%x01)", "v2.0.0..main"],
    ))
    .unwrap();
    let mut expected: Vec<String> = Vec::new();
    for line in log.lines() {
        let parts: Vec<&str> = line.split('\0').collect();
        if parts.len() == 3 && parts[2].split('\u{1}').any(|t| t.starts_with("Changelog:")) {
            expected.push(parts[1].to_string());
        }
    }
    expected.retain(|s| s != "Add broken thing" && s != "Add export");
    let (_, body) = w.get("version=2.1.0");
    let mut found: Vec<String> = notes(&body)
        .lines()
        .filter_map(|l| l.strip_prefix("- ["))
        .map(|l| l.split_once("](").unwrap().0.to_string())
        .collect();
    found.iter_mut().for_each(|t| {
        if t.ends_with("...") {
            *t = "Make the title of this commit far longer than one hundred characters so that GitLab truncates it in lists".into();
        }
    });
    found.sort();
    expected.sort();
    assert_eq!(found, expected);
    // The trailer is case-sensitive: `changelog` finds only the lower-case one.
    let (_, body) = w.get("version=2.1.0&date=2024-01-02&trailer=changelog");
    assert_eq!(
        notes(&body),
        format!(
            "## 2.1.0 (2024-01-02)\n\n### fixed (1 change)\n\n- [Lower-case trailer]({}) by @bob\n",
            w.url("Lower-case trailer")
        )
    );
    // Another trailer key works as a category.
    let (_, body) = w.get("version=2.1.0&date=2024-01-02&trailer=Issue");
    assert!(notes(&body).contains("### #42 (1 change)\n\n- [Speed up]"), "{body}");
}

#[test]
fn custom_configuration_dates_categories_and_template() {
    let w = world();
    let (status, body) = w.get("version=2.1.0&date=2024-03-05T23:30:00-02:00&config_file=configs/custom.yml");
    assert_eq!(status, 200, "{body}");
    let expected = "## 2.1.0 (March 5, 2024)\n\n\
        ### Bug fixes (1)\n* Fix {{ author }} in {% each %} docs\n\n\
        ### New features (2)\n* Add import by @bob\n* Feature step in fx/log!7\n\n\
        ### performance (1)\n* Speed up by @carol for #42\n\n\
        ### other (1)\n* Make the title of this commit far longer than one hundred characters so that... by @alice\n\n\
        ### removed (1)\n* Revert \"Add export\" by @bob\n\n\
        ### security (1)\n* Security fix by @alice\n";
    assert_eq!(notes(&body), expected);
}

#[test]
fn authors_are_credited_when_not_members_or_in_included_groups() {
    let w = world();
    let (status, body) = w.get("version=2.1.0&config_file=configs/credit.yml");
    assert_eq!(status, 200, "{body}");
    let lines: Vec<&str> = notes(&body).lines().skip(2).collect();
    let line = |subject: &str, rest: &str| format!("fx/log@{} {rest}", w.by_subject(subject));
    // alice is a Developer (no credit); bob and carol are not members (contributors); carol is
    // also in `team`; dave and erin match no user.
    assert!(lines.contains(&line("Speed up", "@carol true true").as_str()), "{lines:?}");
    assert!(lines.contains(&line("Add import", "@bob true true").as_str()), "{lines:?}");
    assert!(lines.contains(&line("Security fix", "@alice false false").as_str()), "{lines:?}");
    assert!(lines.contains(&line("Feature step", "  ").as_str()), "no author fields for erin: {lines:?}");
    assert_eq!(lines.len(), 7, "{lines:?}");
}

#[test]
fn configuration_errors_are_422_with_gitlabs_messages() {
    let w = world();
    let cases = [
        ("configs/invalid.yml", "configs/invalid.yml does not contain valid YAML"),
        ("configs/bomb.yml", "configs/bomb.yml does not contain valid YAML"),
        ("configs/tagged.yml", "configs/tagged.yml does not contain valid YAML"),
        ("configs/deep_flow.yml", "configs/deep_flow.yml does not contain valid YAML"),
        ("configs/deep.yml", "configs/deep.yml is nested deeper than 64 levels or has more than 100000 values"),
        ("configs/categories_list.yml", "The \"categories\" configuration key must be a Hash"),
        ("configs/list.yml", "The changelog configuration must be a Hash"),
        ("configs/date_number.yml", "The \"date_format\" configuration key must be a String"),
        ("configs/unclosed.yml", "Failed to parse the template: Extra input after last repetition at line 1 char 1."),
        ("configs/too_deep_template.yml", "Failed to parse the template: blocks may be nested at most 100 deep"),
        ("configs/five_loops.yml", "You can only nest up to 4 loops"),
        ("configs/huge.yml", "configs/huge.yml is larger than 1048576 bytes, the limit for a changelog configuration"),
    ];
    for (file, reason) in cases {
        let started = std::time::Instant::now();
        let (status, body) = w.get(&format!("version=2.1.0&config_file={file}"));
        assert_eq!(
            (status, message(&body)),
            (422, format!("Failed to generate the changelog: {reason}").as_str()),
            "{file}"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{file} took {:?}", started.elapsed());
    }
    // The regex is only compiled when a tag is looked for.
    let (status, body) = w.get("version=2.1.0&config_file=configs/bad_regex.yml");
    assert_eq!(status, 422);
    assert!(
        message(&body).starts_with("Failed to generate the changelog: The regular expression to use for finding the previous tag for a version is invalid: "),
        "{body}"
    );
    assert_eq!(w.get("version=2.1.0&from=v2.0.0&config_file=configs/bad_regex.yml").0, 200);
    // A missing file, or a path outside the repository's tree, is the defaults.
    for file in ["configs/none.yml", "../../etc/passwd", "/etc/passwd", ".git/config", "configs"] {
        let (status, body) = w.get(&format!("version=2.1.0&date=2024-01-02&config_file={file}"));
        assert_eq!(status, 200, "{file}: {body}");
        assert!(notes(&body).starts_with("## 2.1.0 (2024-01-02)\n\n### performance (1 change)"), "{file}");
    }
}

#[test]
fn the_parse_budget_is_enforced() {
    let w = world_with(json!({"limits": {"changelog_parse_millis": 0}}));
    let (status, body) = w.get("version=2.1.0&config_file=configs/custom.yml");
    assert_eq!(status, 422);
    assert_eq!(
        message(&body),
        "Failed to generate the changelog: The changelog configuration could not be parsed within the time limit"
    );
}

#[test]
fn parameter_and_range_errors() {
    let w = world();
    assert_eq!(w.get(""), (400, json!({"error": "version is missing"})));
    assert_eq!(w.get("version="), (400, json!({"error": "version is empty"})));
    for bad in ["1.2", "v", "x"] {
        assert_eq!(w.get(&format!("version={bad}")), (400, json!({"error": "version is invalid"})), "{bad}");
    }
    for bad in ["1.0.0.0", "1.0.0-", "x1.0.0"] {
        let (status, body) = w.get(&format!("version={bad}"));
        assert_eq!(status, 422, "{bad}");
        assert_eq!(
            message(&body),
            "Failed to generate the changelog: The requested `version` attribute format is not correct. Use formats such as `1.0.0` or `v1.0.0`."
        );
    }
    let long = "1".repeat(10_000);
    assert_eq!(w.get(&format!("version={long}")).0, 400);
    for bad in ["2020-13-45", "yesterday", "99999-01-01", "2024-01-02T25:00:00Z"] {
        assert_eq!(w.get(&format!("version=2.1.0&date={bad}")), (400, json!({"error": "date is invalid"})), "{bad}");
    }
    let invalid_range =
        json!({"message": "Failed to generate the changelog: Invalid or not found commit value in the given range"});
    assert_eq!(w.get("version=2.1.0&from=nope"), (422, invalid_range.clone()));
    assert_eq!(w.get("version=2.1.0&to=nope"), (422, invalid_range.clone()));
    assert_eq!(w.get(&format!("version=2.1.0&to={}", "0".repeat(40))), (422, invalid_range));
    // The range limit counts exactly the commits of from..to.
    let limited = world_with(json!({"limits": {"changelog_max_commits": 13}}));
    assert_eq!(limited.get("version=2.1.0").0, 200, "v2.0.0..main has 13 commits");
    let limited = world_with(json!({"limits": {"changelog_max_commits": 12}}));
    assert_eq!(
        limited.get("version=2.1.0"),
        (422, json!({"message": "Failed to generate the changelog: The commits range exceeds 12 elements."}))
    );
    assert_eq!(git_text(&w.repo, &["rev-list", "--count", "v2.0.0..main"]), "13");
}

#[test]
fn who_may_read_and_write() {
    let w = world();
    let (_, token) = w.instance.admin(json!({"command": "job_token_add", "project": "fx/log"}));
    let job = token["token"].as_str().unwrap().to_string();
    let get =
        |headers: &[(&str, &str)]| w.instance.request_json("GET", &format!("{BASE}?version=2.1.0"), headers, b"").0;
    assert_eq!(get(&[]), 200);
    assert_eq!(get(&[("JOB-TOKEN", &job)]), 200);
    let post = |headers: &[(&str, &str)]| {
        let mut all = vec![("Content-Type", "application/json")];
        all.extend_from_slice(headers);
        w.instance.request_json("POST", BASE, &all, br#"{"version": "2.1.0"}"#)
    };
    let forbidden = json!({"message": "403 Forbidden - You are not allowed to commit a changelog on this branch"});
    assert_eq!(post(&[]), (403, forbidden.clone()));
    assert_eq!(post(&[("PRIVATE-TOKEN", &w.reporter)]), (403, forbidden));
    assert_eq!(post(&[("JOB-TOKEN", &job)]).0, 401);
    let tip = w.sha("main");
    assert_eq!(w.sha("main"), tip, "nothing was written");
    // Private projects are invisible to outsiders.
    w.instance
        .admin_ok(json!({"command": "project_add", "path": "fx/secret", "repo": w.repo, "visibility": "private"}));
    let (status, body) =
        w.instance.request_json("GET", "/api/v4/projects/fx%2Fsecret/repository/changelog?version=2.1.0", &[], b"");
    assert_eq!((status, body), (404, json!({"message": "404 Project Not Found"})));
    let (status, _) = w.instance.request_json(
        "GET",
        "/api/v4/projects/fx%2Fsecret/repository/changelog?version=2.1.0",
        &[("JOB-TOKEN", &job)],
        b"",
    );
    assert_eq!(status, 404, "a job token reads only its own project");
}

#[test]
fn commit_creates_inserts_and_is_idempotent() {
    let w = world();
    let before = w.sha("main");
    let (status, body) = w.post(&w.developer, json!({"version": "2.1.0", "date": "2024-01-02"}));
    assert_eq!(status, 200, "{body}");
    let commit = &body["commit"];
    let tip = w.sha("main");
    assert_eq!(commit["id"], json!(tip));
    assert_eq!(commit["parent_ids"], json!([before]));
    assert_eq!(commit["title"], json!("Add changelog for version 2.1.0"));
    assert_eq!(commit["author_email"], json!("alice@example.com"));
    // A new file holds exactly the notes.
    assert_eq!(w.file("main", "CHANGELOG.md"), notes(&body));
    let (_, get) = w.get("version=2.1.0&date=2024-01-02");
    assert_eq!(notes(&get), notes(&body));
    // The same version again: nothing is committed, the notes are still answered.
    let (status, again) =
        w.post(&w.developer, json!({"version": "v2.1.0", "date": "2024-01-02", "from": "v2.0.0", "to": before}));
    assert_eq!(status, 200);
    assert_eq!(again["commit"], Value::Null);
    assert_eq!(w.sha("main"), tip);

    // An existing file with versions: 2.1.0 goes before 2.0.0, 1.5.0 between 2.0.0 and 1.0.0,
    // 0.9.0 at the end; a custom message.
    for (version, message) in [("2.1.0", None), ("1.5.0", Some("Release notes 1.5.0")), ("0.9.0", None)] {
        let mut request =
            json!({"version": version, "date": "2024-01-02", "from": "v2.0.0", "file": "docs/CHANGELOG.md"});
        if let Some(message) = message {
            request["message"] = json!(message);
        }
        let (status, body) = w.post(&w.developer, request);
        assert_eq!(status, 200, "{body}");
        if let Some(message) = message {
            assert_eq!(body["commit"]["message"], json!(message));
        }
    }
    let file = w.file("main", "docs/CHANGELOG.md");
    let headers: Vec<&str> = file.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        headers,
        [
            "## 2.1.0 (2024-01-02)",
            "## 2.0.0 (2020-01-01)",
            "## 1.5.0 (2024-01-02)",
            "## 1.0.0 (2019-01-01)",
            "## 0.9.0 (2024-01-02)"
        ]
    );
    assert!(
        file.starts_with("# Changelog\n\nAll notable changes.\n\n## 2.1.0 (2024-01-02)\n\n### performance"),
        "{file}"
    );
    assert!(file.contains("- old\n\n## 1.5.0 (2024-01-02)\n\n"), "{file}");
    assert!(
        file.contains("- older\n\n## 0.9.0 (2024-01-02)\n\n### performance (1 change)\n\n") && file.ends_with(")\n"),
        "{file}"
    );

    // `v` headers: the new section is appended at the end.
    let (status, _) = w
        .post(&w.developer, json!({"version": "3.0.0", "date": "2024-01-02", "from": "v2.0.0", "file": "VCHANGES.md"}));
    assert_eq!(status, 200);
    let file = w.file("main", "VCHANGES.md");
    assert!(file.starts_with("## v1.0.0 (2019-01-01)\n\n- a\n## 3.0.0 (2024-01-02)\n\n### performance"), "{file}");

    // Every commit is a single-parent child of the previous tip: history stays linear.
    assert_eq!(git_text(&w.repo, &["rev-list", "--count", &format!("{before}..main")]), "5");
    assert_eq!(git_text(&w.repo, &["rev-list", "--merges", &format!("{before}..main")]), "");
    git(&w.repo, &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn commit_parameters_are_checked() {
    let w = world();
    let tip = w.sha("main");
    for file in ["../x.md", "/abs.md", "a//b.md", ".git/hooks/pre-commit", "docs", "README.md/x", ""] {
        let (status, body) = w.post(&w.developer, json!({"version": "2.1.0", "from": "v2.0.0", "file": file}));
        assert_eq!(status, 400, "{file}: {body}");
        assert!(message(&body).starts_with("400 Bad request - file is invalid: "), "{file}: {body}");
    }
    // Every name NTFS or HFS+ opens as `.git`, where git's fsck says hasDotgit.
    for file in [
        "x/.git./y",
        "x/GIT~1/y",
        "GIT~1/config",
        "x/.git /y",
        ".git . /x",
        "x/.Git\u{200c}/y",
        "x/.g\u{200d}it/y",
        "x/.gi\u{feff}t/y",
        ".git::$INDEX_ALLOCATION/x",
        "x/git~1/y",
        ".GIT/x",
    ] {
        let (status, body) = w.post(&w.developer, json!({"version": "2.1.0", "from": "v2.0.0", "file": file}));
        assert_eq!(status, 400, "{file}: {body}");
        assert!(message(&body).starts_with("400 Bad request - file is invalid: "), "{file}: {body}");
    }
    let (status, body) = w.post(&w.developer, json!({"version": "2.1.0", "from": "v2.0.0", "branch": "nope"}));
    assert_eq!(
        (status, message(&body)),
        (422, "Failed to generate the changelog: Invalid or not found commit value in the given range")
    );
    assert_eq!(w.post(&w.developer, json!({"version": "2.1.0", "from": "v2.0.0", "branch": "a..b"})).0, 400);
    assert_eq!(w.post(&w.developer, json!({"version": "2.1.0", "from": "v2.0.0", "message": " "})).0, 400);
    assert_eq!(w.sha("main"), tip, "nothing was written");
    // A branch shares its name with a tag: only the branch moves.
    git(&w.repo, &["branch", "v1.1.0", "v2.0.0"]);
    let tag = w.sha("refs/tags/v1.1.0");
    let (status, body) = w.post(&w.developer, json!({"version": "2.1.0", "from": "v2.0.0", "branch": "v1.1.0"}));
    assert_eq!(status, 200, "{body}");
    assert_eq!(w.sha("refs/tags/v1.1.0"), tag);
    assert_eq!(w.sha("refs/heads/v1.1.0"), body["commit"]["id"].as_str().unwrap());
}

#[test]
fn concurrent_commits_lose_no_section() {
    let w = world();
    let before = w.sha("main");
    let versions: Vec<String> = (0..8).map(|i| format!("3.{i}.0")).collect();
    std::thread::scope(|s| {
        for version in &versions {
            let w = &w;
            s.spawn(move || {
                let (status, body) =
                    w.post(&w.developer, json!({"version": version, "from": "v2.0.0", "date": "2024-01-02"}));
                assert_eq!(status, 200, "{version}: {body}");
                assert!(body["commit"]["id"].is_string(), "{version}: {body}");
            });
        }
    });
    let file = w.file("main", "CHANGELOG.md");
    let headers: Vec<String> = file.lines().filter(|l| l.starts_with("## ")).map(str::to_string).collect();
    let expected: Vec<String> = versions.iter().rev().map(|v| format!("## {v} (2024-01-02)")).collect();
    assert_eq!(headers, expected, "every section, in descending order");
    assert_eq!(git_text(&w.repo, &["rev-list", "--count", &format!("{before}..main")]), "8");
    assert_eq!(git_text(&w.repo, &["rev-list", "--merges", &format!("{before}..main")]), "");
    git(&w.repo, &["fsck", "--strict"]);

    // Eight writers of one version: one section.
    let before = w.sha("main");
    std::thread::scope(|s| {
        for _ in 0..8 {
            let w = &w;
            s.spawn(move || {
                let (status, body) =
                    w.post(&w.developer, json!({"version": "4.0.0", "from": "v2.0.0", "date": "2024-01-02"}));
                assert_eq!(status, 200, "{body}");
            });
        }
    });
    let file = w.file("main", "CHANGELOG.md");
    assert_eq!(file.matches("## 4.0.0 ").count(), 1);
    assert_eq!(git_text(&w.repo, &["rev-list", "--count", &format!("{before}..main")]), "1");
}

#[test]
fn range_walk_matches_git_log() {
    let instance = common::open_instance(json!({}));
    let fixtures = instance.fixture_repos();
    let w = world();
    let cases: Vec<(PathBuf, &str, &str)> = vec![
        (w.repo.clone(), "v2.0.0", "main"),
        (w.repo.clone(), "v1.0.0-pre1", "main"),
        (w.repo.clone(), "feature", "main"),
        (w.repo.clone(), "main", "feature"),
        (w.repo.clone(), "main", "main"),
        (w.repo.clone(), "release-3.0.0", "v1.1.0"),
        (fixtures.join("bare.git"), "v1.0.0", "main"),
        (fixtures.join("bare.git"), "feature", "main"),
        (fixtures.join("bare.git"), "orphan", "main"),
        (fixtures.join("bare.git"), "main", "orphan"),
        (fixtures.join("bare.git"), "light", "feature"),
    ];
    for (dir, from, to) in cases {
        let repo = forgecore::git::open(dir.to_str().unwrap()).unwrap();
        let (from_id, to_id) =
            (forgecore::git::resolve_commit(&repo, from).unwrap(), forgecore::git::resolve_commit(&repo, to).unwrap());
        let ours: Vec<String> = forgecore::git::range::commits(&repo, Some(from_id), to_id, 1000)
            .unwrap()
            .iter()
            .map(|c| c.id.to_string())
            .collect();
        let theirs = git_text(&dir, &["log", "--format=%H", &format!("{from}..{to}")]);
        let theirs: Vec<&str> = theirs.lines().collect();
        assert_eq!(ours, theirs, "{from}..{to} in {}", dir.display());
        if !theirs.is_empty() {
            let limited = forgecore::git::range::commits(&repo, Some(from_id), to_id, theirs.len() - 1);
            assert_eq!(limited.unwrap_err(), forgecore::git::range::RangeError::TooMany);
        }
    }
}

#[test]
fn typed_exports_answer_what_the_routes_answer() {
    let w = world();
    let http = w.get("version=2.1.0&date=2024-01-02");
    assert_eq!(http.0, 200);
    let params = json!({"project": "fx/log", "version": "2.1.0", "date": "2024-01-02"});
    assert_eq!(w.instance.typed(forgecore::ffi::fc_changelog_generate, json!({}), params.clone()), http);
    let (_, token) = w.instance.admin(json!({"command": "job_token_add", "project": "fx/log"}));
    let job = json!({"job_token": token["token"]});
    assert_eq!(w.instance.typed(forgecore::ffi::fc_changelog_generate, job.clone(), params.clone()), http);
    assert_eq!(w.instance.typed(forgecore::ffi::fc_changelog_commit, job, params.clone()).0, 401);
    let (status, body) =
        w.instance.typed(forgecore::ffi::fc_changelog_commit, TestInstance::auth(&w.developer), params);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["commit"]["id"], json!(w.sha("main")));
    assert_eq!(body["notes"], http.1["notes"]);
    assert_eq!(w.file("main", "CHANGELOG.md"), notes(&body));
}

/// Merge request links from merge commits in GitLab's forms: `<full path>!<iid>` and, since
/// 2022, the merge request's URL on any host; a squash commit merged by such a merge; never a
/// merge request of another project. The rendered reference is always `<full path>!<iid>`.
#[test]
fn merge_requests_are_found_in_every_message_form_of_this_project_only() {
    let instance = common::open_instance(json!({"external_url": "http://forge.test"}));
    let dir = instance.root_dir().join("mr");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/merge_requests.sh");
    assert!(std::process::Command::new("bash").arg(script).arg(&dir).status().unwrap().success());
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    instance.admin_ok(
        json!({"command": "project_add", "path": "fx/mr", "repo": dir.join("mr.git"), "visibility": "public"}),
    );
    let notes = |query: &str| {
        let target = format!("/api/v4/projects/fx%2Fmr/repository/changelog?version=1.1.0&date=2024-01-02{query}");
        let (status, body) = instance.request_json("GET", &target, &[], b"");
        assert_eq!(status, 200, "{body}");
        body["notes"].as_str().unwrap().to_string()
    };

    // The custom template: each entry's title, merge_request.reference and Issue trailer.
    let custom = notes("&config_file=configs/references.yml");
    let mut lines: Vec<&str> = custom.lines().filter(|l| l.contains('|')).collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "Change on security||#security",
            "Change on short|fx/mr!1|#short",
            "Change on url|fx/mr!2|#url",
            "Squashed change|fx/mr!3|#squash",
        ],
        "{custom}"
    );

    // GitLab's default template links the same merge requests, on this instance's URL.
    let default = notes("");
    let entry = |title: &str| {
        default.lines().find(|l| l.starts_with(&format!("- [{title}]"))).unwrap_or_else(|| panic!("{title}: {default}"))
    };
    assert!(
        entry("Change on short").ends_with("([merge request](http://forge.test/fx/mr/-/merge_requests/1))"),
        "{default}"
    );
    assert!(
        entry("Change on url").ends_with("([merge request](http://forge.test/fx/mr/-/merge_requests/2))"),
        "{default}"
    );
    assert!(
        entry("Squashed change").ends_with("([merge request](http://forge.test/fx/mr/-/merge_requests/3))"),
        "{default}"
    );
    assert!(!entry("Change on security").contains("merge request"), "another project's: {default}");
    assert!(!default.contains("merge_requests/41"), "{default}");
}

/// A range long enough to be read on several threads: every commit's author and message as git
/// log gives them, whether the walk read the objects or a commit-graph answered it.
#[test]
fn a_long_range_reads_authors_and_messages_with_and_without_a_commit_graph() {
    let instance = common::open_instance(json!({}));
    let mut script = String::new();
    for i in 1..=2500u32 {
        let time = 1_600_000_000 + i * 60;
        let message =
            format!("Change {i}\n\nBody of {i}, line one.\n\nChangelog: {}\n", ["added", "fixed"][i as usize % 2]);
        script.push_str(&format!(
            "commit refs/heads/main\nmark :{i}\nauthor Writer {w} <w{w}@example.com> {time} +0000\ncommitter C <c@example.com> {time} +0000\ndata {}\n{message}",
            message.len(),
            w = i % 17,
        ));
        if i > 1 {
            script.push_str(&format!("from :{}\n", i - 1));
        }
        script.push('\n');
    }
    let (plain, graph) = common::imported_with_and_without_graph(&instance.root_dir().join("long-range"), &script);

    for repo in [&plain, &graph] {
        let log =
            String::from_utf8(git(repo, &["log", "--format=%H%x00%an%x00%ae%x00%B%x01", "main~2400..main"])).unwrap();
        let want: Vec<Vec<String>> = log
            .split('\x01')
            .map(str::trim_start)
            .filter(|r| !r.is_empty())
            .map(|r| r.split('\0').map(|f| f.trim_end().to_string()).collect())
            .collect();
        assert_eq!(want.len(), 2400);
        let opened = forgecore::git::open(repo.to_str().unwrap()).unwrap();
        let from = forgecore::git::resolve_commit(&opened, &git_text(repo, &["rev-parse", "main~2400"])).unwrap();
        let to = forgecore::git::resolve_commit(&opened, "main").unwrap();
        let ours: Vec<Vec<String>> = forgecore::git::range::commits(&opened, Some(from), to, 5000)
            .unwrap()
            .into_iter()
            .map(|c| vec![c.id.to_string(), c.author_name, c.author_email, c.message.trim_end().to_string()])
            .collect();
        assert_eq!(ours, want, "{}", repo.display());
    }
}

/// Issue #25: `file` paths with backslashes get git's `.git` rules piece by piece, as NTFS
/// (and git's `is_ntfs_dotgit`) split them: nothing naming `.git` that way is committed, and
/// what is committed passes `git fsck --strict`.
#[test]
fn backslashed_file_paths_never_enter_dot_git() {
    let w = world();
    let tip = w.sha("main");
    for file in [".git\\hooks\\x", "x\\..\\.git\\config", "x\\.GIT\\y", "docs\\GIT~1\\x", "a\\\\b", "a\\", "x/..\\y"] {
        let (status, body) = w.post(&w.developer, json!({"version": "2.1.0", "from": "v2.0.0", "file": file}));
        assert_eq!(status, 400, "{file}: {body}");
        assert!(message(&body).starts_with("400 Bad request - file is invalid: "), "{file}: {body}");
    }
    assert_eq!(w.sha("main"), tip, "nothing was written");
    // A backslash that names no `.git` is an ordinary character of a file name.
    let (status, body) = w.post(&w.developer, json!({"version": "2.1.0", "from": "v2.0.0", "file": "notes\\2024.md"}));
    assert_eq!(status, 200, "{body}");
    assert!(w.file("main", "notes\\2024.md").starts_with("## 2.1.0 ("));
    git(&w.repo, &["fsck", "--strict", "--no-dangling"]);
}

/// Issue #25: the 16 MiB bound holds for the whole section, the date of its header included: a
/// `date_format` of `%1024Y` repeated (120 kB of configuration asking for 20 MB) is a 422, not
/// an answer of 20 MB to every anonymous GET; and a long but bounded date still renders.
#[test]
fn the_output_bound_covers_the_rendered_date() {
    let w = world();
    let work = w.instance.root_dir().join("date-formats");
    git(w.instance.root_dir(), &["clone", "-q", w.repo.to_str().unwrap(), work.to_str().unwrap()]);
    let huge = format!("date_format: \"{}\"\n", "%1024Y".repeat(20_000));
    std::fs::write(work.join("configs/huge_date.yml"), huge).unwrap();
    let long = format!("date_format: \"{}\"\n", "%1024Y".repeat(100));
    std::fs::write(work.join("configs/long_date.yml"), long).unwrap();
    git(&work, &["add", "configs/huge_date.yml", "configs/long_date.yml"]);
    git(&work, &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "date formats"]);
    git(&work, &["push", "-q", "origin", "HEAD:main"]);
    let (status, body) = w.get("version=2.1.0&from=v2.0.0&config_file=configs/huge_date.yml");
    // Not the body in the failure's text: before the bound it is the 20 MB section.
    assert_eq!(status, 422, "the whole section was answered");
    assert_eq!(message(&body), "Failed to generate the changelog: The changelog section exceeds 16777216 bytes");
    let (status, body) = w.get("version=2.1.0&from=v2.0.0&config_file=configs/long_date.yml&date=2024-01-02");
    assert_eq!(status, 200);
    let header = notes(&body).lines().next().unwrap().to_string();
    assert_eq!(header, format!("## 2.1.0 ({})", format!("{:0>1024}", 2024).repeat(100)));
}

/// Issue #25: without `external_url`, a changelog POST would commit links built from the
/// request's `Host`, which the client chooses: it is refused with 422 and nothing is committed.
/// GET (answered to the caller alone) still builds them from `Host`; with `external_url` the
/// committed links are the configuration's whatever `Host` says.
#[test]
fn committed_links_never_come_from_the_host_header() {
    let w = world_with(json!({}));
    let tip = w.sha("main");
    let body = json!({"version": "2.1.0", "from": "v2.0.0", "date": "2024-01-02"}).to_string();
    let auth = [("PRIVATE-TOKEN", w.developer.as_str()), ("Host", "attacker.example")];
    let (status, answer) = w.instance.request_json("POST", BASE, &auth, body.as_bytes());
    assert_eq!(status, 422, "{answer}");
    assert!(message(&answer).starts_with("external_url is not configured"), "{answer}");
    assert_eq!(w.sha("main"), tip, "nothing was committed");
    let (status, answer) = w.instance.request_json("GET", &format!("{BASE}?version=2.1.0&from=v2.0.0"), &auth, b"");
    assert_eq!(status, 200);
    assert!(notes(&answer).contains("(http://attacker.example/fx/log/-/commit/"), "{answer}");

    let w = world();
    let auth = [("PRIVATE-TOKEN", w.developer.as_str()), ("Host", "attacker.example")];
    let (status, answer) = w.instance.request_json("POST", BASE, &auth, body.as_bytes());
    assert_eq!(status, 200, "{answer}");
    let file = w.file("main", "CHANGELOG.md");
    assert!(file.contains("(http://forge.test/fx/log/-/commit/") && !file.contains("attacker"), "{file}");
}
