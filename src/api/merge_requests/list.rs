//! `GET /merge_requests`, `GET /groups/:id/merge_requests`, `GET /projects/:id/merge_requests`
//! (reference §1.1, GitLab's `merge_requests_helpers.rb` and `MergeRequestsFinder`): every
//! filter the reference lists that forgecore stores (`state`, `scope`, `source_branch`,
//! `target_branch`, `source_project_id`, `author_id`/`author_username`, `assignee_id`/
//! `assignee_username`, `reviewer_id`/`reviewer_username`, `search`/`in`, `iids[]`,
//! `created_*`/`updated_*`/`merged_*` (inclusive), `draft`/`wip`, `labels` (every one; `None`,
//! `Any`), `not[...]`), `with_labels_details`, `order_by`/`sort`,
//! `view=simple`, in offset pages with GitLab's headers. The instance list answers the
//! caller's own merge requests by default (`scope=created_by_me`, 401 anonymously unless
//! `scope=all`); group and project lists every author's. Lists span only projects whose merge
//! requests the caller may read. Each page is one indexed statement, wherever it is.

use super::{basic, int_list, label_titles, simple, time_param, People, Within};
use crate::api::ordered::Obj;
use crate::api::{pagination, Call};
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::merge_requests::{self, ListQuery, Order, Who};
use crate::store::{self, Db};
use serde_json::Value;

/// Where a list reads from.
pub enum From<'a> {
    Instance,
    Group(&'a str),
    Project(&'a str),
}

pub fn list(call: &Call, from: From, params: &Params) -> ApiResult<Response> {
    let scope = match params.string("scope")?.map(|s| s.replace('-', "_")) {
        None => None,
        Some(s) if ["created_by_me", "assigned_to_me", "reviews_for_me", "all"].contains(&s.as_str()) => Some(s),
        Some(_) => return Err(ApiError::InvalidValue("scope".into())),
    };
    if matches!(from, From::Instance) && scope.as_deref() != Some("all") {
        call.caller.require_user()?;
    }
    let scope = scope.unwrap_or_else(|| if matches!(from, From::Instance) { "created_by_me" } else { "all" }.into());
    let mut query = query(call, params)?;
    let me = call.caller.user().map(|u| u.id);
    let mut nothing = false;
    match scope.as_str() {
        "created_by_me" => match me {
            Some(me) => query.author = Some(me),
            None => nothing = true,
        },
        "assigned_to_me" => match me {
            Some(me) => query.assignee = Some(Who::Users(vec![me])),
            None => nothing = true,
        },
        "reviews_for_me" => match me {
            Some(me) => query.reviewer = Some(Who::Users(vec![me])),
            None => nothing = true,
        },
        _ => {}
    }
    // GitLab's `non_archived`: false by default for the instance, true for a group.
    let non_archived = params.bool("non_archived")?.unwrap_or(matches!(from, From::Group(_)));
    let within = match &from {
        From::Instance => {
            let candidates = call.ctx.store.read(|db| merge_requests::target_projects(db, &query))?;
            query.projects = Some(readable(call, candidates, non_archived)?);
            Within::Instance
        }
        From::Group(id) => {
            let group = call.group(id)?;
            let ids = call.ctx.store.read(|db| -> ApiResult<_> {
                let groups = store::groups::group_and_descendant_ids(db, group.id)?;
                Ok(store::projects::ids_in_groups(db, &groups)?)
            })?;
            query.projects = Some(readable(call, ids, non_archived)?);
            Within::Group(group.full_path.clone())
        }
        From::Project(id) => {
            let project = call.project(id, ProjectAbility::ReadMergeRequest)?;
            query.projects = Some(vec![project.id]);
            Within::Project(project.id)
        }
    };
    if nothing {
        query.projects = Some(Vec::new());
    }
    if pagination::is_keyset(params)? {
        return Err(pagination::keyset_unavailable());
    }
    let page = pagination::page(call, params)?;
    query.limit = page.per_page as i64;
    query.offset = page.offset() as i64;
    let simple_view = match params.string("view")?.as_deref() {
        None | Some("") => false,
        Some("simple") => true,
        Some(_) => return Err(ApiError::InvalidValue("view".into())),
    };
    let (rows, total) = call
        .ctx
        .store
        .read(|db| -> ApiResult<_> { Ok((merge_requests::list(db, &query)?, merge_requests::count(db, &query)?)) })?;
    let label_details = params.bool("with_labels_details")?.unwrap_or(false);
    let entities = entities(call, &rows, simple_view, label_details, &within)?;
    let mut response = Response::json(200, &entities);
    for (name, value) in pagination::offset_headers(call, page, total as usize, &[]) {
        response = response.with_header(&name, value);
    }
    Ok(response)
}

/// The entities of a page (`view=simple`: `MergeRequestSimple`), their projects and people
/// read once each.
pub fn entities(
    call: &Call,
    rows: &[merge_requests::MergeRequest],
    simple_view: bool,
    label_details: bool,
    within: &Within,
) -> ApiResult<Vec<Obj>> {
    let (projects, people) = call.ctx.store.read(|db| -> ApiResult<_> {
        let mut projects = std::collections::HashMap::new();
        for mr in rows {
            if let std::collections::hash_map::Entry::Vacant(slot) = projects.entry(mr.target_project_id) {
                if let Some(project) = store::projects::find_by_id(db, mr.target_project_id)? {
                    slot.insert(project);
                }
            }
        }
        let people = if simple_view { People::default() } else { People::of(db, &rows.iter().collect::<Vec<_>>())? };
        Ok((projects, People { label_details, ..people }))
    })?;
    let mut out = Vec::with_capacity(rows.len());
    for mr in rows {
        let Some(project) = projects.get(&mr.target_project_id) else { continue };
        out.push(if simple_view { simple(call, project, mr) } else { basic(call, project, mr, &people, within)? });
    }
    Ok(out)
}

/// Of `ids`, the projects whose merge requests the caller may read (`non_archived`: not
/// archived ones).
fn readable(call: &Call, ids: Vec<i64>, non_archived: bool) -> ApiResult<Vec<i64>> {
    call.ctx.store.read(|db: &mut Db| -> ApiResult<_> {
        let mut out = Vec::new();
        for id in ids {
            let Some(project) = store::projects::find_by_id(db, id)? else { continue };
            if project.marked_for_deletion_at.is_some() || (non_archived && project.archived) {
                continue;
            }
            if permissions::authorize_project(db, &call.caller, &project, ProjectAbility::ReadMergeRequest).is_ok() {
                out.push(id);
            }
        }
        Ok(out)
    })
}

/// A `not[name]` parameter: `not[name]=` in a query or form, or `{"not": {"name": …}}` in JSON.
fn not_param(params: &Params, name: &str) -> ApiResult<Params> {
    let mut out = Params::new();
    if let Some(Value::Object(map)) = params.raw("not") {
        if let Some(value) = map.get(name) {
            out.set(name, value.clone());
        }
    }
    for key in [format!("not[{name}]"), format!("not[{name}][]")] {
        if let Some(value) = params.raw(&key) {
            out.set(name, value.clone());
        }
    }
    Ok(out)
}

/// A user filter's value: an id, `None` or `Any` (any case).
fn who(params: &Params, name: &str) -> ApiResult<Option<Who>> {
    let Some(text) = params.string(name)? else { return Ok(None) };
    match text.to_lowercase().as_str() {
        "none" => Ok(Some(Who::None)),
        "any" => Ok(Some(Who::Any)),
        _ => params.int(name)?.map(|id| Some(Who::Users(vec![id]))).ok_or_else(|| ApiError::InvalidParam(name.into())),
    }
}

/// The user ids `usernames` name; an unknown one is a user nobody is (`0`), so a filter on it
/// finds nothing.
fn user_ids(call: &Call, usernames: &[String]) -> ApiResult<Vec<i64>> {
    call.ctx.store.read(|db| -> ApiResult<_> {
        let mut ids = Vec::new();
        for name in usernames {
            ids.push(store::users::find_by_username(db, name)?.map_or(0, |u| u.id));
        }
        Ok(ids)
    })
}

fn usernames(params: &Params, name: &str) -> ApiResult<Option<Vec<String>>> {
    Ok(params.string_list(name)?.map(|names| names.into_iter().filter(|n| !n.is_empty()).collect()))
}

/// The filters and order every list takes.
#[allow(clippy::field_reassign_with_default)] // one filter a statement, in the reference's order
pub fn query(call: &Call, params: &Params) -> ApiResult<ListQuery> {
    let mut query = ListQuery::default();
    query.states = match params.string("state")?.as_deref() {
        None | Some("all") => None,
        Some(state) if merge_requests::STATES.contains(&state) => Some(vec![state.to_string()]),
        Some(_) => return Err(ApiError::InvalidValue("state".into())),
    };
    query.order = match params.string("order_by")?.as_deref() {
        None | Some("created_at") => Order::CreatedAt,
        Some("updated_at") => Order::UpdatedAt,
        Some("merged_at") => Order::MergedAt,
        Some("title") => Order::Title,
        // Orders by what forgecore does not keep (labels, milestones, votes) keep the default.
        Some("label_priority" | "milestone_due" | "popularity" | "priority") => Order::CreatedAt,
        Some(_) => return Err(ApiError::InvalidValue("order_by".into())),
    };
    query.ascending = match params.string("sort")?.as_deref() {
        None | Some("desc") => false,
        Some("asc") => true,
        Some(_) => return Err(ApiError::InvalidValue("sort".into())),
    };
    query.source_branch = params.string("source_branch")?;
    query.target_branch = params.string("target_branch")?;
    query.source_project_id = params.int("source_project_id")?;
    if params.contains("author_id") && params.contains("author_username") {
        return Err(ApiError::ParamError("author_id, author_username are mutually exclusive".into()));
    }
    query.author = params.int("author_id")?;
    if let Some(name) = params.string("author_username")? {
        query.author = Some(user_ids(call, &[name])?[0]);
    }
    if params.contains("assignee_id") && params.contains("assignee_username") {
        return Err(ApiError::ParamError("assignee_id, assignee_username are mutually exclusive".into()));
    }
    query.assignee = who(params, "assignee_id")?;
    if let Some(names) = usernames(params, "assignee_username")? {
        query.assignee = Some(Who::Users(user_ids(call, &names)?));
    }
    if params.contains("reviewer_id") && params.contains("reviewer_username") {
        return Err(ApiError::ParamError("reviewer_id, reviewer_username are mutually exclusive".into()));
    }
    query.reviewer = who(params, "reviewer_id")?;
    if let Some(names) = usernames(params, "reviewer_username")? {
        query.reviewer = Some(Who::Users(user_ids(call, &names)?));
    }
    if let Some(search) = params.string("search")?.filter(|s| !s.is_empty()) {
        let within = params.string("in")?.unwrap_or_else(|| "title,description".into());
        let fields: Vec<String> = within.split(',').map(|f| f.trim().to_string()).collect();
        if fields.iter().any(|f| f != "title" && f != "description") {
            return Err(ApiError::InvalidValue("in".into()));
        }
        query.search_title = fields.iter().any(|f| f == "title");
        query.search_description = fields.iter().any(|f| f == "description");
        query.search = Some(search);
    }
    query.iids = int_list(params, "iids")?;
    query.created_after = time_param(params, "created_after")?;
    query.created_before = time_param(params, "created_before")?;
    query.updated_after = time_param(params, "updated_after")?;
    query.updated_before = time_param(params, "updated_before")?;
    query.merged_after = time_param(params, "merged_after")?;
    query.merged_before = time_param(params, "merged_before")?;
    if params.contains("wip") && params.contains("draft") {
        return Err(ApiError::ParamError("wip, draft are mutually exclusive".into()));
    }
    query.draft = match params.string("wip")?.as_deref() {
        None => params.bool("draft")?,
        Some("yes") => Some(true),
        Some("no") => Some(false),
        Some(_) => return Err(ApiError::InvalidValue("wip".into())),
    };
    let not = |name: &str| not_param(params, name);
    query.not_author = not("author_id")?.int("author_id")?;
    if let Some(name) = not("author_username")?.string("author_username")? {
        query.not_author = Some(user_ids(call, &[name])?[0]);
    }
    query.not_assignee = int_list(&not("assignee_id")?, "assignee_id")?;
    if let Some(names) = usernames(&not("assignee_username")?, "assignee_username")? {
        query.not_assignee = Some(user_ids(call, &names)?);
    }
    query.not_reviewer = int_list(&not("reviewer_id")?, "reviewer_id")?;
    if let Some(names) = usernames(&not("reviewer_username")?, "reviewer_username")? {
        query.not_reviewer = Some(user_ids(call, &names)?);
    }
    query.not_source_branch = not("source_branch")?.string("source_branch")?;
    query.not_target_branch = not("target_branch")?.string("target_branch")?;
    query.not_iids = int_list(&not("iids")?, "iids")?;
    query.labels = label_titles(params, "labels")?.filter(|l| !l.is_empty());
    query.not_labels = label_titles(&not("labels")?, "labels")?.filter(|l| !l.is_empty());
    for flag in ["with_labels_details", "with_merge_status_recheck"] {
        params.bool(flag)?;
    }
    Ok(query)
}
