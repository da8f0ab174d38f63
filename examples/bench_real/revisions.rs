//! The revisions the rows use, picked from the repository itself so that the bench runs on
//! any history:
//! - the tip: the commit `HEAD` names (the default branch, for a bare repository);
//! - the old revision: the tag reachable from the tip that is closest to a third of the
//!   history back (`git rev-list --count <tag>..<tip>` nearest `commits / 3`, found by
//!   bisecting the tags ordered by their commit's date), or without tags the first-parent
//!   ancestor that far back;
//! - the newest revision: the reachable tag whose commit is newest, or without tags the
//!   tip's tenth first-parent ancestor.
//!
//! Requests name the tip by its commit id, not its branch: a repository someone commits to
//! during the run (this checkout) must not move under the rows.

use crate::git::Git;

/// A revision as the rows name it and the commit it resolves to.
pub struct Rev {
    /// What requests and git commands pass: a tag name, or a commit id.
    pub name: String,
    pub commit: String,
    /// Commits in `<commit>..<tip>`.
    pub behind: usize,
}

impl Rev {
    /// The name, with what it is when it is no tag.
    pub fn label(&self) -> String {
        if self.name == self.commit {
            format!("{} (no tag)", &self.commit[..12])
        } else {
            self.name.clone()
        }
    }
}

pub struct Revisions {
    /// The branch `HEAD` names (`HEAD` when detached).
    pub branch: String,
    pub tip: String,
    /// Commits reachable from the tip.
    pub commits: usize,
    pub old: Rev,
    pub newest: Rev,
    /// Tags reachable from the tip (lightweight or annotated, pointing at commits).
    pub tags: usize,
}

/// A tag reachable from the tip: name, commit, committer time of the commit.
struct Tag {
    name: String,
    commit: String,
    seconds: i64,
}

fn reachable_tags(git: &Git, tip: &str) -> Result<Vec<Tag>, String> {
    let format = "%(refname:short)%00%(objectname)%00%(*objectname)%00%(committerdate:unix)%00%(*committerdate:unix)";
    let listed = git.text(&["for-each-ref", "--merged", tip, &format!("--format={format}"), "refs/tags"])?;
    let mut tags: Vec<Tag> = listed
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\0').collect();
            let [name, object, peeled, date, peeled_date] = fields[..] else { return None };
            let (commit, date) = if peeled.is_empty() { (object, date) } else { (peeled, peeled_date) };
            Some(Tag { name: name.to_string(), commit: commit.to_string(), seconds: date.parse().ok()? })
        })
        .collect();
    tags.sort_by(|a, b| b.seconds.cmp(&a.seconds).then_with(|| a.name.cmp(&b.name)));
    Ok(tags)
}

/// In `candidates` (newest first, so `behind` grows along it), the one whose distance from
/// the tip is nearest `target`.
fn nearest(git: &Git, tip: &str, candidates: &[(String, String)], target: usize) -> Result<Rev, String> {
    let behind = |i: usize| git.count(&[&format!("{}..{tip}", candidates[i].1)]);
    let (mut lo, mut hi) = (0usize, candidates.len() - 1);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if behind(mid)? < target {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let mut best = lo;
    if lo > 0 && target.abs_diff(behind(lo - 1)?) < target.abs_diff(behind(lo)?) {
        best = lo - 1;
    }
    let (name, commit) = candidates[best].clone();
    Ok(Rev { name, commit, behind: behind(best)? })
}

impl Revisions {
    pub fn pick(git: &Git) -> Result<Revisions, String> {
        let tip = git.text(&["rev-parse", "--verify", "HEAD^{commit}"])?;
        let branch = git.text(&["symbolic-ref", "--short", "HEAD"]).unwrap_or_else(|_| "HEAD".into());
        let commits = git.count(&[&tip])?;
        let tags = reachable_tags(git, &tip)?;
        let candidates: Vec<(String, String)> = if tags.is_empty() {
            let chain = git.text(&["rev-list", "--first-parent", &tip])?;
            chain.lines().skip(1).map(|c| (c.to_string(), c.to_string())).collect()
        } else {
            tags.iter().map(|t| (t.name.clone(), t.commit.clone())).collect()
        };
        if candidates.is_empty() {
            return Err("the history has a single commit: nothing to compare".into());
        }
        let old = nearest(git, &tip, &candidates, commits / 3)?;
        let newest = match tags.first() {
            Some(tag) => Rev {
                name: tag.name.clone(),
                commit: tag.commit.clone(),
                behind: git.count(&[&format!("{}..{tip}", tag.commit)])?,
            },
            None => {
                let (_, commit) = candidates[candidates.len().min(10) - 1].clone();
                Rev { name: commit.clone(), behind: git.count(&[&format!("{commit}..{tip}")])?, commit }
            }
        };
        Ok(Revisions { branch, tip, commits, old, newest, tags: tags.len() })
    }
}
