//! `GET /projects/:id/groups` (a Projects route, kept with the groups it answers so that
//! imports run one way: groups use projects): the project's group and that group's ancestors, with the groups
//! it is shared with when `with_shared` (GitLab's `Projects::GroupsFinder`): `skip_groups`
//! leaves groups out, `search` keeps those whose name or path contains it (ignoring case),
//! `shared_min_access_level` keeps the shared groups whose link grants at least that level,
//! `shared_visible_only` the shared groups the caller may see. Newest group first
//! (`order_id_desc`), in offset pages, as GitLab's `PublicGroupDetails`: `id`, `web_url`,
//! `name`, `avatar_url`, `full_name`, `full_path`. A project in a user's namespace and shared
//! with no one answers `[]`.

use super::web_url;
use crate::api::ordered::Obj;
use crate::api::{pagination, Call};
use crate::auth::permissions::{self, ProjectAbility};
use crate::auth::roles;
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_int_text, Params};
use crate::response::Response;
use crate::store::shares::{self, Shared};
use crate::store::{self, groups::Group};
use serde_json::Value;

pub fn list(call: &Call, project_id: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project_id, ProjectAbility::Read)?;
    let search = params.string("search")?.filter(|s| !s.is_empty()).map(|s| s.to_lowercase());
    let skip: Vec<i64> = match params.string_list("skip_groups")? {
        None => Vec::new(),
        Some(items) => items
            .iter()
            .flat_map(|item| item.split(','))
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| parse_int_text(item).ok_or(ApiError::InvalidParam("skip_groups".into())))
            .collect::<ApiResult<_>>()?,
    };
    let with_shared = params.bool("with_shared")?.unwrap_or(false);
    let visible_only = params.bool("shared_visible_only")?.unwrap_or(false);
    let min_access = params.int("shared_min_access_level")?;
    // Grape's `values: Gitlab::Access.all_values`: no access (0), minimal access (5), the roles.
    if min_access.is_some_and(|level| level != 0 && level != 5 && !roles::ACCESS_LEVELS.contains(&level)) {
        return Err(ApiError::InvalidValue("shared_min_access_level".into()));
    }
    let page = pagination::page(call, params)?;
    let (shown, total) = call.ctx.store.read(|db| -> ApiResult<_> {
        let mut ids: Vec<i64> = match project.group_id {
            Some(group) => store::groups::self_and_ancestor_ids(db, group)?,
            None => Vec::new(),
        };
        if with_shared {
            for link in shares::list(db, Shared::Project(project.id))? {
                if min_access.is_some_and(|level| link.group_access < level) || ids.contains(&link.group_id) {
                    continue;
                }
                if visible_only {
                    let Some(group) = store::groups::find_by_id(db, link.group_id)? else { continue };
                    if !permissions::can_see_group(db, &call.caller, &group)? {
                        continue;
                    }
                }
                ids.push(link.group_id);
            }
        }
        let mut groups: Vec<Group> = Vec::new();
        for id in ids.into_iter().filter(|id| !skip.contains(id)) {
            if let Some(group) = store::groups::find_by_id(db, id)? {
                let matches = search.as_deref().is_none_or(|term| {
                    group.name.to_lowercase().contains(term) || group.path.to_lowercase().contains(term)
                });
                if matches {
                    groups.push(group);
                }
            }
        }
        groups.sort_by_key(|g| std::cmp::Reverse(g.id));
        let total = groups.len();
        let page_of: Vec<Group> = groups.into_iter().skip(page.offset()).take(page.per_page).collect();
        let names = store::groups::full_names(db, &page_of.iter().map(|g| g.id).collect::<Vec<_>>())?;
        let shown: Vec<Obj> = page_of
            .iter()
            .map(|g| {
                let mut o = Obj::new();
                o.put("id", g.id)
                    .put("web_url", web_url(&call.base_url, g))
                    .put("name", g.name.as_str())
                    .put("avatar_url", Value::Null)
                    .put("full_name", names.get(&g.id).cloned().unwrap_or_default())
                    .put("full_path", g.full_path.as_str());
                o
            })
            .collect();
        Ok((shown, total))
    })?;
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
