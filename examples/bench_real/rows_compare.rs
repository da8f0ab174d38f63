//! Compare rows (`compare?from=<tag>&to=<tip>`, the default merge-base mode), against what
//! tests/compare.rs checks:
//! - `commits`: `git rev-list --reverse --max-count=<cap> <tip> ^<from>` (the newest `cap`,
//!   oldest first), each entity field by field (commits.rs); `commit` the last of them;
//! - `diffs`: files against `git diff --raw -z -M --no-abbrev <base> <tip>` (a type change is a
//!   deletion then an addition), each `diff` against its section of `git diff -M <base> <tip>`
//!   from the first `@@` or `Binary files` line, `<base>` being `git merge-base`.
//!
//! Three rows: the old tag to the tip on the instance with raised limits, where every commit
//! is listed and every patch computed, so the whole answer is checked; the same on GitLab's
//! default limits (10,000 commits, patches after the "safe" tenth of each limit collapsed,
//! the list cut at 1,000 files), where the listed part is checked and collapsed or too large
//! patches must be empty; and the newest tag to the tip on the default limits, the everyday
//! compare of "what changed since the last release". The answers cache must give the same
//! bytes (instance.rs). Each is timed against
//! `git diff <from>...<tip>` plus `git log <from>..<tip>` (the patches and the commit list a
//! service shelling out to git would run; git has no limits).

use crate::commits;
use crate::git::{quote, Git};
use crate::instance::{Answer, Instance};
use crate::report::{first_difference, Check, Report};
use crate::revisions::{Rev, Revisions};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// GitLab's default `compare_max_commits` for a signed-in caller.
const DEFAULT_MAX_COMMITS: usize = 10_000;

/// One changed file as git lists it, and its patch from the first `@@`.
struct Change {
    /// git's status letter and score (`M`, `A`, `R090`, ...).
    status: String,
    old_path: String,
    new_path: String,
    a_mode: String,
    b_mode: String,
    new_file: bool,
    renamed_file: bool,
    deleted_file: bool,
    patch: String,
}

impl Change {
    /// The file fields of `ours` that differ from git's, as `field: forgecore ... git ...`.
    fn differences(&self, ours: &Value) -> Vec<String> {
        let text = |name: &str| ours[name].as_str().unwrap_or("<missing>").to_string();
        let flag = |name: &str| ours[name].as_bool().map_or("<missing>".into(), |b| b.to_string());
        let fields = [
            ("old_path", text("old_path"), self.old_path.clone()),
            ("new_path", text("new_path"), self.new_path.clone()),
            ("a_mode", text("a_mode"), self.a_mode.clone()),
            ("b_mode", text("b_mode"), self.b_mode.clone()),
            ("new_file", flag("new_file"), self.new_file.to_string()),
            ("renamed_file", flag("renamed_file"), self.renamed_file.to_string()),
            ("deleted_file", flag("deleted_file"), self.deleted_file.to_string()),
        ];
        fields
            .into_iter()
            .filter(|(_, a, b)| a != b)
            .map(|(f, a, b)| format!("{f}: forgecore {a:?} | git {b:?}"))
            .collect()
    }
}

/// Octal text without leading zeros, as Gitaly reports modes (`"0"` for a missing side).
fn mode(octal: &str) -> String {
    u32::from_str_radix(octal, 8).map_or(octal.to_string(), |m| format!("{m:o}"))
}

/// `git diff --raw -z -M` entries, a type change split into a deletion and an addition.
fn raw_entries(git: &Git, base: &str, tip: &str) -> Result<Vec<Change>, String> {
    let out = git.bytes(&["diff", "--raw", "-z", "-M", "--no-abbrev", base, tip])?;
    let mut fields = out.split(|&b| b == 0).filter(|f| !f.is_empty());
    let mut entries = Vec::new();
    while let Some(meta) = fields.next() {
        let meta = String::from_utf8_lossy(meta).into_owned();
        let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        let [a_mode, b_mode, _, _, status] = parts[..] else { return Err(format!("git diff --raw: {meta}")) };
        let (a_mode, b_mode) = (mode(a_mode), mode(b_mode));
        let mut path = || fields.next().map(|p| String::from_utf8_lossy(p).into_owned()).ok_or("a path");
        let old_path = path()?;
        let new_path = if status.starts_with(['R', 'C']) { path()? } else { old_path.clone() };
        let entry = |a: &str, b: &str, new_file, deleted_file| Change {
            status: status.to_string(),
            old_path: old_path.clone(),
            new_path: new_path.clone(),
            a_mode: a.into(),
            b_mode: b.into(),
            new_file,
            renamed_file: old_path != new_path,
            deleted_file,
            patch: String::new(),
        };
        match &status[..1] {
            "T" => {
                entries.push(entry(&a_mode, "0", false, true));
                entries.push(entry("0", &b_mode, true, false));
            }
            "A" => entries.push(entry(&a_mode, &b_mode, true, false)),
            "D" => entries.push(entry(&a_mode, &b_mode, false, true)),
            _ => entries.push(entry(&a_mode, &b_mode, false, false)),
        }
    }
    Ok(entries)
}

/// Per file of `git diff -M base tip`: the text from the first `@@` or `Binary files` line
/// (empty when there is none: a mode change, a pure rename).
fn patches(git: &Git, base: &str, tip: &str) -> Result<(Vec<String>, String), String> {
    let (out, warnings) = git.cmd(&["diff", "-M", base, tip]).output()?;
    let mut sections: Vec<&[u8]> = Vec::new();
    let mut start = None;
    let mut at = 0;
    for line in out.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(b"diff --git ") {
            if let Some(s) = start {
                sections.push(&out[s..at]);
            }
            start = Some(at);
        }
        at += line.len();
    }
    if let Some(s) = start {
        sections.push(&out[s..]);
    }
    let patches = sections
        .iter()
        .map(|section| {
            let mut offset = 0;
            for line in section.split_inclusive(|&b| b == b'\n') {
                if line.starts_with(b"@@ ") || line.starts_with(b"Binary files ") {
                    return String::from_utf8_lossy(&section[offset..]).into_owned();
                }
                offset += line.len();
            }
            String::new()
        })
        .collect();
    Ok((patches, warnings.trim().to_string()))
}

/// Every changed file of `base..tip` with its patch, in git's order, and git's warnings.
fn changes(git: &Git, base: &str, tip: &str) -> Result<(Vec<Change>, String), String> {
    let mut entries = raw_entries(git, base, tip)?;
    let (patches, warnings) = patches(git, base, tip)?;
    if patches.len() != entries.len() {
        return Err(format!(
            "git lists {} files with --raw but prints {} patches: cannot pair them",
            entries.len(),
            patches.len()
        ));
    }
    for (entry, patch) in entries.iter_mut().zip(patches) {
        entry.patch = patch;
    }
    Ok((entries, warnings))
}

/// What a compare must answer, from git: the commits and the changes.
struct Expected {
    tip: String,
    /// Whether `from` is the tip's commit (`compare_same_ref`).
    same: bool,
    base: String,
    /// The arguments of the `git rev-list` that lists the commits.
    rev_list: Vec<String>,
    commits: Vec<commits::GitCommit>,
    changes: Vec<Change>,
    warnings: String,
}

fn expected(git: &Git, from: &Rev, tip: &str, max_commits: Option<usize>) -> Result<Expected, String> {
    let base = git.text(&["merge-base", &from.commit, tip])?;
    let mut args = vec!["--reverse".to_string()];
    if let Some(max) = max_commits {
        args.push(format!("--max-count={max}"));
    }
    args.extend([tip.to_string(), format!("^{}", from.commit)]);
    let commits = commits::log(git, &args.iter().map(String::as_str).collect::<Vec<_>>())?;
    let (changes, warnings) = changes(git, &base, tip)?;
    let rev_list = [&["rev-list".to_string()][..], &args].concat();
    Ok(Expected { tip: tip.to_string(), same: from.commit == tip, base, rev_list, commits, changes, warnings })
}

/// How the diffs may fall short of git's: not at all (raised limits), or as GitLab's default
/// limits allow (the first files of git's list, collapsed and too large patches empty).
#[derive(Clone, Copy, PartialEq)]
enum Limits {
    Raised,
    Default,
}

/// At most this many mismatches of one kind are recorded per row; the rest are counted.
const MAX_REPORTED: usize = 20;

/// Records `items` as mismatches, the first [`MAX_REPORTED`] in full.
fn report_some(check: &mut Check, items: Vec<String>, what: &str) {
    let more = items.len().saturating_sub(MAX_REPORTED);
    for item in items.into_iter().take(MAX_REPORTED) {
        check.mismatch(item);
    }
    if more > 0 {
        check.mismatch(format!("... and {more} more {what}"));
    }
}

/// `commits` against git's list: the same commits in the same order, then each entity by id
/// (so that an order difference does not hide or fake field differences).
fn check_commits(check: &mut Check, listed: &[Value], want: &Expected, reproduce: &str, git: &Git) {
    let ours: Vec<&str> = listed.iter().map(|c| c["id"].as_str().unwrap_or("<missing>")).collect();
    let theirs: Vec<&str> = want.commits.iter().map(|c| c.id.as_str()).collect();
    let rev_list = git.cmd(&want.rev_list.iter().map(String::as_str).collect::<Vec<_>>());
    if ours != theirs {
        let (our_set, their_set): (HashSet<&str>, HashSet<&str>) =
            (ours.iter().copied().collect(), theirs.iter().copied().collect());
        if our_set == their_set && ours.len() == theirs.len() {
            let seconds: HashMap<&str, i64> =
                want.commits.iter().map(|c| (c.id.as_str(), c.committed_seconds)).collect();
            let differing: Vec<usize> = (0..ours.len()).filter(|&i| ours[i] != theirs[i]).collect();
            let ties = differing.iter().filter(|&&i| seconds[ours[i]] == seconds[theirs[i]]).count();
            let i = differing[0];
            check.mismatch(format!(
                "git's commits in another order at {} of {} positions, {ties} of them between commits with \
                 the same committer time; the first at commits[{i}]: forgecore {} (committed {}), git {} (committed {})\n\
                 {reproduce}\ngit: {rev_list}",
                differing.len(),
                ours.len(),
                ours[i],
                seconds[ours[i]],
                theirs[i],
                seconds[theirs[i]],
            ));
        } else {
            let only_ours: Vec<&&str> = ours.iter().filter(|id| !their_set.contains(**id)).collect();
            let only_git: Vec<&&str> = theirs.iter().filter(|id| !our_set.contains(**id)).collect();
            check.mismatch(format!(
                "{} commits listed, git lists {}: {} only in forgecore's list (first {:?}), {} only in git's (first {:?})\n\
                 {reproduce}\ngit: {rev_list}",
                ours.len(),
                theirs.len(),
                only_ours.len(),
                only_ours.iter().take(3).collect::<Vec<_>>(),
                only_git.len(),
                only_git.iter().take(3).collect::<Vec<_>>(),
            ));
        }
    }
    let by_id: HashMap<&str, &commits::GitCommit> = want.commits.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut fields = Vec::new();
    for (i, ours) in listed.iter().enumerate() {
        let Some(theirs) = ours["id"].as_str().and_then(|id| by_id.get(id)) else { continue };
        let differences = commits::differences(ours, theirs);
        if !differences.is_empty() {
            fields.push(format!(
                "commits[{i}] {}: {}\n{reproduce}\ngit: {}",
                theirs.id,
                differences.join("; "),
                git.cmd(&["log", "-1", "--format=raw", &theirs.id])
            ));
        }
    }
    report_some(check, fields, "commits with differing fields");
}

/// A changed file's identity: old path, new path, added, deleted.
type FileKey = (String, String, bool, bool);

fn our_key(diff: &Value) -> FileKey {
    let text = |name: &str| diff[name].as_str().unwrap_or("<missing>").to_string();
    let flag = |name: &str| diff[name].as_bool().unwrap_or(false);
    (text("old_path"), text("new_path"), flag("new_file"), flag("deleted_file"))
}

impl Change {
    fn key(&self) -> FileKey {
        (self.old_path.clone(), self.new_path.clone(), self.new_file, self.deleted_file)
    }
}

/// `diffs` against git's changes: the same files (a rename only one side finds is named as
/// such), in git's order, then each file's modes and patch by identity.
fn check_diffs(check: &mut Check, diffs: &[Value], want: &Expected, limits: Limits, reproduce: &str, git: &Git) {
    let tip = want.tip.as_str();
    let raw = git.cmd(&["diff", "--raw", "-M", &want.base, tip]);
    let ours: Vec<FileKey> = diffs.iter().map(our_key).collect();
    // With the default limits the list may end early: what it lists is git's first files.
    let shown = match limits {
        Limits::Raised => want.changes.len(),
        Limits::Default => want.changes.len().min(diffs.len()),
    };
    let theirs: Vec<FileKey> = want.changes[..shown].iter().map(Change::key).collect();
    let (our_set, their_set): (HashSet<&FileKey>, HashSet<&FileKey>) = (ours.iter().collect(), theirs.iter().collect());
    let mut files = Vec::new();
    let mut explained: HashSet<&FileKey> = HashSet::new();
    // A rename one side finds and the other lists as a deletion and an addition.
    for (finder, renamed, other) in [("git", &theirs, &our_set), ("forgecore", &ours, &their_set)] {
        for key in renamed.iter().filter(|k| k.0 != k.1) {
            let deleted = (key.0.clone(), key.0.clone(), false, true);
            let added = (key.1.clone(), key.1.clone(), true, false);
            let (Some(deleted), Some(added)) = (other.get(&deleted), other.get(&added)) else { continue };
            let status =
                want.changes.iter().find(|c| c.key() == *key).map_or(String::new(), |c| format!(" ({})", c.status));
            files.push(format!(
                "{finder} finds the rename {} -> {}{status}; the other lists a deletion and an addition\n{reproduce}\ngit: {raw}",
                key.0, key.1
            ));
            explained.extend([key, *deleted, *added]);
        }
    }
    for (side, keys, other) in [("forgecore", &ours, &their_set), ("git", &theirs, &our_set)] {
        for key in keys.iter().filter(|k| !other.contains(k) && !explained.contains(k)) {
            files.push(format!(
                "only {side} lists {} -> {} (new {}, deleted {})\n{reproduce}\ngit: {raw}",
                key.0, key.1, key.2, key.3
            ));
        }
    }
    let common = |keys: &[FileKey], other: &HashSet<&FileKey>| -> Vec<FileKey> {
        keys.iter().filter(|k| other.contains(k)).cloned().collect()
    };
    let (our_order, their_order) = (common(&ours, &their_set), common(&theirs, &our_set));
    if let Some(i) = our_order.iter().zip(&their_order).position(|(a, b)| a != b) {
        files.push(format!(
            "the files common to both lists are in another order from the {i}th: forgecore {} | git {}\n{reproduce}\ngit: {raw}",
            our_order[i].1, their_order[i].1
        ));
    }
    report_some(check, files, "differences in the list of files");

    // Each file both list: modes, rename flag and patch.
    let by_key: HashMap<FileKey, &Change> = want.changes.iter().map(|c| (c.key(), c)).collect();
    let mut patches = Vec::new();
    for (i, ours) in diffs.iter().enumerate() {
        let Some(theirs) = by_key.get(&our_key(ours)) else { continue };
        let mut differences = theirs.differences(ours);
        let patch = ours["diff"].as_str().unwrap_or("<missing>");
        let (collapsed, too_large) = (ours["collapsed"] == Value::Bool(true), ours["too_large"] == Value::Bool(true));
        if limits == Limits::Raised && (collapsed || too_large) {
            differences.push(format!("collapsed {collapsed}, too_large {too_large} with limits raised"));
        }
        if collapsed || too_large {
            if !patch.is_empty() {
                differences.push(format!("a collapsed or too large patch of {} bytes", patch.len()));
            }
        } else if patch != theirs.patch {
            differences.push(format!("patch differs at {}", first_difference(patch, &theirs.patch)));
        }
        if differences.is_empty() {
            continue;
        }
        let mut paths = vec![quote(&theirs.old_path)];
        if theirs.new_path != theirs.old_path {
            paths.push(quote(&theirs.new_path));
        }
        patches.push(format!(
            "diffs[{i}] {}: {}\n{reproduce}\ngit: {} -- {}",
            theirs.new_path,
            differences.join("; "),
            git.cmd(&["diff", "-M", &want.base, tip]),
            paths.join(" ")
        ));
    }
    report_some(check, patches, "files with differing fields or patches");
}

/// Checks a compare's answer against git's, `reproduce` naming the request.
fn check_answer(check: &mut Check, body: &Value, want: &Expected, limits: Limits, git: &Git, reproduce: &str) {
    let listed = body["commits"].as_array().cloned().unwrap_or_default();
    check_commits(check, &listed, want, reproduce, git);
    if body["commit"] != listed.last().cloned().unwrap_or(Value::Null) {
        check.mismatch(format!("`commit` is not the last of `commits`\n{reproduce}"));
    }
    let diffs = body["diffs"].as_array().cloned().unwrap_or_default();
    let cut = diffs.len() < want.changes.len();
    if body["compare_timeout"] != Value::Bool(cut) || body["compare_same_ref"] != Value::Bool(want.same) {
        check.mismatch(format!(
            "compare_timeout {} and compare_same_ref {}, yet {} of git's {} files are listed\n{reproduce}",
            body["compare_timeout"],
            body["compare_same_ref"],
            diffs.len(),
            want.changes.len()
        ));
    }
    check_diffs(check, &diffs, want, limits, reproduce, git);
}

fn row(report: &mut Report, fx: &Instance, git: &Git, revs: &Revisions, from: &Rev, limits: Limits) {
    let tip = &revs.tip;
    let name = format!(
        "compare {}...tip ({} commits), {}",
        from.label(),
        from.behind,
        if limits == Limits::Raised { "limits raised" } else { "GitLab's default limits" }
    );
    if !report.wants(&name) {
        return;
    }
    let target = fx.url(&format!("compare?from={}&to={tip}", utf8_percent_encode(&from.name, NON_ALPHANUMERIC)));
    let timed = git.shell(&format!("git diff {from}...{tip} && git log {from}..{tip}", from = quote(&from.commit)));
    let mut check = Check::new();
    let max_commits = (limits == Limits::Default).then_some(DEFAULT_MAX_COMMITS);
    let answer: Answer = if limits == Limits::Raised { fx.get(&target) } else { fx.get_default(&target) };
    if limits == Limits::Raised {
        if let Some(difference) = fx.cached_differs(&target, &answer) {
            check.mismatch(difference);
        }
    }
    let body = check.or_mismatch(answer.json(&target));
    let want = check.or_mismatch(expected(git, from, tip, max_commits));
    if let (Some(body), Some(want)) = (&body, &want) {
        let reproduce = format!("forgecore: GET {target}");
        check_answer(&mut check, body, want, limits, git, &reproduce);
        let diffs = body["diffs"].as_array().map_or(0, Vec::len);
        let computed = body["diffs"].as_array().map_or(0, |d| {
            d.iter().filter(|d| d["collapsed"] == Value::Bool(false) && d["too_large"] == Value::Bool(false)).count()
        });
        check.note(format!(
            "{} commits listed; {diffs} of {} files listed, {computed} patches",
            body["commits"].as_array().map_or(0, Vec::len),
            want.changes.len()
        ));
        if !want.warnings.is_empty() {
            check.note(format!("git: {}", want.warnings.lines().next().unwrap_or("").trim_start_matches("warning: ")));
        }
    }
    let op =
        body.is_some().then_some(
            || {
                if limits == Limits::Raised {
                    fx.drain(&target)
                } else {
                    fx.drain_default(&target)
                }
            },
        );
    report.row(&name, check, op, &timed);
}

pub fn rows(report: &mut Report, fx: &Instance, git: &Git, revs: &Revisions) {
    row(report, fx, git, revs, &revs.old, Limits::Raised);
    row(report, fx, git, revs, &revs.old, Limits::Default);
    row(report, fx, git, revs, &revs.newest, Limits::Default);
}
