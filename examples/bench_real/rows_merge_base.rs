//! Merge base rows (`merge_base?refs[]=<a>&refs[]=<tip>`) against `git merge-base <a> <tip>`:
//! the answer's id, and the whole commit entity against `git log -1` (commits.rs), as
//! tests/merge_base.rs checks it. Two rows: the old tag and the tip (the tag is an ancestor,
//! yet git and forgecore walk to find that out), and, when the repository has one, the
//! branch not merged into the tip whose merge base is furthest back (a real fork point). The
//! answers cache must give the same bytes (instance.rs).

use crate::commits;
use crate::git::Git;
use crate::instance::Instance;
use crate::report::{Check, Report};
use crate::revisions::Revisions;
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};

/// A branch not merged into the tip, by commit id and name: the one with the oldest merge
/// base, so that the walk is long.
fn unmerged_branch(git: &Git, tip: &str) -> Option<(String, String)> {
    let listed =
        git.text(&["for-each-ref", "--no-merged", tip, "--format=%(objectname) %(refname:short)", "refs/heads"]);
    let mut best: Option<(usize, String, String)> = None;
    for line in listed.ok()?.lines().take(50) {
        let Some((commit, name)) = line.split_once(' ') else { continue };
        // A branch with a history of its own has no merge base: not this row's case.
        let Ok(base) = git.text(&["merge-base", commit, tip]) else { continue };
        let Ok(behind) = git.count(&[&format!("{base}..{tip}")]) else { continue };
        if best.as_ref().is_none_or(|(b, _, _)| behind > *b) {
            best = Some((behind, commit.to_string(), name.to_string()));
        }
    }
    best.map(|(_, commit, name)| (commit, name))
}

/// One row: `requested` is what forgecore is asked (a tag name or a commit id), `commit` what
/// git is given.
fn row(report: &mut Report, fx: &Instance, git: &Git, tip: &str, requested: &str, commit: &str, label: &str) {
    let name = format!("merge base {label}, tip");
    if !report.wants(&name) {
        return;
    }
    let target =
        fx.url(&format!("merge_base?refs%5B%5D={}&refs%5B%5D={tip}", utf8_percent_encode(requested, NON_ALPHANUMERIC)));
    let command = git.cmd(&["merge-base", commit, tip]);
    let mut check = Check::new();
    let answer = fx.get(&target);
    if let Some(difference) = fx.cached_differs(&target, &answer) {
        check.mismatch(difference);
    }
    let ours = check.or_mismatch(answer.json(&target));
    let base = check.or_mismatch(command.run().map(|out| String::from_utf8_lossy(&out).trim().to_string()));
    if let (Some(ours), Some(base)) = (&ours, base) {
        let reproduce = format!("forgecore: GET {target}\ngit: {command}");
        match commits::log(git, &["-1", &base]) {
            Ok(logged) if logged.len() == 1 => {
                let differences = commits::differences(ours, &logged[0]);
                if !differences.is_empty() {
                    check.mismatch(format!("{}\n{reproduce}", differences.join("; ")));
                }
            }
            Ok(_) => check.mismatch(format!("git log -1 {base} printed no single commit")),
            Err(e) => check.mismatch(e),
        }
        check.note(format!("base {}", &base[..12.min(base.len())]));
    }
    report.row(&name, check, ours.is_some().then_some(|| fx.drain(&target)), &command);
}

pub fn rows(report: &mut Report, fx: &Instance, git: &Git, revs: &Revisions) {
    let tip = &revs.tip;
    row(report, fx, git, tip, &revs.old.name, &revs.old.commit, &revs.old.label());
    if let Some((commit, branch)) = unmerged_branch(git, tip) {
        row(report, fx, git, tip, &commit, &commit, &format!("branch {branch} (unmerged)"));
    }
}
