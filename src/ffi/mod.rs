//! The C ABI: the only module with `unsafe` code.
//!
//! Conventions (also in the README and the generated header):
//! - Every export runs inside [`guard`]: a panic becomes a 500 JSON response, a NULL or
//!   non-UTF-8 argument a 400 JSON response. Errors are in-band: there is no "last error".
//! - Objects Rust allocates (`fc_ctx`, `fc_call`, `fc_response`) are freed only by `fc_close`,
//!   `fc_call_finish` or `fc_call_free`, and `fc_response_free`; pointers returned by accessors are borrowed from their response and
//!   live until it is freed.
//! - `fc_ctx` is `Send + Sync`: any number of threads may call into one context at once.
//!   `fc_close` waits for the calls in flight, then frees the instance; a call that comes
//!   while or after it closes is answered 400 `ctx is closed`, never a crash. For that the
//!   few bytes of the `fc_ctx` itself are never freed (kept reachable in [`CLOSED`], so leak
//!   checkers see no leak): a thread may hold the pointer and be about to call when another
//!   closes it.
#![allow(unsafe_code)]
#![allow(non_camel_case_types)]
// The exports take raw pointers from C and check them (NULL, UTF-8) before any use; marking
// them `unsafe fn` would change nothing for a C caller and hide that checking.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

mod archive;
mod call;
mod exports;
mod families;
mod files;
mod response;

pub use archive::*;
pub use call::*;
pub use exports::*;
pub use families::*;
pub use files::*;
pub use response::*;

use crate::response::Response;
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, RwLock, RwLockReadGuard};

/// An opened forgecore instance. Any number of threads may call into one at once; `fc_close`
/// waits for the calls in flight.
// The context while it is open, `None` once closed. Every call holds the read lock for its
// duration; `close` takes the write lock, so it waits for them.
pub struct fc_ctx {
    inner: RwLock<Option<Box<crate::Context>>>,
}

impl fc_ctx {
    pub(crate) fn new(context: crate::Context) -> fc_ctx {
        fc_ctx { inner: RwLock::new(Some(Box::new(context))) }
    }
}

/// Every closed `fc_ctx`, never freed (see the module's note), as addresses.
static CLOSED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// Closes `ctx`: waits for the calls in flight, drops the instance, and keeps the shell.
fn close(ctx: &fc_ctx) {
    let context = ctx.inner.write().unwrap_or_else(|p| p.into_inner()).take();
    if context.is_some() {
        CLOSED.lock().unwrap_or_else(|p| p.into_inner()).push(ctx as *const fc_ctx as usize);
    }
    drop(context);
}

/// An open context, held for one call.
pub(crate) struct Open<'a>(RwLockReadGuard<'a, Option<Box<crate::Context>>>);

impl std::ops::Deref for Open<'_> {
    type Target = crate::Context;

    fn deref(&self) -> &crate::Context {
        // `context` hands out an `Open` only for `Some`, and `close` cannot take the value while
        // this read guard lives.
        self.0.as_deref().unwrap_or_else(|| unreachable!("an Open context is open"))
    }
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

/// The context behind a pointer, held open until the result is dropped, or a 400 (NULL, or
/// closed).
///
/// # Safety
/// `ctx` is NULL or a pointer from `fc_open` (closed or not: a closed one is never freed).
unsafe fn context<'a>(ctx: *const fc_ctx) -> Result<Open<'a>, Response> {
    if ctx.is_null() {
        return Err(bad_argument("ctx is NULL".into()));
    }
    // SAFETY: a pointer from `fc_open` by the caller's contract, never freed; shared access only.
    let shell = unsafe { &*ctx };
    let open = shell.inner.read().unwrap_or_else(|p| p.into_inner());
    if open.is_none() {
        return Err(bad_argument("ctx is closed".into()));
    }
    Ok(Open(open))
}
