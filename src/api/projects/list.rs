//! `GET /projects` and `GET /groups/:id/projects`: the projects the caller may see, filtered
//! as tools filter them (`membership`, `min_access_level`, `owned`, `search`, `visibility`,
//! `archived`, `starred`, `topic`, `id_after`/`id_before`, the group's `include_subgroups`),
//! ordered by `order_by`/`sort`, in offset pages with totals or keyset pages (`order_by=id`,
//! the next page's `id_after`/`id_before` in `Link`). The database filters, orders and pages,
//! so the cost of a page does not grow with the number of projects.

use super::{details, Entity, View};
use crate::api::{pagination, Call};
use crate::auth::permissions::{self, ProjectAbility};
use crate::auth::roles::{ACCESS_LEVELS, OWNER, REPORTER};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::projects::{self, ListQuery, Listed, Order};
use crate::store::Visibility;
use serde_json::Value;

/// GitLab's counts stop at 10,000: past it, no `X-Total`, `X-Total-Pages` or `rel="last"`.
const MAX_COUNT: i64 = 10_000;

/// `GET /projects`.
pub fn list(call: &Call, params: &Params) -> ApiResult<Response> {
    super::purge::purge_due(call.ctx)?;
    answer(call, params, None, None)
}

/// `GET /groups/:id/projects`: the group's projects (`include_subgroups`: and its subgroups').
pub fn list_of_group(call: &Call, group: &str, params: &Params) -> ApiResult<Response> {
    super::purge::purge_due(call.ctx)?;
    let group = call.group(group)?;
    let ids = if params.bool("include_subgroups")?.unwrap_or(false) {
        call.ctx.store.read(|db| crate::store::groups::group_and_descendant_ids(db, group.id))?
    } else {
        vec![group.id]
    };
    answer(call, params, Some(ids), None)
}

fn order(params: &Params, keyset: bool) -> ApiResult<Order> {
    Ok(match params.string("order_by")?.as_deref() {
        None if keyset => Order::Id,
        None | Some("created_at") | Some("updated_at") | Some("last_activity_at") => Order::CreatedAt,
        Some("id") => Order::Id,
        Some("name") => Order::Name,
        Some("path") => Order::Path,
        // Stars and search similarity are all equal here.
        Some("similarity") | Some("star_count") => Order::Id,
        Some(_) => return Err(ApiError::InvalidValue("order_by".into())),
    })
}

/// `GET /projects/:id/forks`: the direct forks the caller may see, filtered, ordered and paged
/// as `GET /projects` (GitLab's `ForkProjectsFinder` with `project_finder_params`).
pub fn list_forks(call: &Call, project_id: i64, params: &Params) -> ApiResult<Response> {
    answer(call, params, None, Some(project_id))
}

fn answer(
    call: &Call,
    params: &Params,
    group_ids: Option<Vec<i64>>,
    forked_from_id: Option<i64>,
) -> ApiResult<Response> {
    let keyset = pagination::is_keyset(params)?;
    let order = order(params, keyset)?;
    // GitLab pages projects by keyset in id order only (`Gitlab::Pagination::Keyset.available?`).
    if keyset && (order != Order::Id || !matches!(params.string("order_by")?.as_deref(), None | Some("id"))) {
        return Err(pagination::keyset_unavailable());
    }
    let ascending = match params.string("sort")?.as_deref() {
        None | Some("desc") => false,
        Some("asc") => true,
        Some(_) => return Err(ApiError::InvalidValue("sort".into())),
    };
    let mut min_access_level = match params.int("min_access_level")? {
        Some(level) if !ACCESS_LEVELS.contains(&level) => {
            return Err(ApiError::InvalidValue("min_access_level".into()))
        }
        other => other,
    };
    if params.bool("owned")?.unwrap_or(false) {
        min_access_level = Some(min_access_level.unwrap_or(OWNER).max(OWNER));
    }
    let visibility = match params.string("visibility")? {
        None => None,
        Some(text) => Some(Visibility::parse(&text).ok_or(ApiError::InvalidValue("visibility".into()))?),
    };
    let simple = params.bool("simple")?.unwrap_or(false);
    let membership = params.bool("membership")?.unwrap_or(false) || min_access_level.is_some();
    // Nothing is starred here: asking for that finds nothing. `topic` names topics (comma
    // separated) a project must all have, `topic_id` one more; a name no topic has finds nothing.
    let archived = params.bool("archived")?;
    let mut nothing = params.bool("starred")? == Some(true);
    let mut topic_names: Vec<String> = params
        .string_list("topic")?
        .unwrap_or_default()
        .iter()
        .flat_map(|t| t.split(','))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect();
    topic_names.dedup();
    let mut topic_ids = match topic_names.is_empty() {
        true => Vec::new(),
        false => call.ctx.store.read(|db| crate::store::topics::ids_named(db, &topic_names))?.unwrap_or_else(|| {
            nothing = true;
            Vec::new()
        }),
    };
    topic_ids.extend(params.int("topic_id")?);
    let user = call.caller.user();
    if membership && user.is_none() {
        return Ok(empty(call, params, keyset));
    }
    let page = pagination::page(call, params)?;
    if !keyset {
        pagination::check_offset_limit(page, "Project")?;
    }
    let query = ListQuery {
        user_id: user.map(|u| u.id),
        admin: call.caller.is_admin(),
        membership,
        min_access_level,
        search: params.string("search")?.filter(|s| !s.is_empty()),
        visibility,
        archived,
        group_ids: if nothing { Some(Vec::new()) } else { group_ids },
        id_after: params.int("id_after")?,
        id_before: params.int("id_before")?,
        only_id: None,
        forked_from_id,
        topic_ids: if topic_ids.is_empty() { None } else { Some(topic_ids) },
        order,
        ascending,
        limit: page.per_page as i64,
        offset: if keyset { 0 } else { page.offset() as i64 },
    };
    let rows = call.ctx.store.read(|db| projects::list(db, &query))?;
    let view = View { simple: simple || user.is_none(), with_access: user.is_some() && !simple, read_code: false };
    let (full, last_id) = (rows.len() == page.per_page, rows.last().map(|last| last.project.id));
    let mut entities = Vec::with_capacity(rows.len());
    for listed in rows {
        entities.push(entity(call, listed, view)?);
    }
    let mut response = Response::json(200, &entities);
    if keyset {
        if let (true, Some(last_id)) = (full, last_id) {
            let key = if ascending { "id_after" } else { "id_before" };
            let overrides = [("per_page", page.per_page.to_string()), (key, last_id.to_string())];
            response.headers.push(pagination::keyset_next(call, &overrides));
        }
    } else {
        let total = call.ctx.store.read(|db| projects::count(db, &query))?;
        let mut headers = pagination::offset_headers(call, page, total.min(MAX_COUNT) as usize, &[]);
        if total >= MAX_COUNT {
            headers.retain(|(name, _)| name != "X-Total" && name != "X-Total-Pages");
        }
        response.headers.extend(headers);
    }
    Ok(response)
}

/// An empty page (anonymous callers asking for their memberships).
fn empty(call: &Call, params: &Params, keyset: bool) -> Response {
    let mut response = Response::json(200, &Value::Array(Vec::new()));
    if !keyset {
        if let Ok(page) = pagination::page(call, params) {
            response.headers.extend(pagination::offset_headers(call, page, 0, &[]));
        }
    }
    response
}

/// One listed project's entity for the caller: whether they read its code follows from its
/// visibility and their level, and for the rare member below Reporter, from their custom roles.
fn entity<'a>(call: &'a Call, listed: Listed, view: View) -> ApiResult<Entity<'a>> {
    let project = &listed.project;
    let signed_in = call.caller.user().is_some();
    let read_code = call.caller.is_admin()
        || project.visibility == Visibility::Public
        || (project.visibility == Visibility::Internal && signed_in)
        || listed.level.is_some_and(|level| level >= REPORTER)
        || (listed.level.is_some()
            && call
                .ctx
                .store
                .read(|db| permissions::authorize_project(db, &call.caller, project, ProjectAbility::ReadCode))
                .is_ok());
    let parent = match (view.simple, project.forked_from_id) {
        (false, Some(_)) => super::fork_parent(call.ctx, &call.caller, &call.base_url, project)?,
        _ => None,
    };
    Ok(details(call.ctx, &call.base_url, listed, View { read_code, ..view }, parent, Some(&call.caller)))
}
