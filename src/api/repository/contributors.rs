//! B6: `GET /projects/:id/repository/contributors` (decisions D5): every non-merge commit
//! reachable from `ref`, grouped by exact author email; offset pagination.

use crate::api::pagination;
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git::{self, contributors::Contributor, ResolveError};
use crate::params::Params;
use crate::response::Response;
use serde_json::json;
use std::cmp::Ordering;

#[derive(Clone, Copy, PartialEq, Eq)]
enum OrderBy {
    /// Each contributor's most recent commit (the default, newest first).
    Date,
    Name,
    Email,
    Commits,
}

fn order(params: &Params) -> ApiResult<(OrderBy, bool)> {
    let order_by = match params.string("order_by")?.as_deref() {
        None => OrderBy::Date,
        Some("name") => OrderBy::Name,
        Some("email") => OrderBy::Email,
        Some("commits") => OrderBy::Commits,
        Some(_) => return Err(ApiError::InvalidValue("order_by".into())),
    };
    let descending = match params.string("sort")?.as_deref() {
        None => order_by == OrderBy::Date,
        Some("asc") => false,
        Some("desc") => true,
        Some(_) => return Err(ApiError::InvalidValue("sort".into())),
    };
    Ok((order_by, descending))
}

fn compare(order_by: OrderBy, a: &Contributor, b: &Contributor) -> Ordering {
    let primary = match order_by {
        // Log order: the more recent is the one git log prints first.
        OrderBy::Date => b.newest.cmp(&a.newest),
        OrderBy::Name => a.name.to_lowercase().cmp(&b.name.to_lowercase()),
        OrderBy::Email => a.email.to_lowercase().cmp(&b.email.to_lowercase()),
        OrderBy::Commits => a.commits.cmp(&b.commits),
    };
    primary.then_with(|| a.email.cmp(&b.email))
}

pub fn list(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadCode)?;
    let (order_by, descending) = order(params)?;
    let page = pagination::page(call, params)?;
    let revision = params.revision("ref")?;
    let repo = call.repository(&project, "")?;
    let git_dir = call.git_dir(&project)?;
    let mut contributors = match git::resolve_or_head(&repo, revision.as_deref()) {
        // One walk per tip, whatever the page, order or caller: the answer is the tip's.
        Ok(tip) => {
            let key = format!("contributors\0{}\0{tip}", git_dir.display());
            let weigh = |all: &Vec<Contributor>| all.iter().map(|c| c.name.len() + c.email.len() + 64).sum();
            let all = call
                .ctx
                .caches
                .answers
                .get_or_compute(key, weigh, || call.git("contributors", || git::contributors::collect(&repo, tip)))
                .or_broken()?;
            all.as_ref().clone()
        }
        // An empty repository has no contributors; an unknown ref is GitLab's bare 404.
        Err(ResolveError::Unknown) if revision.is_none() => Vec::new(),
        Err(ResolveError::Unknown) => return Err(ApiError::NotFound("")),
        Err(e) => return Err(ApiError::internal(e)),
    };
    contributors.sort_by(|a, b| {
        let ordering = compare(order_by, a, b);
        if descending {
            ordering.reverse()
        } else {
            ordering
        }
    });
    let total = contributors.len();
    let items: Vec<_> = contributors
        .iter()
        .skip(page.offset())
        .take(page.per_page)
        .map(|c| json!({"name": c.name, "email": c.email, "commits": c.commits, "additions": 0, "deletions": 0}))
        .collect();
    let mut response = Response::json(200, &items);
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
