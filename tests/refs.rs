//! Every revision parameter of every endpoint, through both doors: a value that cannot name a
//! revision (a NUL, an option such as `-x`, a range with `..`, bytes that are not UTF-8) is a
//! 400 before any repository work, never a lookup of something else (`main%00` used to compare
//! `main`). A plausible name that does not exist stays each endpoint's own answer.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::TestInstance;
use serde_json::{json, Value};

/// The bad values, as they appear in a query string.
const BAD: [&str; 5] = ["main%00", "-x", "--output%3D%2Ftmp%2Fx", "main..x", "%FF%FE"];

/// Each route with a revision parameter: (method, path and fixed query, parameter name).
const ROUTES: [(&str, &str, &str); 10] = [
    ("GET", "/api/v4/projects/fx%2Fwork/repository/tree?", "ref"),
    ("GET", "/api/v4/projects/fx%2Fwork/repository/archive.tar?", "sha"),
    ("GET", "/api/v4/projects/fx%2Fwork/repository/compare?to=main&", "from"),
    ("GET", "/api/v4/projects/fx%2Fwork/repository/compare?from=main&", "to"),
    ("GET", "/api/v4/projects/fx%2Fwork/repository/contributors?", "ref"),
    ("GET", "/api/v4/projects/fx%2Fwork/repository/changelog?version=9.0.0&to=main&", "from"),
    ("GET", "/api/v4/projects/fx%2Fwork/repository/changelog?version=9.0.0&from=main&", "to"),
    ("GET", "/api/v4/projects/fx%2Fwork/repository/changelog?version=9.0.0&from=main&", "config_file_ref"),
    ("POST", "/api/v4/projects/fx%2Fwork/repository/changelog?version=9.0.0&from=main&", "branch"),
    ("POST", "/api/v4/projects/fx%2Fwork/repository/changelog?version=9.0.0&branch=main&", "to"),
];

fn world() -> (TestInstance, String) {
    let instance = common::open_instance(json!({}));
    instance.fixture_repos();
    let admin = instance.user_with_token("root", true);
    (instance, admin)
}

#[test]
fn every_revision_parameter_refuses_what_cannot_be_a_revision() {
    let (instance, admin) = world();
    let tip = common::git_text(&instance.root_dir().join("fixtures/work"), &["rev-parse", "main"]);
    for (method, target, name) in ROUTES {
        for bad in BAD {
            let (status, body) =
                instance.request_json(method, &format!("{target}{name}={bad}"), &[("PRIVATE-TOKEN", &admin)], b"");
            assert_eq!(status, 400, "{method} {target}{name}={bad}: {body}");
            let invalid = json!({"error": format!("{name} is invalid")});
            let not_utf8 = json!({"message": "400 Bad request - a parameter value is not valid UTF-8"});
            assert!(body == invalid || (bad.starts_with("%FF") && body == not_utf8), "{name}={bad}: {body}");
        }
    }
    // Nothing was committed by the refused changelog POSTs.
    assert_eq!(common::git_text(&instance.root_dir().join("fixtures/work"), &["rev-parse", "main"]), tip);
    // Merge base names a bad ref as GitLab does, with 400 too.
    for bad in BAD {
        let target = format!("/api/v4/projects/fx%2Fwork/repository/merge_base?refs[]=main&refs[]={bad}");
        let (status, body) = instance.request_json("GET", &target, &[], b"");
        assert_eq!(status, 400, "{target}: {body}");
    }
}

#[test]
fn plausible_names_that_do_not_exist_keep_each_endpoints_answer() {
    let (instance, _) = world();
    let answer = |target: &str| instance.request_json("GET", target, &[], b"");
    assert_eq!(answer("/api/v4/projects/fx%2Fwork/repository/tree?ref=nope").0, 404);
    assert_eq!(answer("/api/v4/projects/fx%2Fwork/repository/compare?from=nope&to=main").0, 404);
    assert_eq!(answer("/api/v4/projects/fx%2Fwork/repository/contributors?ref=nope").0, 404);
    assert_eq!(answer("/api/v4/projects/fx%2Fwork/repository/archive.tar?sha=nope").0, 404);
    // GitLab strips compare's refs: surrounding whitespace is no reason to refuse one.
    assert_eq!(answer("/api/v4/projects/fx%2Fwork/repository/compare?from=%20main%0A&to=main").0, 200);
}

#[test]
fn the_typed_doors_refuse_the_same_values() {
    let (instance, admin) = world();
    let auth = TestInstance::auth(&admin);
    let cases: [(common::TypedExport, Value); 4] = [
        (forgecore::ffi::fc_repository_tree, json!({"project": "fx/work", "ref": "main\u{0}"})),
        (forgecore::ffi::fc_repository_compare, json!({"project": "fx/work", "from": "-x", "to": "main"})),
        (forgecore::ffi::fc_repository_contributors, json!({"project": "fx/work", "ref": "a..b"})),
        (
            forgecore::ffi::fc_changelog_generate,
            json!({"project": "fx/work", "version": "9.0.0", "from": "main", "to": "main\u{0}"}),
        ),
    ];
    for (export, params) in cases {
        let (status, body) = instance.typed(export, auth.clone(), params.clone());
        assert_eq!(status, 400, "{params}: {body}");
        assert!(body["error"].as_str().unwrap().ends_with(" is invalid"), "{body}");
    }
}

/// A tag that `git pack-refs` (maintenance) packed while a reader held an older snapshot of
/// `packed-refs` with the same modification time (the kernel's clock for file times is coarse:
/// two writes a few milliseconds apart share one) is still found: the loose file is gone and the
/// snapshot does not have it, so the lookup reads `packed-refs` again before calling it missing.
/// Seen as a soak's compare from `v1.0.0` answering `404 Ref Not Found` once in 18,000 requests.
#[test]
fn a_ref_packed_under_a_reader_with_the_same_mtime_is_found() {
    let dir = common::TempDir::new();
    let repo_dir = dir.path().join("r");
    std::fs::create_dir_all(&repo_dir).unwrap();
    common::git(&repo_dir, &["init", "-q", "-b", "main"]);
    common::git(
        &repo_dir,
        &["-c", "user.name=A", "-c", "user.email=a@x", "commit", "-q", "--allow-empty", "-m", "one"],
    );
    common::git(&repo_dir, &["pack-refs", "--all"]);
    let packed = repo_dir.join(".git/packed-refs");
    let mtime = std::fs::metadata(&packed).unwrap().modified().unwrap();
    common::git(&repo_dir, &["tag", "v9"]);
    let repo = forgecore::git::open(repo_dir.join(".git")).unwrap();
    let main = forgecore::git::resolve_commit(&repo, "main").unwrap();
    assert_eq!(forgecore::git::resolve_commit(&repo, "v9").unwrap(), main, "loose, before packing");
    common::git(&repo_dir, &["pack-refs", "--all"]);
    assert!(!repo_dir.join(".git/refs/tags/v9").exists(), "packed: the loose file is gone");
    std::fs::File::options().write(true).open(&packed).unwrap().set_modified(mtime).unwrap();
    assert_eq!(forgecore::git::resolve_commit(&repo, "v9").unwrap(), main, "packed, under an old snapshot");
    assert_eq!(forgecore::git::refs::target(&repo, "refs/tags/v9").unwrap(), Some(main), "the same for a full name");
}
