//! `fc_response`: status, headers as a JSON object, and a body that is either in memory or a
//! stream produced while the caller reads it with `fc_response_read`.

use crate::response::{Body, Response};
use std::ffi::{c_char, CString};
use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A response owned by the caller until `fc_response_free`.
pub struct fc_response {
    status: u16,
    headers_json: CString,
    body: Body,
    /// How far `fc_response_read` has consumed an in-memory body.
    read_offset: usize,
}

/// Headers as one JSON object; a name set twice keeps both values joined by `", "`.
fn headers_object(headers: &[(String, String)]) -> CString {
    let mut object = serde_json::Map::new();
    for (name, value) in headers {
        let joined = match object.get(name).and_then(|v| v.as_str()) {
            Some(previous) => format!("{previous}, {value}"),
            None => value.clone(),
        };
        object.insert(name.clone(), serde_json::Value::String(joined));
    }
    let text = serde_json::Value::Object(object).to_string();
    // JSON escapes control characters, so the text holds no NUL.
    CString::new(text).unwrap_or_default()
}

impl fc_response {
    pub(crate) fn into_raw(response: Response) -> *mut fc_response {
        let boxed = Box::new(fc_response {
            status: response.status,
            headers_json: headers_object(&response.headers),
            body: response.body,
            read_offset: 0,
        });
        Box::into_raw(boxed)
    }
}

/// The HTTP status of a response; 0 for NULL.
#[no_mangle]
pub extern "C" fn fc_response_status(response: *const fc_response) -> u16 {
    // SAFETY: NULL or a live response from this library (caller's contract).
    unsafe { response.as_ref() }.map_or(0, |r| r.status)
}

/// The response headers as a JSON object (`{"Content-Type": "application/json", ...}`).
/// Borrowed: valid until the response is freed. NULL for a NULL response.
#[no_mangle]
pub extern "C" fn fc_response_headers(response: *const fc_response) -> *const c_char {
    // SAFETY: NULL or a live response from this library (caller's contract).
    unsafe { response.as_ref() }.map_or(std::ptr::null(), |r| r.headers_json.as_ptr())
}

/// Whether the body is a stream, readable only with `fc_response_read` (1) or in memory (0).
#[no_mangle]
pub extern "C" fn fc_response_streamed(response: *const fc_response) -> i32 {
    // SAFETY: NULL or a live response from this library (caller's contract).
    unsafe { response.as_ref() }.map_or(0, |r| i32::from(matches!(r.body, Body::Stream(_))))
}

/// The whole in-memory body and its length in `*len`. Borrowed: valid until the response is
/// freed. A streamed body gives NULL and a length of 0: read it with `fc_response_read`.
/// `len` may be NULL.
#[no_mangle]
pub extern "C" fn fc_response_body(response: *const fc_response, len: *mut usize) -> *const u8 {
    // SAFETY: NULL or a live response from this library (caller's contract).
    let (ptr, size) = match unsafe { response.as_ref() }.map(|r| &r.body) {
        Some(Body::Bytes(bytes)) => (bytes.as_ptr(), bytes.len()),
        _ => (std::ptr::null(), 0),
    };
    if !len.is_null() {
        // SAFETY: non-NULL and writable by the caller's contract.
        unsafe { *len = size };
    }
    ptr
}

/// Copies up to `cap` next bytes of the body into `buf`. Returns the number of bytes copied,
/// 0 at the end of the body, -1 on an error (NULL arguments, a failing stream). Works for both
/// in-memory and streamed bodies; memory stays bounded by `cap` for streams.
#[no_mangle]
pub extern "C" fn fc_response_read(response: *mut fc_response, buf: *mut u8, cap: usize) -> isize {
    // SAFETY: NULL or a live response from this library, not used by another thread meanwhile.
    let Some(response) = (unsafe { response.as_mut() }) else { return -1 };
    if cap == 0 {
        return 0;
    }
    if buf.is_null() {
        return -1;
    }
    let cap = cap.min(isize::MAX as usize);
    // SAFETY: `buf` is non-NULL with `cap` writable bytes by the caller's contract.
    let out = unsafe { std::slice::from_raw_parts_mut(buf, cap) };
    let result = catch_unwind(AssertUnwindSafe(|| match &mut response.body {
        Body::Bytes(bytes) => {
            let rest = &bytes[response.read_offset.min(bytes.len())..];
            let n = rest.len().min(out.len());
            out[..n].copy_from_slice(&rest[..n]);
            response.read_offset += n;
            Ok(n)
        }
        Body::Stream(reader) => loop {
            match reader.read(out) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        },
    }));
    match result {
        Ok(Ok(n)) => n as isize,
        _ => -1,
    }
}

/// Frees a response and everything borrowed from it. NULL is a no-op.
#[no_mangle]
pub extern "C" fn fc_response_free(response: *mut fc_response) {
    if response.is_null() {
        return;
    }
    // A stream's drop may run producer code; a panic there stays inside the library.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: a pointer from `into_raw`, freed once by the caller's contract.
        drop(unsafe { Box::from_raw(response) });
    }));
}
