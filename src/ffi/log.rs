//! `fc_log_set`: the host's one log callback, for request records and diagnostics (see
//! `observe::log`). Process-global, as the `log` facade it also receives is.

use crate::observe::log;
use std::ffi::{c_char, c_int, c_void};

/// The registered callback and its user data, sent to whichever thread logs.
struct Callback {
    cb: extern "C" fn(*mut c_void, c_int, *const c_char, usize),
    user_data: *mut c_void,
}

// SAFETY: the user data is the host's, handed back untouched; `fc_log_set`'s contract makes the
// callback callable from any thread at once, which is all that is done with either.
unsafe impl Send for Callback {}
// SAFETY: as above: shared use is calling the callback, which the contract allows concurrently.
unsafe impl Sync for Callback {}

impl Callback {
    fn call(&self, level: u8, json: &str) {
        let mut text = Vec::with_capacity(json.len() + 1);
        text.extend_from_slice(json.as_bytes());
        text.push(0);
        (self.cb)(self.user_data, c_int::from(level), text.as_ptr().cast(), json.len());
    }
}

/// Registers the process's log callback: every request's record (level 3, info: one JSON
/// object with the fields of GitLab's `api_json.log`) and the diagnostics of the core and its
/// dependencies (warn and above; debug and trace too when `min_level` asks for them) at
/// levels up to `min_level` (1 error, 2 warn, 3 info, 4 debug, 5 trace). `min_level` 0 or a
/// NULL `cb` turns logging off; a later call replaces an earlier one. Without a callback
/// nothing is written anywhere.
///
/// The callback gets `user_data` as registered, the level, and one JSON object of `len` bytes
/// (NUL-terminated too). It is called from any thread, concurrently; `json` is borrowed for
/// the call only. It must not call into forgecore and must not unwind. Returns 0, or -1 for a
/// `min_level` outside 0..=5 (nothing changed).
#[no_mangle]
pub extern "C" fn fc_log_set(
    min_level: c_int,
    cb: Option<extern "C" fn(user_data: *mut c_void, level: c_int, json: *const c_char, len: usize)>,
    user_data: *mut c_void,
) -> c_int {
    let Ok(level) = u8::try_from(min_level) else { return -1 };
    if level > log::TRACE {
        return -1;
    }
    let sink: Option<log::Sink> = cb.map(|cb| {
        let callback = Callback { cb, user_data };
        Box::new(move |level: u8, json: &str| callback.call(level, json)) as log::Sink
    });
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| log::set(level, sink)));
    0
}
