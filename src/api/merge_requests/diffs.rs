//! `GET /projects/:id/merge_requests/:merge_request_iid/diffs`: the Diff entities of the
//! latest version (`git diff base...head`), 20 a page by default, with offset headers and
//! totals; each patch whole (GitLab's paginated diffs are not collapsed), `too_large` past the
//! patch limit; `unidiff` prefixes the file headers.

use super::{find, limits, Shas};
use crate::api::repository::compare::diff_entities;
use crate::api::{pagination, Call};
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::response::Response;
use std::time::{Duration, Instant};

/// GitLab's default page of diffs.
const PER_PAGE: usize = 20;

pub fn diffs(call: &Call, id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let (project, mr) = find(call, id, iid)?;
    let unidiff = params.bool("unidiff")?.unwrap_or(false);
    let mut page = pagination::page(call, params)?;
    if !params.contains("per_page") {
        page.per_page = PER_PAGE;
    }
    let (entities, total) = match Shas::latest(&mr)? {
        None => (Vec::new(), 0),
        Some(shas) => {
            let repo = call.repository(&project, "Project")?;
            let deadline = Instant::now() + Duration::from_millis(call.ctx.config.limits.compare_timeout_millis);
            let changes = call.git("merge_request_diffs", || shas.changes(&repo, deadline))?;
            let shown: Vec<_> = changes.iter().skip(page.offset()).take(page.per_page).cloned().collect();
            let (entities, _) =
                diff_entities(&repo, &shown, &limits(call), unidiff, true, deadline).map_err(ApiError::internal)?;
            (entities, changes.len())
        }
    };
    let mut response = Response::json(200, &entities);
    let defaults = [("per_page", page.per_page.to_string())];
    for (name, value) in pagination::offset_headers(call, page, total, &defaults) {
        response = response.with_header(&name, value);
    }
    Ok(response)
}
