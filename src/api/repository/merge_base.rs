//! B7: `GET /projects/:id/repository/merge_base?refs[]=a&refs[]=b[...]`: the commit
//! `git merge-base <ref1> <ref2> ...` prints (decisions D5).

use super::commits;
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git::{self, ResolveError};
use crate::params::Params;
use crate::response::Response;

pub fn get(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadCode)?;
    let refs = params.string_list("refs")?.ok_or_else(|| ApiError::MissingParam("refs".into()))?;
    if refs.len() < 2 {
        return Err(ApiError::validation("Provide at least 2 refs"));
    }
    let max_refs = call.ctx.config.limits.max_refs as usize;
    if refs.len() > max_refs {
        return Err(ApiError::validation(format!("Provide at most {max_refs} refs")));
    }
    let repo = call.repository(&project, "Merge Base")?;
    let mut ids = Vec::with_capacity(refs.len());
    let mut missing = Vec::new();
    for name in &refs {
        match git::resolve_commit(&repo, name) {
            Ok(id) => ids.push(id),
            Err(ResolveError::Unknown) => missing.push(name.as_str()),
            Err(e) => return Err(ApiError::internal(e)),
        }
    }
    match missing.as_slice() {
        [] => {}
        [one] => return Err(ApiError::validation(format!("Could not find ref: {one}"))),
        many => return Err(ApiError::validation(format!("Could not find refs: {}", many.join(", ")))),
    }
    let names: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
    let key = format!("merge_base\0{}\0{}", call.git_dir(&project)?.display(), names.join("\0"));
    let base = call
        .ctx
        .caches
        .answers
        .get_or_compute(key, |_| 64, || call.git("merge_base", || git::merge_base::best(&repo, ids[0], &ids[1..])))
        .or_broken()?;
    let base = base.ok_or(ApiError::NotFound("Merge Base"))?;
    let info = git::commit::read(&repo, base).or_broken()?;
    Ok(Response::json(200, &commits::entity(call, &project, &info)))
}
