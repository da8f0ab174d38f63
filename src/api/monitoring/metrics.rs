//! `GET /-/metrics`: the context's metrics in Prometheus' text format (0.0.4): requests by
//! method, route template and status, git operations, store operations and pool, caches (see
//! `observe::metrics`). Each process has its own: under a multi-process server, scrape each
//! (see the README).

use crate::context::Context;
use crate::response::{Body, Response};

pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

pub fn get(ctx: &Context) -> Response {
    let mut extra = ctx.store.samples();
    extra.extend(ctx.caches.samples());
    let page = ctx.metrics.render(&extra);
    Response {
        status: 200,
        headers: vec![("Content-Type".into(), CONTENT_TYPE.into())],
        body: Body::Bytes(page.into_bytes()),
    }
}
