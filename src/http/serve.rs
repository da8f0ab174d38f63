//! Serving an `/api/v4` request whose body has all arrived: parsed, routed, its caller
//! identified, its operation called, and the answer given GitLab's headers; the request's trace
//! learns its route, caller and parameters on the way.

use super::request::{Incoming, Request};
use super::router;
use crate::api::{self, Call, Origin};
use crate::auth::Credentials;
use crate::context::Context;
use crate::error::ApiResult;
use crate::observe::record::Trace;
use crate::response::{Body, Response};

/// GitLab's `Cache-Control` for API answers (Grape's default through Rails): answers may depend
/// on the caller's token, which a shared cache cannot see in `PRIVATE-TOKEN`, so none stores them.
pub const CACHE_CONTROL: &str = "max-age=0, private, must-revalidate";

/// Serves an `/api/v4` request whose whole body has arrived; `trace` learns its route, caller
/// and parameters.
pub(super) fn buffered(ctx: &Context, trace: &mut Trace, incoming: Incoming, body: &[u8]) -> Response {
    let is_head = incoming.method == "HEAD";
    answer(route_and_call(ctx, trace, incoming, body), is_head)
}

/// A route's result as the answer on the wire: errors as GitLab's bodies, no body for `HEAD`.
pub(super) fn answer(result: ApiResult<Response>, is_head: bool) -> Response {
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

/// The operation `request` names, called for its caller.
fn route_and_call(ctx: &Context, trace: &mut Trace, incoming: Incoming, body: &[u8]) -> ApiResult<Response> {
    let request = Request::parse(ctx, incoming, body)?;
    let found = router::find(&request);
    if let Ok((route, _)) = &found {
        trace.set_route(route.template);
    }
    let credentials = Credentials::collect(request.headers(), &request.query);
    let texts: Vec<&str> = credentials.personal.iter().chain(&credentials.job).map(String::as_str).collect();
    trace.set_params(&request.params, &texts);
    let base_url = api::base_url(ctx, request.header("host"));
    let origin = Origin::request(&request.raw_path, &request.query_pairs);
    let mut call = Call::from_client(ctx, &credentials, base_url, origin, trace.client)?;
    // The token's scopes first, then `Sudo` (GitLab's order: the token is validated for the
    // route as it is found, `sudo!` comes after).
    if let Ok((route, _)) = &found {
        call.check_scopes(route.need, &request.method)?;
    }
    let sudo = request.params.string("sudo").ok().flatten().or_else(|| request.header("sudo").map(str::to_string));
    if let Some(identifier) = sudo.filter(|s| !s.is_empty()) {
        call.sudo(&identifier)?;
    }
    trace.set_user(call.caller.user().map(|u| (u.id, u.username.as_str())));
    call.if_none_match = request.header("if-none-match").map(str::to_string);
    router::dispatch(&call, &request, found)
}
