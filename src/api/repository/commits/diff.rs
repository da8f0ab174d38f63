//! `GET /projects/:id/repository/commits/:sha/diff`: the commit's changes against its first
//! parent (everything, for a root commit) as `Entities::Diff`, GitLab's `diffs(expanded: true)`:
//! nothing collapsed, a patch of `diff_max_patch_bytes` or more `too_large`, the list ending at
//! the compare's hard limits. `unidiff=true` adds the `---`/`+++` lines. Offset pagination with
//! totals. Unknown: `404 Commit Not Found`.

use super::{deadline, find};
use crate::api::repository::compare::{diff_entities, DiffLimits};
use crate::api::{pagination, Call};
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git;
use crate::params::Params;
use crate::response::Response;

pub fn diff(call: &Call, id: &str, sha: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::ReadCode)?;
    let unidiff = params.bool("unidiff")?.unwrap_or(false);
    let page = pagination::page(call, params)?;
    let repo = call.repository(&project, "Commit")?;
    let info = find(&repo, sha)?;
    let deadline = deadline(call);
    let old = info.parent_ids.first().map(|&p| git::tree::commit_tree(&repo, p)).transpose().or_broken()?;
    let new = git::tree::commit_tree(&repo, info.id).or_broken()?;
    let late = || ApiError::Unavailable("the diff took longer than its time budget");
    let changes =
        call.git("diff", || git::diff::changes(&repo, old, Some(new), deadline)).or_broken()?.ok_or_else(late)?;
    let limits = DiffLimits::from_config(&call.ctx.config.limits);
    let (diffs, _) = diff_entities(&repo, &changes, &limits, unidiff, true, deadline).or_broken()?;
    let total = diffs.len();
    let items: Vec<_> = diffs.into_iter().skip(page.offset()).take(page.per_page).collect();
    let mut response = Response::json(200, &items);
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
