//! `GET /projects/:id/issues`, `GET /groups/:id/issues` (the group's projects and its
//! subgroups') and `GET /issues` (every project the caller sees; `scope` defaults to
//! `created_by_me` there, and anonymous callers may only ask for `scope=all`). Filters as
//! GitLab's `issues_params`: `state` (`opened`, `closed`, `all`), `scope` (`created_by_me`,
//! `assigned_to_me`, `all`, dashed forms too), `search` with `in` (`title`, `description`),
//! `labels` (with `None` and `Any`), `author_id` / `author_username`, `assignee_id` (`None`,
//! `Any`) / `assignee_username`, `iids[]`, `confidential`, `created_after` / `created_before` /
//! `updated_after` / `updated_before`, `order_by` and `sort`, `with_labels_details`; offset
//! pages. Confidential issues the caller may not see are never among them.

use super::{entity, time_param, Loaded, Shape, Viewer};
use crate::api::{pagination, Call};
use crate::auth::permissions::ProjectAbility;
use crate::auth::roles::PLANNER;
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_int_text, Params};
use crate::response::Response;
use crate::store::issues::{self, Assignee, ListQuery, Order};
use crate::store::{self, projects, Db};

/// Where a list looks.
enum Within {
    Project(String),
    Group(String),
    Everywhere,
}

pub fn list_of_project(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    list(call, Within::Project(project.to_string()), params)
}

pub fn list_of_group(call: &Call, group: &str, params: &Params) -> ApiResult<Response> {
    list(call, Within::Group(group.to_string()), params)
}

pub fn list_global(call: &Call, params: &Params) -> ApiResult<Response> {
    list(call, Within::Everywhere, params)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    CreatedByMe,
    AssignedToMe,
    All,
}

fn scope(params: &Params, default: Scope) -> ApiResult<Scope> {
    Ok(match params.string("scope")?.as_deref() {
        None => default,
        Some("created_by_me" | "created-by-me") => Scope::CreatedByMe,
        Some("assigned_to_me" | "assigned-to-me") => Scope::AssignedToMe,
        Some("all") => Scope::All,
        Some(_) => return Err(ApiError::InvalidValue("scope".into())),
    })
}

/// The user named `username`, when there is one (else no issue matches).
fn user_id_named(db: &mut Db, username: &str) -> ApiResult<Option<i64>> {
    Ok(store::users::find_by_username(db, username)?.map(|u| u.id))
}

/// The filters every list shares, into `query`; `false` when they can match nothing.
fn filters(db: &mut Db, params: &Params, query: &mut ListQuery) -> ApiResult<bool> {
    let mut possible = true;
    query.state = match params.string("state")?.as_deref() {
        None | Some("all") => None,
        Some(state @ ("opened" | "closed")) => Some(state.to_string()),
        Some(_) => return Err(ApiError::InvalidValue("state".into())),
    };
    query.order = match params.string("order_by")?.as_deref() {
        None | Some("created_at") => Order::CreatedAt,
        Some("updated_at") => Order::UpdatedAt,
        Some("title") => Order::Title,
        // GitLab's other orders (priorities, due dates, milestones, popularity, weight,
        // relative position) have nothing to order by here: creation time stands in.
        Some(
            "priority" | "due_date" | "relative_position" | "label_priority" | "milestone_due" | "popularity"
            | "weight",
        ) => Order::CreatedAt,
        Some(_) => return Err(ApiError::InvalidValue("order_by".into())),
    };
    query.ascending = match params.string("sort")?.as_deref() {
        None | Some("desc") => false,
        Some("asc") => true,
        Some(_) => return Err(ApiError::InvalidValue("sort".into())),
    };
    if let Some(term) = params.string("search")?.filter(|s| !s.trim().is_empty()) {
        let places = params.string_list("in")?.unwrap_or_else(|| vec!["title".into(), "description".into()]);
        let places: Vec<String> = places.iter().flat_map(|p| p.split(',')).map(|p| p.trim().to_string()).collect();
        if places.iter().any(|p| p != "title" && p != "description") {
            return Err(ApiError::InvalidValue("in".into()));
        }
        query.search = Some((term, places.iter().any(|p| p == "title"), places.iter().any(|p| p == "description")));
    }
    query.labels = super::label_names(params, "labels")?.unwrap_or_default();
    if let Some(author) = params.int("author_id")? {
        query.author_id = Some(author);
    } else if let Some(name) = params.string("author_username")?.filter(|s| !s.is_empty()) {
        match user_id_named(db, &name)? {
            Some(id) => query.author_id = Some(id),
            None => possible = false,
        }
    }
    match params.raw("assignee_id") {
        None => {}
        Some(_) => {
            let text = params.string("assignee_id")?.unwrap_or_default();
            query.assignee = Some(if text.eq_ignore_ascii_case("none") {
                Assignee::None
            } else if text.eq_ignore_ascii_case("any") {
                Assignee::Any
            } else {
                Assignee::Id(parse_int_text(&text).ok_or_else(|| ApiError::InvalidValue("assignee_id".into()))?)
            });
        }
    }
    if query.assignee.is_none() {
        if let Some(names) = params.string_list("assignee_username")? {
            if let Some(name) = names.first().filter(|n| !n.is_empty()) {
                match user_id_named(db, name)? {
                    Some(id) => query.assignee = Some(Assignee::Id(id)),
                    None => possible = false,
                }
            }
        }
    }
    if let Some(iids) = params.string_list("iids")? {
        let mut out = Vec::new();
        for iid in iids.iter().flat_map(|i| i.split(',')).map(str::trim).filter(|i| !i.is_empty()) {
            out.push(parse_int_text(iid).ok_or_else(|| ApiError::InvalidParam("iids".into()))?);
        }
        query.iids = Some(out);
    }
    query.confidential = params.bool("confidential")?;
    query.created_after = time_param(params, "created_after")?;
    query.created_before = time_param(params, "created_before")?;
    query.updated_after = time_param(params, "updated_after")?;
    query.updated_before = time_param(params, "updated_before")?;
    Ok(possible)
}

/// Every project the caller sees (in `groups` when given), with whether they see its
/// confidential issues; `None` for an administrator's global list (every project).
fn visible_projects(db: &mut Db, call: &Call, groups: Option<Vec<i64>>) -> ApiResult<Option<(Vec<i64>, Vec<i64>)>> {
    let admin = call.caller.is_admin();
    if admin && groups.is_none() {
        return Ok(None);
    }
    let query = projects::ListQuery {
        user_id: call.caller.user().map(|u| u.id),
        admin,
        membership: false,
        min_access_level: None,
        search: None,
        visibility: None,
        archived: None,
        group_ids: groups,
        id_after: None,
        id_before: None,
        only_id: None,
        forked_from_id: None,
        topic_ids: None,
        order: projects::Order::Id,
        ascending: true,
        limit: 1_000_000,
        offset: 0,
    };
    let listed = projects::list(db, &query)?;
    let ids = listed.iter().map(|l| l.project.id).collect();
    let confidential =
        listed.iter().filter(|l| admin || l.level.unwrap_or(0) >= PLANNER).map(|l| l.project.id).collect();
    Ok(Some((ids, confidential)))
}

fn list(call: &Call, within: Within, params: &Params) -> ApiResult<Response> {
    let me = call.caller.user().map(|u| u.id);
    let default_scope = if matches!(within, Within::Everywhere) { Scope::CreatedByMe } else { Scope::All };
    let scope = scope(params, default_scope)?;
    if matches!(within, Within::Everywhere) && scope != Scope::All && me.is_none() {
        return Err(ApiError::Unauthorized);
    }
    let with_labels_details = params.bool("with_labels_details")?.unwrap_or(false);
    let page = pagination::page(call, params)?;
    let (project, group) = match &within {
        Within::Project(id) => (Some(call.project(id, ProjectAbility::Read)?), None),
        Within::Group(id) => (None, Some(call.group(id)?)),
        Within::Everywhere => (None, None),
    };
    let (shown, total) = call.ctx.store.read(|db| -> ApiResult<_> {
        let mut query =
            ListQuery { viewer: me, limit: page.per_page as i64, offset: page.offset() as i64, ..Default::default() };
        let mut possible = filters(db, params, &mut query)?;
        match (&project, &group) {
            (Some(project), _) => {
                query.project_ids = Some(vec![project.id]);
                query.all_confidential = Viewer::of(db, call, project)?.admin_issue();
            }
            (None, Some(group)) => {
                let groups = store::groups::group_and_descendant_ids(db, group.id)?;
                let (ids, confidential) = visible_projects(db, call, Some(groups))?.unwrap_or_default();
                query.all_confidential = call.caller.is_admin();
                query.project_ids = Some(ids);
                query.confidential_projects = confidential;
            }
            (None, None) => match visible_projects(db, call, None)? {
                None => query.all_confidential = true,
                Some((ids, confidential)) => {
                    query.project_ids = Some(ids);
                    query.confidential_projects = confidential;
                }
            },
        }
        match scope {
            Scope::All => {}
            Scope::CreatedByMe | Scope::AssignedToMe if me.is_none() => possible = false,
            Scope::CreatedByMe => query.author_id = me.filter(|_| query.author_id.is_none_or(|a| Some(a) == me)),
            Scope::AssignedToMe => query.assignee = me.map(Assignee::Id),
        }
        if scope == Scope::CreatedByMe && query.author_id.is_none() {
            possible = false;
        }
        if !possible {
            return Ok((Vec::new(), 0));
        }
        let found = issues::list(db, &query)?;
        let total = issues::count(db, &query)?;
        let loaded = Loaded::read(db, &found)?;
        let shape = Shape { single: false, with_labels_details, project_id: project.as_ref().map(|p| p.id) };
        Ok((found.iter().map(|issue| entity(call, issue, &loaded, shape)).collect::<Vec<_>>(), total))
    })?;
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total as usize, &[]));
    Ok(response)
}
