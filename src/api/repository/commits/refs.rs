//! `GET /projects/:id/repository/commits/:sha/refs?type=branch|tag|all`: the branches, then
//! the tags, that contain the commit (`git branch --contains`, `git tag --contains`), each
//! `{type, name}` in name order. As GitLab does, each kind is cut at `per_page` names before
//! the combined list is paged (with totals). Unknown: `404 Commit Not Found`.

use super::find;
use crate::api::{pagination, Call};
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git::log;
use crate::params::Params;
use crate::response::Response;
use gix::bstr::ByteSlice;
use serde_json::json;

/// The short names and commits of the references under `prefix` that peel to a commit, in
/// name order.
fn named_commits(repo: &gix::Repository, prefix: &str) -> ApiResult<Vec<(String, gix::ObjectId)>> {
    let platform = repo.references().map_err(ApiError::internal)?;
    let mut out = Vec::new();
    for reference in platform.prefixed(prefix).map_err(ApiError::internal)? {
        let Ok(mut reference) = reference else { continue };
        let Some(name) =
            reference.name().as_bstr().strip_prefix(prefix.as_bytes()).map(|n| n.to_str_lossy().into_owned())
        else {
            continue;
        };
        let Ok(id) = reference.peel_to_id() else { continue };
        if let Ok(commit) = id.object().and_then(|o| o.peel_to_commit()) {
            out.push((name, commit.id));
        }
    }
    out.sort();
    Ok(out)
}

pub fn refs(call: &Call, id: &str, sha: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::ReadCode)?;
    let (branches, tags) = match params.string("type")?.as_deref() {
        None | Some("all") => (true, true),
        Some("branch") => (true, false),
        Some("tag") => (false, true),
        Some(_) => return Err(ApiError::InvalidValue("type".into())),
    };
    let page = pagination::page(call, params)?;
    let repo = call.repository(&project, "Commit")?;
    let target = find(&repo, sha)?.id;
    let mut items = Vec::new();
    for (wanted, prefix, kind) in [(branches, "refs/heads/", "branch"), (tags, "refs/tags/", "tag")] {
        if !wanted {
            continue;
        }
        let named = named_commits(&repo, prefix)?;
        let tips: Vec<gix::ObjectId> = named.iter().map(|(_, id)| *id).collect();
        let answers = log::contains(&repo, target, &tips).or_broken()?;
        let containing = named.into_iter().zip(answers).filter(|(_, yes)| *yes).map(|((name, _), _)| name);
        items.extend(containing.take(page.per_page).map(|name| json!({"type": kind, "name": name})));
    }
    let total = items.len();
    let shown: Vec<_> = items.into_iter().skip(page.offset()).take(page.per_page).collect();
    let mut response = Response::json(200, &shown);
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
