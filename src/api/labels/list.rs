//! `GET /projects/:id/labels` and `GET /groups/:id/labels` (`search`: a substring of the
//! title, ignoring case; `with_counts`; `include_ancestor_groups`, true by default: the labels
//! of the parent's ancestor groups too; for a group `include_descendant_groups`, false by
//! default: its subgroups' labels too): the labels by title, in offset pages.

use super::{counts, entity, Need, Parent, Scope};
use crate::api::{pagination, Call};
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::labels::{self, Available};

pub fn list(call: &Call, scope: Scope, params: &Params) -> ApiResult<Response> {
    let parent = Parent::of(call, scope, Need::Read)?;
    let search = params.string("search")?.filter(|s| !s.is_empty());
    let with_counts = params.bool("with_counts")?.unwrap_or(false);
    let ancestors = params.bool("include_ancestor_groups")?.unwrap_or(true);
    let descendants = params.bool("include_descendant_groups")?.unwrap_or(false);
    let page = pagination::page(call, params)?;
    let (shown, total) = call.ctx.store.read(|db| -> ApiResult<_> {
        let mut available = if ancestors { parent.available(db)? } else { Available::only(parent.owner()) };
        if let (Parent::Group(group), true) = (&parent, descendants) {
            for id in crate::store::groups::group_and_descendant_ids(db, group.id)? {
                if !available.group_ids.contains(&id) {
                    available.group_ids.push(id);
                }
            }
        }
        let all = labels::list(db, &available, search.as_deref())?;
        let total = all.len();
        let mut shown = Vec::new();
        for label in all.into_iter().skip(page.offset()).take(page.per_page) {
            let c = if with_counts { Some(counts(db, &label)?) } else { None };
            shown.push(entity(call, db, &parent, &label, c)?);
        }
        Ok((shown, total))
    })?;
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
