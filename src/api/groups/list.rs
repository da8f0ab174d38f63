//! `GET /groups`, `GET /groups/:id/subgroups`, `GET /groups/:id/descendant_groups`
//! (`gitlab-administration.md` §7, `lib/api/groups.rb`): GitLab's `Group` entities of the groups
//! the caller may see. `GET /groups` lists, for a signed-in caller, the groups they are a member
//! of (with those above and below them), and with `all_available=true` also every public and
//! internal group (the default for administrators, who then see all); anonymous callers see the
//! public groups. The other two list, of those, a group's direct subgroups or every group below
//! it (`lib/api/groups.rb` passes the group as the finder's parent, with the same
//! `all_available` default). Filters: `search` (name or path), `owned`, `min_access_level`,
//! `top_level_only`, `skip_groups[]`, `visibility`; `order_by` `name` (default), `path`, `id`
//! (`similarity`: by name); `sort` `asc` (default) or `desc`, ties by id; offset pages with
//! totals, and for anonymous callers of `GET /groups` keyset pages by name (`cursor`).

use crate::api::ordered::Obj;
use crate::api::{pagination, Call};
use crate::auth::roles::{ACCESS_LEVELS, OWNER};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use crate::store::groups::group_and_descendant_ids;
use crate::store::groups::{self, ListQuery, Order};

/// `GET /groups`.
pub fn list(call: &Call, params: &Params) -> ApiResult<Response> {
    // GitLab's `present_groups_with_pagination_strategies`: signed-in callers get offset pages
    // whatever `pagination` says; anonymous callers may page by keyset (`cursor`, by name
    // ascending only) and get no offset page past GitLab's offset limit.
    if call.caller.user().is_some() {
        return answer(call, params, None);
    }
    if !pagination::is_keyset(params)? {
        pagination::check_offset_limit(pagination::page(call, params)?, "Group")?;
        return answer(call, params, None);
    }
    keyset(call, params)
}

/// The `cursor` of keyset pages of groups, as GitLab's keyset paginator writes it: base64url
/// (padded) of the JSON of the last group's ordering values (`_kd`: the direction, next).
fn cursor_for(group: &crate::store::groups::Group) -> String {
    use base64::Engine;
    let json = serde_json::json!({"name": group.name, "id": group.id.to_string(), "_kd": "n"});
    base64::engine::general_purpose::URL_SAFE.encode(json.to_string())
}

/// The name and id a `cursor` names; 400 for anything else.
fn parse_cursor(text: &str) -> ApiResult<(String, i64)> {
    use base64::Engine;
    let invalid = || ApiError::InvalidParam("cursor".into());
    let bytes = base64::engine::general_purpose::URL_SAFE
        .decode(text.trim_end_matches('='))
        .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')))
        .map_err(|_| invalid())?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|_| invalid())?;
    let name = value["name"].as_str().ok_or_else(invalid)?.to_string();
    let id = match &value["id"] {
        serde_json::Value::String(id) => crate::params::parse_int_text(id),
        serde_json::Value::Number(id) => id.as_i64(),
        _ => None,
    }
    .ok_or_else(invalid)?;
    Ok((name, id))
}

/// Anonymous keyset pages of `GET /groups`: GitLab's cursor-based keyset pagination, which
/// pages groups by name ascending only (`Gitlab::Pagination::CursorBasedKeyset`); the next
/// page's `cursor` in `Link: <...>; rel="next"`, no offset headers.
fn keyset(call: &Call, params: &Params) -> ApiResult<Response> {
    let by_name = matches!(params.string("order_by")?.as_deref(), None | Some("name"));
    let ascending = matches!(params.string("sort")?.as_deref(), None | Some("asc"));
    if !by_name || !ascending {
        // Bad values are still 400s first.
        validate(params)?;
        return Err(pagination::keyset_unavailable());
    }
    let after = params.string("cursor")?.filter(|c| !c.is_empty()).map(|c| parse_cursor(&c)).transpose()?;
    let per_page = pagination::per_page(call, params)?;
    let mut query = query(call, params, None)?;
    query.after = after;
    query.limit = per_page as i64 + 1;
    query.offset = 0;
    let mut rows = call.ctx.store.read(|db| groups::list(db, &query))?;
    let more = rows.len() > per_page;
    rows.truncate(per_page);
    let entities: Vec<Obj> = rows.iter().map(|d| Obj::from(super::entity(&call.base_url, d))).collect();
    let mut response = Response::json(200, &entities);
    if let (true, Some(last)) = (more, rows.last()) {
        let overrides = [("per_page", per_page.to_string()), ("cursor", cursor_for(&last.group))];
        response.headers.push(pagination::keyset_next(call, &overrides));
    }
    Ok(response)
}

/// The `order_by` and `sort` parameters' 400s.
fn validate(params: &Params) -> ApiResult<()> {
    order(params)?;
    Ok(())
}

fn order(params: &Params) -> ApiResult<(Order, bool)> {
    let order = match params.string("order_by")?.as_deref() {
        None | Some("name") | Some("similarity") => Order::Name,
        Some("path") => Order::Path,
        Some("id") => Order::Id,
        Some(_) => return Err(ApiError::InvalidValue("order_by".into())),
    };
    let ascending = match params.string("sort")?.as_deref() {
        None | Some("asc") => true,
        Some("desc") => false,
        Some(_) => return Err(ApiError::InvalidValue("sort".into())),
    };
    Ok((order, ascending))
}

/// `GET /groups/:id/subgroups`: the group's direct subgroups.
pub fn subgroups(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let group = call.group(id)?;
    let ids = call.ctx.store.read(|db| groups::child_ids(db, group.id))?;
    answer(call, params, Some(ids))
}

/// `GET /groups/:id/descendant_groups`: every group below it, at any depth.
pub fn descendant_groups(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let group = call.group(id)?;
    let mut ids = call.ctx.store.read(|db| group_and_descendant_ids(db, group.id))?;
    ids.retain(|&other| other != group.id);
    answer(call, params, Some(ids))
}

fn answer(call: &Call, params: &Params, within: Option<Vec<i64>>) -> ApiResult<Response> {
    let page = pagination::page(call, params)?;
    let mut query = query(call, params, within)?;
    query.limit = page.per_page as i64;
    query.offset = page.offset() as i64;
    let (rows, total) =
        call.ctx.store.read(|db| -> ApiResult<_> { Ok((groups::list(db, &query)?, groups::count(db, &query)?)) })?;
    let entities: Vec<Obj> = rows.iter().map(|d| Obj::from(super::entity(&call.base_url, d))).collect();
    let mut response = Response::json(200, &entities);
    response.headers.extend(pagination::offset_headers(call, page, total.max(0) as usize, &[]));
    Ok(response)
}

/// The list's query from the request's filters and order (no page yet).
fn query(call: &Call, params: &Params, within: Option<Vec<i64>>) -> ApiResult<ListQuery> {
    let (order, ascending) = order(params)?;
    let mut min_access_level = match params.int("min_access_level")? {
        Some(level) if !ACCESS_LEVELS.contains(&level) => {
            return Err(ApiError::InvalidValue("min_access_level".into()))
        }
        other => other,
    };
    if params.bool("owned")?.unwrap_or(false) {
        min_access_level = Some(min_access_level.unwrap_or(OWNER).max(OWNER));
    }
    let visibility = super::visibility_param(params)?;
    let skip = match params.string_list("skip_groups")? {
        None => Vec::new(),
        Some(items) => items
            .iter()
            .filter(|item| !item.is_empty())
            .map(|item| crate::params::parse_int_text(item).ok_or(ApiError::InvalidParam("skip_groups".into())))
            .collect::<ApiResult<Vec<i64>>>()?,
    };
    let top_level_only = params.bool("top_level_only")?.unwrap_or(false);
    let user = call.caller.user();
    let admin = call.caller.is_admin();
    // GitLab's `find_groups`, for the instance's groups and a group's alike: a signed-in
    // caller's own groups unless `all_available` (administrators': true unless they say not);
    // anonymous callers the public ones.
    let all_available = user.is_none() || params.bool("all_available")?.unwrap_or(admin);
    let mut query = ListQuery {
        user_id: user.map(|u| u.id),
        all: admin && all_available,
        all_available,
        min_access_level,
        search: crate::api::groups::text_param(params, "search")?.filter(|s| !s.is_empty()),
        visibility,
        skip,
        top_level_only,
        within,
        after: None,
        order: Some(order),
        ascending,
        limit: 0,
        offset: 0,
    };
    if user.is_none() && min_access_level.is_some() {
        // Nobody's memberships: nothing is owned or reached.
        query.within = Some(Vec::new());
    }
    Ok(query)
}
