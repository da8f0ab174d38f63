//! One request whose body arrives in pieces: the shape every host uses (`fc_call_open`,
//! `fc_call_write`, `fc_call_finish`). [`open`] chooses, from the method, target and headers,
//! how the body is taken: every `/api/v4` route holds it in memory up to
//! `limits.max_body_bytes` and is served when it is complete; a route that takes its body as
//! a stream is chosen here before that default, with a sink of its own.
//!
//! Every request has one record and one count in the metrics (`observe::record::Trace`): the
//! trace starts here and ends with the answer, whichever call gives it; a sink dropped without
//! answering (the client went away) ends it as 499. A sink chosen here (git over HTTP) is
//! wrapped in [`Traced`], which does that for it; its record names the user the transport's
//! authorization found, as the API's name the caller. The `/-/` routes (probes and metrics) are
//! chosen here too: they take no body.
//!
//! A sink never holds the `Context` between calls: the front door hands it to every call, so
//! that closing the context while a body is arriving is answered, never a dangling reference.

use super::request::Incoming;
use crate::api::monitoring;
use crate::context::Context;
use crate::error::ApiError;
use crate::incoming::Meta;
use crate::observe::record::Trace;
use crate::response::{Body, Response};

pub use crate::incoming::{BodySink, Opened};

/// Starts a request.
pub fn open(ctx: &Context, meta: Meta, method: &str, target: &str, headers: Vec<(String, String)>) -> Opened {
    let mut trace = ctx.trace(meta.peer, method, target, &headers);
    let (path, query) = target.split('#').next().unwrap_or("").split_once('?').unwrap_or((target, ""));
    if let Some(template) = monitoring::route(path) {
        trace.set_route(template);
        let mut response = monitoring::serve(ctx, trace.client, method, template, query);
        if method == "HEAD" {
            response.body = Body::Bytes(Vec::new());
        }
        return Opened::Answer(trace.finish(response));
    }
    // Git over HTTP takes its body as a stream, outside /api/v4.
    if let Some(opening) = crate::transport::open(ctx, &meta, method, target, &headers) {
        trace.set_route(git_template(path));
        trace.set_user(opening.user.as_ref().map(|(id, username)| (*id, username.as_str())));
        return traced(trace, opening.opened);
    }
    let announced = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<u64>().ok());
    if announced.is_some_and(|length| length > ctx.config.limits.max_body_bytes as u64) {
        return Opened::Answer(trace.finish(super::serve::answer(Err(ApiError::PayloadTooLarge), method == "HEAD")));
    }
    let incoming = Incoming { meta, method: method.to_string(), target: target.to_string(), headers };
    Opened::Body(Box::new(Buffered { trace: Some(trace), incoming, body: Vec::new() }))
}

/// The route template of a git over HTTP request (Workhorse's routes, without their regexps).
fn git_template(path: &str) -> &'static str {
    if path.ends_with(".git/git-upload-pack") {
        "/:project.git/git-upload-pack"
    } else if path.ends_with(".git/git-receive-pack") {
        "/:project.git/git-receive-pack"
    } else {
        "/:project.git/info/refs"
    }
}

/// `opened` with its request's trace: ended with the answer at once, or carried by the sink.
fn traced(trace: Trace, opened: Opened) -> Opened {
    match opened {
        Opened::Answer(response) => Opened::Answer(trace.finish(response)),
        Opened::Body(inner) => Opened::Body(Box::new(Traced { trace: Some(trace), inner })),
    }
}

/// A sink chosen before the buffered default (git over HTTP), with the trace of its request,
/// ended by whichever call answers (or, dropped unanswered, as 499).
struct Traced {
    trace: Option<Trace>,
    inner: Box<dyn BodySink>,
}

impl BodySink for Traced {
    fn write(&mut self, ctx: &Context, piece: &[u8]) -> Option<Response> {
        let answer = self.inner.write(ctx, piece)?;
        Some(match self.trace.take() {
            Some(trace) => trace.finish(answer),
            None => answer,
        })
    }

    fn finish(self: Box<Self>, ctx: &Context) -> Response {
        let Traced { trace, inner } = *self;
        let answer = inner.finish(ctx);
        match trace {
            Some(trace) => trace.finish(answer),
            None => answer,
        }
    }
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
    /// `None` once the request is answered.
    trace: Option<Trace>,
    incoming: Incoming,
    body: Vec<u8>,
}

impl Drop for Buffered {
    /// Abandoned before it was served (the client went away): the trace still learns the route
    /// its record names, then ends as 499.
    fn drop(&mut self) {
        if let Some(trace) = &mut self.trace {
            if let Some(template) = super::router::template_for(&self.incoming.method, &self.incoming.target) {
                trace.set_route(template);
            }
        }
    }
}

impl BodySink for Buffered {
    fn write(&mut self, ctx: &Context, piece: &[u8]) -> Option<Response> {
        if self.body.len().saturating_add(piece.len()) > ctx.config.limits.max_body_bytes {
            self.body = Vec::new();
            let response = super::serve::answer(Err(ApiError::PayloadTooLarge), self.incoming.method == "HEAD");
            return Some(match self.trace.take() {
                Some(trace) => trace.finish(response),
                None => response,
            });
        }
        self.body.extend_from_slice(piece);
        None
    }

    fn finish(mut self: Box<Self>, ctx: &Context) -> Response {
        let (incoming, body) = (std::mem::take(&mut self.incoming), std::mem::take(&mut self.body));
        let mut trace = self
            .trace
            .take()
            .unwrap_or_else(|| ctx.trace(incoming.meta.peer, &incoming.method, &incoming.target, &incoming.headers));
        // The body may have arrived on other threads than this one: count this thread's work only.
        crate::observe::stats::take();
        let response = super::serve::buffered(ctx, &mut trace, incoming, &body);
        trace.finish(response)
    }
}
