//! `GET` and `HEAD /projects/:id/repository/files/:file_path/blame?ref=[&range[start]=&range[end]=]`:
//! GitLab's `BlameRange` array, `[{"commit": <Commit>, "lines": [...]}, ...]`, one item per run of
//! consecutive lines from one commit, with the file's `X-Gitlab-*` headers. A range needs both
//! ends, each an integer above 0, `start` not after `end` (else GitLab's 400 `{"message":
//! "range[start] must be less than or equal to range[end]"}`); lines past the end of the file
//! are not answered.
//!
//! A blame has `limits.blame_timeout_millis` (30 s, GitLab's `gitaly_timeout_medium`, with
//! which it calls Gitaly's `RawBlame`); one still running then answers what GitLab answers when
//! that call passes its deadline: `GRPC::DeadlineExceeded` reaches the API's `rescue_from :all`,
//! a 500 `{"message":"500 Internal Server Error"}`.

use super::{file_path, find, headers, required_ref};
use crate::api::repository::commits;
use crate::api::Call;
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git;
use crate::params::Params;
use crate::response::Response;
use serde_json::Value;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// One end of `range`: `range[start]` in a query or form, `{"range": {"start": ...}}` in JSON.
fn range_end(params: &Params, end: &str) -> ApiResult<Option<i64>> {
    let name = format!("range[{end}]");
    if params.contains(&name) {
        return params.int(&name);
    }
    match params.raw("range") {
        Some(Value::Object(range)) => match range.get(end) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => crate::params::parse_int(value).map(Some).ok_or(ApiError::InvalidParam(name)),
        },
        None | Some(Value::Null) => Ok(None),
        Some(_) => Err(ApiError::InvalidParam("range".into())),
    }
}

/// The 1-based inclusive range asked for, if any.
fn range(params: &Params) -> ApiResult<Option<(u32, u32)>> {
    let (start, end) = (range_end(params, "start")?, range_end(params, "end")?);
    let positive = |value: i64, name: &str| {
        u32::try_from(value).ok().filter(|v| *v > 0).ok_or_else(|| ApiError::InvalidValue(format!("range[{name}]")))
    };
    match (start, end) {
        (None, None) => Ok(None),
        (Some(_), None) => Err(ApiError::MissingParam("range[end]".into())),
        (None, Some(_)) => Err(ApiError::MissingParam("range[start]".into())),
        (Some(start), Some(end)) => {
            let (start, end) = (positive(start, "start")?, positive(end, "end")?);
            if start > end {
                // GitLab's `render_api_error!` (lib/api/files.rb, `fetch_blame_range`).
                return Err(ApiError::validation("range[start] must be less than or equal to range[end]"));
            }
            Ok(Some((start, end)))
        }
    }
}

pub fn blame(call: &Call, project: &str, path: &str, params: &Params) -> ApiResult<Response> {
    let path = file_path(path, false)?;
    let reference = required_ref(params)?;
    let lines = range(params)?;
    let found = find(call, project, &path, Some(reference))?;
    let content = found.content()?;
    let entity = found.meta.entity(&super::sha256(&content));
    let line_count = content.split_inclusive(|b| *b == b'\n').count() as u32;
    let lines = match lines {
        Some((start, _)) if start > line_count => return Ok(answer(Vec::new(), &entity)),
        Some((start, end)) => Some((start, end.min(line_count))),
        None => None,
    };
    let groups = if line_count == 0 {
        Vec::new()
    } else {
        let deadline = Instant::now() + Duration::from_millis(call.ctx.config.limits.blame_timeout_millis);
        match call.git("blame", || git::blame::file(&found.repo, found.meta.commit, &path, lines, deadline)) {
            Ok(groups) => groups,
            // GitLab's answer when Gitaly's RawBlame passes its deadline: the API's 500.
            Err(timeout @ git::blame::Error::Timeout) => return Err(ApiError::internal(timeout)),
            // gix's blame refuses histories whose trees hold names git would never write (`..`,
            // `.git`, unsorted entries: a hostile repository's); the file exists, its history
            // cannot be told.
            Err(_) => {
                return Err(ApiError::Unprocessable(
                    "The file's history cannot be blamed: its trees hold entries git does not write".into(),
                ))
            }
        }
    };
    let mut commits_seen = HashMap::new();
    let mut items = Vec::with_capacity(groups.len());
    for group in groups {
        let commit = match commits_seen.get(&group.commit) {
            Some(entity) => Value::clone(entity),
            None => {
                let info = git::commit::read(&found.repo, group.commit).or_broken()?;
                let entity = commits::entity(call, &found.project, &info);
                commits_seen.insert(group.commit, entity.clone());
                entity
            }
        };
        let lines: Vec<Value> =
            group.lines.iter().map(|line| Value::String(String::from_utf8_lossy(line).into_owned())).collect();
        items.push(serde_json::json!({"commit": commit, "lines": lines}));
    }
    Ok(answer(items, &entity))
}

fn answer(items: Vec<Value>, entity: &super::Entity) -> Response {
    let mut response = Response::json(200, &Value::Array(items));
    response.headers.extend(headers(entity));
    response
}
