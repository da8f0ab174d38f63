//! Merge requests (issue #39, decisions D10, reference `gitlab-merge-requests.md`): list
//! (instance, group, project), create, get, update, delete, and what a merge request reads of
//! its repository: commits, changes, diffs, raw diffs, versions, participants, reviewers, and
//! the merge requests of a commit. One file per operation; the entities (GitLab's
//! `MergeRequestBasic`, `MergeRequest`, `MergeRequestSimple`, in its key order) are built here
//! once. Diff versions are made by `events::refresh::reload`, the one way, for a create, a
//! retarget and every ref move; `merge_status` comes from [`status`].
//!
//! Paths name a merge request by its `iid` in the target project; a missing one is GitLab's
//! `404 Not found`. Every non-GET route is 401 for anonymous callers before anything else.

pub mod by_commit;
pub mod cancel_auto_merge;
pub mod changes;
pub mod closes_issues;
pub mod closing_an_issue;
pub mod commits;
pub mod create;
pub mod delete;
pub mod diffs;
pub mod get;
pub mod list;
pub mod merge;
pub mod merge_ref;
pub mod participants;
pub mod pipelines;
pub mod raw_diffs;
pub mod rebase;
pub mod related_to_an_issue;
pub mod reviewers;
pub mod status;
pub mod update;
pub mod versions;

use super::Call;
use crate::api::ordered::{self, Node, Obj};
use crate::api::repository::compare::DiffLimits;
use crate::auth::permissions::{self, ProjectAbility};
use crate::auth::protection;
use crate::error::{ApiError, ApiResult};
use crate::events::{Event, MergeRequestAction, MergeRequestChanged};
use crate::params::{parse_int, Params};
use crate::store::merge_requests::MergeRequest;
use crate::store::projects::Project;
use crate::store::{self, users::User, Db};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::{Duration, Instant};

pub use crate::events::merge::is_draft;

/// A time of a merge request (milliseconds since the epoch) as GitLab writes it:
/// `2025-01-09T19:47:00.123Z`.
pub use crate::response::ordered::iso_millis;

/// An ISO 8601 time parameter (`2025-01-09`, `2025-01-09T19:47:00Z`, with an offset or
/// fractions) as milliseconds since the epoch; 400 `<name> is invalid` otherwise.
pub fn time_param(params: &Params, name: &str) -> ApiResult<Option<i64>> {
    let Some(text) = params.string(name)?.filter(|t| !t.trim().is_empty()) else { return Ok(None) };
    parse_time(text.trim()).map(Some).ok_or_else(|| ApiError::InvalidParam(name.into()))
}

fn parse_time(text: &str) -> Option<i64> {
    let digits = |s: &str| -> Option<i64> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    let date = text.get(..10)?;
    let (year, month, day) = (digits(date.get(..4)?)?, digits(date.get(5..7)?)?, digits(date.get(8..10)?)?);
    if date.as_bytes()[4] != b'-' || date.as_bytes()[7] != b'-' || !(1..=12).contains(&month) {
        return None;
    }
    if day < 1 || day > i64::from(forgecore_date::days_in_month(year, month as u32)) {
        return None;
    }
    let mut millis = forgecore_date::days_from_civil(year, month as u32, day as u32) * 86_400_000;
    let rest = &text[10..];
    let Some(time) = rest.strip_prefix(['T', 't', ' ']) else {
        return rest.is_empty().then_some(millis);
    };
    let (clock, zone) = match time.find(['Z', 'z', '+', '-']) {
        Some(at) => (&time[..at], &time[at..]),
        None => (time, ""),
    };
    let (clock, fraction) = clock.split_once('.').unwrap_or((clock, ""));
    let parts: Vec<&str> = clock.split(':').collect();
    if !(2..=3).contains(&parts.len()) || parts.iter().any(|p| p.len() != 2) {
        return None;
    }
    let (h, m, s) = (digits(parts[0])?, digits(parts[1])?, parts.get(2).map_or(Some(0), |p| digits(p))?);
    if h > 23 || m > 59 || s > 60 {
        return None;
    }
    millis += (h * 3600 + m * 60 + s) * 1000;
    if !fraction.is_empty() {
        digits(fraction)?;
        let padded = format!("{fraction:0<3}");
        millis += digits(&padded[..3])?;
    }
    match zone {
        "" | "Z" | "z" => {}
        _ => {
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            let offset = zone[1..].replace(':', "");
            if offset.len() != 4 {
                return None;
            }
            let minutes = digits(&offset[..2])? * 60 + digits(&offset[2..])?;
            millis -= sign * minutes * 60_000;
        }
    }
    Some(millis)
}

/// The `:merge_request_iid` of a path: Grape's `Integer` (400 `merge_request_iid is invalid`).
pub fn parse_iid(text: &str) -> ApiResult<i64> {
    parse_int(&Value::String(text.to_string())).ok_or_else(|| ApiError::InvalidParam("merge_request_iid".into()))
}

/// The project `id` names for a caller who may read its merge requests, and its merge request
/// `iid`: 404 `Project Not Found` for a project they may not see, 403 when they may not read
/// merge requests, 404 `Not found` for an unknown iid.
pub fn find(call: &Call, id: &str, iid: &str) -> ApiResult<(Project, MergeRequest)> {
    let iid = parse_iid(iid)?;
    let project = call.project(id, ProjectAbility::ReadMergeRequest)?;
    let mr = call.ctx.store.read(|db| store::merge_requests::find(db, project.id, iid))?;
    Ok((project, mr.ok_or(ApiError::RecordNotFound)?))
}

/// Whether the caller may change `mr` (GitLab's `update_merge_request`): Developers and above,
/// and the merge request's author and assignees, who may read it. Archived projects: nobody.
pub fn may_update(db: &mut Db, call: &Call, project: &Project, mr: &MergeRequest) -> ApiResult<bool> {
    match permissions::authorize_project(db, &call.caller, project, ProjectAbility::UpdateMergeRequest) {
        Ok(()) => return Ok(true),
        Err(ApiError::Forbidden(_)) => {}
        Err(e) => return Err(e),
    }
    let Some(user) = call.caller.user() else { return Ok(false) };
    Ok(!project.archived && (mr.author_id == Some(user.id) || mr.assignees.contains(&user.id)))
}

/// Announces `action` on `mr` in the transaction `db` that made it (the durable listeners
/// record it there); the events to hear once it is committed ([`heard`]).
pub fn record(
    db: &mut Db,
    call: &Call,
    action: MergeRequestAction,
    mr: &MergeRequest,
    previous: Option<&MergeRequest>,
) -> ApiResult<Vec<Event>> {
    let event = Event::MergeRequest(Box::new(MergeRequestChanged {
        action,
        merge_request: mr.clone(),
        previous: previous.cloned(),
        user_id: call.caller.user().map(|u| u.id),
    }));
    let followed = call.ctx.events.record(db, &event)?;
    Ok(std::iter::once(event).chain(followed).collect())
}

/// Every listener hears what [`record`] recorded, now that it is committed.
pub fn heard(call: &Call, events: &[Event]) {
    for event in events {
        call.ctx.events.heard(event);
    }
}

/// The users and labels an entity shows, read once for a page.
#[derive(Default)]
pub struct People {
    users: HashMap<i64, User>,
    labels: HashMap<i64, Vec<store::labels::Label>>,
    /// The auto-merges set on the merge requests shown.
    auto_merges: HashMap<i64, store::auto_merges::AutoMerge>,
    /// Non-internal user notes of each merge request (`user_notes_count`).
    notes: HashMap<i64, i64>,
    /// `upvotes` and `downvotes` of each.
    votes: HashMap<i64, (i64, i64)>,
    /// Resolvable notes not resolved, of each.
    unresolved: HashMap<i64, i64>,
    /// `with_labels_details`: labels as `LabelBasic` objects rather than titles.
    pub label_details: bool,
}

impl People {
    pub fn of(db: &mut Db, mrs: &[&MergeRequest]) -> ApiResult<People> {
        let mut people = People::default();
        let ids: Vec<i64> = mrs.iter().map(|m| m.id).collect();
        people.labels = store::labels::of_targets(db, store::labels::TargetType::MergeRequest, &ids)?;
        people.auto_merges = store::auto_merges::of(db, &ids)?;
        people.notes = store::notes::user_notes_counts(db, "MergeRequest", &ids, false)?;
        people.votes = store::award_emoji::votes(db, "MergeRequest", &ids)?;
        people.unresolved = store::notes::unresolved_counts(db, "MergeRequest", &ids)?;
        for mr in mrs {
            let auto_merge_user = people.auto_merges.get(&mr.id).and_then(|a| a.merge_user_id);
            let ids = [mr.author_id, mr.merged_by_id, mr.closed_by_id, auto_merge_user].into_iter().flatten();
            for id in ids.chain(mr.assignees.iter().copied()).chain(mr.reviewers.iter().copied()) {
                people.load(db, id)?;
            }
        }
        Ok(people)
    }

    fn load(&mut self, db: &mut Db, id: i64) -> ApiResult<()> {
        if let std::collections::hash_map::Entry::Vacant(slot) = self.users.entry(id) {
            if let Some(user) = store::users::find_by_id(db, id)? {
                slot.insert(user);
            }
        }
        Ok(())
    }

    /// Whether merge request `id` has threads to resolve (resolvable notes not resolved).
    pub fn has_unresolved(&self, id: i64) -> bool {
        self.unresolved.get(&id).copied().unwrap_or(0) > 0
    }

    /// GitLab's `UserBasic` of user `id`, when they exist.
    pub fn user(&self, call: &Call, id: i64) -> Option<Obj> {
        self.users.get(&id).map(|user| ordered::user(call, user))
    }

    /// [`People::user`] of `id`, or null.
    pub fn basic(&self, call: &Call, id: Option<i64>) -> Node {
        id.and_then(|id| self.user(call, id)).into()
    }

    /// The `labels` of merge request `id`: titles, sorted (GitLab's `labels.map(&:title).sort`),
    /// or `LabelBasic` objects.
    fn labels(&self, id: i64) -> Value {
        let labels = self.labels.get(&id).map(Vec::as_slice).unwrap_or_default();
        if self.label_details {
            Value::Array(
                labels.iter().map(|l| serde_json::to_value(crate::api::labels::basic(l)).unwrap_or_default()).collect(),
            )
        } else {
            let mut titles: Vec<&str> = labels.iter().map(|l| l.title.as_str()).collect();
            titles.sort_unstable();
            json!(titles)
        }
    }

    fn list(&self, call: &Call, ids: &[i64]) -> Node {
        Node::Arr(ids.iter().filter_map(|id| self.user(call, *id)).map(Node::Obj).collect())
    }
}

/// Where the list a merge request is shown in is: `reference` and `references.relative` are
/// relative to it (GitLab's `to_reference(project || group)`).
#[derive(Debug, Clone)]
pub enum Within {
    Project(i64),
    /// A group's full path.
    Group(String),
    Instance,
}

fn references(project: &Project, mr: &MergeRequest, within: &Within) -> (String, Value) {
    let short = format!("!{}", mr.iid);
    let full = format!("{}{short}", project.full_path);
    let relative = match within {
        Within::Project(id) if *id == project.id => short.clone(),
        Within::Group(group) => match project.full_path.strip_prefix(&format!("{group}/")) {
            Some(rest) => format!("{rest}{short}"),
            None => full.clone(),
        },
        _ => full.clone(),
    };
    (relative.clone(), json!({"short": short, "relative": relative, "full": full}))
}

/// GitLab's `task_completion_status`: the Markdown task list items of the description.
fn task_completion(description: Option<&str>) -> Value {
    let (mut count, mut completed) = (0, 0);
    for line in description.unwrap_or("").lines() {
        let item = line.trim_start().trim_start_matches(['-', '*', '+']).trim_start();
        if line.trim_start().starts_with(['-', '*', '+']) {
            if item.starts_with("[ ]") {
                count += 1;
            } else if item.starts_with("[x]") || item.starts_with("[X]") {
                count += 1;
                completed += 1;
            }
        }
    }
    json!({"count": count, "completed_count": completed})
}

/// `MergeRequestSimple` (`view=simple`).
pub fn simple(call: &Call, project: &Project, mr: &MergeRequest) -> Obj {
    Obj::from(vec![
        ("id", json!(mr.id)),
        ("iid", json!(mr.iid)),
        ("project_id", json!(mr.target_project_id)),
        ("title", json!(mr.title)),
        ("description", json!(mr.description)),
        ("state", json!(mr.state)),
        ("created_at", json!(iso_millis(mr.created_at))),
        ("updated_at", json!(iso_millis(mr.updated_at))),
        ("web_url", json!(web_url(call, project, mr))),
    ])
}

pub fn web_url(call: &Call, project: &Project, mr: &MergeRequest) -> String {
    format!("{}/-/merge_requests/{}", call.web_url(&project.full_path), mr.iid)
}

/// `MergeRequestBasic`, in GitLab's key order.
pub fn basic(call: &Call, project: &Project, mr: &MergeRequest, people: &People, within: &Within) -> ApiResult<Obj> {
    let status = status::merge_status(call, project, mr);
    let mut out = Obj::new();
    let time = |t: Option<i64>| t.map_or(Value::Null, |t| json!(iso_millis(t)));
    out.put("id", json!(mr.id));
    out.put("iid", json!(mr.iid));
    out.put("project_id", json!(mr.target_project_id));
    out.put("title", json!(mr.title));
    out.put("description", json!(mr.description));
    out.put("state", json!(mr.state));
    out.put("created_at", json!(iso_millis(mr.created_at)));
    out.put("updated_at", json!(iso_millis(mr.updated_at)));
    out.node("merged_by", people.basic(call, mr.merged_by_id));
    // GitLab's `merge_user`: who merged it, else who set it to merge automatically.
    let auto_merge = people.auto_merges.get(&mr.id);
    out.node("merge_user", people.basic(call, mr.merged_by_id.or(auto_merge.and_then(|a| a.merge_user_id))));
    out.put("merged_at", time(mr.merged_at));
    out.node("closed_by", people.basic(call, mr.closed_by_id));
    out.put("closed_at", time(mr.closed_at));
    out.put("target_branch", json!(mr.target_branch));
    out.put("source_branch", json!(mr.source_branch));
    let votes = people.votes.get(&mr.id).copied().unwrap_or_default();
    out.put("user_notes_count", json!(people.notes.get(&mr.id).copied().unwrap_or(0)));
    out.put("upvotes", json!(votes.0));
    out.put("downvotes", json!(votes.1));
    out.node("author", people.basic(call, mr.author_id));
    out.node("assignees", people.list(call, &mr.assignees));
    out.node("assignee", people.basic(call, mr.assignees.first().copied()));
    out.node("reviewers", people.list(call, &mr.reviewers));
    out.put("source_project_id", json!(mr.source_project_id));
    out.put("target_project_id", json!(mr.target_project_id));
    out.put("labels", people.labels(mr.id));
    out.put("draft", json!(mr.draft));
    out.put("imported", json!(false));
    out.put("imported_from", json!("none"));
    out.put("work_in_progress", json!(mr.draft));
    out.put("milestone", Value::Null);
    out.put("merge_when_pipeline_succeeds", json!(auto_merge.is_some()));
    out.put("merge_status", json!(status.merge_status));
    out.put("detailed_merge_status", json!(status.detailed_merge_status));
    out.put("merge_after", Value::Null);
    out.put("sha", json!(mr.head_sha));
    out.put("merge_commit_sha", json!(mr.merge_commit_sha));
    out.put("squash_commit_sha", json!(mr.squash_commit_sha));
    out.put("discussion_locked", Value::Null);
    out.put("should_remove_source_branch", json!(mr.should_remove_source_branch));
    out.put("force_remove_source_branch", json!(mr.force_remove_source_branch));
    out.put("prepared_at", json!(iso_millis(mr.created_at)));
    if mr.source_project_id != Some(mr.target_project_id) {
        out.put("allow_collaboration", json!(false));
        out.put("allow_maintainer_to_push", json!(false));
    }
    let (reference, references) = references(project, mr, within);
    out.put("reference", json!(reference));
    out.put("references", references);
    out.put("web_url", json!(web_url(call, project, mr)));
    out.put(
        "time_stats",
        json!({"time_estimate": 0, "total_time_spent": 0, "human_time_estimate": null, "human_total_time_spent": null}),
    );
    out.put("squash", json!(mr.squash));
    out.put(
        "squash_on_merge",
        json!(match project.settings.squash_option.as_str() {
            "always" => true,
            "never" => false,
            _ => mr.squash,
        }),
    );
    out.put("task_completion_status", task_completion(mr.description.as_deref()));
    out.put("has_conflicts", json!(status.merge_status == "cannot_be_merged"));
    // GitLab's `mergeable_discussions_state?`: blocking only when the project says so.
    let blocking = project.settings.only_allow_merge_if_all_discussions_are_resolved && people.has_unresolved(mr.id);
    out.put("blocking_discussions_resolved", json!(!blocking));
    out.put("approvals_before_merge", Value::Null);
    Ok(out)
}

/// What the full entity adds on request.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extras {
    pub diverged_commits_count: Option<usize>,
    pub rebase_in_progress: Option<bool>,
    pub first_contribution: Option<bool>,
}

/// `MergeRequest`: [`basic`] and the rest, in GitLab's key order.
pub fn full(call: &Call, project: &Project, mr: &MergeRequest, people: &People, extras: Extras) -> ApiResult<Obj> {
    let mut out = basic(call, project, mr, people, &Within::Project(project.id))?;
    let approvals = out.remove("approvals_before_merge");
    out.put("subscribed", json!(false));
    let max_files = i64::from(call.ctx.config.limits.diff_max_files);
    out.put(
        "changes_count",
        json!(mr.changes_count.map(|n| if n > max_files { format!("{max_files}+") } else { n.to_string() })),
    );
    out.put("latest_build_started_at", Value::Null);
    out.put("latest_build_finished_at", Value::Null);
    out.put("first_deployed_to_production_at", Value::Null);
    // GitLab's entity: `pipeline` (PipelineBasic) and `head_pipeline` (Pipeline) are both the
    // diff head pipeline; only the single merge request's entity has them.
    let head = match &mr.head_sha {
        Some(sha) => call.ctx.store.read(|db| crate::api::statuses::head_pipeline(db, project.id, sha))?,
        None => None,
    };
    match &head {
        Some(pipeline) => {
            out.obj("pipeline", Obj::from(crate::api::statuses::pipeline_basic::fields(call, project, pipeline)));
            out.node("head_pipeline", crate::api::statuses::pipeline_entity(call, project, pipeline, false)?);
        }
        None => {
            out.put("pipeline", Value::Null);
            out.put("head_pipeline", Value::Null);
        }
    }
    out.put(
        "diff_refs",
        match &mr.head_sha {
            Some(head) => json!({"base_sha": mr.base_sha, "head_sha": head, "start_sha": mr.start_sha}),
            None => Value::Null,
        },
    );
    out.put("merge_error", json!(mr.merge_error));
    if let Some(rebasing) = extras.rebase_in_progress {
        out.put("rebase_in_progress", json!(rebasing));
    }
    if let Some(count) = extras.diverged_commits_count {
        out.put("diverged_commits_count", json!(count));
    }
    if let Some(first) = extras.first_contribution {
        out.put("first_contribution", json!(first));
    }
    let can_merge = match call.caller.user() {
        None => false,
        Some(_) => {
            let default_branch = crate::git::default_branch(call.git_dir(project)?);
            call.ctx.store.read(|db| {
                protection::can_merge(db, &call.caller, project, default_branch.as_deref(), &mr.target_branch)
            })?
        }
    };
    out.put("user", json!({"can_merge": can_merge}));
    if let Some(approvals) = approvals {
        out.node("approvals_before_merge", approvals);
    }
    Ok(out)
}

/// The full entity of one merge request, its people read here.
pub fn full_of(call: &Call, project: &Project, mr: &MergeRequest, extras: Extras) -> ApiResult<Obj> {
    let people = call.ctx.store.read(|db| People::of(db, &[mr]))?;
    full(call, project, mr, &people, extras)
}

/// The diff limits of the merge request's diffs (the compare's).
pub fn limits(call: &Call) -> DiffLimits {
    DiffLimits::from_config(&call.ctx.config.limits)
}

/// An integer list parameter (`assignee_ids`, `reviewer_ids`, `iids`): a JSON array,
/// `key[]=` values, or a comma-separated string (GitLab's `CommaSeparatedToIntegerArray`).
pub fn int_list(params: &Params, name: &str) -> ApiResult<Option<Vec<i64>>> {
    let Some(items) = params.string_list(name)? else { return Ok(None) };
    items
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .map(|s| parse_int(&Value::String(s.to_string())).ok_or_else(|| ApiError::InvalidParam(name.into())))
        .collect::<ApiResult<Vec<_>>>()
        .map(Some)
}

/// A label list parameter (`labels`, `add_labels`, `remove_labels`): a comma-separated
/// string, a JSON array or `key[]=` values; blank titles dropped.
pub fn label_titles(params: &Params, name: &str) -> ApiResult<Option<Vec<String>>> {
    Ok(params.string_list(name)?.map(|titles| {
        titles.iter().flat_map(|t| t.split(',')).map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect()
    }))
}

/// The label target a merge request is.
pub fn label_target(mr: &MergeRequest) -> store::labels::Target {
    store::labels::Target { kind: store::labels::TargetType::MergeRequest, id: mr.id }
}

/// Users given as ids that exist, in order, once each; `0` (GitLab's "nobody") dropped.
pub fn existing_users(db: &mut Db, ids: &[i64]) -> ApiResult<Vec<i64>> {
    let mut out = Vec::new();
    for &id in ids {
        if id > 0 && !out.contains(&id) && store::users::find_by_id(db, id)?.is_some() {
            out.push(id);
        }
    }
    Ok(out)
}

/// GitLab's validation of a branch name of a merge request: 400 `{"message":{"<name>":["is invalid"]}}`.
pub fn check_branch_name(name: &str, field: &str) -> ApiResult<()> {
    if crate::git::write::refs::valid_branch_name(name) {
        Ok(())
    } else {
        Err(ApiError::Validation(json!({ field: ["is invalid"] })))
    }
}

/// GitLab's 409 for a second open merge request of the same branches.
pub fn duplicate(iid: i64) -> ApiError {
    ApiError::Messages {
        status: 409,
        message: json!([format!("Another open merge request already exists for this source branch: !{iid}")]),
    }
}

/// GitLab's 422 for a merge request from a branch into itself.
pub fn same_branch() -> ApiError {
    ApiError::Messages { status: 422, message: json!(["You can't use same project/branch for source and target"]) }
}

/// A diff version's SHAs as object ids: head, merge base (`None`: unrelated histories).
pub struct Shas {
    pub head: gix::ObjectId,
    pub base: Option<gix::ObjectId>,
}

impl Shas {
    /// The latest version of `mr`; `None` before it has one.
    pub fn latest(mr: &MergeRequest) -> ApiResult<Option<Shas>> {
        Shas::of(mr.head_sha.as_deref(), mr.base_sha.as_deref())
    }

    pub fn of(head: Option<&str>, base: Option<&str>) -> ApiResult<Option<Shas>> {
        let id = |hex: &str| gix::ObjectId::from_hex(hex.as_bytes()).map_err(ApiError::internal);
        let Some(head) = head else { return Ok(None) };
        Ok(Some(Shas { head: id(head)?, base: base.map(id).transpose()? }))
    }

    /// `git log base..head`: the commits, newest first.
    pub fn commits(&self, repo: &gix::Repository) -> ApiResult<Vec<gix::ObjectId>> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let unavailable = ApiError::Unavailable("listing the commits took longer than its time budget");
        match self.base {
            Some(base) => crate::git::range::ids(repo, base, self.head, usize::MAX, deadline)
                .map_err(ApiError::internal)?
                .ok_or(unavailable),
            None => Ok(crate::git::range::log(repo, self.head)
                .map_err(ApiError::internal)?
                .commits
                .into_iter()
                .map(|c| c.id)
                .collect()),
        }
    }

    /// The changed files of `git diff base...head` (renames as `git diff -M`), in git's order.
    pub fn changes(&self, repo: &gix::Repository, deadline: Instant) -> ApiResult<Vec<crate::git::diff::FileChange>> {
        let old = self.base.map(|b| crate::git::tree::commit_tree(repo, b)).transpose().map_err(ApiError::internal)?;
        let new = crate::git::tree::commit_tree(repo, self.head).map_err(ApiError::internal)?;
        crate::git::diff::changes(repo, old, Some(new), deadline)
            .map_err(ApiError::internal)?
            .ok_or(ApiError::Unavailable("the diff took longer than its time budget"))
    }

    /// The Diff entities of this version within the compare's limits (`expanded`: GitLab's
    /// `diffs(expanded: true)`, nothing collapsed) and whether the list was cut (`overflow`).
    pub fn diffs(
        &self,
        call: &Call,
        repo: &gix::Repository,
        unidiff: bool,
        expanded: bool,
    ) -> ApiResult<(Vec<Value>, bool)> {
        let deadline = Instant::now() + Duration::from_millis(call.ctx.config.limits.compare_timeout_millis);
        let changes = self.changes(repo, deadline)?;
        let (entities, cut) =
            crate::api::repository::compare::diff_entities(repo, &changes, &limits(call), unidiff, expanded, deadline)
                .map_err(ApiError::internal)?;
        let values = entities.iter().map(|e| serde_json::to_value(e).unwrap_or(Value::Null)).collect();
        Ok((values, cut != crate::api::repository::compare::Cut::No))
    }
}

/// GitLab's commit entities of `ids`, in order.
pub fn commit_entities(
    call: &Call,
    project: &Project,
    repo: &gix::Repository,
    ids: &[gix::ObjectId],
) -> ApiResult<Vec<Value>> {
    let url = call.web_url(&project.full_path);
    let mut reader = crate::git::commit::Reader::new(repo);
    ids.iter()
        .map(|&id| {
            let info = reader.read(id).map_err(ApiError::internal)?;
            Ok(crate::api::repository::commits::entity_of(&url, &info))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drafts_follow_gitlabs_rule() {
        for (title, draft) in [
            ("Draft: x", true),
            ("draft:x", true),
            ("[Draft] x", true),
            ("(DRAFT) x", true),
            ("WIP: x", false),
            ("x Draft:", false),
            ("Drafted", false),
        ] {
            assert_eq!(is_draft(title), draft, "{title}");
        }
    }

    #[test]
    fn times_parse_and_print_with_milliseconds() {
        assert_eq!(iso_millis(1_736_452_020_123), "2025-01-09T19:47:00.123Z");
        assert_eq!(parse_time("2025-01-09T19:47:00.123Z"), Some(1_736_452_020_123));
        assert_eq!(parse_time("2025-01-09T21:47:00+02:00"), Some(1_736_452_020_000));
        assert_eq!(parse_time("2025-01-09"), Some(1_736_380_800_000));
        assert_eq!(parse_time("2025-13-09"), None);
        assert_eq!(parse_time("yesterday"), None);
    }
}
