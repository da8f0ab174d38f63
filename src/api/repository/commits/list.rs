//! `GET /projects/:id/repository/commits`: what `git log` lists, a page at a time
//! (`gitlab-repository-families.md` §2.1).
//!
//! - `ref_name`: a branch, tag, SHA, `HEAD` or revision (`main~2`), or a range `a..b` (an empty
//!   side is HEAD) or `a...b` (what either has and not both); absent or `""` is the default
//!   branch. An unknown ref and an empty repository answer `200 []`. A leading `-` or
//!   whitespace inside is 400 `{"message":"ref_name is invalid"}`, as are NUL and reflog forms.
//! - `since`/`until` (ISO 8601, committer dates), `path`, `author` (git's basic
//!   regular expression, found in `Name <email>`; `""` is no filter), `all` (every ref; `ref_name` ignored),
//!   `first_parent`, `order` (`default` | `topo`), `with_stats` (each entity gains `stats`),
//!   `trailers` (fills `trailers`/`extended_trailers`, else both `{}`).
//! - Offset pagination without totals: `X-Next-Page` and `rel="next"` only when the page is full.
//!   The walk stops once the page is filled (see `git::log`).

use super::{commit_stats, deadline, entity_of, entity_with_trailers};
use crate::api::{pagination, Call};
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git::{self, log, ResolveError};
use crate::params::{plausible_revision, Params};
use crate::response::Response;
use forgecore_changelog::strftime::DateTime;
use serde_json::Value;

/// What `ref_name` asks for.
enum Revisions {
    /// The default branch (HEAD).
    Head,
    One(String),
    /// `from..to`, or `from...to` when symmetric; `None` on a side is HEAD.
    Range {
        from: Option<String>,
        to: Option<String>,
        symmetric: bool,
    },
    /// Every ref (`all=true`).
    All,
}

fn ref_name(params: &Params) -> ApiResult<Revisions> {
    let invalid = || ApiError::validation("ref_name is invalid");
    let Some(text) = params.string("ref_name")? else { return Ok(Revisions::Head) };
    if text.is_empty() {
        return Ok(Revisions::Head);
    }
    if text.starts_with('-') || text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(invalid());
    }
    let range = match text.split_once("...") {
        Some((from, to)) => Some((from, to, true)),
        None => text.split_once("..").map(|(from, to)| (from, to, false)),
    };
    if let Some((from, to, symmetric)) = range {
        let side = |s: &str| -> ApiResult<Option<String>> {
            match s {
                "" => Ok(None),
                s if plausible_revision(s) => Ok(Some(s.to_string())),
                _ => Err(invalid()),
            }
        };
        return Ok(Revisions::Range { from: side(from)?, to: side(to)?, symmetric });
    }
    if !plausible_revision(&text) {
        return Err(invalid());
    }
    Ok(Revisions::One(text))
}

fn date(params: &Params, name: &str) -> ApiResult<Option<i64>> {
    match params.string(name)? {
        None => Ok(None),
        Some(text) => {
            DateTime::parse(&text).map(|d| Some(d.seconds)).ok_or_else(|| ApiError::InvalidParam(name.into()))
        }
    }
}

fn filter(params: &Params) -> ApiResult<log::Filter> {
    let topo = match params.string("order")?.as_deref() {
        None | Some("default") => false,
        Some("topo") => true,
        Some(_) => return Err(ApiError::InvalidValue("order".into())),
    };
    let path = params.string("path")?.and_then(|path| {
        let components: Vec<Vec<u8>> =
            path.trim_matches('/').split('/').filter(|c| !c.is_empty()).map(|c| c.as_bytes().to_vec()).collect();
        (!components.is_empty()).then_some(components)
    });
    Ok(log::Filter {
        since: date(params, "since")?,
        until: date(params, "until")?,
        author: params.string("author")?.filter(|a| !a.is_empty()).map(|a| git::log::AuthorPattern::new(&a)),
        path,
        first_parent: params.bool("first_parent")?.unwrap_or(false),
        topo,
    })
}

pub fn list(call: &Call, id: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id, ProjectAbility::ReadCode)?;
    let mut revisions = ref_name(params)?;
    let filter = filter(params)?;
    if params.bool("all")?.unwrap_or(false) {
        revisions = Revisions::All;
    }
    let with_stats = params.bool("with_stats")?.unwrap_or(false);
    let trailers = params.bool("trailers")?.unwrap_or(false);
    let page = pagination::page(call, params)?;
    let repo = call.repository(&project, "Repository")?;
    let deadline = deadline(call);
    let window = log::Window { skip: page.offset(), take: page.per_page };
    // Unknown names (and an unborn HEAD) list nothing, as GitLab answers them.
    let resolve = |name: Option<&str>| match git::resolve_or_head(&repo, name) {
        Ok(id) => Ok(Some(id)),
        Err(ResolveError::Unknown) => Ok(None),
        Err(e) => Err(ApiError::internal(e)),
    };
    let late = || ApiError::Unavailable("the commits list took longer than its time budget");
    let ids = match &revisions {
        Revisions::Head | Revisions::One(_) => {
            let name = match &revisions {
                Revisions::One(name) => Some(name.as_str()),
                _ => None,
            };
            match resolve(name)? {
                None => Vec::new(),
                Some(tip) => log::page(&repo, &[tip], &filter, window, deadline).or_broken()?.ok_or_else(late)?,
            }
        }
        Revisions::All => {
            let tips = log::all_tips(&repo).or_broken()?;
            log::page(&repo, &tips, &filter, window, deadline).or_broken()?.ok_or_else(late)?
        }
        Revisions::Range { from, to, symmetric } => match (resolve(from.as_deref())?, resolve(to.as_deref())?) {
            (Some(from), Some(to)) => {
                // git's command line: `from..to` is `^from to`; `from...to` is `^<every merge
                // base> from to`.
                let tips: Vec<(gix::ObjectId, bool)> = if *symmetric {
                    let bases = git::merge_base::all(&repo, from, to).or_broken()?;
                    bases.into_iter().map(|b| (b, true)).chain([(from, false), (to, false)]).collect()
                } else {
                    vec![(from, true), (to, false)]
                };
                log::range_page(&repo, &tips, &filter, window, deadline).or_broken()?.ok_or_else(late)?
            }
            _ => Vec::new(),
        },
    };
    let project_url = call.web_url(&project.full_path);
    let mut items = Vec::with_capacity(ids.len());
    for id in ids {
        let info = git::commit::read(&repo, id).or_broken()?;
        let mut value: Value =
            if trailers { entity_with_trailers(&project_url, &info) } else { entity_of(&project_url, &info) };
        if with_stats {
            value["stats"] = commit_stats(&repo, &info, deadline)?;
        }
        items.push(value);
    }
    let mut response = Response::json(200, &items);
    response.headers.extend(pagination::headers_without_total(call, page, items.len()));
    Ok(response)
}
