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
//!   default branch's name when absent), so a full SHA appears twice; the path as cleaned
//!   (`/src/` is `-src`, where GitLab writes `--src-`), so every spelling is one archive.
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
//! - Archives are cached on disk as Workhorse caches them ([`crate::cache::archives`], keyed by
//!   the commit id and everything else the bytes depend on, `path` and `exclude_paths` as
//!   cleaned: `src`, `./src` and `/src/` are one archive, whose name carries the cleaned path
//!   where GitLab repeats the spelling); rate limits and authorization still apply to every
//!   request. At most `limits.archive_builds` archives are built at once, cached or not; one
//!   more waits up to `limits.archive_queue_millis`, then is a 503 as GitLab answers Gitaly's
//!   concurrency limit. Hits and downloads joining a build in progress need no turn. Asked by
//!   full commit id, an archive carries an `ETag` and an `If-None-Match` naming it is answered
//!   304 before any object is read. (An `export-subst` placeholder that names refs (`%d`),
//!   abbreviates (`%h`) or dates relatively (`%ar`) can read differently later at the same
//!   commit; the cached answer stays, as Workhorse's does.)
//!
//! Not implemented: GitLab's hotlinking check (406 for `<img>`-style requests), which needs
//! request headers an operation does not see.

use crate::api::{conditional, Call};
use crate::auth::permissions::ProjectAbility;
use crate::auth::Caller;
use crate::cache::archives::Lookup;
use crate::config::RateLimit;
use crate::error::{ApiError, ApiResult};
use crate::git::{self, tree as git_tree};
use crate::params::Params;
use crate::response::{Body, Response};
use crate::store::projects::Project;
use forgecore_archive::{self as archive, Format, Spec};
use sha2::{Digest, Sha256};
use std::io::{self, Write};
use std::path::Path;

/// Most `exclude_paths` items one request may carry.
pub const MAX_EXCLUDES: usize = 1000;
/// Longest `path`, `sha` or exclude item, in bytes (git's usual `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;
/// GitLab's `check_archive_rate_limit!` threshold for anonymous callers.
const ANONYMOUS_THRESHOLD: u32 = 100;

const THROTTLED: &str = "This archive has been requested too many times. Try again later.";

/// Every build slot stayed busy for `limits.archive_queue_millis`: as GitLab answers Gitaly's
/// `ResourceExhausted` (its concurrency limiter's queue timeout), 503.
fn busy() -> ApiError {
    ApiError::Unavailable("too many archives are being built, try again later")
}

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

/// `path` and `exclude_paths` cleaned as Gitaly cleans them: what the archive's bytes depend
/// on (`src`, `./src`, `/src/` and `a/../src` are one archive, under one name). A path that
/// leaves the repository, or an exclude that cleans to nothing, is GitLab's 404.
struct Paths {
    include: Vec<u8>,
    /// Sorted and without repeats: their order changes nothing in the archive.
    excludes: Vec<Vec<u8>>,
}

fn clean(request: &Request) -> ApiResult<Paths> {
    let include = match request.path.as_deref() {
        None => Vec::new(),
        Some(text) => archive::clean_path(text).ok_or_else(not_found)?,
    };
    let mut excludes = request
        .excludes
        .iter()
        .map(|text| archive::clean_path(text).filter(|p| !p.is_empty()).ok_or_else(not_found))
        .collect::<ApiResult<Vec<_>>>()?;
    excludes.sort();
    excludes.dedup();
    Ok(Paths { include, excludes })
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

/// Everything an archive's bytes depend on, as one text: the repository (its path, and the
/// config and `info/attributes` that steer its attributes), the commit id (never a branch
/// name: a branch that moves gives another key), the format, the prefix's parts, the path and
/// excludes as cleaned, and LFS. `None` when the bytes could change under the same key: with
/// LFS objects asked for and an LFS store present (an object may arrive later).
fn archive_key(
    git_dir: &Path,
    project: &Project,
    ref_name: &str,
    commit: &str,
    format: Format,
    request: &Request,
    paths: &Paths,
) -> Option<String> {
    if request.include_lfs && git_dir.join("lfs/objects").exists() {
        return None;
    }
    let read = |name: &str| std::fs::read(git_dir.join(name)).unwrap_or_default();
    let steering = Sha256::digest([read("config"), read("info/attributes")].concat());
    let steering: String = steering.iter().map(|b| format!("{b:02x}")).collect();
    Some(format!(
        "{}\0{steering}\0{}\0{ref_name}\0{}\0{}\0{:?}\0{:?}\0{}",
        git_dir.display(),
        project.path,
        commit.to_ascii_lowercase(),
        format.extension(),
        String::from_utf8_lossy(&paths.include),
        paths.excludes.iter().map(|e| String::from_utf8_lossy(e)).collect::<Vec<_>>(),
        request.include_lfs
    ))
}

pub fn get(call: &Call, project: &str, format: Option<&str>, params: &Params) -> ApiResult<Response> {
    let format = format_of(format, params)?;
    let project = call.project(project, ProjectAbility::ReadCode)?;
    let request = parse(params)?;
    throttle(call, project.id)?;
    let paths = clean(&request)?;
    let git_dir = call.git_dir(&project)?;

    // Asked by full commit id, the answer never changes: a client that holds it gets a 304
    // before any object is read.
    let tag = request
        .sha
        .as_deref()
        .filter(|sha| conditional::is_full_id(sha))
        .and_then(|sha| archive_key(&git_dir, &project, sha, sha, format, &request, &paths))
        .map(|key| conditional::etag(&key));
    if let Some(not_modified) = tag.as_deref().and_then(|tag| conditional::not_modified(call, tag)) {
        return Ok(not_modified);
    }

    let repo = call.repository(&project, "File")?;
    let (ref_name, commit) = match &request.sha {
        Some(sha) => (sha.clone(), git::resolve_commit(&repo, sha).map_err(|_| not_found())?),
        None => {
            let branch = git::default_branch(&git_dir).ok_or_else(not_found)?;
            let commit = git::resolve_commit(&repo, &format!("refs/heads/{branch}")).map_err(|_| not_found())?;
            (branch, commit)
        }
    };
    let cache = call.ctx.caches.archives.as_ref();
    let key = archive_key(&git_dir, &project, &ref_name, &commit.to_string(), format, &request, &paths)
        .filter(|_| cache.is_some())
        .map(|key| hex_digest(&key));
    let headers = |filename: &str| {
        let mut headers = vec![
            ("Content-Type".to_string(), format.content_type().to_string()),
            ("Content-Disposition".to_string(), disposition(filename)),
            ("Content-Transfer-Encoding".to_string(), "binary".to_string()),
        ];
        headers.extend(tag.clone().map(|tag| ("ETag".to_string(), tag)));
        headers
    };
    let filename = |prefix: &str| format!("{prefix}.{}", format.extension());
    // A cached archive was checked when it was built: its paths exist at its commit.
    if let (Some(cache), Some(key)) = (cache, key.as_deref()) {
        if let Some(cached) = cache.hit(key) {
            let prefix = prefix_of(&project, &ref_name, commit, &paths.include);
            return Ok(Response {
                status: 200,
                headers: headers(&filename(&prefix)),
                body: Body::Stream(Box::new(cached)),
            });
        }
    }
    let root = git_tree::commit_tree(&repo, commit).map_err(|_| not_found())?;
    // A path the archive cannot look up (a tree missing or corrupt) is GitLab's 404 too.
    let exists = |path: &[u8]| archive::entry_exists(&repo, root, path).unwrap_or(false);
    if !paths.include.is_empty() && !exists(&paths.include) || !paths.excludes.iter().all(|e| exists(e)) {
        return Err(not_found());
    }
    let Paths { include, excludes } = paths;
    let prefix = prefix_of(&project, &ref_name, commit, &include);
    if !archive::safe_prefix(&prefix) {
        return Err(not_found());
    }
    let headers = headers(&filename(&prefix));
    let spec = Spec { format, commit, prefix, include, excludes, include_lfs: request.include_lfs };
    // The archive's errors become the body's: `io::Error::from` keeps their causes, and gives the
    // output's own error back as it was, so a reader that went away (`BrokenPipe`) stops the
    // producer quietly.
    // A build holds a slot for as long as it runs; joining a build needs none.
    let slots = &call.ctx.archive_builds;
    let joins = matches!((cache, key.as_deref()), (Some(cache), Some(key)) if cache.is_building(key));
    let mut slot = if joins { None } else { Some(slots.acquire().ok_or_else(busy)?) };
    let body: Body = match (cache, key) {
        (Some(cache), Some(key)) => match cache.lookup(&key).map_err(ApiError::internal)? {
            Lookup::Hit(cached) => Body::Stream(Box::new(cached)),
            Lookup::Join(growing) => Body::Stream(Box::new(growing)),
            Lookup::Build(mut builder, growing) => {
                let Some(slot) = slot.take().or_else(|| slots.acquire()) else {
                    builder.finish(Err(io::Error::other("no archive build slot came free")));
                    return Err(busy());
                };
                std::thread::Builder::new()
                    .name("fc-archive".into())
                    .spawn(move || {
                        let written = archive::write(&git_dir, &spec, &mut builder).map_err(io::Error::from);
                        builder.finish(written);
                        drop(slot);
                    })
                    .map_err(ApiError::internal)?;
                Body::Stream(Box::new(growing))
            }
        },
        _ => {
            let slot = slot.take();
            let produce = move |out: &mut dyn Write| {
                let written = archive::write(&git_dir, &spec, out).map_err(io::Error::from);
                drop(slot);
                written
            };
            Body::Stream(Box::new(crate::response::stream::spawn("fc-archive", produce).map_err(ApiError::internal)?))
        }
    };
    Ok(Response { status: 200, headers, body })
}

/// The directory every member lies under: `<project>-<ref>-<commit>[-<path>]`, as GitLab names
/// it, with the path as cleaned (GitLab names it as given: `/src/` would be `--src-`), so that
/// every spelling of a path is one archive.
fn prefix_of(project: &Project, ref_name: &str, commit: gix::ObjectId, include: &[u8]) -> String {
    let mut prefix = format!("{}-{}-{}", project.path, ref_name.replace('/', "-"), commit.to_hex());
    if !include.is_empty() {
        prefix.push('-');
        prefix.push_str(&String::from_utf8_lossy(include).replace('/', "-"));
    }
    prefix
}

/// A cache file's name for `key`.
fn hex_digest(key: &str) -> String {
    Sha256::digest(key.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
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
