//! A diff note's `position` (`POST .../discussions` on merge requests and commits), read and
//! checked as GitLab does: Grape's parameter rules first (`base_sha`, `start_sha`, `head_sha`
//! and `position_type` (`text`, `image`, `file`) required, lines and image coordinates
//! integers: `position[new_line] is invalid`), then `DiffNote`'s validations, answered as
//! `400 Note {...}`: a text position must name a line of the diff between `base_sha` and
//! `head_sha` in the project's repository (`line_code` from `Position#line_code`, else
//! `:line_code=>["can't be blank", "must be a valid line code"]`), and every position must be
//! complete (a path, a line or the image's four numbers: else `:position=>["is incomplete"]`).
//! Stored as GitLab's `Position#to_h`, in its key order.

use crate::api::merge_requests::Shas;
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_int, Params};
use crate::store::projects::Project;
use serde_json::{Map, Value};
use std::time::{Duration, Instant};

/// The `position` of a request: a JSON object, or `position[key]` form pairs; `None` when
/// there is none.
pub fn read(params: &Params) -> ApiResult<Option<Map<String, Value>>> {
    match params.raw("position") {
        Some(Value::Object(map)) => return Ok(Some(map.clone())),
        Some(Value::Null) | None => {}
        Some(_) => return Err(ApiError::InvalidParam("position".into())),
    }
    let mut map = Map::new();
    for (name, value) in params.iter() {
        if let Some(key) = name.strip_prefix("position[").and_then(|k| k.strip_suffix(']')) {
            if !key.contains('[') {
                map.insert(key.to_string(), value.clone());
            }
        }
    }
    Ok(if map.is_empty() { None } else { Some(map) })
}

/// A checked position, as it is stored (JSON text) and what it names.
pub struct Checked {
    pub json: String,
}

fn string(map: &Map<String, Value>, key: &str) -> ApiResult<Option<String>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(_) => Err(ApiError::InvalidParam(format!("position[{key}]"))),
    }
}

fn int(map: &Map<String, Value>, key: &str) -> ApiResult<Option<i64>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => parse_int(value).map(Some).ok_or_else(|| ApiError::InvalidParam(format!("position[{key}]"))),
    }
}

/// Checks `map` against the project's repository; see the module doc.
pub fn check(call: &Call, project: &Project, map: &Map<String, Value>) -> ApiResult<Checked> {
    let missing: Vec<String> = ["base_sha", "start_sha", "head_sha", "position_type"]
        .iter()
        .filter(|k| matches!(map.get(**k), None | Some(Value::Null)))
        .map(|k| format!("position[{k}] is missing"))
        .collect();
    if !missing.is_empty() {
        return Err(ApiError::ParamError(missing.join(", ")));
    }
    let base_sha = string(map, "base_sha")?.unwrap_or_default();
    let start_sha = string(map, "start_sha")?.unwrap_or_default();
    let head_sha = string(map, "head_sha")?.unwrap_or_default();
    let position_type = string(map, "position_type")?.unwrap_or_default();
    if !matches!(position_type.as_str(), "text" | "image" | "file") {
        return Err(ApiError::InvalidValue("position[position_type]".into()));
    }
    let old_path = string(map, "old_path")?;
    let new_path = string(map, "new_path")?;
    let old_line = int(map, "old_line")?;
    let new_line = int(map, "new_line")?;
    let (width, height, x, y) = (int(map, "width")?, int(map, "height")?, int(map, "x")?, int(map, "y")?);
    let line_range = match map.get("line_range") {
        None | Some(Value::Null) => Value::Null,
        Some(Value::Object(range)) => Value::Object(range.clone()),
        Some(_) => return Err(ApiError::InvalidParam("position[line_range]".into())),
    };
    let file_path = new_path.clone().filter(|p| !p.is_empty()).or(old_path.clone()).filter(|p| !p.is_empty());
    let complete = file_path.is_some()
        && match position_type.as_str() {
            "text" => old_line.is_some() || new_line.is_some(),
            "image" => x.is_some() && y.is_some() && width.is_some() && height.is_some(),
            _ => true,
        };
    let mut errors: Vec<String> = Vec::new();
    if position_type == "text" {
        let found = match &file_path {
            Some(_) => line_exists(
                call,
                project,
                [&base_sha, &head_sha],
                [old_path.as_deref(), new_path.as_deref()],
                old_line,
                new_line,
            )?,
            None => false,
        };
        if !found {
            errors.push(r#":line_code=>["can't be blank", "must be a valid line code"]"#.into());
        }
    }
    if !complete {
        errors.push(r#":position=>["is incomplete"]"#.into());
    }
    if !errors.is_empty() {
        return Err(ApiError::BadRequest(format!("Note {{{}}}", errors.join(", "))));
    }
    let mut stored = Map::new();
    stored.insert("base_sha".into(), base_sha.into());
    stored.insert("start_sha".into(), start_sha.into());
    stored.insert("head_sha".into(), head_sha.into());
    stored.insert("old_path".into(), old_path.into());
    stored.insert("new_path".into(), new_path.into());
    stored.insert("position_type".into(), position_type.clone().into());
    match position_type.as_str() {
        "text" => {
            stored.insert("old_line".into(), old_line.into());
            stored.insert("new_line".into(), new_line.into());
            stored.insert("line_range".into(), line_range);
        }
        "image" => {
            stored.insert("width".into(), width.into());
            stored.insert("height".into(), height.into());
            stored.insert("x".into(), x.into());
            stored.insert("y".into(), y.into());
        }
        _ => {}
    }
    stored.insert("ignore_whitespace_change".into(), false.into());
    Ok(Checked { json: Value::Object(stored).to_string() })
}

/// Whether the diff `base..head` of the file at `paths` (old, new) has the line `old_line`
/// / `new_line` names: an added line (new only), a removed one (old only) or an unchanged one
/// (both, inside a hunk or between them). Shas the repository lacks name no line.
fn line_exists(
    call: &Call,
    project: &Project,
    [base, head]: [&str; 2],
    [old_path, new_path]: [Option<&str>; 2],
    old_line: Option<i64>,
    new_line: Option<i64>,
) -> ApiResult<bool> {
    let repo = call.repository(project, "Project")?;
    let commit = |hex: &str| {
        gix::ObjectId::from_hex(hex.as_bytes())
            .ok()
            .filter(|id| repo.find_object(*id).ok().is_some_and(|o| o.kind == gix::object::Kind::Commit))
    };
    let (Some(base), Some(head)) = (commit(base), commit(head)) else { return Ok(false) };
    let shas = Shas { head, base: Some(base) };
    let deadline = Instant::now() + Duration::from_millis(call.ctx.config.limits.compare_timeout_millis);
    let changes = shas.changes(&repo, deadline)?;
    let named = |path: &[u8], wanted: Option<&str>| wanted.is_some_and(|w| w.as_bytes() == path);
    let Some(change) = changes.iter().find(|c| named(&c.new_path, new_path) || named(&c.old_path, old_path)) else {
        return Ok(false);
    };
    let blob = |id: Option<gix::ObjectId>| -> Vec<u8> {
        id.and_then(|id| repo.find_object(id).ok()).map(|o| o.data.clone()).unwrap_or_default()
    };
    let (old, new) = (blob(change.old_id), blob(change.new_id));
    let patch = crate::git::diff::text_patch(&old, &new);
    let old_count = old.split(|b| *b == b'\n').count() as i64 - i64::from(old.ends_with(b"\n") || old.is_empty());
    Ok(in_patch(&String::from_utf8_lossy(&patch.text), old_count, old_line, new_line))
}

/// Whether the hunks `text` (a unified diff's, from the first `@@`) have the line; unchanged
/// lines between hunks count, as GitLab unfolds them.
pub fn in_patch(text: &str, old_count: i64, old_line: Option<i64>, new_line: Option<i64>) -> bool {
    let (mut old_pos, mut new_pos) = (0i64, 0i64);
    // `new - old` for unchanged lines before the hunk being read.
    let mut offset = 0i64;
    let mut gaps: Vec<(i64, i64, i64)> = Vec::new();
    let mut last_old_end = 0i64;
    for line in text.lines() {
        if let Some(header) = line.strip_prefix("@@ -") {
            let mut parts = header.split([' ', ',', '+']).filter(|p| !p.is_empty());
            let old_start: i64 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
            gaps.push((last_old_end + 1, old_start - 1, offset));
            let rest = header.split_once('+').map(|(_, r)| r).unwrap_or("");
            let new_start: i64 = rest.split([',', ' ']).next().and_then(|p| p.parse().ok()).unwrap_or(0);
            old_pos = old_start;
            new_pos = new_start;
            continue;
        }
        match line.as_bytes().first() {
            Some(b'+') => {
                if old_line.is_none() && new_line == Some(new_pos) {
                    return true;
                }
                new_pos += 1;
            }
            Some(b'-') => {
                if new_line.is_none() && old_line == Some(old_pos) {
                    return true;
                }
                old_pos += 1;
            }
            Some(b' ') => {
                if old_line == Some(old_pos) && new_line == Some(new_pos) {
                    return true;
                }
                old_pos += 1;
                new_pos += 1;
            }
            _ => {}
        }
        offset = new_pos - old_pos;
        last_old_end = old_pos - 1;
    }
    gaps.push((last_old_end + 1, old_count, offset));
    match (old_line, new_line) {
        (Some(old), Some(new)) => gaps.iter().any(|&(from, to, delta)| old >= from && old <= to && new - old == delta),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::in_patch;

    const PATCH: &str = "@@ -2,3 +2,4 @@ a\n b\n-c\n+C\n+D\n d\n";

    #[test]
    fn lines_of_a_hunk_and_between_hunks() {
        assert!(in_patch(PATCH, 10, None, Some(4)), "an added line");
        assert!(in_patch(PATCH, 10, Some(3), None), "a removed line");
        assert!(in_patch(PATCH, 10, Some(2), Some(2)), "a context line");
        assert!(in_patch(PATCH, 10, Some(1), Some(1)), "an unchanged line before the hunk");
        assert!(in_patch(PATCH, 10, Some(8), Some(9)), "an unchanged line after it, shifted by one");
        assert!(!in_patch(PATCH, 10, Some(8), Some(8)), "not shifted: no such pair");
        assert!(!in_patch(PATCH, 10, None, Some(2)), "an unchanged line is not an added one");
        assert!(!in_patch(PATCH, 10, Some(11), Some(12)), "past the end of the file");
    }
}
