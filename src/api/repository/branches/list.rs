//! `GET /projects/:id/repository/branches`: every branch, by name (`sort`: `name_asc`,
//! `updated_asc`, `updated_desc`), filtered by `search` (a substring ignoring case; `^term`
//! a prefix, `term$` a suffix) or `regex` (RE2 syntax, linear time); offset pages with totals,
//! or `pagination=keyset` pages after the branch named by `page_token` with only a
//! `Link: rel="next"`. Commits are read for the page shown only (and for every branch when
//! sorted by update).

use super::Scope;
use crate::api::{pagination, Call};
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git::refs::Branch;
use crate::params::Params;
use crate::response::Response;
use serde_json::Value;

/// Longest `regex` accepted, and the size its compiled form may reach.
const MAX_REGEX_BYTES: usize = 1024;
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// A name filter of `search`: GitLab's `^`/`$` anchors, else a substring, ignoring case.
pub fn search_matches(term: &str, name: &str) -> bool {
    let (name, term) = (name.to_lowercase(), term.to_lowercase());
    match (term.strip_prefix('^'), term.strip_suffix('$')) {
        (Some(prefix), _) if prefix.ends_with('$') => name == prefix[..prefix.len() - 1],
        (Some(prefix), None) => name.starts_with(prefix),
        (None, Some(suffix)) => name.ends_with(suffix),
        _ => name.contains(&term),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sort {
    Name,
    UpdatedAsc,
    UpdatedDesc,
}

pub fn list(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadCode)?;
    let keyset = pagination::is_keyset(params)?;
    let sort = match params.string("sort")?.as_deref() {
        None | Some("name_asc") => Sort::Name,
        Some("updated_asc") => Sort::UpdatedAsc,
        Some("updated_desc") => Sort::UpdatedDesc,
        Some(_) => return Err(ApiError::InvalidValue("sort".into())),
    };
    let search = params.string("search")?.filter(|s| !s.is_empty());
    let regex = match params.string("regex")?.filter(|s| !s.is_empty()) {
        None => None,
        Some(text) if text.len() > MAX_REGEX_BYTES => return Err(ApiError::InvalidParam("regex".into())),
        Some(text) => Some(
            regex::RegexBuilder::new(&text)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map_err(|_| ApiError::InvalidParam("regex".into()))?,
        ),
    };
    let page = pagination::page(call, params)?;
    let token = params.string("page_token")?.filter(|s| !s.is_empty());

    let scope = Scope::new(call, project)?;
    let mut branches: Vec<Branch> = crate::git::refs::branches(&scope.repo)
        .or_broken()?
        .into_iter()
        .filter(|b| search.as_deref().is_none_or(|term| search_matches(term, &b.name)))
        .filter(|b| regex.as_ref().is_none_or(|re| re.is_match(&b.name)))
        .collect();
    if sort != Sort::Name {
        let mut dated = Vec::with_capacity(branches.len());
        for branch in branches {
            // An unreadable tip (a corrupt pack) sorts as the oldest; its entity says the rest.
            let seconds = crate::git::commit::read(&scope.repo, branch.tip).map_or(i64::MIN, |c| c.committer.seconds);
            dated.push((seconds, branch));
        }
        // A stable sort of the name-sorted list: equal times keep the names' order, as git's
        // `--sort=refname --sort=-committerdate` does.
        if sort == Sort::UpdatedDesc {
            dated.sort_by_key(|(seconds, _)| std::cmp::Reverse(*seconds));
        } else {
            dated.sort_by_key(|(seconds, _)| *seconds);
        }
        branches = dated.into_iter().map(|(_, branch)| branch).collect();
    }

    if keyset {
        let start = match &token {
            None => 0,
            Some(token) if sort == Sort::Name => branches.partition_point(|b| b.name.as_bytes() <= token.as_bytes()),
            Some(token) => branches
                .iter()
                .position(|b| &b.name == token)
                .map(|i| i + 1)
                .ok_or_else(|| ApiError::Unprocessable("Invalid page token: no branch of that name".into()))?,
        };
        let shown: Vec<&Branch> = branches.iter().skip(start).take(page.per_page).collect();
        let entities = shown.iter().map(|b| scope.entity(b)).collect::<ApiResult<Vec<Value>>>()?;
        let mut response = Response::json(200, &Value::Array(entities));
        if shown.len() == page.per_page && start + shown.len() < branches.len() {
            if let Some(last) = shown.last() {
                let overrides = [("per_page", page.per_page.to_string()), ("page_token", last.name.clone())];
                response.headers.push(pagination::keyset_next(call, &overrides));
            }
        }
        return Ok(response);
    }
    let total = branches.len();
    let entities = branches
        .iter()
        .skip(page.offset())
        .take(page.per_page)
        .map(|b| scope.entity(b))
        .collect::<ApiResult<Vec<Value>>>()?;
    let mut response = Response::json(200, &Value::Array(entities));
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}
