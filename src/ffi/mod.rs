//! The C ABI: the only module with `unsafe` code.
//!
//! Conventions (also in the README and the generated header):
//! - Every export runs inside [`guard`]: a panic becomes a 500 JSON response, a NULL or
//!   non-UTF-8 argument a 400 JSON response. Errors are in-band: there is no "last error".
//! - Objects Rust allocates (`fc_ctx`, `fc_response`) are freed only by `fc_close` and
//!   `fc_response_free`; pointers returned by accessors are borrowed from their response and
//!   live until it is freed.
//! - `fc_ctx` is `Send + Sync`: any number of threads may call into one context at once. It
//!   must not be closed while calls on it are in flight.
#![allow(unsafe_code)]
#![allow(non_camel_case_types)]
// The exports take raw pointers from C and check them (NULL, UTF-8) before any use; marking
// them `unsafe fn` would change nothing for a C caller and hide that checking.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

mod archive;
mod exports;
mod families;
mod response;

pub use archive::*;
pub use exports::*;
pub use families::*;
pub use response::*;

use crate::response::Response;
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// An opened forgecore instance.
pub struct fc_ctx {
    pub(crate) inner: crate::Context,
}

fn bad_argument(text: String) -> Response {
    crate::ApiError::BadRequest(text).into_response()
}

/// Runs `work`, turning a panic into a 500 response and handing the response to C.
fn guard(work: impl FnOnce() -> Result<Response, Response>) -> *mut fc_response {
    let response = match catch_unwind(AssertUnwindSafe(work)) {
        Ok(Ok(response)) | Ok(Err(response)) => response,
        Err(_) => crate::ApiError::Internal(crate::error::Cause::message("panic")).into_response(),
    };
    fc_response::into_raw(response)
}

/// A borrowed, UTF-8 C string argument, or a 400 naming it.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that stays alive during the call.
unsafe fn c_str<'a>(ptr: *const c_char, name: &str) -> Result<&'a str, Response> {
    if ptr.is_null() {
        return Err(bad_argument(format!("{name} is NULL")));
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    let text = unsafe { CStr::from_ptr(ptr) };
    text.to_str().map_err(|_| bad_argument(format!("{name} is not valid UTF-8")))
}

/// A borrowed byte buffer argument; `(NULL, 0)` is empty, `(NULL, n > 0)` a 400.
///
/// # Safety
/// `ptr` is NULL or points to `len` readable bytes that stay alive during the call.
unsafe fn c_bytes<'a>(ptr: *const u8, len: usize, name: &str) -> Result<&'a [u8], Response> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(bad_argument(format!("{name} is NULL with a length of {len}")));
    }
    if len > isize::MAX as usize {
        return Err(bad_argument(format!("{name} is too long")));
    }
    // SAFETY: non-NULL and `len` readable bytes by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// The context behind a pointer, or a 400.
///
/// # Safety
/// `ctx` is NULL or a pointer from `fc_open` that has not been closed.
unsafe fn context<'a>(ctx: *const fc_ctx) -> Result<&'a crate::Context, Response> {
    if ctx.is_null() {
        return Err(bad_argument("ctx is NULL".into()));
    }
    // SAFETY: a live context from `fc_open` by the caller's contract; shared access only.
    Ok(unsafe { &(*ctx).inner })
}
