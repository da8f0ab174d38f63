//! Tree rows: the root directory at the tip (one level, every keyset page of 100 entries, as
//! a client listing a directory follows them) against `git ls-tree <tip>`, and the whole tree
//! (`recursive=true&pagination=none`) against `git ls-tree -r -t <tip>`.
//!
//! The oracle is tests/tree.rs's: `git ls-tree -z` entries as GitLab tree objects (`id`,
//! `name`, `type`, `path`, `mode`; names lossily decoded), put in GitLab's order: every tree,
//! then every blob, then every submodule, each group in git's order (src/git/tree.rs).

use crate::git::Git;
use crate::instance::Instance;
use crate::report::{clip, Check, Report};
use crate::revisions::Revisions;
use serde_json::{json, Value};

/// `git ls-tree -z <args>` as GitLab tree objects, in GitLab's order.
fn expected(git: &Git, args: &[&str]) -> Result<Vec<Value>, String> {
    let listing = git.bytes(&[&["ls-tree", "-z"][..], args].concat())?;
    let mut entries = Vec::new();
    for record in listing.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let tab = record.iter().position(|b| *b == b'\t').ok_or("ls-tree: a record without a tab")?;
        let meta = String::from_utf8_lossy(&record[..tab]);
        let [mode, kind, id] = meta.split(' ').collect::<Vec<_>>()[..] else {
            return Err(format!("ls-tree: a record I cannot read: {meta}"));
        };
        let path = &record[tab + 1..];
        let name = path.rsplit(|b| *b == b'/').next().unwrap_or(path);
        entries.push(json!({
            "id": id,
            "name": String::from_utf8_lossy(name),
            "type": kind,
            "path": String::from_utf8_lossy(path),
            "mode": mode,
        }));
    }
    let mut ordered = Vec::with_capacity(entries.len());
    for kind in ["tree", "blob", "commit"] {
        ordered.extend(entries.iter().filter(|e| e["type"] == kind).cloned());
    }
    Ok(ordered)
}

/// Compares two listings entry by entry; mismatches name the request and the git command.
fn compare_listings(check: &mut Check, ours: &[Value], theirs: &[Value], request: &str, command: &str) {
    if ours.len() != theirs.len() {
        check.mismatch(format!(
            "{} entries listed, git lists {}\nforgecore: GET {request}\ngit: {command}",
            ours.len(),
            theirs.len()
        ));
    }
    let differing: Vec<usize> = (0..ours.len().min(theirs.len())).filter(|&i| ours[i] != theirs[i]).collect();
    for &i in differing.iter().take(5) {
        check.mismatch(format!(
            "entry {i} differs\nforgecore: {}\ngit:       {}\nrequest: GET {request}\ngit: {command}",
            clip(&ours[i].to_string(), 300),
            clip(&theirs[i].to_string(), 300)
        ));
    }
    if differing.len() > 5 {
        check.mismatch(format!("... {} more entries differ (of {})", differing.len() - 5, theirs.len()));
    }
}

/// Every keyset page of the one-level listing: the entries and the number of pages.
fn keyset_pages(fx: &Instance, first: &str) -> Result<(Vec<Value>, usize), String> {
    let (mut entries, mut pages, mut target) = (Vec::new(), 0, first.to_string());
    loop {
        let answer = fx.get(&target);
        let page = answer.json(&target)?;
        entries.extend(page.as_array().ok_or_else(|| format!("GET {target}: not an array"))?.iter().cloned());
        pages += 1;
        let next = answer.header("Link").and_then(|link| {
            link.split(", ").find_map(|part| {
                let (url, rel) = part.split_once("; ")?;
                (rel == "rel=\"next\"").then(|| url.trim_start_matches('<').trim_end_matches('>').to_string())
            })
        });
        match next {
            Some(url) => target = url.find("/api/v4/").map(|at| url[at..].to_string()).ok_or("a next link")?,
            None => return Ok((entries, pages)),
        }
        if pages > 100_000 {
            return Err(format!("GET {first}: more than 100,000 pages"));
        }
    }
}

pub fn rows(report: &mut Report, fx: &Instance, git: &Git, revs: &Revisions) {
    let tip = &revs.tip;
    let name = "tree, root directory at the tip (keyset pages of 100)";
    if report.wants(name) {
        let first = fx.url(&format!("tree?ref={tip}&pagination=keyset&per_page=100"));
        let command = git.cmd(&["ls-tree", tip]);
        let mut check = Check::new();
        if let (Some(theirs), Some((ours, pages))) =
            (check.or_mismatch(expected(git, &[tip])), check.or_mismatch(keyset_pages(fx, &first)))
        {
            compare_listings(&mut check, &ours, &theirs, &first, &command.to_string());
            check.note(format!("{} entries, {pages} pages", theirs.len()));
        }
        let op = || keyset_pages(fx, &first).is_ok();
        report.row(name, check, Some(op), &command);
    }

    let name = "tree, recursive at the tip (pagination=none)";
    if report.wants(name) {
        let target = fx.url(&format!("tree?ref={tip}&recursive=true&pagination=none"));
        let command = git.cmd(&["ls-tree", "-r", "-t", tip]);
        let mut check = Check::new();
        let ours = check.or_mismatch(fx.get(&target).json(&target));
        let theirs = check.or_mismatch(expected(git, &["-r", "-t", tip]));
        if let (Some(ours), Some(theirs)) = (ours, theirs) {
            let ours = ours.as_array().cloned().unwrap_or_default();
            compare_listings(&mut check, &ours, &theirs, &target, &command.to_string());
            check.note(format!("{} entries", theirs.len()));
        }
        report.row(name, check, Some(|| fx.drain(&target)), &command);
    }
}
