//! `GET /projects/:id/merge_requests/:merge_request_iid` (reference §1, §2.2): the full
//! entity; `include_diverged_commits_count` adds the commits on the target branch that the
//! source does not have, `include_rebase_in_progress` whether a rebase runs (none does between
//! requests here), and `first_contribution` whether the author had no merge request of the
//! project merged before.

use super::{find, full_of, Extras};
use crate::api::Call;
use crate::error::{ApiResult, GitResultExt};
use crate::events::refresh::branch_tip;
use crate::git;
use crate::params::Params;
use crate::response::Response;
use crate::store::merge_requests::{self, ListQuery};
use std::time::{Duration, Instant};

pub fn get(call: &Call, id: &str, iid: &str, params: &Params) -> ApiResult<Response> {
    let (project, mr) = find(call, id, iid)?;
    for flag in ["render_html", "include_diverged_commits_count", "include_rebase_in_progress"] {
        params.bool(flag)?;
    }
    let mut extras = Extras::default();
    if params.bool("include_diverged_commits_count")?.unwrap_or(false) {
        let repo = call.repository(&project, "Project")?;
        let count = match (branch_tip(&repo, &mr.target_branch)?, mr.head_sha.as_deref()) {
            (Some(target), Some(head)) => {
                let head = gix::ObjectId::from_hex(head.as_bytes()).map_err(crate::error::ApiError::internal)?;
                let deadline = Instant::now() + Duration::from_secs(10);
                git::range::ids(&repo, head, target, usize::MAX, deadline).or_broken()?.map_or(0, |c| c.len())
            }
            _ => 0,
        };
        extras.diverged_commits_count = Some(count);
    }
    if params.bool("include_rebase_in_progress")?.unwrap_or(false) {
        extras.rebase_in_progress = Some(false);
    }
    let earlier = match mr.author_id {
        Some(author) => call.ctx.store.read(|db| {
            merge_requests::count(
                db,
                &ListQuery {
                    projects: Some(vec![project.id]),
                    states: Some(vec!["merged".into()]),
                    author: Some(author),
                    not_iids: Some(vec![mr.iid]),
                    ..Default::default()
                },
            )
        })?,
        None => 1,
    };
    extras.first_contribution = Some(earlier == 0);
    Ok(Response::json(200, &full_of(call, &project, &mr, extras)?))
}
