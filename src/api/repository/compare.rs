//! B5: `GET /projects/:id/repository/compare?from=&to=[&straight=][&unidiff=][&from_project_id=]`.
//!
//! GitLab's behaviour (`API::Repositories`, `CompareService`, `Gitlab::Git::Compare`,
//! `Gitlab::Git::DiffCollection` and Gitaly's diff parser):
//! - `to` resolves in `:id`, `from` in `from_project_id` (default `:id`), which must be in the
//!   same fork network (`forked_from_id` links): otherwise 400 `Target project id:X is not a
//!   fork of project id:Y` (also for a project of the network the caller cannot see, which
//!   must look missing); seen but not readable by the caller, 403 `You don't have access to
//!   this fork's parent project`. Either ref unknown: 404 `Ref Not Found`.
//! - `commits`: full commit entities of `git rev-list --reverse to ^from` (oldest first) in both
//!   modes; `commit` the last one or null. `straight=false` diffs the merge base against `to`
//!   (`git diff from...to`); `straight=true` diffs `from` against `to`. Without a merge base the
//!   default mode diffs against the empty tree (everything in `to` is new).
//! - Both refs on one commit: `compare_same_ref` true, no commits, no diffs.
//! - `web_url`: `<project>/-/compare/<merge base, or from with straight>...<to>`, SHAs only.
//! - Diff limits (configurable, GitLab's defaults: 1000 files, 50000 lines, 5 KiB a file in
//!   bytes, 200 KiB a patch): after a tenth of any of them ("safe" limits) further patches are
//!   `collapsed` with `diff` ""; a patch of `diff_max_patch_bytes` or more is `too_large` with
//!   `diff` ""; one of 10 % of that is collapsed unless it is the only file; past a hard limit
//!   the list ends there and `compare_timeout` is true. Only patches below the safe limits are
//!   computed, so a compare of any size stays bounded.
//! - `diff` is git's patch from its first `@@` (lossy UTF-8); `unidiff=true` prefixes
//!   `--- a/<old>` / `+++ b/<new>` (`/dev/null` for a missing side; names C-quoted like git
//!   with `core.quotePath=false` only when they contain control characters, `"` or `\`).
//!   Modes are octal text, `"0"` for a missing side, as Gitaly reports them. `generated_file`
//!   is false (GitLab's compare detects none and answers null; a boolean suits typed clients).
//! - Renames are git's defaults (`-M`, 50 %); GitLab's Gitaly asks for 30 %.
//! - Commits: the newest `limits.compare_max_commits` (10,000) of the range, oldest first, for
//!   every caller, as GitLab lists them (decisions D8): anonymous load is bounded by the
//!   per-address limit `rate_limits.unauthenticated_api`, not by shorter answers. `commit`
//!   stays the newest.
//! - Time: the whole compare has `limits.compare_timeout_millis` (10 s). A walk still running
//!   then is a 503; diffs still being computed end there with `compare_timeout` true (none at
//!   all when the changed files were not even paired up yet: rename detection on large trees).
//! - The body is streamed: commit entities are read while it is written, one at a time, so a
//!   compare's memory is its diffs (bounded by the limits) whatever the range. The merge base,
//!   the commits and the pairing of changed files come first (their failures are the status);
//!   the patches are computed on a thread of their own while the commits are written, the
//!   other half of a large compare's time (a blob unreadable there ends the body with an
//!   error, as an archive's does; `/-/metrics` times them as `compare_patches`).

use super::commits;
use crate::api::{conditional, Call};
use crate::auth::permissions::{self, ProjectAbility};
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git;
use crate::git::diff::{self as gitdiff, FileChange};
use crate::git::patch_queue::{Computed, PatchQueue};
use crate::params::Params;
use crate::response::{Body, Response};
use crate::store::{self, projects::Project, Db};
use serde::Serialize;
use serde_json::json;
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How far `forked_from_id` links are followed to find a fork network's root.
const MAX_FORK_DEPTH: usize = 1000;

/// `Entities::Diff`, in GitLab's field order.
#[derive(Debug, Serialize)]
pub(crate) struct DiffEntity {
    diff: String,
    collapsed: bool,
    too_large: bool,
    new_path: String,
    old_path: String,
    a_mode: String,
    b_mode: String,
    new_file: bool,
    renamed_file: bool,
    deleted_file: bool,
    generated_file: bool,
}

/// The limits of one compare, from the configuration.
#[derive(Debug, Clone, Copy)]
pub struct DiffLimits {
    pub max_files: u64,
    pub max_lines: u64,
    pub max_bytes: u64,
    pub safe_files: u64,
    pub safe_lines: u64,
    pub safe_bytes: u64,
    pub max_patch_bytes: u64,
    pub collapse_patch_bytes: u64,
}

impl DiffLimits {
    pub fn from_config(limits: &crate::config::Limits) -> DiffLimits {
        let max_files = u64::from(limits.diff_max_files);
        let max_lines = u64::from(limits.diff_max_lines);
        DiffLimits {
            max_files,
            max_lines,
            max_bytes: limits.diff_max_bytes,
            safe_files: max_files / 10,
            safe_lines: max_lines / 10,
            safe_bytes: limits.diff_max_bytes / 10,
            max_patch_bytes: limits.diff_max_patch_bytes,
            collapse_patch_bytes: limits.diff_max_patch_bytes / 10,
        }
    }
}

/// Grape checks every parameter and joins the messages: `from is missing, to is missing`.
struct Request {
    from: String,
    to: String,
    from_project_id: Option<i64>,
    straight: bool,
    unidiff: bool,
}

fn request(params: &Params) -> ApiResult<Request> {
    let mut errors = Vec::new();
    let mut required = |name: &str| match params.revision(name) {
        Ok(Some(value)) => value,
        Ok(None) => {
            errors.push(format!("{name} is missing"));
            String::new()
        }
        Err(_) => {
            errors.push(format!("{name} is invalid"));
            String::new()
        }
    };
    let (from, to) = (required("from"), required("to"));
    let from_project_id = params.int("from_project_id").unwrap_or_else(|_| {
        errors.push("from_project_id is invalid".into());
        None
    });
    let mut flag = |name: &str| {
        params.bool(name).unwrap_or_else(|_| {
            errors.push(format!("{name} is invalid"));
            None
        })
    };
    let (straight, unidiff) = (flag("straight"), flag("unidiff"));
    if !errors.is_empty() {
        return Err(ApiError::ParamError(errors.join(", ")));
    }
    Ok(Request { from, to, from_project_id, straight: straight.unwrap_or(false), unidiff: unidiff.unwrap_or(false) })
}

/// The root of `project`'s fork network.
fn network_root(db: &mut Db, project: &Project) -> ApiResult<i64> {
    let mut current = project.id;
    let mut parent = project.forked_from_id;
    for _ in 0..MAX_FORK_DEPTH {
        let Some(id) = parent.filter(|&id| id != current) else { break };
        match store::projects::find_by_id(db, id)? {
            Some(next) => {
                current = next.id;
                parent = next.forked_from_id;
            }
            None => break,
        }
    }
    Ok(current)
}

/// The project `from` is resolved in: `:id` itself, or a readable project of its fork network.
fn source_project(call: &Call, project: &Project, id_text: &str, from_project_id: Option<i64>) -> ApiResult<Project> {
    let Some(other_id) = from_project_id.filter(|&id| id != project.id) else { return Ok(project.clone()) };
    let not_a_fork =
        || ApiError::Validation(json!(format!("Target project id:{other_id} is not a fork of project id:{id_text}")));
    call.ctx.store.read(|db| -> ApiResult<_> {
        let other = store::projects::find_by_id(db, other_id)?.ok_or_else(not_a_fork)?;
        if network_root(db, project)? != network_root(db, &other)? {
            return Err(not_a_fork());
        }
        // A project the caller cannot see is answered as a missing one (400), so the answer
        // never tells that a private fork exists; one they see but may not read is GitLab's 403.
        match permissions::authorize_project(db, &call.caller, &other, ProjectAbility::ReadCode) {
            Ok(()) => Ok(other),
            Err(ApiError::NotFound(_)) => Err(not_a_fork()),
            Err(ApiError::Forbidden(_)) => {
                Err(ApiError::Forbidden(Some("You don't have access to this fork's parent project".into())))
            }
            Err(e) => Err(e),
        }
    })
}

/// Ruby's `strip`, which GitLab applies to both refs.
fn strip(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\0' || c == '\u{b}')
}

fn resolve(repo: &gix::Repository, revision: &str) -> ApiResult<gix::ObjectId> {
    git::resolve_commit(repo, strip(revision)).or_not_found(ApiError::NotFound("Ref"))
}

pub fn get(call: &Call, id_text: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(id_text, ProjectAbility::ReadCode)?;
    let request = request(params)?;
    let source = source_project(call, &project, id_text, request.from_project_id)?;
    let to_repo = call.repository(&project, "Ref")?;
    let to = resolve(&to_repo, &request.to)?;
    let config = &call.ctx.config.limits;
    let max_commits = config.compare_max_commits;
    let limits = DiffLimits::from_config(config);
    let (to_dir, from_dir) = (call.git_dir(&project)?, call.git_dir(&source)?);
    // What the answer depends on besides the two commits; with two full ids it is fixed.
    let key = |from: &str, to: &str| {
        format!(
            "compare\0{}\0{}\0{from}\0{to}\0{}\0{}\0{max_commits}\0{limits:?}\0{}",
            to_dir.display(),
            from_dir.display(),
            request.straight,
            request.unidiff,
            call.base_url
        )
    };
    let tag =
        (conditional::is_full_id(strip(&request.from)) && conditional::is_full_id(strip(&request.to))).then(|| {
            let (from, to) = (strip(&request.from).to_lowercase(), strip(&request.to).to_lowercase());
            conditional::etag(&format!("{}\0{}", key(&from, &to), project.full_path))
        });
    if let Some(not_modified) = tag.as_deref().and_then(|tag| conditional::not_modified(call, tag)) {
        return Ok(not_modified);
    }
    let (repo, from) = if from_dir == to_dir {
        let from = resolve(&to_repo, &request.from)?;
        (to_repo, from)
    } else {
        let from_repo = call.repository(&source, "Ref")?;
        let from = resolve(&from_repo, &request.from)?;
        let views = call.ctx.config.data_dir.join("fork-views");
        let view = git::fork_view::fork_view(&views, &from_repo, &to_repo).or_broken()?;
        let repo = git::open(&view).or_broken()?;
        (repo, from)
    };
    let deadline = Instant::now() + Duration::from_millis(config.compare_timeout_millis);
    let answers = &call.ctx.caches.answers;
    let key = key(&from.to_string(), &to.to_string());
    let project_url = call.web_url(&project.full_path);
    let diffs = match answers.get::<Comparison>(&key) {
        Some(kept) => Diffs::Kept(kept),
        None => Diffs::Pending {
            range: call.git("compare", || range(&repo, from, to, &request, max_commits as usize, deadline))?,
            limits,
            unidiff: request.unidiff,
            deadline,
            cache: (Arc::clone(answers), key),
            metrics: call.ctx.config.monitoring.metrics.then(|| Arc::clone(&call.ctx.metrics)),
        },
    };
    let range = diffs.range();
    let web_url = format!("{project_url}/-/compare/{}...{to}", range.base.unwrap_or(from));
    let repo = repo.into_sync();
    let reader =
        crate::response::stream::spawn("fc-compare", move |out| write_body(out, &repo, &project_url, diffs, &web_url))
            .map_err(ApiError::internal)?;
    let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    if let Some(tag) = tag {
        headers.push(("ETag".into(), tag));
    }
    Ok(Response { status: 200, headers, body: Body::Stream(Box::new(reader)) })
}

/// What a compare knows before its body's first byte: the merge base, the commits and the
/// changed files paired up. Anything failing here is the answer's status.
struct Range {
    /// The commits, newest first, at most the caller's cap.
    ids: Vec<gix::ObjectId>,
    same: bool,
    base: Option<gix::ObjectId>,
    /// `None`: the deadline passed while the files were paired up.
    changes: Option<Vec<FileChange>>,
}

/// A compare as the answers cache keeps it (its range without the pairing of files).
struct Comparison {
    range: Range,
    diffs: Vec<DiffEntity>,
    overflow: bool,
}

impl Comparison {
    /// Bytes it holds, for the answers cache.
    fn weight(&self) -> usize {
        let diffs: usize = self.diffs.iter().map(|d| d.diff.len() + d.new_path.len() + d.old_path.len() + 128).sum();
        self.range.ids.len() * 24 + diffs + 256
    }
}

/// The diffs of the body: kept from an earlier request, or computed beside the commits.
enum Diffs {
    Kept(Arc<Comparison>),
    Pending {
        range: Range,
        limits: DiffLimits,
        unidiff: bool,
        deadline: Instant,
        /// Where the finished comparison is kept, unless the deadline cut it.
        cache: (Arc<crate::cache::answers::Answers>, String),
        /// Where the patches' time is counted, when metrics are on.
        metrics: Option<Arc<crate::observe::metrics::Metrics>>,
    },
}

impl Diffs {
    fn range(&self) -> &Range {
        match self {
            Diffs::Kept(kept) => &kept.range,
            Diffs::Pending { range, .. } => range,
        }
    }
}

/// The merge base (unless `straight`), the newest commits of the range and the changed files.
/// A walk still running at `deadline` is a 503.
fn range(
    repo: &gix::Repository,
    from: gix::ObjectId,
    to: gix::ObjectId,
    request: &Request,
    max_commits: usize,
    deadline: Instant,
) -> ApiResult<Range> {
    let same = from == to;
    let base =
        if request.straight || same { Some(from) } else { git::merge_base::best(repo, from, &[to]).or_broken()? };
    if same {
        return Ok(Range { ids: Vec::new(), same, base, changes: Some(Vec::new()) });
    }
    let ids = git::range::ids(repo, from, to, max_commits, deadline)
        .or_broken()?
        .ok_or(ApiError::Unavailable("the comparison took longer than its time budget"))?;
    let old_tree = base.map(|commit| git::tree::commit_tree(repo, commit)).transpose().or_broken()?;
    let new_tree = git::tree::commit_tree(repo, to).or_broken()?;
    let changes = gitdiff::changes(repo, old_tree, Some(new_tree), deadline).or_broken()?;
    Ok(Range { ids, same, base, changes })
}

/// The whole answer in GitLab's field order. Each commit is read and written in turn, so no
/// more than one commit entity is held at a time; the patches are computed meanwhile on a
/// thread of their own, which this one helps once the commits are written (the two halves of a
/// large compare take about as long), and a patch that cannot be read ends the body with an
/// error, as an archive's unreadable blob does.
fn write_body(
    out: &mut dyn Write,
    repo: &gix::ThreadSafeRepository,
    project_url: &str,
    diffs: Diffs,
    web_url: &str,
) -> std::io::Result<()> {
    let queue = match &diffs {
        Diffs::Pending { range, limits, .. } => range.changes.as_deref().map(|c| patch_queue(c, limits, false)),
        Diffs::Kept(_) => None,
    };
    let computed = std::thread::scope(|scope| -> std::io::Result<Option<(Vec<DiffEntity>, Cut)>> {
        let (range, patches) = match &diffs {
            Diffs::Kept(kept) => (&kept.range, None),
            Diffs::Pending { range, limits, unidiff, deadline, metrics, .. } => {
                let queue = &queue;
                let patches = std::thread::Builder::new().name("fc-patches".into()).spawn_scoped(scope, move || {
                    let started = Instant::now();
                    let repo = repo.to_thread_local();
                    let diffs = match queue {
                        Some(queue) => diff_entities_of(&repo, queue, limits, *unidiff, false, *deadline),
                        None => Ok((Vec::new(), Cut::Deadline)),
                    };
                    if let Some(metrics) = metrics {
                        metrics.git_operation("compare_patches", started.elapsed());
                    }
                    diffs
                })?;
                (range, Some(patches))
            }
        };
        let repo = repo.to_thread_local();
        let mut commits = git::commit::Reader::new(&repo);
        let mut write_entity = |out: &mut dyn Write, id: gix::ObjectId| -> std::io::Result<()> {
            let info = commits.read(id).map_err(std::io::Error::other)?;
            Ok(serde_json::to_writer(out, &commits::CommitEntity::of(project_url, &info))?)
        };
        out.write_all(b"{\"commit\":")?;
        match range.ids.first() {
            Some(&newest) => write_entity(&mut *out, newest)?,
            None => out.write_all(b"null")?,
        }
        out.write_all(b",\"commits\":[")?;
        for (i, &id) in range.ids.iter().rev().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            write_entity(&mut *out, id)?;
        }
        if let Some(queue) = &queue {
            queue.help(&repo);
        }
        let computed = match patches {
            None => None,
            Some(patches) => {
                let joined = patches.join().map_err(|_| std::io::Error::other("the patches' thread panicked"))?;
                Some(joined.map_err(std::io::Error::other)?)
            }
        };
        let (entities, overflow) = match (&diffs, &computed) {
            (Diffs::Kept(kept), _) => (&kept.diffs, kept.overflow),
            (_, Some((entities, cut))) => (entities, *cut != Cut::No),
            (_, None) => unreachable!("pending diffs are computed"),
        };
        out.write_all(b"],\"diffs\":")?;
        serde_json::to_writer(&mut *out, entities)?;
        out.write_all(b",\"compare_timeout\":")?;
        serde_json::to_writer(&mut *out, &overflow)?;
        out.write_all(b",\"compare_same_ref\":")?;
        serde_json::to_writer(&mut *out, &range.same)?;
        out.write_all(b",\"web_url\":")?;
        serde_json::to_writer(&mut *out, web_url)?;
        out.write_all(b"}")?;
        Ok(computed)
    })?;
    if let (Diffs::Pending { range, cache: (answers, key), .. }, Some((diffs, cut))) = (diffs, computed) {
        if cut != Cut::Deadline {
            // The pairing of files made the diffs; the kept comparison needs only them.
            let range = Range { changes: None, ..range };
            let comparison = Comparison { range, diffs, overflow: cut != Cut::No };
            let weight = comparison.weight();
            answers.put(key, Arc::new(comparison), weight);
        }
    }
    Ok(())
}

/// Where a list of diffs ended: with the changes, at a hard limit, or at the deadline (the
/// last two are GitLab's `compare_timeout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    No,
    Limits,
    Deadline,
}

/// The diffs of `changes` within `limits`, as GitLab presents them, and whether and why the
/// list was cut. The counting is Gitaly's: lines and bytes of every patch
/// line but hunk headers; a collapsed or too large patch gives its lines and its whole size
/// back. `expanded` is GitLab's `diffs(expanded: true)` (a commit's diff): nothing collapses,
/// only the hard limits and `too_large` apply.
pub(crate) fn diff_entities(
    repo: &gix::Repository,
    changes: &[FileChange],
    limits: &DiffLimits,
    unidiff: bool,
    expanded: bool,
    deadline: Instant,
) -> gitdiff::Result<(Vec<DiffEntity>, Cut)> {
    diff_entities_of(repo, &patch_queue(changes, limits, expanded), limits, unidiff, expanded, deadline)
}

/// The queue [`diff_entities_of`] takes `changes`' patches from: past the safe file count
/// (unless `expanded`) every patch with a line collapses and gives its counts back, so only
/// whether it has a line is computed.
pub(crate) fn patch_queue<'a>(changes: &'a [FileChange], limits: &DiffLimits, expanded: bool) -> PatchQueue<'a> {
    let lines_only_from = if expanded { usize::MAX } else { usize::try_from(limits.safe_files).unwrap_or(usize::MAX) };
    PatchQueue::new(changes, lines_only_from)
}

/// [`diff_entities`] with the patches taken from `queue`, which other threads may help with.
pub(crate) fn diff_entities_of(
    repo: &gix::Repository,
    queue: &PatchQueue<'_>,
    limits: &DiffLimits,
    unidiff: bool,
    expanded: bool,
    deadline: Instant,
) -> gitdiff::Result<(Vec<DiffEntity>, Cut)> {
    let changes = queue.changes();
    let single = changes.len() == 1;
    let mut taker = queue.taker(repo);
    let (mut files, mut lines, mut bytes) = (0u64, 0i64, 0i64);
    let mut out = Vec::new();
    for change in changes {
        if Instant::now() > deadline {
            return Ok((out, Cut::Deadline));
        }
        files += 1;
        let (mut text, mut collapsed, mut too_large, mut binary) = (Vec::new(), false, false, false);
        // The taker gives one patch per change, in order.
        let Some(computed) = taker.next(repo) else { break };
        match computed? {
            Computed::HasLines(has_lines) => collapsed = has_lines,
            Computed::Patch(patch) => {
                lines += patch.lines as i64;
                bytes += patch.line_bytes as i64;
                binary = patch.binary;
                text = patch.text;
                let over_safe = lines > limits.safe_lines as i64 || bytes > limits.safe_bytes as i64;
                if over_safe && patch.lines > 0 && !expanded {
                    lines -= patch.lines as i64;
                    bytes -= text.len() as i64;
                    text.clear();
                    collapsed = true;
                }
                if text.len() as u64 >= limits.max_patch_bytes {
                    lines -= patch.lines as i64;
                    bytes -= text.len() as i64;
                    text.clear();
                    too_large = true;
                }
            }
        }
        if files > limits.max_files || lines >= limits.max_lines as i64 || bytes >= limits.max_bytes as i64 {
            return Ok((out, Cut::Limits));
        }
        if !collapsed && !too_large && !single && !expanded && text.len() as u64 >= limits.collapse_patch_bytes {
            text.clear();
            collapsed = true;
        }
        out.push(entity(change, &text, binary, collapsed, too_large, unidiff));
    }
    Ok((out, Cut::No))
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn entity(
    change: &FileChange,
    text: &[u8],
    binary: bool,
    collapsed: bool,
    too_large: bool,
    unidiff: bool,
) -> DiffEntity {
    let diff = if unidiff && !text.is_empty() && !binary {
        let old =
            if change.is_new() { b"/dev/null".to_vec() } else { gitdiff::quote_two(b"a/", &change.old_path, false) };
        let new = if change.is_deleted() {
            b"/dev/null".to_vec()
        } else {
            gitdiff::quote_two(b"b/", &change.new_path, false)
        };
        let mut full = Vec::with_capacity(text.len() + old.len() + new.len() + 10);
        full.extend_from_slice(b"--- ");
        full.extend_from_slice(&old);
        full.extend_from_slice(b"\n+++ ");
        full.extend_from_slice(&new);
        full.push(b'\n');
        full.extend_from_slice(text);
        lossy(&full)
    } else {
        lossy(text)
    };
    DiffEntity {
        diff,
        collapsed,
        too_large,
        new_path: lossy(&change.new_path),
        old_path: lossy(&change.old_path),
        a_mode: format!("{:o}", change.old_mode),
        b_mode: format!("{:o}", change.new_mode),
        new_file: change.is_new(),
        renamed_file: change.is_renamed(),
        deleted_file: change.is_deleted(),
        generated_file: false,
    }
}
