//! `GET /version` (decisions D7): what python-gitlab's `gl.version()` reads.

use crate::response::Response;
use serde_json::json;

pub use crate::config::GITLAB_VERSION;

pub fn get() -> Response {
    Response::json(
        200,
        &json!({"version": GITLAB_VERSION, "revision": env!("CARGO_PKG_VERSION"), "kas": {"enabled": false}, "enterprise": true}),
    )
}
