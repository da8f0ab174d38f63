//! The instance's own routes outside `/api/v4`, as GitLab serves them: `/-/health`,
//! `/-/liveness`, `/-/readiness` and `/-/metrics`, for load balancers, orchestrators and
//! Prometheus. Only clients on `monitoring.ip_allowlist` (loopback by default) reach them;
//! others get GitLab's empty 404, as if there were nothing here. They take no credentials and
//! count against no rate limit (GitLab exempts its probes from Rack Attack).

pub mod health;
pub mod liveness;
pub mod metrics;
pub mod readiness;

use crate::context::Context;
use crate::observe::client;
use crate::response::Response;
use std::net::IpAddr;

/// A route's operation, with the context and the raw query string.
type Handler = fn(&Context, &str) -> Response;

/// The routes by path, which are also their templates for records and metrics.
const ROUTES: &[(&str, Handler)] = &[
    ("/-/health", |_, _| health::get()),
    ("/-/liveness", |_, _| liveness::get()),
    ("/-/readiness", readiness::get),
    ("/-/metrics", |ctx, _| metrics::get(ctx)),
];

/// The route `path` names among these, as its template.
pub fn route(path: &str) -> Option<&'static str> {
    ROUTES.iter().find(|(p, _)| *p == path).map(|(p, _)| *p)
}

/// Serves a request for one of these routes (`template`, from [`route`]) from `client`.
pub fn serve(ctx: &Context, client: Option<IpAddr>, method: &str, template: &str, query: &str) -> Response {
    let allowed = client.is_some_and(|ip| client::listed(&ctx.config.monitoring.ip_allowlist, ip));
    // Rails routes these for GET (and so HEAD) only: any other method finds no route, a 404.
    if !allowed || !matches!(method, "GET" | "HEAD") {
        return Response::empty(404);
    }
    match ROUTES.iter().find(|(p, _)| *p == template) {
        Some((_, handler)) => handler(ctx, query),
        None => Response::empty(404),
    }
}
