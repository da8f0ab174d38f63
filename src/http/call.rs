//! One request whose body arrives in pieces: the shape every host uses (`fc_call_open`,
//! `fc_call_write`, `fc_call_finish`). [`open`] chooses, from the method, target and headers,
//! how the body is taken: every `/api/v4` route holds it in memory up to
//! `limits.max_body_bytes` and is served when it is complete; a route that takes its body as
//! a stream is chosen here before that default, with a sink of its own.
//!
//! A sink never holds the `Context` between calls: the front door hands it to every call, so
//! that closing the context while a body is arriving is answered, never a dangling reference.

use super::meta::Meta;
use crate::context::Context;
use crate::error::ApiError;
use crate::response::Response;

/// What [`open`] decided.
pub enum Opened {
    /// The answer, at once: nothing of the body is needed.
    Answer(Response),
    /// Hand the body to this sink, then finish it.
    Body(Box<dyn BodySink>),
}

/// Where a request's body goes while it arrives.
pub trait BodySink: Send {
    /// Takes the next piece. `Some` answers the request now (the rest of the body is not
    /// wanted); the caller stops writing and drops the sink.
    fn write(&mut self, ctx: &Context, piece: &[u8]) -> Option<Response>;
    /// The body is complete: the answer.
    fn finish(self: Box<Self>, ctx: &Context) -> Response;
}

/// Starts a request.
pub fn open(ctx: &Context, meta: Meta, method: &str, target: &str, headers: Vec<(String, String)>) -> Opened {
    // Git over HTTP takes its body as a stream, outside /api/v4.
    if let Some(opened) = crate::transport::open(ctx, &meta, method, target, &headers) {
        return opened;
    }
    let announced = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<u64>().ok());
    if announced.is_some_and(|length| length > ctx.config.limits.max_body_bytes as u64) {
        return Opened::Answer(super::answer(Err(ApiError::PayloadTooLarge), method == "HEAD"));
    }
    Opened::Body(Box::new(Buffered {
        meta,
        method: method.to_string(),
        target: target.to_string(),
        headers,
        body: Vec::new(),
    }))
}

/// Serves a request whose body is at hand, in one go, through [`open`]: what `fc_request` and
/// the tests use.
pub fn respond(
    ctx: &Context,
    meta: Meta,
    method: &str,
    target: &str,
    headers: Vec<(String, String)>,
    body: &[u8],
) -> Response {
    match open(ctx, meta, method, target, headers) {
        Opened::Answer(response) => response,
        Opened::Body(mut sink) => match sink.write(ctx, body) {
            Some(response) => response,
            None => sink.finish(ctx),
        },
    }
}

/// The default: the body held in memory up to the configured limit, then the route served.
struct Buffered {
    meta: Meta,
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl BodySink for Buffered {
    fn write(&mut self, ctx: &Context, piece: &[u8]) -> Option<Response> {
        if self.body.len().saturating_add(piece.len()) > ctx.config.limits.max_body_bytes {
            self.body = Vec::new();
            return Some(super::answer(Err(ApiError::PayloadTooLarge), self.method == "HEAD"));
        }
        self.body.extend_from_slice(piece);
        None
    }

    fn finish(self: Box<Self>, ctx: &Context) -> Response {
        let Buffered { meta, method, target, headers, body } = *self;
        super::serve_buffered(ctx, meta, &method, &target, headers, &body)
    }
}
