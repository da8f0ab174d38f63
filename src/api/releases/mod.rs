//! Releases (issue #42, `gitlab-hooks-releases-statuses.md` §2, D12): list, get, create,
//! update, delete, `permalink/latest`, a group's releases, and a release's asset links
//! ([`links`]); one file per operation. This module builds GitLab's Release entity once, in
//! its key order (`lib/api/entities/release.rb`): `name`, `tag_name`, `description`,
//! `created_at`, `released_at`, `upcoming_release`, `description_html` (only when asked),
//! `author`, `commit`, `commit_path`, `tag_path`, `assets {count, sources, links}`,
//! `evidences`, `_links`. `commit`, `assets.sources` and `evidences` only for callers who read
//! the code, as GitLab. `assets.sources` are the four formats of Workhorse's `ARCHIVE_FORMATS`
//! order (`zip`, `tar.gz`, `tar.bz2`, `tar`), as URLs of the archive route this forge serves
//! (`/api/v4/projects/:id/repository/archive.<fmt>?sha=<tag>`: GitLab's web route
//! `/-/archive/...` is not served here). No milestones (not kept), no evidences (no evidence
//! collection), and of `_links` only `self` and `edit_url` (GitLab's issue and merge-request
//! URLs are behind the `release_mr_issue_urls` flag).

pub mod create;
pub mod delete;
pub mod get;
pub mod latest;
pub mod links;
pub mod list;
pub mod update;

use crate::api::ordered::{self, object, raw, v, Node};
use crate::api::repository::commits::CommitEntity;
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult};
use crate::events::{Event, ReleaseAction, ReleaseChanged};
use crate::git;
use crate::store::projects::Project;
use crate::store::releases::{self, Link, Release};
use crate::store::{self, Db};
use forgecore_date::{days_from_civil, rfc3339};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::Value;

/// Workhorse's `ARCHIVE_FORMATS`, in order.
const ARCHIVE_FORMATS: [&str; 4] = ["zip", "tar.gz", "tar.bz2", "tar"];

/// What the caller may do with a project's releases.
#[derive(Debug, Clone, Copy)]
pub struct Rights {
    pub read_code: bool,
    pub update: bool,
}

impl Rights {
    pub fn of(call: &Call, project: &Project) -> ApiResult<Rights> {
        call.ctx.store.read(|db| -> ApiResult<_> {
            let may = |db: &mut Db, ability| match permissions::authorize_project(db, &call.caller, project, ability) {
                Ok(()) => Ok(true),
                Err(ApiError::Forbidden(_) | ApiError::Unauthorized | ApiError::NotFound(_)) => Ok(false),
                Err(e) => Err(e),
            };
            Ok(Rights {
                read_code: may(db, ProjectAbility::ReadCode)?,
                update: may(db, ProjectAbility::ManageRelease)?,
            })
        })
    }
}

/// `text` with `&`, `<`, `>` and `"` escaped.
fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A description as HTML: each paragraph (blank-line separated) escaped inside `<p dir="auto">`,
/// GitLab's Markdown reduced to its paragraphs (no Markdown renderer is part of this forge).
pub fn description_html(description: &str) -> String {
    description
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| format!("<p dir=\"auto\">{}</p>", escape_html(p).replace('\n', "<br>\n")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a path segment or query value keeps as it is: RFC 3986's unreserved characters.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// `text` as one path segment (every `/` encoded).
pub fn segment(text: &str) -> String {
    utf8_percent_encode(text, UNRESERVED).to_string()
}

/// GitLab's Link entity: `id`, `name`, `url`, `direct_asset_url`, `external`, `link_type`.
pub fn link_entity(call: &Call, project: &Project, release: &Release, link: &Link) -> Node {
    let web_url = call.web_url(&project.full_path);
    let direct = match &link.filepath {
        Some(path) => format!("{web_url}/-/releases/{}/downloads{path}", release.tag_name),
        None => link.url.clone(),
    };
    object(vec![
        ("id", v(link.id)),
        ("name", v(&link.name)),
        ("url", v(&link.url)),
        ("direct_asset_url", v(direct)),
        ("external", v(!link.url.starts_with(&web_url))),
        ("link_type", v(&link.link_type)),
    ])
}

/// The Release entity of `release` for a caller with `rights`; `html` adds `description_html`.
pub fn entity(
    call: &Call,
    project: &Project,
    repo: Option<&gix::Repository>,
    release: &Release,
    rights: Rights,
    html: bool,
) -> ApiResult<Node> {
    let web_url = call.web_url(&project.full_path);
    let (author, links) = call.ctx.store.read(|db| -> ApiResult<_> {
        let author = match release.author_id {
            Some(id) => store::users::find_by_id(db, id)?,
            None => None,
        };
        Ok((author, releases::links(db, release.id)?))
    })?;
    let mut out: Vec<(&'static str, Node)> = vec![
        ("name", v(&release.name)),
        ("tag_name", v(&release.tag_name)),
        ("description", v(&release.description)),
        ("created_at", v(rfc3339(release.created_at, 0))),
        ("released_at", v(rfc3339(release.released_at, 0))),
        ("upcoming_release", v(release.released_at > store::now_seconds())),
    ];
    if html {
        out.push(("description_html", v(description_html(&release.description))));
    }
    if let Some(author) = &author {
        out.push(("author", ordered::user(call, author).into()));
    }
    if rights.read_code {
        let commit = match (repo, &release.sha) {
            (Some(repo), Some(sha)) => gix::ObjectId::from_hex(sha.as_bytes())
                .ok()
                .and_then(|id| git::commit::read(repo, id).ok())
                .map(|info| raw(&CommitEntity::of(&web_url, &info))),
            _ => None,
        };
        out.push(("commit", commit.unwrap_or(Node::V(Value::Null))));
    }
    if let Some(sha) = &release.sha {
        out.push(("commit_path", v(format!("/{}/-/commit/{sha}", project.full_path))));
    }
    out.push(("tag_path", v(format!("/{}/-/tags/{}", project.full_path, release.tag_name))));
    let link_nodes: Vec<Node> = links.iter().map(|link| link_entity(call, project, release, link)).collect();
    let mut assets = vec![("count", v(link_nodes.len() + if rights.read_code { ARCHIVE_FORMATS.len() } else { 0 }))];
    if rights.read_code {
        let sources = ARCHIVE_FORMATS
            .iter()
            .map(|format| {
                let url = format!(
                    "{}/api/v4/projects/{}/repository/archive.{format}?sha={}",
                    call.base_url,
                    project.id,
                    segment(&release.tag_name)
                );
                object(vec![("format", v(format)), ("url", v(url))])
            })
            .collect();
        assets.push(("sources", Node::Arr(sources)));
    }
    assets.push(("links", Node::Arr(link_nodes)));
    out.push(("assets", object(assets)));
    if rights.read_code {
        out.push(("evidences", Node::Arr(Vec::new())));
    }
    let self_url = format!("{web_url}/-/releases/{}", segment(&release.tag_name));
    let mut links = Vec::new();
    if rights.update {
        links.push(("edit_url", v(format!("{self_url}/edit"))));
    }
    links.push(("self", v(self_url)));
    out.push(("_links", object(links)));
    Ok(object(out))
}

/// The project's release of `tag_name`, else 404 `404 Not Found` (GitLab's `not_found!` with
/// no name, V `lib/api/releases.rb`).
pub fn find(call: &Call, project: &Project, tag_name: &str) -> ApiResult<Release> {
    call.ctx.store.read(|db| releases::find(db, project.id, tag_name))?.ok_or(ApiError::NotFound(""))
}

/// The project's repository when this host can open it (a release reads its commit there).
pub fn repository(call: &Call, project: &Project) -> Option<gix::Repository> {
    call.repository(project, "Release").ok()
}

/// The event of a release change by the caller: recorded by the durable listeners in the
/// transaction making the change ([`crate::events::Events::record`]), heard once it is done.
pub fn event(call: &Call, release: &Release, action: ReleaseAction) -> Event {
    Event::Release(ReleaseChanged {
        project_id: release.project_id,
        release_id: release.id,
        tag_name: release.tag_name.clone(),
        action,
        user_id: call.caller.user().map(|u| u.id),
    })
}

/// An ISO 8601 time (`2024-01-31`, `2024-01-31T10:00:00Z`, `...T10:00:00.123+02:00`) as
/// seconds since the epoch; `None` when it is not one.
pub fn parse_time(text: &str) -> Option<i64> {
    let text = text.trim();
    let (date, rest) = text.split_at(text.len().min(10));
    let mut parts = date.split('-');
    let year: i64 = parts.next()?.parse().ok()?;
    let month: u32 = parts.next()?.parse().ok()?;
    let day: u32 = parts.next()?.parse().ok()?;
    if date.len() != 10 || !(1..=12).contains(&month) || day < 1 || day > forgecore_date::days_in_month(year, month) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    if rest.is_empty() {
        return Some(days * 86_400);
    }
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    let (clock, zone) = match rest.find(['Z', 'z', '+', '-']) {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let clock = clock.split('.').next()?;
    let mut pieces = clock.split(':');
    let hour: i64 = pieces.next()?.parse().ok()?;
    let minute: i64 = pieces.next()?.parse().ok()?;
    let second: i64 = pieces.next().map(str::parse).transpose().ok()?.unwrap_or(0);
    if pieces.next().is_some() || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let offset = match zone {
        "" | "Z" | "z" => 0,
        _ => {
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            let digits: String = zone[1..].chars().filter(|c| *c != ':').collect();
            if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let hours: i64 = digits[..2].parse().ok()?;
            let minutes: i64 = digits[2..].parse().ok()?;
            sign * (hours * 3600 + minutes * 60)
        }
    };
    Some(days * 86_400 + hour * 3600 + minute * 60 + second - offset)
}

/// `released_at` of a request: absent is `None`, an ISO 8601 time its seconds, else 400
/// `released_at is invalid` (Grape's `DateTime` coercion).
pub fn released_at(params: &crate::params::Params) -> ApiResult<Option<i64>> {
    match params.string("released_at")? {
        None => Ok(None),
        Some(text) => parse_time(&text).map(Some).ok_or_else(|| ApiError::InvalidParam("released_at".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_times() {
        assert_eq!(parse_time("1970-01-02"), Some(86_400));
        assert_eq!(parse_time("1970-01-01T01:00:00Z"), Some(3600));
        assert_eq!(parse_time("1970-01-01T03:00:00.5+02:00"), Some(3600));
        assert_eq!(parse_time("1970-01-01T00:00:00-0100"), Some(3600));
        assert_eq!(parse_time("2019-13-01"), None);
        assert_eq!(parse_time("yesterday"), None);
        assert_eq!(parse_time("2019-01-01T25:00:00Z"), None);
    }

    #[test]
    fn html_paragraphs_are_escaped() {
        assert_eq!(description_html("a <b>\n\nc"), "<p dir=\"auto\">a &lt;b&gt;</p>\n<p dir=\"auto\">c</p>");
    }
}
