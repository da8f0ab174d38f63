//! What the two doors that take a request's body in pieces share (`http::call` for the API,
//! `transport` for git over HTTP, beside it): the connection's facts ([`meta`]) and the shape of
//! a body taken as it arrives ([`Opened`], [`BodySink`]). Below both doors, above the context;
//! it holds no behaviour.
//!
//! A sink never holds the `Context` between calls: the front door hands it to every call, so
//! that closing the context while a body is arriving is answered, never a dangling reference.

pub mod meta;

use crate::context::Context;
use crate::response::Response;

pub use meta::Meta;

/// What a front door's `open` decided for a request, before its body.
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
