//! The HTTP front door: a raw request (method, target, headers, body) in, a `Response` out.
//!
//! Owns parsing ([`request`]), routing ([`router`]) and turning errors into GitLab's status codes
//! and bodies. It holds no behaviour of its own: every route calls one operation in `api`.
//! The hosts (Python, Go) only carry bytes between a socket and [`handle`].

pub mod call;
pub mod meta;
pub mod request;
pub mod router;

use crate::api::{self, Call, Origin};
use crate::auth::Credentials;
use crate::context::Context;
use crate::error::ApiResult;
use crate::response::{Body, Response};
use meta::Meta;
use request::Request;

/// GitLab's `Cache-Control` for API answers (Grape's default through Rails): answers may depend
/// on the caller's token, which a shared cache cannot see in `PRIVATE-TOKEN`, so none stores them.
pub const CACHE_CONTROL: &str = "max-age=0, private, must-revalidate";

/// Serves one request whose body is at hand, from a host that said nothing about the
/// connection (tests, benchmarks): [`call::respond`] with an empty [`Meta`]. Never panics on bad
/// input; every failure is a GitLab-shaped response.
pub fn handle(ctx: &Context, method: &str, target: &str, headers: Vec<(String, String)>, body: &[u8]) -> Response {
    call::respond(ctx, Meta::default(), method, target, headers, body)
}

/// Serves an `/api/v4` request whose whole body has arrived.
fn serve_buffered(
    ctx: &Context,
    meta: Meta,
    method: &str,
    target: &str,
    headers: Vec<(String, String)>,
    body: &[u8],
) -> Response {
    answer(serve(ctx, meta, method, target, headers, body), method == "HEAD")
}

/// A route's result as the answer on the wire: errors as GitLab's bodies, no body for `HEAD`.
fn answer(result: ApiResult<Response>, is_head: bool) -> Response {
    let mut response = result.unwrap_or_else(|e| e.into_response());
    if is_head {
        response.body = Body::Bytes(Vec::new());
    }
    finish(response)
}

/// The headers every API answer carries, as GitLab sends them, set here once: `Cache-Control`
/// (unless the route chose its own, as raw blobs do) and `X-Content-Type-Options: nosniff`.
fn finish(mut response: Response) -> Response {
    if response.header("Cache-Control").is_none() {
        response.headers.push(("Cache-Control".into(), CACHE_CONTROL.into()));
    }
    if response.header("X-Content-Type-Options").is_none() {
        response.headers.push(("X-Content-Type-Options".into(), "nosniff".into()));
    }
    response
}

fn serve(
    ctx: &Context,
    meta: Meta,
    method: &str,
    target: &str,
    headers: Vec<(String, String)>,
    body: &[u8],
) -> ApiResult<Response> {
    let request = Request::parse(ctx, meta, method, target, headers, body)?;
    let credentials = Credentials::collect(request.headers(), &request.query);
    let base_url = api::base_url(ctx, request.header("host"));
    let mut call = Call::new(ctx, &credentials, base_url, Origin::request(&request.raw_path, &request.query_pairs))?;
    call.if_none_match = request.header("if-none-match").map(str::to_string);
    router::dispatch(&call, &request)
}
