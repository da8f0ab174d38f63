//! The contributors row (`contributors?ref=<tip>`, every page of 100) against
//! `git log --no-merges --format=%ae%x00%an <tip>` grouped by exact email, the rules of
//! tests/contributors.rs and src/git/contributors.rs:
//! - one contributor per author email as stored (no mailmap; `ALICE@x` and `alice@x` differ),
//!   counting the non-merge commits reachable from the tip;
//! - its name is the first non-blank author name of its commits in log order (GitLab's rule);
//! - the default order: the contributor whose first commit in log order comes first, first;
//! - `X-Total` the number of contributors; additions and deletions 0.
//!
//! The answers cache must give the same bytes (instance.rs). The row times the first page (what a client showing the list asks first, and what every
//! page costs: each walks the whole history) against that `git log`.

use crate::git::Git;
use crate::instance::Instance;
use crate::report::{Check, Report};
use crate::revisions::Revisions;
use std::collections::{BTreeSet, HashMap};

/// One contributor as git's log says it must be.
#[derive(Default)]
struct Expected {
    commits: u64,
    /// Where its first commit is in the log.
    first: usize,
    /// The first non-blank name in log order.
    name: String,
}

fn expected(git: &Git, tip: &str) -> Result<HashMap<String, Expected>, String> {
    let log = git.bytes(&["log", "--no-merges", "--format=%ae%x00%an", tip])?;
    let mut out: HashMap<String, Expected> = HashMap::new();
    for (position, line) in String::from_utf8_lossy(&log).lines().enumerate() {
        let Some((email, name)) = line.split_once('\0') else { return Err(format!("git log: {line:?}")) };
        let entry = out.entry(email.to_string()).or_insert(Expected { first: position, ..Expected::default() });
        entry.commits += 1;
        if entry.name.is_empty() {
            entry.name = name.trim().to_string();
        }
    }
    Ok(out)
}

/// Every page of `first`: the contributors in order, and `X-Total` of the first page.
fn all_pages(fx: &Instance, first: &str) -> Result<(Vec<serde_json::Value>, Option<String>), String> {
    let (mut listed, mut total, mut page) = (Vec::new(), None, 1);
    loop {
        let target = format!("{first}&page={page}");
        let answer = fx.get(&target);
        let body = answer.json(&target)?;
        listed.extend(body.as_array().ok_or_else(|| format!("GET {target}: not an array"))?.iter().cloned());
        if page == 1 {
            total = answer.header("X-Total").map(str::to_string);
        }
        match answer.header("X-Next-Page") {
            Some(next) if !next.is_empty() => page = next.parse().map_err(|e| format!("X-Next-Page {next}: {e}"))?,
            _ => return Ok((listed, total)),
        }
    }
}

pub fn rows(report: &mut Report, fx: &Instance, git: &Git, revs: &Revisions) {
    let name = "contributors at the tip (first page of 100)";
    if !report.wants(name) {
        return;
    }
    let tip = &revs.tip;
    let first = fx.url(&format!("contributors?ref={tip}&per_page=100"));
    let command = git.cmd(&["log", "--no-merges", "--format=%ae%x00%an", tip]);
    let mut check = Check::new();
    let ours = check.or_mismatch(all_pages(fx, &first));
    let theirs = check.or_mismatch(expected(git, tip));
    if let (Some((listed, total)), Some(theirs)) = (&ours, theirs) {
        let reproduce = format!("forgecore: GET {first}&page=N\ngit: {command}");
        if total.as_deref() != Some(theirs.len().to_string().as_str()) {
            check.mismatch(format!("X-Total {total:?}, git has {} emails\n{reproduce}", theirs.len()));
        }
        if listed.len() != theirs.len() {
            check.mismatch(format!(
                "{} contributors listed, git has {} emails\n{reproduce}",
                listed.len(),
                theirs.len()
            ));
        }
        let mut differing = Vec::new();
        for contributor in listed {
            let email = contributor["email"].as_str().unwrap_or("<missing>");
            let name = contributor["name"].as_str().unwrap_or("<missing>");
            let Some(want) = theirs.get(email) else {
                differing.push(format!("{email:?}: not an author email of git's log"));
                continue;
            };
            let commits = contributor["commits"].as_u64();
            if commits != Some(want.commits) {
                differing.push(format!("{email}: {commits:?} commits, git counts {}", want.commits));
            }
            if want.name != name {
                differing.push(format!("{email}: name {name:?}, git's newest commit has {:?}", want.name));
            }
            if contributor["additions"] != 0 || contributor["deletions"] != 0 {
                differing.push(format!("{email}: additions and deletions are not 0"));
            }
        }
        let listed_emails: BTreeSet<&str> = listed.iter().filter_map(|c| c["email"].as_str()).collect();
        let mut missing: Vec<&String> = theirs.keys().filter(|e| !listed_emails.contains(e.as_str())).collect();
        missing.sort();
        differing.extend(missing.iter().map(|e| format!("{e:?}: in git's log, not listed")));
        // The order: whose first commit in the log comes first.
        let mut order: Vec<(&String, &Expected)> = theirs.iter().collect();
        order.sort_by_key(|(_, want)| want.first);
        let ours_order: Vec<&str> = listed.iter().filter_map(|c| c["email"].as_str()).collect();
        if let Some(i) = ours_order.iter().zip(&order).position(|(a, b)| *a != b.0.as_str()) {
            differing.push(format!(
                "the order differs from position {i} (page {}): forgecore {:?}, git's rule {:?}",
                i / 100 + 1,
                ours_order[i],
                order[i].0
            ));
        }
        for difference in differing.iter().take(20) {
            check.mismatch(format!("{difference}\n{reproduce}"));
        }
        if differing.len() > 20 {
            check.mismatch(format!("... {} more differences", differing.len() - 20));
        }
        check.note(format!("{} contributors, {} pages", theirs.len(), theirs.len().div_ceil(100)));
    }
    let page_one = format!("{first}&page=1");
    if let Some(difference) = fx.cached_differs(&page_one, &fx.get(&page_one)) {
        check.mismatch(difference);
    }
    report.row(name, check, ours.is_some().then_some(|| fx.drain(&page_one)), &command);
}
