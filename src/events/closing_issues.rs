//! The issues a merge request closes (GitLab's `MergeRequests::PostMergeService#close_issues`,
//! decisions D10): [`closed_issue_iids`] reads a description's closing references, which
//! `closes_issues` lists, and [`ClosingIssues`], a durable listener of merge requests merged
//! by any path (`PUT .../merge`, or a push the refresh finds merged), closes the open ones of
//! the target project when the merge went into its default branch, as GitLab does: each with
//! the system note `closed via merge request !iid` and an issue `Closed` event announced
//! through the seam, in the transaction that records the merge.
//!
//! The references: the issues a description closes, as GitLab's `Gitlab::ClosingIssueExtractor` finds them
//! with the default `issue_closing_pattern` (`config/initializers/1_settings.rb`):
//!
//! ```text
//! \b((?:[Cc]los(?:e[sd]?|ing)|\b[Ff]ix(?:e[sd]|ing)?|\b[Rr]esolv(?:e[sd]?|ing)|\b[Ii]mplement(?:s|ed|ing)?)(:?) +
//!   (?:(?:issues? +)?%{issue_ref}(?:(?: *,? +and +| *,? *)?)|([A-Z][A-Z0-9_]+-\d+))+)
//! ```
//!
//! (its separator ` *,? +and +` written here as the equivalent ` +and +| *, +and +`: the
//! `regex` crate, 1.x as locked, stops `(?:#\d+(?: *,? +and +| *,? *)?)+` after `#5 ` in
//! `#5 and #6`, where a backtracking engine goes on), where `%{issue_ref}` is an issue reference (`#12`, `group/project#12`) or link
//! (`https://host/group/project/-/issues/12`). Every reference inside a matched phrase counts
//! (`Closes #1, #2 and #3`). Only the references to the project itself are returned: the
//! merge-request helpers build `closes_issues` of these iids.

use super::{Event, IssueAction, IssueEvent, Listener, MergeRequestAction};
use crate::error::ApiError;
use crate::store::projects::Project;
use crate::store::{self, Db};
use regex::Regex;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

const ISSUE_REF: &str = r"(?:(?:[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)+)?#\d+|https?://[^\s]+?/(?:-/)?issues/\d+)";

fn closing() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        let pattern = format!(
            r"\b((?:[Cc]los(?:e[sd]?|ing)|\b[Ff]ix(?:e[sd]|ing)?|\b[Rr]esolv(?:e[sd]?|ing)|\b[Ii]mplement(?:s|ed|ing)?)(:?) +(?:(?:issues? +)?{ISSUE_REF}(?:(?: +and +| *, +and +| *,? *)?)|([A-Z][A-Z0-9_]+-\d+))+)"
        );
        Regex::new(&pattern).unwrap_or_else(|e| panic!("the closing pattern compiles: {e}"))
    })
}

fn reference() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(
            r"https?://[^\s]+?/(?P<lpath>[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)+)/(?:-/)?issues/(?P<liid>\d+)|(?P<path>[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)+)?#(?P<iid>\d+)",
        )
        .unwrap_or_else(|e| panic!("the reference pattern compiles: {e}"))
    })
}

/// The iids of the issues of project `full_path` that `text` closes, in the order first named.
pub fn closed_issue_iids(text: &str, full_path: &str) -> Vec<i64> {
    let mut out = Vec::new();
    for phrase in closing().find_iter(text) {
        for found in reference().captures_iter(phrase.as_str()) {
            let (path, iid) = match (found.name("liid"), found.name("iid")) {
                (Some(iid), _) => (found.name("lpath").map(|p| p.as_str().trim_end_matches("/-")), iid.as_str()),
                (None, Some(iid)) => (found.name("path").map(|p| p.as_str()), iid.as_str()),
                (None, None) => continue,
            };
            // A link names its project by the path after the host; a link's path may carry a
            // relative URL root before the project's, so it need only end with it.
            let ours = match path {
                None => true,
                Some(path) => {
                    path.eq_ignore_ascii_case(full_path)
                        || (found.name("liid").is_some()
                            && path.to_ascii_lowercase().ends_with(&format!("/{}", full_path.to_ascii_lowercase())))
                }
            };
            if let (true, Ok(iid)) = (ours, iid.parse::<i64>()) {
                if iid > 0 && !out.contains(&iid) {
                    out.push(iid);
                }
            }
        }
    }
    out
}

/// Closes the issues a merged merge request's description closes (see the module).
pub struct ClosingIssues {
    /// The named repository storages, to find the target project's default branch.
    pub storages: BTreeMap<String, PathBuf>,
}

impl ClosingIssues {
    /// Whether `branch` is the default branch (`HEAD`) of `project`'s repository on this host.
    fn is_default_branch(&self, project: &Project, branch: &str) -> bool {
        let Some(dir) = project.git_dir(&self.storages) else { return false };
        crate::git::default_branch(dir).as_deref() == Some(branch)
    }
}

impl Listener for ClosingIssues {
    fn durable(&self, event: &Event) -> bool {
        matches!(event, Event::MergeRequest(changed) if changed.action == MergeRequestAction::Merged)
    }

    fn record_changes(&self, db: &mut Db, event: &Event) -> Result<Vec<Event>, ApiError> {
        let Event::MergeRequest(changed) = event else { return Ok(Vec::new()) };
        let mr = &changed.merge_request;
        let Some(description) = mr.description.as_deref().filter(|_| changed.action == MergeRequestAction::Merged)
        else {
            return Ok(Vec::new());
        };
        let Some(project) = store::projects::find_by_id(db, mr.target_project_id)? else { return Ok(Vec::new()) };
        let iids = closed_issue_iids(description, &project.full_path);
        if iids.is_empty() || !self.is_default_branch(&project, &mr.target_branch) {
            return Ok(Vec::new());
        }
        let body = format!("closed via merge request !{}", mr.iid);
        let mut events = Vec::new();
        for iid in iids {
            let Some(mut issue) = store::issues::find_by_iid(db, project.id, iid)? else { continue };
            if issue.state != "opened" {
                continue;
            }
            issue.state = "closed".into();
            issue.closed_at = Some(store::merge_requests::now_millis());
            issue.closed_by_id = changed.user_id;
            store::issues::update(db, &mut issue, None)?;
            store::notes::insert_system(db, project.id, "Issue", issue.id, changed.user_id, &body)?;
            events.push(Event::Issue(IssueEvent {
                action: IssueAction::Closed,
                project_id: project.id,
                issue_id: issue.id,
                iid: issue.iid,
                user_id: changed.user_id,
                confidential: issue.confidential,
            }));
        }
        Ok(events)
    }

    fn heard(&self, _event: &Event) {}
}

#[cfg(test)]
mod tests {
    use super::closed_issue_iids as closes;

    #[test]
    fn gitlab_default_keywords_and_lists() {
        assert_eq!(closes("Closes #1", "g/p"), [1]);
        assert_eq!(closes("fixes #2 and resolves #3", "g/p"), [2, 3]);
        assert_eq!(closes("Fix: #4", "g/p"), [4]);
        assert_eq!(closes("Closes #4, #6, and #7", "g/p"), [4, 6, 7]);
        assert_eq!(closes("This Implements issue #8.", "g/p"), [8]);
        assert_eq!(closes("Resolving issues #9 #10", "g/p"), [9, 10]);
        assert_eq!(closes("closed #11\nfixing #12", "g/p"), [11, 12]);
        assert_eq!(closes("Closes #1 and closes #1", "g/p"), [1]);
    }

    #[test]
    fn what_does_not_close() {
        assert!(closes("Related to #1", "g/p").is_empty());
        assert!(closes("#1 is closed", "g/p").is_empty());
        assert!(closes("Closes#1", "g/p").is_empty(), "a space is needed");
        assert!(closes("Enclosed #1", "g/p").is_empty(), "a word boundary before the keyword");
        assert!(closes("Fixs #1", "g/p").is_empty());
        assert!(closes("CLOSES #1", "g/p").is_empty(), "only the first letter may be a capital");
        assert!(closes("", "g/p").is_empty());
    }

    #[test]
    fn references_to_other_projects_are_not_ours() {
        assert_eq!(closes("Closes other/proj#5 and g/p#6", "g/p"), [6]);
        assert_eq!(closes("Fixes https://gitlab.example.com/g/p/-/issues/7", "g/p"), [7]);
        assert_eq!(closes("Fixes https://gitlab.example.com/g/p/issues/8", "g/p"), [8]);
        assert!(closes("Fixes https://gitlab.example.com/o/q/-/issues/9", "g/p").is_empty());
        assert_eq!(closes("Closes G/P#3", "g/p"), [3], "paths ignore case");
    }
}
