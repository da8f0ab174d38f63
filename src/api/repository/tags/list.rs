//! `GET /projects/:id/repository/tags`: every tag, ordered by `order_by` (`updated`, the
//! default: git's `creatordate`, a tag object's tagger date or a commit's committer date;
//! `name`; `version`, as `git tag --sort=version:refname`) and `sort` (`desc` by default), filtered by `search` (a substring
//! ignoring case, `^`/`$` anchors); offset pages with totals, or `pagination=keyset` pages after
//! the tag named by `page_token` (422 for a name not in the list) with only `Link: rel="next"`.
//! Tag objects are read for the page shown only, unless the order needs every tag's date.

use crate::api::repository::branches::list::search_matches;
use crate::api::{pagination, Call};
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git;
use crate::params::Params;
use crate::response::Response;
use serde_json::Value;
use std::cmp::Ordering;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    Updated,
    Name,
    Version,
}

/// Compares like git's `versioncmp` without suffix rules: runs of digits by their value, the
/// rest byte by byte.
pub fn version_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let (si, sj) = (i, j);
            while i < a.len() && a[i].is_ascii_digit() {
                i += 1;
            }
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let (x, y) = (trim_zeros(&a[si..i]), trim_zeros(&b[sj..j]));
            let order = x.len().cmp(&y.len()).then_with(|| x.cmp(y));
            if order != Ordering::Equal {
                return order;
            }
        } else {
            if a[i] != b[j] {
                return a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i).cmp(&(b.len() - j))
}

fn trim_zeros(digits: &[u8]) -> &[u8] {
    let start = digits.iter().position(|d| *d != b'0').unwrap_or(digits.len());
    &digits[start..]
}

pub fn list(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadCode)?;
    let keyset = pagination::is_keyset(params)?;
    let order = match params.string("order_by")?.as_deref() {
        None | Some("updated") => Order::Updated,
        Some("name") => Order::Name,
        Some("version") => Order::Version,
        Some(_) => return Err(ApiError::InvalidValue("order_by".into())),
    };
    let descending = match params.string("sort")?.as_deref() {
        None | Some("desc") => true,
        Some("asc") => false,
        Some(_) => return Err(ApiError::InvalidValue("sort".into())),
    };
    let search = params.string("search")?.filter(|s| !s.is_empty());
    let page = pagination::page(call, params)?;
    let token = params.string("page_token")?.filter(|s| !s.is_empty());

    let repo = call.repository(&project, "Tag")?;
    let mut tags: Vec<(String, gix::ObjectId)> = git::refs::tag_refs(&repo)
        .or_broken()?
        .into_iter()
        .filter(|(name, _)| search.as_deref().is_none_or(|term| search_matches(term, name)))
        .collect();
    match order {
        // Stable sorts of the name-sorted list, each direction: equal keys keep the names'
        // ascending order, as git breaks ties by refname whichever way it sorts.
        Order::Name if descending => tags.reverse(),
        Order::Name => {}
        Order::Version if descending => tags.sort_by(|a, b| version_cmp(&b.0, &a.0)),
        Order::Version => tags.sort_by(|a, b| version_cmp(&a.0, &b.0)),
        Order::Updated => {
            // git's `--sort=creatordate` (GitLab's `updated`, through Gitaly).
            let targets: Vec<gix::ObjectId> = tags.iter().map(|(_, target)| *target).collect();
            let dates = git::refs::creator_dates(&repo, &targets);
            let mut dated: Vec<(i64, (String, gix::ObjectId))> = dates.into_iter().zip(tags).collect();
            if descending {
                dated.sort_by_key(|(seconds, _)| std::cmp::Reverse(*seconds));
            } else {
                dated.sort_by_key(|(seconds, _)| *seconds);
            }
            tags = dated.into_iter().map(|(_, tag)| tag).collect();
        }
    }

    let project_url = call.web_url(&project.full_path);
    let releases = super::releases_of(call, project.id)?;
    let entity_of = |(name, target): &(String, gix::ObjectId)| -> ApiResult<Value> {
        let tag = git::refs::tag_of(&repo, name.clone(), *target).or_broken()?;
        let mut value = super::entity(&repo, &project_url, &tag)?;
        if let Some(release) = releases.get(name) {
            value["release"] = release.clone();
        }
        Ok(value)
    };
    if keyset {
        let start = match &token {
            None => 0,
            Some(token) => tags
                .iter()
                .position(|(name, _)| name == token)
                .map(|i| i + 1)
                .ok_or_else(|| ApiError::Unprocessable("Invalid page token".into()))?,
        };
        let shown: Vec<&(String, gix::ObjectId)> = tags.iter().skip(start).take(page.per_page).collect();
        let entities = shown.iter().map(|t| entity_of(t)).collect::<ApiResult<Vec<Value>>>()?;
        let mut response = Response::json(200, &Value::Array(entities));
        if shown.len() == page.per_page && start + shown.len() < tags.len() {
            if let Some((last, _)) = shown.last() {
                let overrides = [("per_page", page.per_page.to_string()), ("page_token", last.clone())];
                response.headers.push(pagination::keyset_next(call, &overrides));
            }
        }
        return Ok(response);
    }
    let total = tags.len();
    let entities =
        tags.iter().skip(page.offset()).take(page.per_page).map(entity_of).collect::<ApiResult<Vec<Value>>>()?;
    let mut response = Response::json(200, &Value::Array(entities));
    response.headers.extend(pagination::offset_headers(call, page, total, &[]));
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::version_cmp;
    use std::cmp::Ordering::*;

    #[test]
    fn versions_compare_by_the_value_of_their_numbers() {
        for (a, b, expected) in [
            ("v1.2.0", "v1.10.0", Less),
            ("v1.10.0", "v1.9.0", Greater),
            ("v2.0.0", "v2.0.0-rc1", Less),
            ("v01", "v1", Equal),
            ("light", "v1.0.0", Less),
            ("1.0", "1.0", Equal),
        ] {
            assert_eq!(version_cmp(a, b), expected, "{a} {b}");
        }
    }
}
