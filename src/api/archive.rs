//! B4: `GET /projects/:id/repository/archive[.format]`, streamed.
//!
//! - Format from the path suffix, exactly GitLab's route regex (`tar.gz` by default, `tgz`,
//!   `gz`, `tar`, `tar.bz2`, `tbz`, `tbz2`, `tb2`, `bz2`, `zip`; case-sensitive): any other
//!   suffix is no route, 404 `{"message":"404 Not Found"}`. Without a suffix a `format` query
//!   parameter may name one (lower-cased, as GitLab does); an unknown one is a 400.
//! - `sha` (branch, tag or commit; the default branch when absent), `path` (a subtree or a
//!   file), `exclude_paths` (comma-separated or an array; items are trimmed, empty ones ignored;
//!   at most [`MAX_EXCLUDES`] of at most [`MAX_PATH_BYTES`] bytes, else 400),
//!   `include_lfs_blobs` (default true).
//! - Paths are cleaned as Gitaly cleans them (`a/../b` is `b`, a leading `/` is ignored); one
//!   that leaves the repository, or that (like every exclude) names no entry of the commit's
//!   tree, is 404 `{"message":"404 File Not Found"}` as is an unknown `sha` or an empty
//!   repository: GitLab answers every failure with that 404. All of it is checked before the
//!   first byte, so errors are JSON.
//! - The archive's top directory and the `Content-Disposition` name are GitLab's
//!   `<project path>-<ref with / as ->-<commit sha>[-<path with / as ->]`, the ref as given (the
//!   default branch's name when absent), so a full SHA appears twice.
//! - Headers as Workhorse sends them: `Content-Disposition: attachment; filename="..."` (plus
//!   `filename*` for names that are not plain ASCII), `Content-Type` `application/zip` or
//!   `application/octet-stream`, `Content-Transfer-Encoding: binary`, no `Content-Length`.
//! - Rate limit `rate_limits.archive` (5 per minute by default) per project and user, counted
//!   after authorization and before any repository work, as GitLab counts; anonymous callers
//!   share one bucket per project with GitLab's threshold of 100 (when the limit is on).
//! - The body is produced on a thread while it is read (`crate::response::stream`):
//!   memory stays bounded and a reader that goes away stops the work. What goes into the
//!   archive, and how it matches `git archive`, is in [`forgecore_archive`]. Its errors after
//!   the first byte can only end the body: the reader fails with the archive's error and its
//!   causes, and a client that went away ends the work quietly.
//!
//! Not implemented: GitLab's hotlinking check (406 for `<img>`-style requests), which needs
//! request headers an operation does not see.

use super::Call;
use crate::auth::permissions::ProjectAbility;
use crate::auth::Caller;
use crate::config::RateLimit;
use crate::error::{ApiError, ApiResult};
use crate::git::{self, tree as git_tree};
use crate::params::Params;
use crate::response::{Body, Response};
use forgecore_archive::{self as archive, Format, Spec};
use std::io::{self, Write};

/// Most `exclude_paths` items one request may carry.
pub const MAX_EXCLUDES: usize = 1000;
/// Longest `path`, `sha` or exclude item, in bytes (git's usual `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;
/// GitLab's `check_archive_rate_limit!` threshold for anonymous callers.
const ANONYMOUS_THRESHOLD: u32 = 100;

const THROTTLED: &str = "This archive has been requested too many times. Try again later.";

fn not_found() -> ApiError {
    ApiError::NotFound("File")
}

/// The request's parameters, checked for shape and size (400s) before any repository work.
struct Request {
    sha: Option<String>,
    path: Option<String>,
    excludes: Vec<String>,
    include_lfs: bool,
}

fn parse(params: &Params) -> ApiResult<Request> {
    let sha = params.revision("sha")?;
    let path = params.string("path")?;
    let include_lfs = params.bool("include_lfs_blobs")?.unwrap_or(true);
    let excludes: Vec<String> = params
        .string_list("exclude_paths")?
        .unwrap_or_default()
        .iter()
        .flat_map(|item| item.split(','))
        .map(|item| item.trim().to_string())
        .filter(|item| !item.is_empty())
        .collect();
    if excludes.len() > MAX_EXCLUDES || excludes.iter().any(|e| e.len() > MAX_PATH_BYTES) {
        return Err(ApiError::InvalidParam("exclude_paths".into()));
    }
    if path.as_ref().is_some_and(|p| p.len() > MAX_PATH_BYTES) {
        return Err(ApiError::InvalidParam("path".into()));
    }
    if sha.as_ref().is_some_and(|s| s.len() > MAX_PATH_BYTES) {
        return Err(ApiError::InvalidParam("sha".into()));
    }
    Ok(Request { sha, path, excludes, include_lfs })
}

fn format_of(suffix: Option<&str>, params: &Params) -> ApiResult<Format> {
    match suffix {
        Some(suffix) => Format::from_suffix(suffix).ok_or(ApiError::NotFound("")),
        None => match params.string("format")? {
            None => Ok(Format::TarGz),
            Some(text) => {
                Format::from_suffix(&text.to_ascii_lowercase()).ok_or_else(|| ApiError::InvalidValue("format".into()))
            }
        },
    }
}

fn throttle(call: &Call, project_id: i64) -> ApiResult<()> {
    let configured = call.ctx.config.rate_limits.archive;
    let (limit, who) = match &call.caller {
        Caller::User(user) => (configured, format!("user:{}", user.id)),
        Caller::Anonymous => {
            (RateLimit { limit: configured.limit.max(ANONYMOUS_THRESHOLD), ..configured }, "anonymous".into())
        }
        Caller::Job { project_id } => (configured, format!("job:{project_id}")),
    };
    if !configured.enabled() {
        return Ok(());
    }
    call.ctx.throttle(limit, &format!("archive:{project_id}:{who}"), THROTTLED)
}

/// `Content-Disposition` for `name`: quoted as is when it is plain printable ASCII, otherwise an
/// ASCII fallback plus the exact name in RFC 5987 form (header values must stay Latin-1 safe).
fn disposition(name: &str) -> String {
    let plain = name.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\');
    if plain {
        return format!("attachment; filename=\"{name}\"");
    }
    let fallback: String =
        name.chars().map(|c| if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' { c } else { '_' }).collect();
    let encoded = percent_encoding::utf8_percent_encode(name, percent_encoding::NON_ALPHANUMERIC);
    format!("attachment; filename=\"{fallback}\"; filename*=UTF-8''{encoded}")
}

/// `format` is the suffix after `archive.` in the path, if any.
pub fn get(call: &Call, project: &str, format: Option<&str>, params: &Params) -> ApiResult<Response> {
    let format = format_of(format, params)?;
    let project = call.project(project, ProjectAbility::ReadCode)?;
    let request = parse(params)?;
    throttle(call, project.id)?;

    let repo = call.repository(&project, "File")?;
    let (ref_name, commit) = match &request.sha {
        Some(sha) => (sha.clone(), git::resolve_commit(&repo, sha).map_err(|_| not_found())?),
        None => {
            let branch = git::default_branch(call.git_dir(&project)?).ok_or_else(not_found)?;
            let commit = git::resolve_commit(&repo, &format!("refs/heads/{branch}")).map_err(|_| not_found())?;
            (branch, commit)
        }
    };
    let root = git_tree::commit_tree(&repo, commit).map_err(|_| not_found())?;
    // A path the archive cannot look up (a tree missing or corrupt) is GitLab's 404 too.
    let exists = |path: &[u8]| archive::entry_exists(&repo, root, path).unwrap_or(false);
    let include = match request.path.as_deref() {
        None => Vec::new(),
        Some(text) => {
            let cleaned = archive::clean_path(text).ok_or_else(not_found)?;
            if !cleaned.is_empty() && !exists(&cleaned) {
                return Err(not_found());
            }
            cleaned
        }
    };
    let mut excludes = Vec::with_capacity(request.excludes.len());
    for text in &request.excludes {
        let cleaned = archive::clean_path(text).filter(|p| !p.is_empty()).ok_or_else(not_found)?;
        if !exists(&cleaned) {
            return Err(not_found());
        }
        excludes.push(cleaned);
    }

    let mut prefix = format!("{}-{}-{}", project.path, ref_name.replace('/', "-"), commit.to_hex());
    if let Some(path) = request.path.as_deref().filter(|p| !p.trim().is_empty()) {
        prefix.push('-');
        prefix.push_str(&path.replace('/', "-"));
    }
    if !archive::safe_prefix(&prefix) {
        return Err(not_found());
    }
    let filename = format!("{prefix}.{}", format.extension());
    let spec = Spec { format, commit, prefix, include, excludes, include_lfs: request.include_lfs };
    let git_dir = call.git_dir(&project)?;
    // The archive's errors become the body's: `io::Error::from` keeps their causes, and gives the
    // output's own error back as it was, so a reader that went away (`BrokenPipe`) stops the
    // producer quietly.
    let produce = move |out: &mut dyn Write| archive::write(&git_dir, &spec, out).map_err(io::Error::from);
    let reader = crate::response::stream::spawn("fc-archive", produce).map_err(ApiError::internal)?;

    Ok(Response {
        status: 200,
        headers: vec![
            ("Content-Type".into(), format.content_type().into()),
            ("Content-Disposition".into(), disposition(&filename)),
            ("Content-Transfer-Encoding".into(), "binary".into()),
        ],
        body: Body::Stream(Box::new(reader)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disposition_quotes_plain_names_and_encodes_others() {
        assert_eq!(disposition("p-main-abc.tar.gz"), "attachment; filename=\"p-main-abc.tar.gz\"");
        assert_eq!(
            disposition("p-ü\"x.zip"),
            "attachment; filename=\"p-__x.zip\"; filename*=UTF-8''p%2D%C3%BC%22x%2Ezip"
        );
    }
}
