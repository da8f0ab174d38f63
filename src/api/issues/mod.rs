//! Issues (issue #40, decisions D10), as GitLab's `lib/api/issues.rb` has them: list (project,
//! group, global), get, create, update, delete, participants; one file per operation (an
//! issue's `closed_by` and `related_merge_requests` answer merge requests and live with them,
//! in `merge_requests/`, so that the merge requests' family alone uses this one); and the closing
//! references of a description ([`closing`]), which merge requests' `closes_issues` reads.
//!
//! Who sees what (`IssuePolicy`, `IssuesFinder`): anyone who sees the project sees its issues;
//! a confidential issue only its author, its assignees, Planners, Reporters and above, and
//! administrators: for everyone else it is a 404 and absent from every list. Anyone signed in who
//! sees the project opens issues; the author, the assignees and Planners/Reporters and above
//! change them; labels, assignees and confidentiality of another's issue need `admin_issue`;
//! Owners and administrators delete. The entity is `API::Entities::Issue`
//! (`lib/api/entities/issuable_entity.rb`, `issue_basic.rb`, `issue.rb`), keys in GitLab's order.

pub use crate::events::closing_issues as closing;
pub mod create;
pub mod delete;
pub mod get;
pub mod list;
pub mod participants;
pub mod update;

use super::labels::basic as label_basic;
use super::ordered::{self, iso_millis, Obj};
use super::Call;
use crate::auth::permissions::ProjectAccess;
use crate::auth::roles::{OWNER, PLANNER};
use crate::error::{ApiError, ApiResult};
use crate::events::{Event, IssueAction, IssueEvent};
use crate::params::{parse_int_text, Params};
use crate::store::issues::{self, Issue};
use crate::store::labels::{self as store_labels, Label, TargetType};
use crate::store::projects::Project;
use crate::store::users::User;
use crate::store::{self, Db};
use serde_json::{json, Value};
use std::collections::HashMap;

/// The caller's standing on one project, for its issues.
#[derive(Debug, Clone)]
pub struct Viewer {
    pub caller: crate::auth::Caller,
    pub user_id: Option<i64>,
    pub admin: bool,
    pub level: i64,
}

impl Viewer {
    pub fn of(db: &mut Db, call: &Call, project: &Project) -> ApiResult<Viewer> {
        let access = ProjectAccess::of(db, &call.caller, project)?;
        Ok(Viewer {
            caller: call.caller.clone(),
            user_id: call.caller.user().map(|u| u.id),
            admin: access.admin,
            level: access.level,
        })
    }

    /// GitLab's `admin_issue` / `read_confidential_issues` / `read_internal_note`.
    pub fn admin_issue(&self) -> bool {
        self.admin || self.level >= PLANNER
    }

    /// GitLab's `destroy_issue`: Owners and administrators.
    pub fn destroy_issue(&self) -> bool {
        self.admin || self.level >= OWNER
    }

    /// Whether the caller sees `issue`, assigned to `assignees`.
    pub fn can_read(&self, issue: &Issue, assignees: &[i64]) -> bool {
        if !issue.confidential || self.admin_issue() {
            return true;
        }
        self.user_id.is_some_and(|me| issue.author_id == Some(me) || assignees.contains(&me))
    }

    /// GitLab's `update_issue`: Planners/Reporters and above, the author, the assignees.
    pub fn can_update(&self, issue: &Issue, assignees: &[i64]) -> bool {
        self.user_id.is_some()
            && (self.admin_issue()
                || self.user_id.is_some_and(|me| issue.author_id == Some(me) || assignees.contains(&me)))
    }
}

/// An `:issue_iid` of the path: an integer, else 400 `issue_iid is invalid`.
pub fn parse_iid(text: &str) -> ApiResult<i64> {
    parse_int_text(text).ok_or_else(|| ApiError::InvalidParam("issue_iid".into()))
}

/// The issue `iid` of the project when the caller sees it; 404 `Not found` otherwise (GitLab's
/// `find_by!` miss, and what a confidential issue answers to those who may not see it).
pub fn find_visible(db: &mut Db, project: &Project, iid: &str, viewer: &Viewer) -> ApiResult<(Issue, Vec<i64>)> {
    let iid = parse_iid(iid)?;
    let issue = issues::find_by_iid(db, project.id, iid)?.ok_or(ApiError::RecordNotFound)?;
    let assignees = issues::assignees_of(db, &[issue.id])?.remove(&issue.id).unwrap_or_default();
    if !viewer.can_read(&issue, &assignees) {
        return Err(ApiError::RecordNotFound);
    }
    Ok((issue, assignees))
}

/// What the entities of a page of issues need, read in a few queries for the whole page.
#[derive(Default)]
pub struct Loaded {
    labels: HashMap<i64, Vec<Label>>,
    assignees: HashMap<i64, Vec<i64>>,
    users: HashMap<i64, User>,
    notes: HashMap<i64, i64>,
    /// `upvotes` and `downvotes`.
    votes: HashMap<i64, (i64, i64)>,
    /// Full paths of the issues' projects.
    paths: HashMap<i64, String>,
}

impl Loaded {
    pub fn read(db: &mut Db, list: &[Issue]) -> ApiResult<Loaded> {
        let ids: Vec<i64> = list.iter().map(|i| i.id).collect();
        let labels = store_labels::of_targets(db, TargetType::Issue, &ids)?;
        let assignees = issues::assignees_of(db, &ids)?;
        let notes = store::notes::user_notes_counts(db, "Issue", &ids, false)?;
        let votes = store::award_emoji::votes(db, "Issue", &ids)?;
        let mut users = HashMap::new();
        let wanted = list
            .iter()
            .flat_map(|i| [i.author_id, i.closed_by_id])
            .flatten()
            .chain(assignees.values().flatten().copied());
        for id in wanted {
            if let std::collections::hash_map::Entry::Vacant(slot) = users.entry(id) {
                if let Some(user) = store::users::find_by_id(db, id)? {
                    slot.insert(user);
                }
            }
        }
        let mut paths = HashMap::new();
        for issue in list {
            if let std::collections::hash_map::Entry::Vacant(slot) = paths.entry(issue.project_id) {
                if let Some(project) = store::projects::find_by_id(db, issue.project_id)? {
                    slot.insert(project.full_path);
                }
            }
        }
        Ok(Loaded { labels, assignees, users, notes, votes, paths })
    }

    pub fn assignees(&self, issue: &Issue) -> &[i64] {
        self.assignees.get(&issue.id).map_or(&[], Vec::as_slice)
    }
}

/// How an entity is shown.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shape {
    /// A single issue's entity (with `subscribed`), not a list's.
    pub single: bool,
    pub with_labels_details: bool,
    /// The project the route names, which references are relative to (`None`: group and
    /// global lists, where `relative` is the full reference).
    pub project_id: Option<i64>,
}

fn user_field(call: &Call, loaded: &Loaded, id: Option<i64>) -> Option<Obj> {
    id.and_then(|id| loaded.users.get(&id)).map(|u| ordered::user(call, u))
}

/// The task list of a description (GitLab's `TaskList` items: `- [ ]`, `* [x]`, `1. [ ]`):
/// how many items, how many checked.
pub fn task_counts(description: Option<&str>) -> (i64, i64) {
    let (mut count, mut completed) = (0, 0);
    for line in description.unwrap_or("").lines() {
        let line = line.trim_start();
        let rest = if let Some(rest) = line.strip_prefix(['-', '*', '+']) {
            rest
        } else {
            let digits = line.bytes().take_while(u8::is_ascii_digit).count();
            match line[digits..].strip_prefix(['.', ')']) {
                Some(rest) if digits > 0 => rest,
                _ => continue,
            }
        };
        let Some(rest) = rest.strip_prefix([' ', '\t']) else { continue };
        let rest = rest.trim_start();
        let mark = rest.as_bytes();
        if mark.len() >= 3 && mark[0] == b'[' && mark[2] == b']' && (mark.len() == 3 || mark[3] == b' ') {
            match mark[1] {
                b' ' => count += 1,
                b'x' | b'X' => {
                    count += 1;
                    completed += 1
                }
                _ => {}
            }
        }
    }
    (count, completed)
}

/// The Issue entity of `issue`, keys in GitLab's order.
pub fn entity(call: &Call, issue: &Issue, loaded: &Loaded, shape: Shape) -> Obj {
    let base = &call.base_url;
    let full_path = loaded.paths.get(&issue.project_id).cloned().unwrap_or_default();
    let api = format!("{base}/api/v4/projects/{}", issue.project_id);
    let labels = loaded.labels.get(&issue.id).map_or(&[][..], Vec::as_slice);
    let assignees: Vec<Obj> =
        loaded.assignees(issue).iter().filter_map(|id| loaded.users.get(id)).map(|u| ordered::user(call, u)).collect();
    let first_assignee = assignees.first().cloned();
    let (tasks, done) = task_counts(issue.description.as_deref());

    let mut o = Obj::new();
    o.put("id", issue.id)
        .put("iid", issue.iid)
        .put("project_id", issue.project_id)
        .put("title", issue.title.as_str())
        .put("description", issue.description.clone())
        .put("state", issue.state.as_str())
        .put("created_at", iso_millis(issue.created_at))
        .put("updated_at", iso_millis(issue.updated_at))
        .put("closed_at", issue.closed_at.map(iso_millis));
    match user_field(call, loaded, issue.closed_by_id) {
        Some(user) => o.obj("closed_by", user),
        None => o.put("closed_by", Value::Null),
    };
    if shape.with_labels_details {
        o.list("labels", labels.iter().map(label_basic).collect());
    } else {
        o.put("labels", labels.iter().map(|l| Value::from(l.title.as_str())).collect::<Vec<_>>());
    }
    o.put("milestone", Value::Null).list("assignees", assignees);
    match user_field(call, loaded, issue.author_id) {
        Some(user) => o.obj("author", user),
        None => o.put("author", Value::Null),
    };
    o.put("type", "ISSUE");
    match first_assignee {
        Some(user) => o.obj("assignee", user),
        None => o.put("assignee", Value::Null),
    };
    o.put("user_notes_count", loaded.notes.get(&issue.id).copied().unwrap_or(0))
        .put("merge_requests_count", 0)
        .put("upvotes", loaded.votes.get(&issue.id).map_or(0, |v| v.0))
        .put("downvotes", loaded.votes.get(&issue.id).map_or(0, |v| v.1))
        .put("due_date", Value::Null)
        .put("confidential", issue.confidential)
        .put("discussion_locked", Value::Null)
        .put("issue_type", "issue")
        .put("web_url", format!("{base}/{full_path}/-/issues/{}", issue.iid))
        .obj("time_stats", {
            let mut t = Obj::new();
            t.put("time_estimate", 0)
                .put("total_time_spent", 0)
                .put("human_time_estimate", Value::Null)
                .put("human_total_time_spent", Value::Null);
            t
        })
        .obj("task_completion_status", {
            let mut t = Obj::new();
            t.put("count", tasks).put("completed_count", done);
            t
        })
        .put("has_tasks", tasks > 0);
    if tasks > 0 {
        let items = if tasks == 1 { "checklist item" } else { "checklist items" };
        o.put("task_status", format!("{done} of {tasks} {items} completed"));
    }
    o.obj("_links", {
        let mut l = Obj::new();
        l.put("self", format!("{api}/issues/{}", issue.iid))
            .put("notes", format!("{api}/issues/{}/notes", issue.iid))
            .put("award_emoji", format!("{api}/issues/{}/award_emoji", issue.iid))
            .put("project", api.clone())
            .put("closed_as_duplicate_of", Value::Null);
        l
    });
    let short = format!("#{}", issue.iid);
    let full = format!("{full_path}#{}", issue.iid);
    o.obj("references", {
        let mut r = Obj::new();
        let relative = if shape.project_id == Some(issue.project_id) { short.clone() } else { full.clone() };
        r.put("short", short).put("relative", relative).put("full", full);
        r
    });
    o.put("severity", "UNKNOWN");
    if shape.single {
        o.put("subscribed", call.caller.user().is_some_and(|u| Some(u.id) == issue.author_id));
    }
    o.put("moved_to_id", Value::Null)
        .put("imported", false)
        .put("imported_from", "none")
        .put("service_desk_reply_to", Value::Null);
    o
}

/// One issue's entity, read for it alone.
pub fn single(call: &Call, db: &mut Db, issue: &Issue, project: &Project, params: &Params) -> ApiResult<Obj> {
    let loaded = Loaded::read(db, std::slice::from_ref(issue))?;
    let with_labels_details = params.bool("with_labels_details")?.unwrap_or(false);
    Ok(entity(call, issue, &loaded, Shape { single: true, with_labels_details, project_id: Some(project.id) }))
}

/// Labels of a request (`labels`, `add_labels`, `remove_labels`): a comma-separated string or
/// an array.
pub fn label_names(params: &Params, name: &str) -> ApiResult<Option<Vec<String>>> {
    Ok(params.string_list(name)?.map(|list| {
        list.iter().flat_map(|l| l.split(',')).map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect()
    }))
}

/// User ids of a request (`assignee_ids`; `assignee_id`, where 0 clears): an array or a
/// comma-separated string of integers, else 400 `<name> is invalid`. The users that do not
/// exist are dropped, as GitLab drops assignees it cannot find.
pub fn assignee_ids(db: &mut Db, params: &Params) -> ApiResult<Option<Vec<i64>>> {
    let ids = if params.contains("assignee_ids") {
        match params.raw("assignee_ids") {
            Some(Value::Null) => Some(Vec::new()),
            _ => {
                let list = params.string_list("assignee_ids")?.unwrap_or_default();
                let mut ids = Vec::new();
                for item in list.iter().flat_map(|i| i.split(',')).map(str::trim).filter(|i| !i.is_empty()) {
                    ids.push(parse_int_text(item).ok_or_else(|| ApiError::InvalidParam("assignee_ids".into()))?);
                }
                Some(ids)
            }
        }
    } else if params.contains("assignee_id") {
        Some(params.int("assignee_id")?.into_iter().collect())
    } else {
        None
    };
    let Some(ids) = ids else { return Ok(None) };
    let mut out = Vec::new();
    for id in ids.into_iter().filter(|id| *id > 0) {
        if !out.contains(&id) && store::users::find_by_id(db, id)?.is_some() {
            out.push(id);
        }
    }
    Ok(Some(out))
}

/// A time parameter (Grape's `DateTime`): `YYYY-MM-DD`, optionally `THH:MM[:SS[.fff]]` and `Z`
/// or `±HH:MM`; milliseconds since the epoch, else 400 `<name> is invalid`.
pub fn time_param(params: &Params, name: &str) -> ApiResult<Option<i64>> {
    let Some(text) = params.string(name)?.filter(|t| !t.trim().is_empty()) else { return Ok(None) };
    parse_time(text.trim()).map(Some).ok_or_else(|| ApiError::InvalidParam(name.into()))
}

fn parse_time(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |s: &str| -> Option<i64> { s.bytes().all(|c| c.is_ascii_digit()).then(|| s.parse().ok()).flatten() };
    let (year, month, day) = (num(&text[0..4])?, num(&text[5..7])?, num(&text[8..10])?);
    if !(1..=12).contains(&month) || day < 1 || day > i64::from(forgecore_date::days_in_month(year, month as u32)) {
        return None;
    }
    let mut millis = forgecore_date::days_from_civil(year, month as u32, day as u32) * 86_400_000;
    let rest = &text[10..];
    if rest.is_empty() {
        return Some(millis);
    }
    let time = rest.strip_prefix(['T', ' '])?;
    let (clock, offset) = match time.find(['Z', 'z', '+', '-']) {
        Some(at) => (&time[..at], &time[at..]),
        None => (time, ""),
    };
    let (clock, fraction) = clock.split_once('.').unwrap_or((clock, ""));
    let parts: Vec<&str> = clock.split(':').collect();
    if !(2..=3).contains(&parts.len()) || parts.iter().any(|p| p.len() != 2) {
        return None;
    }
    let (h, m) = (num(parts[0])?, num(parts[1])?);
    let s = if parts.len() == 3 { num(parts[2])? } else { 0 };
    if h > 23 || m > 59 || s > 60 {
        return None;
    }
    millis += (h * 3600 + m * 60 + s) * 1000;
    if !fraction.is_empty() {
        let digits: String = fraction.chars().take(3).collect();
        let value = num(&digits)?;
        millis += value * 10_i64.pow(3 - digits.len() as u32);
    }
    match offset {
        "" | "Z" | "z" => {}
        _ => {
            let sign = if offset.starts_with('-') { -1 } else { 1 };
            let (oh, om) = offset[1..]
                .split_once(':')
                .unwrap_or((&offset[1..offset.len().min(3)], &offset[offset.len().min(3)..]));
            let (oh, om) = (num(oh)?, if om.is_empty() { 0 } else { num(om)? });
            millis -= sign * (oh * 3600 + om * 60) * 1000;
        }
    }
    Some(millis)
}

/// The announcement of an issue change, recorded in the transaction `db` that makes it; heard
/// by the caller once committed (through [`heard`]).
pub fn record(call: &Call, db: &mut Db, issue: &Issue, action: IssueAction) -> ApiResult<Event> {
    let event = Event::Issue(IssueEvent {
        action,
        project_id: issue.project_id,
        issue_id: issue.id,
        iid: issue.iid,
        user_id: call.caller.user().map(|u| u.id),
        confidential: issue.confidential,
    });
    call.ctx.events.record(db, &event)?;
    Ok(event)
}

pub fn heard(call: &Call, events: &[Event]) {
    for event in events {
        call.ctx.events.heard(event);
    }
}

/// A model validation error of an issue's field (`{"title":["can't be blank"]}`).
pub fn invalid(field: &str, message: &str) -> ApiError {
    ApiError::Validation(json!({ field: [message] }))
}

/// GitLab's limits on an issue's title (255) and description (1,048,576 characters).
pub fn check_text(title: Option<&str>, description: Option<&str>) -> ApiResult<()> {
    if let Some(title) = title {
        if title.trim().is_empty() {
            return Err(invalid("title", "can't be blank"));
        }
        if title.chars().count() > 255 {
            return Err(invalid("title", "is too long (maximum is 255 characters)"));
        }
    }
    if description.is_some_and(|d| d.chars().count() > 1_048_576) {
        return Err(invalid("description", "is too long (maximum is 1048576 characters)"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_lists_as_gitlab_counts_them() {
        assert_eq!(task_counts(Some("- [ ] a\n- [x] b\n* [X] c\n1. [ ] d\n+ [~] e\n-[ ] f\n- [] g\ntext")), (4, 2));
        assert_eq!(task_counts(None), (0, 0));
    }

    #[test]
    fn times_of_parameters() {
        assert_eq!(parse_time("2025-01-09"), Some(1_736_380_800_000));
        assert_eq!(parse_time("2025-01-09T19:47:00.042Z"), Some(1_736_452_020_042));
        assert_eq!(parse_time("2025-01-09T20:47:00+01:00"), Some(1_736_452_020_000));
        assert_eq!(parse_time("2025-02-30"), None);
        assert_eq!(parse_time("yesterday"), None);
    }
}
