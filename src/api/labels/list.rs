//! `GET /projects/:id/labels` (`search`: a substring of the title, ignoring case;
//! `with_counts`): the project's labels by title, in offset pages.

use super::{counts, entity, project};
use crate::api::{pagination, Call};
use crate::auth::permissions::ProjectAbility;
use crate::error::ApiResult;
use crate::params::Params;
use crate::response::Response;
use crate::store::labels;

pub fn list(call: &Call, project_id: &str, params: &Params) -> ApiResult<Response> {
    let project = project(call, project_id, ProjectAbility::Read)?;
    let search = params.string("search")?.filter(|s| !s.is_empty());
    let with_counts = params.bool("with_counts")?.unwrap_or(false);
    let page = pagination::page(call, params)?;
    let (shown, total) = call.ctx.store.read(|db| -> ApiResult<_> {
        let all = labels::list(db, project.id, search.as_deref())?;
        let total = all.len();
        let mut shown = Vec::new();
        for label in all.into_iter().skip(page.offset()).take(page.per_page) {
            let c = if with_counts { Some(counts(db, &label)?) } else { None };
            shown.push(entity(&label, c));
        }
        Ok((shown, total))
    })?;
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
