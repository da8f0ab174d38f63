//! The HTTP front door: a raw request (method, target, headers, body) in, a `Response` out.
//!
//! Owns taking a request in ([`call`]: its body, piece by piece, and which route takes it),
//! serving an `/api/v4` one ([`serve`]), parsing ([`request`]), routing ([`router`]) and turning
//! errors into GitLab's status codes and bodies. It holds no behaviour of its own: every route
//! calls one operation in `api`. The hosts (Python, Go) only carry bytes between a socket and
//! [`call`]'s entry points.

pub mod call;
pub mod request;
pub mod router;
mod serve;

use crate::context::Context;
use crate::incoming::Meta;
use crate::response::Response;

pub use crate::incoming::meta;

pub use serve::CACHE_CONTROL;

/// Serves one request whose body is at hand, from a host that said nothing about the
/// connection (tests, benchmarks): [`call::respond`] with an empty [`Meta`]. Never panics on bad
/// input; every failure is a GitLab-shaped response.
pub fn handle(ctx: &Context, method: &str, target: &str, headers: Vec<(String, String)>, body: &[u8]) -> Response {
    call::respond(ctx, Meta::default(), method, target, headers, body)
}
