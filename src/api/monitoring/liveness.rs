//! `GET /-/liveness`: the process answers requests (GitLab: `{"status":"ok"}`, no checks).

use crate::response::Response;
use serde_json::json;

pub fn get() -> Response {
    Response::json(200, &json!({"status": "ok"}))
}
