//! What the two doors that take a request's body in pieces share (`http::call` for the API,
//! `transport` for git over HTTP, beside it): the connection's facts ([`meta`]) and the shape of
//! a body taken as it arrives ([`Opened`], [`BodySink`]), and what a door that checks its own
//! credentials hands back with it ([`Opening`]: the user the request's record names). Below both
//! doors, above the context; it holds no behaviour.
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

/// What a door that checks the caller's credentials itself (git over HTTP) decided, with the
/// user it found calling (id and username), whom the request's record names as an API
/// request's names its caller: `None` for an anonymous caller, a job token, or a request
/// answered before its caller was allowed.
pub struct Opening {
    pub opened: Opened,
    pub user: Option<(i64, String)>,
}

/// Where a request's body goes while it arrives.
pub trait BodySink: Send {
    /// Takes the next piece. `Some` answers the request now (the rest of the body is not
    /// wanted); the caller stops writing and drops the sink.
    fn write(&mut self, ctx: &Context, piece: &[u8]) -> Option<Response>;
    /// The body is complete: the answer.
    fn finish(self: Box<Self>, ctx: &Context) -> Response;
}
