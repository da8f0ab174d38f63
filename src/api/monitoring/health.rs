//! `GET /-/health`: the process answers. No dependency is checked (GitLab's
//! `BasicHealthCheck`: `200 text/plain`, `GitLab OK`).

use crate::response::{Body, Response};

pub fn get() -> Response {
    Response {
        status: 200,
        headers: vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
        body: Body::Bytes(b"forgecore OK".to_vec()),
    }
}
