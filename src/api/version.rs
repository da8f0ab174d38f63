//! `GET /version` (decisions D7): what python-gitlab's `gl.version()` reads.

use crate::response::Response;
use serde_json::json;

/// The GitLab API version we answer for; clients compare it, so it names a real release.
pub const GITLAB_VERSION: &str = "18.1.0-forgecore";

pub fn get() -> Response {
    Response::json(
        200,
        &json!({"version": GITLAB_VERSION, "revision": env!("CARGO_PKG_VERSION"), "kas": {"enabled": false}, "enterprise": true}),
    )
}
