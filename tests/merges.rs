//! #39 merges: the git layer (src/git/merge/) against git's own answers, then the merge and
//! rebase routes.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

mod common;

use common::{git, git_text, TempDir};
use forgecore::git::merge::{self, MergeError, Mergeability};
use forgecore::git::write::Identity;
use gix::ObjectId;
use std::path::{Path, PathBuf};

/// The fixture work repository of `tests/fixtures/merges.sh` (one branch pair per case).
fn fixture(dir: &TempDir) -> PathBuf {
    let repo = dir.path().join("r");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/merges.sh");
    let status = std::process::Command::new("bash").arg(script).arg(&repo).status().unwrap();
    assert!(status.success());
    repo
}

fn id(repo: &Path, rev: &str) -> ObjectId {
    ObjectId::from_hex(git_text(repo, &["rev-parse", rev]).as_bytes()).unwrap()
}

/// `git merge-tree --write-tree`'s verdict: the tree, and the conflicted paths (empty: clean).
fn git_merge_tree(repo: &Path, target: &str, source: &str) -> (String, Vec<String>) {
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["merge-tree", "--write-tree", "--name-only", "--no-messages", "--allow-unrelated-histories"])
        .args([target, source])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    let code = output.status.code().unwrap();
    assert!(code == 0 || code == 1, "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    let mut lines = text.lines();
    let tree = lines.next().unwrap().to_string();
    let paths: Vec<String> = lines.take_while(|l| !l.is_empty()).map(str::to_string).collect();
    assert_eq!(code == 1, !paths.is_empty());
    (tree, paths)
}

fn ann() -> Identity {
    Identity { name: "Merger".into(), email: "merger@example.com".into(), seconds: 1_700_100_000, offset: 0 }
}

#[test]
fn mergeability_agrees_with_git_merge_tree() {
    let dir = TempDir::new();
    let work = fixture(&dir);
    let repo = forgecore::git::open(work.join(".git")).unwrap();
    let cases = [
        ("clean", false),
        ("conflict", true),
        ("rename", false),
        ("rename-both", true),
        ("binary", true),
        ("binary-one", false),
        ("submodule", false),
        ("submodule-both", true),
        ("filedir", true),
        ("delmod", true),
        ("unrelated", false),
        ("unrelated-conflict", true),
        ("criss", false),
    ];
    for (case, conflicted) in cases {
        let (target, source) = (format!("{case}-target"), format!("{case}-source"));
        let (git_tree, git_paths) = git_merge_tree(&work, &target, &source);
        assert_eq!(!git_paths.is_empty(), conflicted, "{case}: git's verdict is the fixture's");
        let verdict = merge::mergeability(&repo, id(&work, &target), id(&work, &source)).unwrap();
        let unrelated = case.starts_with("unrelated");
        assert_eq!(verdict.unrelated(), unrelated, "{case}: {verdict:?}");
        match verdict {
            Mergeability::Clean { tree, .. } => {
                assert!(!conflicted, "{case}: gix merged cleanly where git did not");
                assert_eq!(tree.to_string(), git_tree, "{case}: the merged tree is git's");
            }
            Mergeability::Conflicts { paths, .. } => {
                assert!(conflicted, "{case}: gix found conflicts git did not: {paths:?}");
                // git renames the file of a file/directory conflict out of the way
                // (`d~<branch>`); the path in conflict is the same.
                let git_paths: Vec<String> =
                    git_paths.iter().map(|p| p.split('~').next().unwrap().to_string()).collect();
                for path in &git_paths {
                    assert!(
                        paths.iter().any(|p| p == path || p.starts_with(&format!("{path}/"))),
                        "{case}: {paths:?} vs git's {git_paths:?}"
                    );
                }
            }
            Mergeability::AlreadyMerged => panic!("{case}: not merged"),
        }
    }
    // Nothing of a mergeability check reached the disk: the merged trees are git's objects
    // only where git wrote them.
    let merged = merge::mergeability(&repo, id(&work, "merged-target"), id(&work, "merged-source")).unwrap();
    assert_eq!(merged, Mergeability::AlreadyMerged);
    let same = merge::mergeability(&repo, id(&work, "clean-source"), id(&work, "clean-source")).unwrap();
    assert_eq!(same, Mergeability::AlreadyMerged);
}

#[test]
fn mergeability_writes_nothing() {
    let dir = TempDir::new();
    let work = fixture(&dir);
    let repo = forgecore::git::open(work.join(".git")).unwrap();
    let verdict = merge::mergeability(&repo, id(&work, "clean-target"), id(&work, "clean-source")).unwrap();
    let Mergeability::Clean { tree, .. } = verdict else { panic!("{verdict:?}") };
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(&work)
        .args(["cat-file", "-e", &tree.to_string()])
        .output()
        .unwrap();
    assert!(!out.status.success(), "the merged tree was only computed, not written");
}

fn cat(repo: &Path, rev: &str) -> String {
    git_text(repo, &["cat-file", "-p", rev])
}

#[test]
fn a_merge_commit_has_both_parents_the_merged_tree_and_the_message() {
    let dir = TempDir::new();
    let work = fixture(&dir);
    let repo = forgecore::git::open(work.join(".git")).unwrap();
    let (target, source) = (id(&work, "clean-target"), id(&work, "clean-source"));
    let message = merge::default_message("clean-source", "clean-target", "Edit line 18", None, "group/project!7");
    assert_eq!(
        message,
        "Merge branch 'clean-source' into 'clean-target'\n\nEdit line 18\n\nSee merge request group/project!7"
    );
    let closing = merge::default_message("s", "t", "T", Some("#1 and #2"), "g/p!1");
    assert_eq!(closing, "Merge branch 's' into 't'\n\nT\n\nCloses #1 and #2\n\nSee merge request g/p!1");
    let merged = merge::merge_commit(&repo, "clean-target", target, source, &message, &ann(), |_| true).unwrap();
    assert_eq!(merged.update.name, "refs/heads/clean-target");
    assert_eq!((merged.update.old, merged.update.new), (Some(target), Some(merged.commit)));
    assert_eq!(id(&work, "clean-target"), merged.commit);
    let (git_tree, _) = git_merge_tree(&work, &target.to_string(), &source.to_string());
    let object = cat(&work, &merged.commit.to_string());
    assert!(object.starts_with(&format!("tree {git_tree}\nparent {target}\nparent {source}\n")), "{object}");
    assert!(object.contains("\nauthor Merger <merger@example.com> 1700100000 +0000\ncommitter Merger <merger@example.com> 1700100000 +0000\n"));
    assert!(object.ends_with(&message), "{object}");
    git(&work, &["fsck", "--no-progress"]);

    // Conflicts build nothing and move nothing.
    let before = id(&work, "conflict-target");
    let err =
        merge::merge_commit(&repo, "conflict-target", before, id(&work, "conflict-source"), "m", &ann(), |_| true)
            .unwrap_err();
    assert!(matches!(&err, MergeError::Conflicts(paths) if paths == &["a.txt".to_string()]), "{err:?}");
    assert_eq!(id(&work, "conflict-target"), before);
    // The rule refusing moves nothing either.
    let err = merge::merge_commit(
        &repo,
        "rename-target",
        id(&work, "rename-target"),
        id(&work, "rename-source"),
        "m",
        &ann(),
        |_| false,
    )
    .unwrap_err();
    assert!(matches!(err, MergeError::Refused(_)), "{err:?}");
}

#[test]
fn a_push_during_a_merge_wins_and_the_merge_loses() {
    let dir = TempDir::new();
    let work = fixture(&dir);
    let repo = forgecore::git::open(work.join(".git")).unwrap();
    let (target, source) = (id(&work, "rename-target"), id(&work, "rename-source"));
    let pushed = id(&work, "clean-target");
    // Between building the merge and moving the branch, a push moves the target.
    let err = merge::merge_commit(&repo, "rename-target", target, source, "m", &ann(), |_| {
        git(&work, &["update-ref", "refs/heads/rename-target", &pushed.to_string(), &target.to_string()]);
        true
    })
    .unwrap_err();
    assert!(matches!(&err, MergeError::Race(branch) if branch == "rename-target"), "{err:?}");
    assert_eq!(id(&work, "rename-target"), pushed, "the push is kept");
    assert_eq!(
        MergeError::race_text("rename-target"),
        "9:Could not update refs/heads/rename-target. Please refresh and try again."
    );
    // A stale expected tip loses the same way, with no rule asked.
    let err = merge::fast_forward(&repo, "rename-target", target, pushed, &ann(), |_| true).unwrap_err();
    assert!(matches!(err, MergeError::NotFastForward | MergeError::Race(_)), "{err:?}");
}

#[test]
fn squash_makes_one_commit_on_the_merge_base_with_the_sources_changes() {
    let dir = TempDir::new();
    let work = fixture(&dir);
    let repo = forgecore::git::open(work.join(".git")).unwrap();
    let source = id(&work, "clean-source");
    let base = id(&work, &git_text(&work, &["merge-base", "clean-target", "clean-source"]));
    let author = Identity { name: "Ann".into(), email: "ann@example.com".into(), seconds: 1_700_000_500, offset: 3600 };
    let squashed = merge::squash(&repo, base, source, "Edit line 18", &author, &ann()).unwrap();
    let object = cat(&work, &squashed.to_string());
    let source_tree = git_text(&work, &["rev-parse", "clean-source^{tree}"]);
    assert!(object.starts_with(&format!("tree {source_tree}\nparent {base}\n")), "{object}");
    assert!(object.contains("\nauthor Ann <ann@example.com> 1700000500 +0100\ncommitter Merger <merger@example.com>"));
    assert!(object.ends_with("Edit line 18"));
    // Its change is exactly the source's since the base.
    assert_eq!(
        git_text(&work, &["diff", &base.to_string(), &squashed.to_string()]),
        git_text(&work, &["diff", &base.to_string(), "clean-source"])
    );
    // It merges like the source: the same tree as merging the source.
    let target = id(&work, "clean-target");
    let merged = merge::merge_commit(&repo, "clean-target", target, squashed, "m", &ann(), |_| true).unwrap();
    let (git_tree, _) = git_merge_tree(&work, &target.to_string(), &source.to_string());
    assert_eq!(git_text(&work, &["rev-parse", &format!("{}^{{tree}}", merged.commit)]), git_tree);
    assert_eq!(git_text(&work, &["rev-list", "--count", &format!("{target}..clean-target")]), "2");
    // Squashed onto a start that is not the base: the source's changes applied to it.
    let onto = merge::squash(&repo, target, source, "onto target", &author, &ann()).unwrap();
    assert_eq!(git_text(&work, &["rev-parse", &format!("{onto}^{{tree}}")]), git_tree);
    assert_eq!(git_text(&work, &["rev-parse", &format!("{onto}^")]), target.to_string());
}

#[test]
fn rebase_replays_the_source_onto_the_target() {
    let dir = TempDir::new();
    let work = fixture(&dir);
    let repo = forgecore::git::open(work.join(".git")).unwrap();
    let (target, source) = (id(&work, "clean-target"), id(&work, "clean-source"));
    let rebased = merge::rebase(&repo, "clean-source", source, target, &ann(), |_| true).unwrap();
    let update = rebased.update.clone().unwrap();
    assert_eq!((update.old, update.new), (Some(source), Some(rebased.head)));
    assert_eq!(id(&work, "clean-source"), rebased.head);
    // git's own rebase of the same branch gives the same trees and messages.
    git(&work, &["branch", "git-rebased", &source.to_string()]);
    git(&work, &["-c", "user.name=X", "-c", "user.email=x@example.com", "rebase", "-q", "clean-target", "git-rebased"]);
    let ours = git_text(&work, &["log", "--format=%T %an %ae %at %s|%cn", &format!("{target}..clean-source")]);
    let gits = git_text(&work, &["log", "--format=%T %an %ae %at %s|X", &format!("{target}..git-rebased")]);
    assert_eq!(ours.replace("|Merger", "|X"), gits);
    assert_eq!(ours.lines().count(), 2);
    assert!(ours.lines().all(|l| l.ends_with("|Merger")), "{ours}");
    assert!(merge::mergeability(&repo, target, rebased.head).unwrap().can_be_merged());
    assert!(forgecore::git::refs::is_ancestor(&repo, target, rebased.head).unwrap());
    // Already on the target: nothing moves.
    let again = merge::rebase(&repo, "clean-source", rebased.head, target, &ann(), |_| true).unwrap();
    assert_eq!((again.head, again.update), (rebased.head, None));
    // A conflicting rebase writes and moves nothing.
    let before = id(&work, "conflict-source");
    let err =
        merge::rebase(&repo, "conflict-source", before, id(&work, "conflict-target"), &ann(), |_| true).unwrap_err();
    assert!(matches!(err, MergeError::Conflicts(_)), "{err:?}");
    assert_eq!(id(&work, "conflict-source"), before);
}

#[test]
fn fast_forward_only_when_the_target_is_an_ancestor() {
    let dir = TempDir::new();
    let work = fixture(&dir);
    let repo = forgecore::git::open(work.join(".git")).unwrap();
    let (target, source) = (id(&work, "clean-target"), id(&work, "clean-source"));
    let err = merge::fast_forward(&repo, "clean-target", target, source, &ann(), |_| true).unwrap_err();
    assert!(matches!(err, MergeError::NotFastForward), "{err:?}");
    assert_eq!(id(&work, "clean-target"), target);
    let rebased = merge::rebase(&repo, "clean-source", source, target, &ann(), |_| true).unwrap();
    let update = merge::fast_forward(&repo, "clean-target", target, rebased.head, &ann(), |_| true).unwrap();
    assert_eq!((update.old, update.new), (Some(target), Some(rebased.head)));
    assert_eq!(git_text(&work, &["rev-parse", "clean-target"]), rebased.head.to_string());
    assert_eq!(git_text(&work, &["rev-list", "--merges", &format!("{target}..clean-target")]), "");
}

// ---- The routes: merge status, PUT .../merge, PUT .../rebase (both stores). ----

use serde_json::{json, Value};

const MRS: &str = "/api/v4/projects/fx%2Fm/merge_requests";

struct World {
    instance: common::TestInstance,
    work: PathBuf,
    developer: String,
    reporter: String,
    maintainer: String,
}

fn world() -> World {
    world_with(|_| {})
}

/// A world whose work repository `prepare` changed before it was registered.
fn world_with(prepare: impl Fn(&Path)) -> World {
    let instance = common::open_instance(json!({"external_url": "http://forge.test"}));
    let work = instance.run_fixture("merges.sh");
    prepare(&work);
    instance.user_with_token("root", true);
    instance.admin_ok(json!({"command": "group_add", "path": "fx", "visibility": "public"}));
    instance.admin_ok(json!({"command": "project_add", "path": "fx/m", "repo": work, "visibility": "public"}));
    let common::Writers { maintainer, developer, reporter } = instance.writers("fx/m");
    World { instance, work, developer, reporter, maintainer }
}

impl World {
    fn call(&self, method: &str, target: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        let mut headers = vec![("Content-Type", "application/json")];
        if let Some(token) = token {
            headers.push(("PRIVATE-TOKEN", token));
        }
        let body = if body.is_null() { Vec::new() } else { body.to_string().into_bytes() };
        self.instance.request_json(method, target, &headers, &body)
    }

    fn open(&self, case: &str, title: &str) -> Value {
        let body = json!({"source_branch": format!("{case}-source"), "target_branch": format!("{case}-target"), "title": title});
        let (status, mr) = self.call("POST", MRS, Some(&self.developer), body);
        assert_eq!(status, 201, "{mr}");
        mr
    }

    fn get(&self, iid: &Value) -> Value {
        let (status, mr) = self.call("GET", &format!("{MRS}/{iid}"), Some(&self.developer), Value::Null);
        assert_eq!(status, 200, "{mr}");
        mr
    }

    fn merge(&self, iid: &Value, token: Option<&str>, body: Value) -> (u16, Value) {
        self.call("PUT", &format!("{MRS}/{iid}/merge"), token, body)
    }

    fn settings(&self, body: Value) {
        let (status, answer) = self.call("PUT", "/api/v4/projects/fx%2Fm", Some(&self.maintainer), body);
        assert_eq!(status, 200, "{answer}");
    }

    fn tip(&self, branch: &str) -> String {
        git_text(&self.work, &["rev-parse", &format!("refs/heads/{branch}")])
    }
}

fn statuses(mr: &Value) -> (&str, &str, bool) {
    (
        mr["merge_status"].as_str().unwrap(),
        mr["detailed_merge_status"].as_str().unwrap(),
        mr["has_conflicts"].as_bool().unwrap(),
    )
}

#[test]
fn merge_status_is_gitlabs_for_every_case() {
    let w = world();
    let clean = w.open("clean", "Edit line 18");
    assert_eq!(statuses(&clean), ("can_be_merged", "mergeable", false));
    let conflict = w.open("conflict", "Edit line 5");
    assert_eq!(statuses(&w.get(&conflict["iid"])), ("cannot_be_merged", "conflict", true));
    let draft = w.open("rename", "Draft: rename f");
    assert_eq!(statuses(&w.get(&draft["iid"])), ("can_be_merged", "draft_status", false));
    let empty = w.open("merged", "Nothing left");
    assert_eq!(statuses(&w.get(&empty["iid"])), ("cannot_be_merged", "commits_status", true));
    // The list shows the same verdicts.
    let (_, list) = w.call("GET", &format!("{MRS}?state=opened"), Some(&w.developer), Value::Null);
    let of = |iid: &Value| list.as_array().unwrap().iter().find(|m| m["iid"] == *iid).unwrap().clone();
    assert_eq!(of(&conflict["iid"])["detailed_merge_status"], "conflict");
    assert_eq!(of(&clean["iid"])["detailed_merge_status"], "mergeable");
    // A fast-forward method needs a rebase when the target moved on; a required pipeline never ran.
    w.settings(json!({"merge_method": "ff"}));
    assert_eq!(statuses(&w.get(&clean["iid"])), ("can_be_merged", "need_rebase", false));
    w.settings(json!({"merge_method": "rebase_merge"}));
    assert_eq!(statuses(&w.get(&clean["iid"])).1, "need_rebase");
    w.settings(json!({"merge_method": "merge", "only_allow_merge_if_pipeline_succeeds": true}));
    assert_eq!(statuses(&w.get(&clean["iid"])).1, "ci_must_pass");
    w.settings(json!({"only_allow_merge_if_pipeline_succeeds": false}));
    // Closed: not open. Moving the target to resolve the conflict recomputes it.
    let (status, _) =
        w.call("PUT", &format!("{MRS}/{}", draft["iid"]), Some(&w.developer), json!({"state_event": "close"}));
    assert_eq!(status, 200);
    assert_eq!(statuses(&w.get(&draft["iid"])).1, "not_open");
    let source = w.tip("conflict-source");
    git(&w.work, &["update-ref", "refs/heads/conflict-target", &source]);
    let moved = w.get(&conflict["iid"]);
    assert_ne!(moved["detailed_merge_status"], "conflict", "{moved}");
}

#[test]
fn merge_checks_come_in_gitlabs_order() {
    let w = world();
    let clean = w.open("clean", "Edit line 18");
    let iid = &clean["iid"];
    assert_eq!(w.merge(iid, None, json!({})), (401, json!({"message": "401 Unauthorized"})));
    assert_eq!(w.merge(iid, Some(&w.reporter), json!({})), (401, json!({"message": "401 Unauthorized"})));
    let head = w.tip("clean-source");
    let (status, body) = w.merge(iid, Some(&w.developer), json!({"sha": "0".repeat(40)}));
    assert_eq!((status, body), (409, json!({"message": format!("SHA does not match HEAD of source branch: {head}")})));
    let conflict = w.open("conflict", "Edit line 5");
    assert_eq!(
        w.merge(&conflict["iid"], Some(&w.developer), json!({})),
        (405, json!({"message": "405 Method Not Allowed"}))
    );
    let draft = w.open("rename", "Draft: rename f");
    assert_eq!(w.merge(&draft["iid"], Some(&w.developer), json!({})).0, 405);
    // A project that requires squashing refuses a merge without it: 422 and merge_error.
    w.settings(json!({"squash_option": "always"}));
    let (status, body) = w.merge(iid, Some(&w.developer), json!({"squash": false}));
    assert_eq!((status, body), (422, json!({"message": "Branch cannot be merged"})));
    assert_eq!(w.get(iid)["merge_error"], "This project requires squashing commits when merge requests are accepted.");
    assert_eq!(w.get(iid)["state"], "opened", "nothing merged");
}

#[test]
fn a_merge_makes_gitlabs_merge_commit_and_removes_the_source_when_asked() {
    let w = world();
    let mr = w.open("clean", "Edit line 18");
    let iid = &mr["iid"];
    let (target, head) = (w.tip("clean-target"), w.tip("clean-source"));
    let (status, merged) = w.merge(iid, Some(&w.developer), json!({"sha": head, "should_remove_source_branch": true}));
    assert_eq!(status, 200, "{merged}");
    assert_eq!(merged["state"], "merged");
    assert_eq!(merged["merged_by"]["username"], "dev");
    assert_eq!(merged["merge_user"]["username"], "dev");
    assert!(merged["merged_at"].is_string());
    let commit = w.tip("clean-target");
    assert_eq!(merged["merge_commit_sha"], json!(commit));
    assert_eq!(merged["squash_commit_sha"], Value::Null);
    let object = git_text(&w.work, &["cat-file", "-p", &commit]);
    assert!(object.contains(&format!("\nparent {target}\nparent {head}\n")), "{object}");
    let message =
        format!("Merge branch 'clean-source' into 'clean-target'\n\nEdit line 18\n\nSee merge request fx/m!{iid}");
    assert!(object.ends_with(&message), "{object}");
    let (git_tree, _) = git_merge_tree(&w.work, &target, &head);
    assert_eq!(git_text(&w.work, &["rev-parse", &format!("{commit}^{{tree}}")]), git_tree);
    // The source branch went away, and the merge request stays merged (not closed by it).
    let branches = git_text(&w.work, &["branch", "--list", "clean-source"]);
    assert_eq!(branches, "");
    assert_eq!(w.get(iid)["state"], "merged");
    assert_eq!(statuses(&w.get(iid)).1, "not_open");
    // Merging again: not open, 405.
    assert_eq!(w.merge(iid, Some(&w.developer), json!({})).0, 405);
}

#[test]
fn squash_and_fast_forward_merges() {
    let w = world();
    let squashed = w.open("clean", "Edit line 18");
    let (target, head) = (w.tip("clean-target"), w.tip("clean-source"));
    let base = git_text(&w.work, &["merge-base", &target, &head]);
    let (status, merged) = w.merge(
        &squashed["iid"],
        Some(&w.developer),
        json!({"squash": true, "merge_commit_message": "Custom merge message"}),
    );
    assert_eq!(status, 200, "{merged}");
    let squash = merged["squash_commit_sha"].as_str().unwrap().to_string();
    assert_eq!(
        git_text(&w.work, &["log", "-1", "--format=%P|%s|%an|%cn", &squash]),
        format!("{base}|Edit line 18|dev N|dev N")
    );
    assert_eq!(
        git_text(&w.work, &["log", "-1", "--format=%P|%B", "clean-target"]),
        format!("{target} {squash}|Custom merge message")
    );
    assert_eq!(
        git_text(&w.work, &["rev-parse", &format!("{squash}^{{tree}}")]),
        git_text(&w.work, &["rev-parse", &format!("{head}^{{tree}}")])
    );

    // Fast-forward only: refused while the target moved on, then rebase and merge.
    w.settings(json!({"merge_method": "ff"}));
    let ff = w.open("rename", "Rename f");
    assert_eq!(w.merge(&ff["iid"], Some(&w.developer), json!({})).0, 405);
    let (status, body) =
        w.call("PUT", &format!("{MRS}/{}/rebase", ff["iid"]), Some(&w.developer), json!({"skip_ci": true}));
    assert_eq!((status, body), (202, json!({"rebase_in_progress": true})));
    let (_, after) =
        w.call("GET", &format!("{MRS}/{}?include_rebase_in_progress=true", ff["iid"]), Some(&w.developer), Value::Null);
    assert_eq!(after["rebase_in_progress"], false);
    let new_head = w.tip("rename-source");
    assert_eq!(after["sha"], json!(new_head), "the refresh made a new version");
    assert_eq!(after["detailed_merge_status"], "mergeable");
    assert_eq!(git_text(&w.work, &["merge-base", "rename-target", "rename-source"]), w.tip("rename-target"));
    assert_eq!(git_text(&w.work, &["log", "-1", "--format=%an|%cn", &new_head]), "Ann|dev N");
    let (status, merged) = w.merge(&ff["iid"], Some(&w.developer), json!({"sha": new_head}));
    assert_eq!(status, 200, "{merged}");
    assert_eq!(w.tip("rename-target"), new_head, "fast-forwarded, no merge commit");
    assert_eq!(merged["merge_commit_sha"], json!(new_head));
}

#[test]
fn rebase_refusals_and_failures_are_gitlabs() {
    let w = world();
    let conflict = w.open("conflict", "Edit line 5");
    let rebase = |token: &str| w.call("PUT", &format!("{MRS}/{}/rebase", conflict["iid"]), Some(token), Value::Null);
    assert_eq!(rebase(&w.reporter), (403, json!({"message": "403 Forbidden - Cannot push to source branch"})));
    let before = w.tip("conflict-source");
    assert_eq!(rebase(&w.developer), (202, json!({"rebase_in_progress": true})));
    assert_eq!(w.tip("conflict-source"), before, "a conflicting rebase moves nothing");
    assert_eq!(
        w.get(&conflict["iid"])["merge_error"],
        "Rebase failed: Rebase locally, resolve all conflicts, then push the branch."
    );
    let (status, _) =
        w.call("PUT", &format!("{MRS}/{}", conflict["iid"]), Some(&w.developer), json!({"state_event": "close"}));
    assert_eq!(status, 200);
    assert_eq!(rebase(&w.developer), (409, json!({"message": "409 Conflict: Resource lock"})));
}

#[test]
fn merge_ref_writes_the_test_merge() {
    let w = world();
    let clean = w.open("clean", "Edit line 18");
    let target = format!("{MRS}/{}/merge_ref", clean["iid"]);
    let (status, body) = w.call("GET", &target, Some(&w.developer), Value::Null);
    assert_eq!(status, 200, "{body}");
    let commit = body["commit_id"].as_str().unwrap().to_string();
    let iid = clean["iid"].as_i64().unwrap();
    assert_eq!(git_text(&w.work, &["rev-parse", &format!("refs/merge-requests/{iid}/merge")]), commit);
    let parents = git_text(&w.work, &["log", "-1", "--format=%P", &commit]);
    assert_eq!(parents, format!("{} {}", w.tip("clean-target"), w.tip("clean-source")));
    let (git_tree, _) = git_merge_tree(&w.work, "clean-target", "clean-source");
    assert_eq!(git_text(&w.work, &["rev-parse", &format!("{commit}^{{tree}}")]), git_tree);
    // Asked again: the ref moves to a new merge (same tree), nothing else does.
    let (status, _) = w.call("GET", &target, Some(&w.developer), Value::Null);
    assert_eq!(status, 200);
    assert_eq!(w.get(&clean["iid"])["state"], "opened");
    let conflict = w.open("conflict", "Edit line 5");
    let (status, body) =
        w.call("GET", &format!("{MRS}/{}/merge_ref", conflict["iid"]), Some(&w.developer), Value::Null);
    assert_eq!((status, body), (400, json!({"message": "Merge request is not mergeable"})));
}

#[test]
fn racing_merges_into_one_target_lose_nothing() {
    let w = world();
    let a = w.open("clean", "Edit line 18");
    let body = json!({"source_branch": "binary-one-source", "target_branch": "clean-target", "title": "Binary"});
    let (status, b) = w.call("POST", MRS, Some(&w.developer), body);
    assert_eq!(status, 201, "{b}");
    let heads = [w.tip("clean-source"), w.tip("binary-one-source")];
    // Both merges start from the same target tip; the compare-and-swap lets one move it first.
    let barrier = std::sync::Barrier::new(2);
    let answers: Vec<(u16, Value)> = std::thread::scope(|scope| {
        let runs: Vec<_> = [&a, &b]
            .into_iter()
            .map(|mr| {
                let (w, barrier) = (&w, &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    w.merge(&mr["iid"], Some(&w.developer), json!({}))
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let tip = w.tip("clean-target");
    let contains = |head: &str| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(&w.work)
            .args(["merge-base", "--is-ancestor", head, &tip])
            .status()
            .unwrap()
            .success()
    };
    for ((status, body), (mr, head)) in answers.iter().zip([&a, &b].into_iter().zip(&heads)) {
        match status {
            200 => assert!(contains(head), "a merge answered 200 is in the target: {body}"),
            422 => {
                assert_eq!(body, &json!({"message": "Branch cannot be merged"}));
                assert_eq!(
                    w.get(&mr["iid"])["merge_error"],
                    "9:Could not update refs/heads/clean-target. Please refresh and try again."
                );
                assert!(!contains(head));
            }
            other => panic!("{other}: {body}"),
        }
    }
    assert!(answers.iter().any(|(s, _)| *s == 200), "{answers:?}");
    eprintln!("racing merges answered {:?}", answers.iter().map(|(s, _)| *s).collect::<Vec<_>>());
}

/// A merge into the project's default branch closes the issues its description closes
/// (GitLab's `PostMergeService#close_issues`: each with the system note `closed via merge
/// request !iid`), and `closes_issues` lists them, before and after, to those who may see them.
/// A merge into another branch closes none.
#[test]
fn a_merge_into_the_default_branch_closes_the_issues_it_names() {
    // The work tree's checked-out branch is the default one, which REST writes may move.
    let w = world_with(|work| {
        git(work, &["symbolic-ref", "HEAD", "refs/heads/clean-target"]);
        git(work, &["config", "receive.denyCurrentBranch", "ignore"]);
    });
    let issues = "/api/v4/projects/fx%2Fm/issues";
    let open_issue = |title: &str, confidential: bool| -> i64 {
        let body = json!({"title": title, "confidential": confidential});
        let (status, issue) = w.call("POST", issues, Some(&w.maintainer), body);
        assert_eq!(status, 201, "{issue}");
        issue["iid"].as_i64().unwrap()
    };
    let (one, two, other, secret) =
        (open_issue("one", false), open_issue("two", false), open_issue("other", false), open_issue("secret", true));
    let mr_with = |case: &str, description: String| -> Value {
        let body = json!({"source_branch": format!("{case}-source"), "target_branch": format!("{case}-target"),
                          "title": case, "description": description});
        let (status, mr) = w.call("POST", MRS, Some(&w.developer), body);
        assert_eq!(status, 201, "{mr}");
        mr
    };
    let mr = mr_with("clean", format!("Closes #{one} and fixes #{two}; see #{other}. Resolves #{secret}"));
    let closes = |token: Option<&str>| -> Vec<(i64, String)> {
        let (status, list) = w.call("GET", &format!("{MRS}/{}/closes_issues", mr["iid"]), token, Value::Null);
        assert_eq!(status, 200, "{list}");
        list.as_array()
            .unwrap()
            .iter()
            .map(|i| (i["iid"].as_i64().unwrap(), i["state"].as_str().unwrap().into()))
            .collect()
    };
    let opened = |iids: &[i64]| iids.iter().map(|&i| (i, "opened".to_string())).collect::<Vec<_>>();
    assert_eq!(closes(Some(&w.developer)), opened(&[one, two, secret]));
    assert_eq!(closes(None), opened(&[one, two]), "a confidential issue is not shown to anyone");
    let nothing = mr_with("rename", "Nothing to close here".into());
    let (status, none) = w.call("GET", &format!("{MRS}/{}/closes_issues", nothing["iid"]), None, Value::Null);
    assert_eq!((status, none), (200, json!([])));

    // The default branch is protected: its Maintainer merges.
    let (status, merged) = w.merge(&mr["iid"], Some(&w.maintainer), json!({}));
    assert_eq!(status, 200, "{merged}");
    let closed = |iids: &[i64]| iids.iter().map(|&i| (i, "closed".to_string())).collect::<Vec<_>>();
    assert_eq!(closes(Some(&w.developer)), closed(&[one, two, secret]));
    let (_, still) = w.call("GET", &format!("{issues}/{other}"), Some(&w.developer), Value::Null);
    assert_eq!(still["state"], "opened");
    let (_, issue) = w.call("GET", &format!("{issues}/{one}"), Some(&w.developer), Value::Null);
    let (_, maintainer) = w.call("GET", "/api/v4/user", Some(&w.maintainer), Value::Null);
    assert_eq!(issue["closed_by"]["username"], maintainer["username"], "{issue}");
    let (_, notes) = w.call("GET", &format!("{issues}/{one}/notes"), Some(&w.developer), Value::Null);
    let system: Vec<&str> =
        notes.as_array().unwrap().iter().filter(|n| n["system"] == true).map(|n| n["body"].as_str().unwrap()).collect();
    assert_eq!(system, [format!("closed via merge request !{}", mr["iid"])]);

    // Into a branch that is not the default one: nothing is closed.
    let side = mr_with("binary-one", format!("Closes #{other}"));
    assert_eq!(w.merge(&side["iid"], Some(&w.developer), json!({})).0, 200);
    let (_, still) = w.call("GET", &format!("{issues}/{other}"), Some(&w.developer), Value::Null);
    assert_eq!(still["state"], "opened");
}

/// Issue #39/#42: the head pipeline (external statuses) shows on the single merge request and
/// drives `detailed_merge_status` as GitLab's `DetailedMergeStatusService#ci_status` does;
/// `PUT merge` is refused (405) until a required pipeline succeeded, then merges.
#[test]
fn a_required_pipeline_gates_the_merge() {
    let w = world();
    let mr = w.open("clean", "Edit line 18");
    let iid = &mr["iid"];
    let sha = mr["sha"].as_str().unwrap().to_string();
    assert_eq!(w.get(iid)["head_pipeline"], Value::Null);
    w.settings(json!({"only_allow_merge_if_pipeline_succeeds": true}));
    assert_eq!(w.get(iid)["detailed_merge_status"], "ci_must_pass");
    assert_eq!(w.merge(iid, Some(&w.maintainer), json!({})).0, 405);
    let post = |state: &str| {
        let target = format!("/api/v4/projects/fx%2Fm/statuses/{sha}");
        let (status, answer) = w.call("POST", &target, Some(&w.maintainer), json!({"state": state, "name": "ci"}));
        assert_eq!(status, 201, "{answer}");
        answer
    };
    let status = post("running");
    let got = w.get(iid);
    assert_eq!(got["detailed_merge_status"], "ci_still_running", "{got}");
    assert_eq!(got["head_pipeline"]["id"], status["pipeline_id"], "{got}");
    assert_eq!(got["head_pipeline"]["status"], "running");
    assert_eq!(got["pipeline"]["sha"], sha.as_str());
    assert_eq!(w.merge(iid, Some(&w.maintainer), json!({})).0, 405);
    post("failed");
    assert_eq!(w.get(iid)["detailed_merge_status"], "ci_must_pass");
    post("success");
    let got = w.get(iid);
    assert_eq!(got["detailed_merge_status"], "mergeable", "{got}");
    assert_eq!(got["head_pipeline"]["status"], "success");
    let (status, merged) = w.merge(iid, Some(&w.maintainer), json!({}));
    assert_eq!(status, 200, "{merged}");
    assert_eq!(merged["state"], "merged");
    let target = w.tip(mr["target_branch"].as_str().unwrap());
    assert_eq!(merged["merge_commit_sha"], target.as_str());
}

impl World {
    /// Posts `state` for the status `name` of `sha` through `instance` (this world's or another
    /// host's on the same store).
    fn status_on(&self, instance: &common::TestInstance, sha: &str, name: &str, state: &str) -> Value {
        let target = format!("/api/v4/projects/fx%2Fm/statuses/{sha}");
        let body = json!({"state": state, "name": name}).to_string().into_bytes();
        let headers = [("Content-Type", "application/json"), ("PRIVATE-TOKEN", self.maintainer.as_str())];
        let (status, answer) = instance.request_json("POST", &target, &headers, &body);
        assert_eq!(status, 201, "{answer}");
        answer
    }

    fn status(&self, sha: &str, name: &str, state: &str) -> Value {
        self.status_on(&self.instance, sha, name, state)
    }

    /// The bodies of the merge request's system notes, oldest first.
    fn system_notes(&self, iid: &Value) -> Vec<String> {
        let (status, notes) =
            self.call("GET", &format!("{MRS}/{iid}/notes?sort=asc&per_page=100"), Some(&self.developer), Value::Null);
        assert_eq!(status, 200, "{notes}");
        notes
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["system"] == true)
            .map(|n| n["body"].as_str().unwrap().to_string())
            .collect()
    }

    fn username(&self, token: &str) -> Value {
        self.call("GET", "/api/v4/user", Some(token), Value::Null).1["username"].clone()
    }

    /// Queues the merge of a new merge request of `case` behind a running status `ci`: the
    /// merge request and its head.
    fn queued(&self, case: &str, body: Value) -> (Value, String) {
        let mr = self.open(case, &format!("Auto-merge {case}"));
        let sha = mr["sha"].as_str().unwrap().to_string();
        self.status(&sha, "ci", "running");
        let (status, queued) = self.merge(&mr["iid"], Some(&self.developer), body);
        assert_eq!(status, 200, "{queued}");
        assert_eq!(queued["state"], "opened", "{queued}");
        assert_eq!(queued["merge_when_pipeline_succeeds"], true, "{queued}");
        assert_eq!(queued["merge_user"]["username"], self.username(&self.developer), "{queued}");
        assert_eq!(queued["merged_at"], Value::Null);
        (mr, sha)
    }
}

/// `git log --merges --format=%P old..branch` of the work repository: the parents of each
/// merge commit the branch gained since `old`.
fn merges_since(work: &Path, old: &str, branch: &str) -> Vec<String> {
    let range = format!("{old}..refs/heads/{branch}");
    let text = git_text(work, &["log", "--merges", "--format=%P", &range]);
    text.lines().map(str::to_string).filter(|l| !l.is_empty()).collect()
}

fn branch_exists(work: &Path, branch: &str) -> bool {
    std::process::Command::new("git")
        .arg("-C")
        .arg(work)
        .args(["rev-parse", "--verify", "--quiet", &format!("refs/heads/{branch}")])
        .output()
        .unwrap()
        .status
        .success()
}

/// Issues #39/#42: `merge_when_pipeline_succeeds` while the head pipeline runs queues the merge
/// (GitLab's note, `merge_user`), nothing moves until the pipeline succeeds, and then the merge
/// is the one `PUT merge` makes: a merge commit of the target and the head, the source branch
/// removed as asked, the merge request merged by the user who set it.
#[test]
fn an_auto_merge_waits_for_the_pipeline_and_merges_when_it_succeeds() {
    let w = world();
    let before = w.tip("clean-target");
    let (mr, sha) =
        w.queued("clean", json!({"merge_when_pipeline_succeeds": true, "should_remove_source_branch": true}));
    let iid = &mr["iid"];
    assert_eq!(w.tip("clean-target"), before, "nothing merged while the pipeline runs");
    assert_eq!(w.get(iid)["merge_when_pipeline_succeeds"], true);
    let (_, listed) = w.call("GET", &format!("{MRS}?state=opened"), Some(&w.developer), Value::Null);
    let row = listed.as_array().unwrap().iter().find(|m| m["iid"] == *iid).unwrap().clone();
    assert_eq!(row["merge_when_pipeline_succeeds"], true, "{row}");
    assert_eq!(w.system_notes(iid), [format!("enabled an automatic merge when all merge checks for {sha} pass")]);
    // Asked again: the parameters are updated, no second note.
    let (status, again) =
        w.merge(iid, Some(&w.developer), json!({"auto_merge": true, "should_remove_source_branch": true}));
    assert_eq!((status, &again["merge_when_pipeline_succeeds"]), (200, &json!(true)), "{again}");
    assert_eq!(w.system_notes(iid).len(), 1);

    let status = w.status(&sha, "ci", "success");
    let merged = w.get(iid);
    assert_eq!(merged["state"], "merged", "{merged}");
    assert_eq!(merged["merge_when_pipeline_succeeds"], false);
    assert_eq!(merged["merged_by"]["username"], w.username(&w.developer));
    // git is the oracle: one merge commit, of the old target tip and the head.
    let target = w.tip("clean-target");
    assert_eq!(merged["merge_commit_sha"], target.as_str());
    assert_eq!(merges_since(&w.work, &before, "clean-target"), [format!("{before} {sha}")]);
    let message = git_text(&w.work, &["log", "-1", "--format=%B", &target]);
    assert!(message.starts_with("Merge branch 'clean-source' into 'clean-target'"), "{message}");
    assert!(!branch_exists(&w.work, "clean-source"), "the source branch was removed as asked");

    // The merge request's pipelines: the one the statuses made, as PipelineBasic.
    let (code, pipelines) = w.call("GET", &format!("{MRS}/{iid}/pipelines"), Some(&w.developer), Value::Null);
    assert_eq!(code, 200, "{pipelines}");
    let pipelines = pipelines.as_array().unwrap();
    assert_eq!(pipelines.len(), 1, "{pipelines:?}");
    assert_eq!(pipelines[0]["id"], status["pipeline_id"]);
    assert_eq!(pipelines[0]["sha"], sha.as_str());
    assert_eq!(pipelines[0]["status"], "success");
    // GitLab's key order, read from the bytes (a parsed `Value` sorts its keys).
    let headers = [("PRIVATE-TOKEN", w.developer.as_str())];
    let mut raw = w.instance.request_response("GET", &format!("{MRS}/{iid}/pipelines"), &headers, b"");
    let text = String::from_utf8(raw.body()).unwrap();
    let keys = ["id", "iid", "project_id", "sha", "ref", "status", "source", "created_at", "updated_at", "web_url"];
    let at: Vec<usize> = keys.iter().map(|k| text.find(&format!("\"{k}\":")).unwrap()).collect();
    assert!(at.windows(2).all(|p| p[0] < p[1]), "{text}");
}

/// A failed pipeline does not abort the auto-merge (GitLab: `AutoMergeProcessWorker` on every
/// completed pipeline, whose `process` waits for a successful one): nothing merges; the
/// status retried and succeeding merges it. With no pipeline the merge is at once (D10), and a
/// failed head pipeline is no reason to queue: 405.
#[test]
fn a_failed_pipeline_keeps_the_auto_merge_and_a_retried_success_merges() {
    let w = world();
    let before = w.tip("clean-target");
    let (mr, sha) = w.queued("clean", json!({"merge_when_pipeline_succeeds": true}));
    let iid = &mr["iid"];
    w.status(&sha, "ci", "failed");
    let got = w.get(iid);
    assert_eq!((got["state"].as_str(), &got["merge_when_pipeline_succeeds"]), (Some("opened"), &json!(true)));
    assert_eq!(w.tip("clean-target"), before);
    let (status, _) = w.merge(iid, Some(&w.developer), json!({"merge_when_pipeline_succeeds": true}));
    assert_eq!(status, 405, "a failed head pipeline neither queues nor merges");
    w.status(&sha, "ci", "success");
    assert_eq!(w.get(iid)["state"], "merged");
    assert_eq!(merges_since(&w.work, &before, "clean-target"), [format!("{before} {sha}")]);

    // No pipeline at all: merged at once.
    let plain = w.open("binary-one", "No pipeline");
    let (status, merged) = w.merge(&plain["iid"], Some(&w.developer), json!({"merge_when_pipeline_succeeds": true}));
    assert_eq!((status, merged["state"].as_str()), (200, Some("merged")), "{merged}");
}

/// A new head on the source branch aborts the auto-merge (GitLab's `RefreshService`, its note
/// written by the pusher), and a success of the new head's pipeline then merges nothing.
/// Closing a merge request aborts it too.
#[test]
fn a_new_commit_or_closing_aborts_the_auto_merge() {
    let w = world();
    let before = w.tip("clean-target");
    let (mr, _) = w.queued("clean", json!({"merge_when_pipeline_succeeds": true}));
    let iid = &mr["iid"];
    let commit = json!({"branch": "clean-source", "commit_message": "One more",
                        "actions": [{"action": "create", "file_path": "more.txt", "content": "more\n"}]});
    let (status, pushed) = w.call("POST", "/api/v4/projects/fx%2Fm/repository/commits", Some(&w.developer), commit);
    assert_eq!(status, 201, "{pushed}");
    let got = w.get(iid);
    assert_eq!(got["sha"], pushed["id"], "{got}");
    assert_eq!(got["merge_when_pipeline_succeeds"], false, "{got}");
    assert_eq!(got["merge_user"], Value::Null, "{got}");
    let notes = w.system_notes(iid);
    assert_eq!(
        notes.last().unwrap(),
        "aborted the automatic merge because the source branch was updated. \
         [Learn more](http://forge.test/help/ci/pipelines/merge_trains.md#merge-request-dropped-from-the-merge-train)."
    );
    w.status(pushed["id"].as_str().unwrap(), "ci", "success");
    assert_eq!(w.get(iid)["state"], "opened", "an aborted auto-merge merges nothing");
    assert_eq!(w.tip("clean-target"), before);

    let (other, _) = w.queued("binary-one", json!({"merge_when_pipeline_succeeds": true}));
    let (status, closed) =
        w.call("PUT", &format!("{MRS}/{}", other["iid"]), Some(&w.developer), json!({"state_event": "close"}));
    assert_eq!(status, 200, "{closed}");
    assert_eq!(closed["merge_when_pipeline_succeeds"], false, "{closed}");
    assert_eq!(
        w.system_notes(&other["iid"]).last().unwrap(),
        "aborted the automatic merge because merge request was closed"
    );
}

/// `POST .../cancel_merge_when_pipeline_succeeds` answers `AutoMergeService#cancel`'s hash with
/// a POST's 201 (GitLab's route renders it as it is), writes `canceled the automatic merge`,
/// and is 401 for a Reporter; the cancelled merge request is not merged by a later success.
#[test]
fn cancelling_an_auto_merge() {
    let w = world();
    let (mr, sha) = w.queued("clean", json!({"merge_when_pipeline_succeeds": true}));
    let iid = &mr["iid"];
    let cancel = format!("{MRS}/{iid}/cancel_merge_when_pipeline_succeeds");
    assert_eq!(w.call("POST", &cancel, Some(&w.reporter), Value::Null).0, 401);
    assert_eq!(w.call("POST", &cancel, None, Value::Null).0, 401);
    let (status, body) = w.call("POST", &cancel, Some(&w.developer), Value::Null);
    assert_eq!((status, body), (201, json!({"status": "success"})));
    assert_eq!(w.get(iid)["merge_when_pipeline_succeeds"], false);
    assert_eq!(w.system_notes(iid).last().unwrap(), "canceled the automatic merge");
    let (status, body) = w.call("POST", &cancel, Some(&w.developer), Value::Null);
    assert_eq!(
        (status, body),
        (201, json!({"status": "error", "message": "Can't cancel the automatic merge", "http_status": 406}))
    );
    w.status(&sha, "ci", "success");
    assert_eq!(w.get(iid)["state"], "opened");
    let (status, _) =
        w.call("POST", &format!("{MRS}/999/cancel_merge_when_pipeline_succeeds"), Some(&w.developer), Value::Null);
    assert_eq!(status, 404);
}

/// Two hosts on one store (one PostgreSQL database under `FORGECORE_TEST_POSTGRES`) finish the
/// head pipeline's two statuses at once: whichever transaction sees the pipeline succeed
/// takes the auto-merge, and the merge happens exactly once.
#[test]
fn two_hosts_finishing_the_pipeline_merge_once() {
    let w = world();
    let other = w.instance.reopen();
    let before = w.tip("clean-target");
    let mr = w.open("clean", "Twice?");
    let iid = &mr["iid"];
    let sha = mr["sha"].as_str().unwrap().to_string();
    w.status(&sha, "a", "running");
    w.status(&sha, "b", "running");
    let (status, queued) = w.merge(iid, Some(&w.developer), json!({"merge_when_pipeline_succeeds": true}));
    assert_eq!((status, &queued["merge_when_pipeline_succeeds"]), (200, &json!(true)), "{queued}");
    let barrier = std::sync::Barrier::new(2);
    std::thread::scope(|scope| {
        let hosts = [(&w.instance, "a"), (&other, "b")];
        let runs: Vec<_> = hosts
            .into_iter()
            .map(|(host, name)| {
                let (w, barrier, sha) = (&w, &barrier, &sha);
                scope.spawn(move || {
                    barrier.wait();
                    w.status_on(host, sha, name, "success")
                })
            })
            .collect();
        for run in runs {
            run.join().unwrap();
        }
    });
    let merged = w.get(iid);
    assert_eq!(merged["state"], "merged", "{merged}");
    assert_eq!(merges_since(&w.work, &before, "clean-target"), [format!("{before} {sha}")], "merged once");
    assert_eq!(merged["merge_commit_sha"], w.tip("clean-target").as_str());
}
