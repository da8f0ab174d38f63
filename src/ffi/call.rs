//! Requests whose body arrives in pieces: `fc_call_open`, `fc_call_write`, `fc_call_finish`,
//! `fc_call_free`. Both hosts serve every request through these; `fc_request` is the same
//! path with the body in one piece and nothing said about the connection.

use super::{bad_argument, c_bytes, c_str, context, fc_ctx, fc_response, parse_headers};
use crate::http::call;
use crate::incoming::{BodySink, Meta, Opened};
use crate::response::Response;
use std::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// One request whose body is still arriving. Made by `fc_call_open`; ended by
/// `fc_call_finish` (which frees it) or `fc_call_free`.
pub struct fc_call {
    /// The context the call was opened on, re-entered by every call (never freed: see the
    /// module note of `ffi`), so that a context closed meanwhile answers 400, never dangles.
    ctx: *const fc_ctx,
    sink: Box<dyn BodySink>,
}

/// Runs `work` like `guard`, but `Ok(None)` is a NULL answer ("go on").
fn guard_optional(work: impl FnOnce() -> Result<Option<Response>, Response>) -> *mut fc_response {
    let answer = match catch_unwind(AssertUnwindSafe(work)) {
        Ok(Ok(None)) => return std::ptr::null_mut(),
        Ok(Ok(Some(response))) | Ok(Err(response)) => response,
        Err(_) => crate::ApiError::Internal(crate::error::Cause::message("panic")).into_response(),
    };
    fc_response::into_raw(answer)
}

/// Starts a request: `meta_json` says what the host knows about the connection and a client
/// cannot forge (`{"peer_addr": "203.0.113.9:5123", "scheme": "https"}`, each optional; `{}`
/// says nothing), then the method, the raw target and the headers as `fc_request` takes them.
/// Returns either an answer at once (then `*out` is NULL and no call exists), or NULL with
/// `*out` set to a call: hand it the body with `fc_call_write` and end it with
/// `fc_call_finish`. `out` must not be NULL.
#[no_mangle]
pub extern "C" fn fc_call_open(
    ctx: *const fc_ctx,
    meta_json: *const c_char,
    method: *const c_char,
    target: *const c_char,
    headers_json: *const c_char,
    out: *mut *mut fc_call,
) -> *mut fc_response {
    if !out.is_null() {
        // SAFETY: a non-NULL `out` points to writable storage for one pointer by the contract.
        unsafe { out.write(std::ptr::null_mut()) };
    }
    guard_optional(|| {
        if out.is_null() {
            return Err(bad_argument("out is NULL".into()));
        }
        // SAFETY: each pointer is NULL or valid for the call by the caller's contract.
        let (open, meta, method, target, headers) = unsafe {
            (
                context(ctx)?,
                c_str(meta_json, "meta_json")?,
                c_str(method, "method")?,
                c_str(target, "target")?,
                c_str(headers_json, "headers_json")?,
            )
        };
        let meta = Meta::from_json(meta).map_err(bad_argument)?;
        let headers = parse_headers(headers)?;
        match call::open(&open, meta, method, target, headers) {
            Opened::Answer(response) => Ok(Some(response)),
            Opened::Body(sink) => {
                let made = Box::into_raw(Box::new(fc_call { ctx, sink }));
                // SAFETY: `out` was checked non-NULL above and is writable by the contract.
                unsafe { out.write(made) };
                Ok(None)
            }
        }
    })
}

/// Hands the next piece of the body (`piece` may be NULL when `len` is 0). NULL: go on. An
/// answer: the request is answered now; send it, stop writing, and free the call with
/// `fc_call_free`.
#[no_mangle]
pub extern "C" fn fc_call_write(call: *mut fc_call, piece: *const u8, len: usize) -> *mut fc_response {
    guard_optional(|| {
        if call.is_null() {
            return Err(bad_argument("call is NULL".into()));
        }
        // SAFETY: a live call from `fc_call_open` by the contract, used by one thread at a time.
        let call = unsafe { &mut *call };
        // SAFETY: as above for `piece`; the context shell is never freed.
        let (open, piece) = unsafe { (context(call.ctx)?, c_bytes(piece, len, "piece")?) };
        Ok(call.sink.write(&open, piece))
    })
}

/// The body is complete: returns the answer (it may stream through `fc_response_read`).
/// Consumes and frees the call.
#[no_mangle]
pub extern "C" fn fc_call_finish(call: *mut fc_call) -> *mut fc_response {
    super::guard(|| {
        if call.is_null() {
            return Err(bad_argument("call is NULL".into()));
        }
        // SAFETY: a live call from `fc_call_open`, given up by the caller with this call.
        let call = unsafe { Box::from_raw(call) };
        // SAFETY: the context shell is never freed.
        let open = unsafe { context(call.ctx)? };
        Ok(call.sink.finish(&open))
    })
}

/// Abandons a call (the client went away, or after an early answer). NULL is a no-op.
#[no_mangle]
pub extern "C" fn fc_call_free(call: *mut fc_call) {
    if call.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: a live call from `fc_call_open`, given up by the caller with this call.
        drop(unsafe { Box::from_raw(call) });
    }));
}
