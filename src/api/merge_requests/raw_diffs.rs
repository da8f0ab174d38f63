//! `GET /projects/:id/merge_requests/:merge_request_iid/raw_diffs`: the latest version's diff
//! as git prints it (`git diff --full-index base head`, what Gitaly's `RawDiff` answers
//! Workhorse's `send_git_diff`), as text, not cached. Empty for a merge request without a
//! version.

use super::{find, Shas};
use crate::api::Call;
use crate::error::{ApiError, ApiResult};
use crate::git::command::Spec;
use crate::response::{Body, Response};
use std::time::Duration;

/// git's empty tree, the base of a diff without a merge base.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// The most of a raw diff answered.
const OUTPUT_LIMIT: usize = 256 << 20;

pub fn raw_diffs(call: &Call, id: &str, iid: &str) -> ApiResult<Response> {
    let (project, mr) = find(call, id, iid)?;
    let text = match Shas::latest(&mr)? {
        None => Vec::new(),
        Some(shas) => {
            let dir = call.git_dir(&project)?;
            let base = shas.base.map_or_else(|| EMPTY_TREE.to_string(), |b| b.to_string());
            let head = shas.head.to_string();
            let timeout = Duration::from_millis(call.ctx.config.limits.compare_timeout_millis.max(10_000));
            let spec = Spec::new(&dir, &["diff", "--full-index", &base, &head], timeout);
            let output = call.git("merge_request_raw_diffs", || call.ctx.git.run(&spec, OUTPUT_LIMIT));
            let output = output.map_err(ApiError::internal)?;
            if !output.status.success() {
                return Err(ApiError::Internal(crate::error::Cause::message(String::from_utf8_lossy(&output.stderr))));
            }
            output.stdout
        }
    };
    Ok(Response {
        status: 200,
        headers: vec![
            ("Content-Type".into(), "text/plain; charset=utf-8".into()),
            ("Cache-Control".into(), "no-cache".into()),
        ],
        body: Body::Bytes(text),
    })
}
