//! `GET /projects/:id/repository/commits/:sha/merge_requests` (semantic-release's success
//! step): the merge requests of the project a commit belongs to, as `MergeRequestBasic`: those
//! whose latest head, merge commit or squash commit it is, and those whose latest version's
//! commits (`base..head`) hold it; `state` filters. An unknown commit is `404 Commit Not Found`.
//! The first page only, as GitLab answers it (semantic-release reads no other).

use super::list::entities;
use super::{Shas, Within};
use crate::api::{pagination, Call};
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult};
use crate::git;
use crate::params::Params;
use crate::response::Response;
use crate::store::merge_requests::{self, ListQuery};

/// How many of the project's newest merge requests are searched for the commit among their
/// commits (beyond those whose head or merge commit it is).
const SEARCHED: i64 = 100;

pub fn list(call: &Call, id: &str, sha: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::ReadMergeRequest)?;
    let repo = call.repository(&project, "Commit")?;
    let commit = git::resolve_commit(&repo, sha).map_err(|_| ApiError::NotFound("Commit"))?;
    let states = match params.string("state")?.as_deref() {
        None | Some("all") => None,
        Some(state) if merge_requests::STATES.contains(&state) => Some(vec![state.to_string()]),
        Some(_) => return Err(ApiError::InvalidValue("state".into())),
    };
    let page = pagination::page(call, params)?;
    let base = ListQuery { projects: Some(vec![project.id]), states, ..Default::default() };
    let (mut found, recent) = call.ctx.store.read(|db| -> ApiResult<_> {
        let direct = merge_requests::list(
            db,
            &ListQuery { commit_sha: Some(commit.to_string()), limit: page.per_page as i64, ..base.clone() },
        )?;
        let recent = merge_requests::list(db, &ListQuery { limit: SEARCHED, ..base.clone() })?;
        Ok((direct, recent))
    })?;
    for mr in recent {
        if found.len() >= page.per_page || found.iter().any(|f| f.id == mr.id) {
            continue;
        }
        let Some(shas) = Shas::latest(&mr)? else { continue };
        let contains = git::refs::is_ancestor(&repo, commit, shas.head).map_err(ApiError::internal)?
            && match shas.base {
                Some(base) => !git::refs::is_ancestor(&repo, commit, base).map_err(ApiError::internal)?,
                None => true,
            };
        if contains {
            found.push(mr);
        }
    }
    found.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    Ok(Response::json(200, &entities(call, &found, false, false, &Within::Project(project.id))?))
}
