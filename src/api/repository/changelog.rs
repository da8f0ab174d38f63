//! B8 and B9: `POST` and `GET /projects/:id/repository/changelog` (decisions D4-D6).
//!
//! Both generate one release section as GitLab's `Repositories::ChangelogService` does: the
//! configuration from the repository, `from` (given, or the previous stable tag), the commits of
//! `from..to` (at most `changelog_max_commits`) that carry the trailer and were not reverted,
//! authors matched to users by commit email, merge requests from `See merge request` merges.
//! GET answers `{"notes": ...}`; POST inserts the section into `file` on `branch` (nothing when
//! the version's header is there), commits it with a compare-and-swap on the branch and answers
//! `{"commit": <commit or null>, "notes": ...}`. Every `Gitlab::Changelog::Error` is 422
//! `Failed to generate the changelog: ...`.
//!
//! What POST commits stays in the repository for everyone who reads it, so its links (commit and
//! merge request `web_url`s, the committer's noreply address) come from the configuration only:
//! without `external_url` they would be built from the request's `Host` header, which any
//! client chooses, so POST is then refused with 422 (`external_url is not configured ...`) and
//! nothing is committed. GET answers to the caller alone and still builds them from `Host`.

use super::commits;
use crate::api::push::{self, BranchRule};
use crate::api::Call;
use crate::auth::permissions::{self, ProjectAbility, ProjectAccess};
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git::range::{self, RangeCommit, RangeError};
use crate::git::write::{self, FileWriteError, WriteError};
use crate::git::{self, ResolveError};
use crate::params::Params;
use crate::response::Response;
use crate::store::{self, projects::Project};
use forgecore_changelog::config::{Config, ConfigLimits, DEFAULT_PATH};
use forgecore_changelog::release::{Author, Entry, MergeRequest, Release};
use forgecore_changelog::strftime::DateTime;
use forgecore_changelog::{commits as entries, insert, tags, version, ChangelogError};
use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::time::{Duration, Instant};

const DEFAULT_TRAILER: &str = "Changelog";
const DEFAULT_FILE: &str = "CHANGELOG.md";
/// Largest changelog file that is read and rewritten.
const MAX_CHANGELOG_FILE_BYTES: u64 = 32 << 20;
const PUSH_FORBIDDEN: &str = "You are not allowed to commit a changelog on this branch";
const INVALID_RANGE: &str = "Invalid or not found commit value in the given range";
const HOST_LINKS: &str = "external_url is not configured: the changelog's links would be built from the request's \
                          Host header and committed; set external_url to the instance's public URL";

/// The engine's errors, and the ones raised here as GitLab's service raises them (a range, a
/// file too large), are each a `Gitlab::Changelog::Error`: 422 with the text after the prefix.
fn failed(e: ChangelogError) -> ApiError {
    ApiError::Unprocessable(format!("Failed to generate the changelog: {}", e.0))
}

fn failure(text: impl Into<String>) -> ApiError {
    failed(ChangelogError(text.into()))
}

/// The parameters both routes share, checked as Grape checks them.
struct Request {
    /// `version` as given (the default commit message quotes it).
    given_version: String,
    from: Option<String>,
    to: Option<String>,
    date: DateTime,
    trailer: String,
    config_file: String,
    config_file_ref: Option<String>,
}

fn present(params: &Params, name: &str) -> ApiResult<Option<String>> {
    Ok(params.string(name)?.filter(|s| !s.trim().is_empty()))
}

impl Request {
    fn from_params(params: &Params) -> ApiResult<Request> {
        let given_version = params.required_string("version")?;
        if given_version.trim().is_empty() {
            return Err(ApiError::ParamError("version is empty".into()));
        }
        if !version::contains_semver(&given_version) {
            return Err(ApiError::InvalidParam("version".into()));
        }
        let date = match params.string("date")? {
            None => DateTime::now(),
            Some(text) => DateTime::parse(&text).ok_or_else(|| ApiError::InvalidParam("date".into()))?,
        };
        Ok(Request {
            given_version,
            from: params.revision("from")?,
            to: params.revision("to")?,
            date,
            trailer: params.string("trailer")?.unwrap_or_else(|| DEFAULT_TRAILER.into()),
            config_file: present(params, "config_file")?.unwrap_or_else(|| DEFAULT_PATH.into()),
            config_file_ref: params.revision("config_file_ref")?.filter(|s| !s.trim().is_empty()),
        })
    }
}

/// A generated section: its version (no leading `v`), the Markdown that goes into a file, and
/// the notes the API answers.
struct Generated {
    version: String,
    section: String,
    notes: String,
}

/// The configuration file at `config_file_ref` (default: HEAD); a missing file, ref or
/// repository content is the defaults.
fn load_config(call: &Call, repo: &gix::Repository, request: &Request) -> ApiResult<Config> {
    let deadline = Instant::now() + Duration::from_millis(call.ctx.config.limits.changelog_parse_millis);
    let limits = ConfigLimits::with_deadline(deadline);
    let path = request.config_file.as_str();
    let at = match git::resolve_or_head(repo, request.config_file_ref.as_deref()) {
        Ok(id) => Some(id),
        Err(ResolveError::Unknown) => None,
        Err(e) => return Err(ApiError::internal(e)),
    };
    let blob = match (at, write::path_components(path)) {
        (Some(commit), Ok(components)) => {
            let root = git::tree::commit_tree(repo, commit).or_broken()?;
            match write::file_at(repo, root, &components).or_broken()? {
                Ok(found) => found.map(|(id, _)| id),
                Err(_) => None,
            }
        }
        _ => None,
    };
    let bytes = match blob {
        None => None,
        Some(id) => {
            let size = repo.find_header(id).map_err(ApiError::internal)?.size();
            if size > limits.max_bytes {
                return Err(failure(format!(
                    "{path} is larger than {} bytes, the limit for a changelog configuration",
                    limits.max_bytes
                )));
            }
            Some(git::blob::read(repo, id).or_broken()?)
        }
    };
    Config::load(path, bytes.as_deref(), limits).map_err(failed)
}

fn resolve_in_range(repo: &gix::Repository, revision: &str) -> ApiResult<gix::ObjectId> {
    git::resolve_commit(repo, revision).or_not_found(failure(INVALID_RANGE))
}

/// Users by commit email (case-insensitive), with the `author` fields of an entry.
fn authors(call: &Call, project: &Project, config: &Config, emails: Vec<String>) -> ApiResult<HashMap<String, Author>> {
    call.ctx.store.read(|db| -> ApiResult<_> {
        let mut credited_groups = Vec::new();
        for path in &config.include_groups {
            if let Some(group) = store::groups::find_by_full_path(db, path)? {
                if permissions::can_see_group(db, &call.caller, &group)? {
                    credited_groups.push(group.id);
                }
            }
        }
        let mut out = HashMap::new();
        for email in emails {
            let Some(user) = store::users::find_by_email(db, &email)? else { continue };
            let access = ProjectAccess::of(db, &Caller::User(user.clone()), project)?;
            let contributor = access.level == 0;
            let mut credit = contributor;
            for group_id in &credited_groups {
                if credit {
                    break;
                }
                credit = store::members::is_direct_group_member(db, user.id, *group_id)?;
            }
            out.insert(email, Author { reference: format!("@{}", user.username), contributor, credit });
        }
        Ok(out)
    })
}

/// Everything up to the section, shared by both routes; `to_default` is POST's branch tip.
fn generate_section(
    call: &Call,
    project: &Project,
    repo: &gix::Repository,
    request: &Request,
    to_default: Option<&str>,
) -> ApiResult<Generated> {
    let config = load_config(call, repo, request)?;
    tags::requested_version(&request.given_version).map_err(failed)?;
    let version = request.given_version.strip_prefix('v').unwrap_or(&request.given_version).to_string();
    let from = match &request.from {
        Some(from) => resolve_in_range(repo, from)?,
        None => {
            let names = range::tag_names(repo).or_broken()?;
            let previous =
                tags::previous_tag(&request.given_version, &config.tag_regex, names.iter().map(String::as_str))
                    .map_err(failed)?
                    .ok_or_else(|| {
                        failure(
                            "The commit start range is unspecified, and no previous tag could be found to use instead",
                        )
                    })?;
            range::tag_commit(repo, previous).map_err(|_| failure(INVALID_RANGE))?
        }
    };
    let to = match (&request.to, to_default) {
        (Some(to), _) => resolve_in_range(repo, to)?,
        (None, Some(branch)) => range::branch_commit(repo, branch).map_err(|_| failure(INVALID_RANGE))?,
        (None, None) => git::resolve_or_head(repo, None).map_err(|_| failure(INVALID_RANGE))?,
    };
    let limit = call.ctx.config.limits.changelog_max_commits as usize;
    // The commits of a fixed range are the same for every request: walked once.
    let key = format!("changelog_range\0{}\0{from}\0{to}\0{limit}", call.git_dir(project)?.display());
    let weigh = |range: &Vec<RangeCommit>| {
        range.iter().map(|c| c.message.len() + c.author_name.len() + c.author_email.len() + 128).sum()
    };
    let commits =
        match call.ctx.caches.answers.get_or_compute(key, weigh, || range::commits(repo, Some(from), to, limit)) {
            Ok(commits) => commits,
            Err(RangeError::TooMany) => return Err(failure(format!("The commits range exceeds {limit} elements."))),
            Err(e) => return Err(ApiError::internal(e)),
        };
    let release = build_release(call, project, &config, &version, request, &commits)?;
    let deadline = Instant::now() + Duration::from_millis(call.ctx.config.limits.changelog_parse_millis);
    let section = release.to_markdown(&config, deadline).map_err(failed)?;
    let notes = String::from_utf8_lossy(&insert::insert(b"", &version, &section)).into_owned();
    Ok(Generated { version, section, notes })
}

fn build_release(
    call: &Call,
    project: &Project,
    config: &Config,
    version: &str,
    request: &Request,
    commits: &[RangeCommit],
) -> ApiResult<Release> {
    let trailers: Vec<Vec<(String, String)>> = commits.iter().map(|c| range::trailers(&c.message)).collect();
    let ids: Vec<String> = commits.iter().map(|c| c.id.to_string()).collect();
    let selected = entries::select(
        commits.iter().enumerate().map(|(i, c)| (ids[i].as_str(), c.message.as_str(), trailers[i].as_slice())),
        &request.trailer,
    );
    let merged_by = if selected.is_empty() {
        Vec::new()
    } else {
        let references: Vec<Option<u64>> = commits
            .iter()
            .map(|c| (c.parents.len() > 1).then(|| entries::merge_request_of(&c.message, &project.full_path)).flatten())
            .collect();
        range::merged_by(commits, |i| references[i].is_some())
            .into_iter()
            .map(|m| m.and_then(|m| references[m]))
            .collect()
    };
    let mut emails: Vec<String> = selected.iter().map(|(i, _)| commits[*i].author_email.to_lowercase()).collect();
    emails.sort();
    emails.dedup();
    let authors = authors(call, project, config, emails)?;
    let mut release = Release::new(version, request.date, config);
    for (i, category) in selected {
        let commit = &commits[i];
        let sha = &ids[i];
        let entry = Entry {
            title: entries::title(&commit.message),
            commit_reference: format!("{}@{sha}", project.full_path),
            commit_web_url: call.web_url(&format!("{}/-/commit/{sha}", project.full_path)),
            trailers: entries::trailer_map(&trailers[i]),
            author: authors.get(&commit.author_email.to_lowercase()).cloned(),
            merge_request: merged_by.get(i).copied().flatten().map(|iid| MergeRequest {
                reference: format!("{}!{iid}", project.full_path),
                web_url: call.web_url(&format!("{}/-/merge_requests/{iid}", project.full_path)),
            }),
        };
        release.add_entry(config, &category, entry);
    }
    Ok(release)
}

/// B9: the changelog section as `{"notes": ...}`, committing nothing.
pub fn generate(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadChangelog)?;
    let request = Request::from_params(params)?;
    let repo = call.repository(&project, "")?;
    let generated = generate_section(call, &project, &repo, &request, None)?;
    Ok(Response::json(200, &json!({ "notes": generated.notes })))
}

/// B8: the section committed to the changelog file; `{"commit": ..., "notes": ...}`.
pub fn commit(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::PushCode).map_err(|e| match e {
        ApiError::Forbidden(None) => ApiError::Forbidden(Some(PUSH_FORBIDDEN.into())),
        other => other,
    })?;
    let request = Request::from_params(params)?;
    call.caller.require_user()?;
    let branch = match params.revision("branch")?.filter(|s| !s.trim().is_empty()) {
        Some(branch) => branch,
        None => git::default_branch(call.git_dir(&project)?).unwrap_or_else(|| "main".into()),
    };
    let full_branch = format!("refs/heads/{branch}");
    if <&gix::refs::FullNameRef>::try_from(full_branch.as_str()).is_err() || branch.starts_with('-') {
        return Err(ApiError::InvalidParam("branch".into()));
    }
    let file = params.string("file")?.unwrap_or_else(|| DEFAULT_FILE.into());
    write::path_components(&file).map_err(|reason| ApiError::BadRequest(format!("file is invalid: {reason}")))?;
    let message =
        params.string("message")?.unwrap_or_else(|| format!("Add changelog for version {}", request.given_version));
    if message.trim().is_empty() {
        return Err(ApiError::ParamError("message is empty".into()));
    }
    // After every parameter is checked: a bad one is its 400 whatever the configuration.
    if call.ctx.config.external_base().is_none() {
        return Err(ApiError::Unprocessable(HOST_LINKS.into()));
    }
    let repo = call.repository(&project, "")?;
    let generated = generate_section(call, &project, &repo, &request, Some(&branch))?;
    let who = push::committer(call)?;
    let mut rule = BranchRule::new(call, &project, &branch)?;
    let written = write::commit_file(
        &repo,
        &branch,
        &file,
        &message,
        &who,
        MAX_CHANGELOG_FILE_BYTES,
        |moved, commit| rule.allows(moved, commit),
        |current| {
            let current = current.unwrap_or_default();
            if insert::has_release(current, &generated.version) {
                None
            } else {
                Some(insert::insert(current, &generated.version, &generated.section))
            }
        },
    );
    let commit = match written {
        Ok(Some(committed)) => {
            call.refs_moved(&project, vec![committed.update])?;
            let info = git::commit::read(&repo, committed.id).or_broken()?;
            commits::entity(call, &project, &info)
        }
        Ok(None) => Json::Null,
        Err(FileWriteError::BadPath(reason)) => return Err(ApiError::BadRequest(format!("file is invalid: {reason}"))),
        Err(FileWriteError::Write(WriteError::NotOnBranch | WriteError::InvalidBranch)) => {
            return Err(failure(INVALID_RANGE))
        }
        Err(FileWriteError::Write(WriteError::TooLarge)) => {
            return Err(failure(format!("{file} is larger than {MAX_CHANGELOG_FILE_BYTES} bytes")))
        }
        Err(FileWriteError::Write(WriteError::Refused(_))) => {
            rule.outcome()?;
            return Err(ApiError::Forbidden(Some(PUSH_FORBIDDEN.into())));
        }
        Err(FileWriteError::Write(WriteError::CheckedOut(branch))) => {
            return Err(failure(push::checked_out_text(&branch)))
        }
        Err(FileWriteError::Write(WriteError::Gitmodules(problem))) => {
            return Err(failure(format!("invalid .gitmodules: {problem}")))
        }
        Err(FileWriteError::Write(WriteError::Race)) => {
            return Err(ApiError::Unavailable("the branch is busy with other commits, try again"))
        }
        Err(FileWriteError::Write(e)) => return Err(ApiError::internal(e)),
    };
    Ok(Response::json(200, &json!({ "commit": commit, "notes": generated.notes })))
}
