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
    let merged = merge::merge_commit(&repo, "clean-target", target, source, &message, &ann(), || true).unwrap();
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
    let err = merge::merge_commit(&repo, "conflict-target", before, id(&work, "conflict-source"), "m", &ann(), || true)
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
        || false,
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
    let err = merge::merge_commit(&repo, "rename-target", target, source, "m", &ann(), || {
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
    let err = merge::fast_forward(&repo, "rename-target", target, pushed, &ann(), || true).unwrap_err();
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
    let merged = merge::merge_commit(&repo, "clean-target", target, squashed, "m", &ann(), || true).unwrap();
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
    let rebased = merge::rebase(&repo, "clean-source", source, target, &ann(), || true).unwrap();
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
    let again = merge::rebase(&repo, "clean-source", rebased.head, target, &ann(), || true).unwrap();
    assert_eq!((again.head, again.update), (rebased.head, None));
    // A conflicting rebase writes and moves nothing.
    let before = id(&work, "conflict-source");
    let err =
        merge::rebase(&repo, "conflict-source", before, id(&work, "conflict-target"), &ann(), || true).unwrap_err();
    assert!(matches!(err, MergeError::Conflicts(_)), "{err:?}");
    assert_eq!(id(&work, "conflict-source"), before);
}

#[test]
fn fast_forward_only_when_the_target_is_an_ancestor() {
    let dir = TempDir::new();
    let work = fixture(&dir);
    let repo = forgecore::git::open(work.join(".git")).unwrap();
    let (target, source) = (id(&work, "clean-target"), id(&work, "clean-source"));
    let err = merge::fast_forward(&repo, "clean-target", target, source, &ann(), || true).unwrap_err();
    assert!(matches!(err, MergeError::NotFastForward), "{err:?}");
    assert_eq!(id(&work, "clean-target"), target);
    let rebased = merge::rebase(&repo, "clean-source", source, target, &ann(), || true).unwrap();
    let update = merge::fast_forward(&repo, "clean-target", target, rebased.head, &ann(), || true).unwrap();
    assert_eq!((update.old, update.new), (Some(target), Some(rebased.head)));
    assert_eq!(git_text(&work, &["rev-parse", "clean-target"]), rebased.head.to_string());
    assert_eq!(git_text(&work, &["rev-list", "--merges", &format!("{target}..clean-target")]), "");
}
