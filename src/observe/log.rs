//! The one process-global sink for what the core has to say: request records and
//! diagnostics. The host registers it (`fc_log_set`, libgit2's `git_trace_set` shape with
//! rustls-ffi's user data); with none registered nothing is written anywhere. The core never
//! prints.
//!
//! Levels are numbered as the C ABI names them: 1 error, 2 warn, 3 info (request records),
//! 4 debug, 5 trace; 0 turns everything off. Diagnostics of the `log` crate (ours and our
//! dependencies', such as the PostgreSQL client and its pool) are bridged to the same sink: at
//! warn and above, unless the sink asks for debug or trace.
//!
//! Sinks are called from any thread, concurrently, with the text borrowed for the call.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::RwLock;

pub const OFF: u8 = 0;
pub const ERROR: u8 = 1;
pub const WARN: u8 = 2;
pub const INFO: u8 = 3;
pub const DEBUG: u8 = 4;
pub const TRACE: u8 = 5;

/// Receives one JSON object (no newline) at a level.
pub type Sink = Box<dyn Fn(u8, &str) + Send + Sync>;

/// The most verbose level wanted; read on every request, so an atomic rather than the lock.
static MIN_LEVEL: AtomicU8 = AtomicU8::new(OFF);
static SINK: RwLock<Option<Sink>> = RwLock::new(None);

/// Registers `sink` for levels up to `min_level` (the sink is dropped with level 0), replacing
/// any sink before it. Also installs the `log` bridge, once per process.
pub fn set(min_level: u8, sink: Option<Sink>) {
    let min_level = if sink.is_some() { min_level.min(TRACE) } else { OFF };
    let mut slot = SINK.write().unwrap_or_else(|p| p.into_inner());
    *slot = if min_level == OFF { None } else { sink };
    MIN_LEVEL.store(min_level, Ordering::Release);
    // Another `log` logger may have been set by the embedding program: then ours is not, and
    // diagnostics go to that one instead, as that program asked.
    if ::log::set_logger(&BRIDGE).is_ok() || std::ptr::addr_eq(::log::logger(), &BRIDGE) {
        ::log::set_max_level(bridge_filter(min_level));
    }
}

/// Whether anything at `level` would be written.
pub fn enabled(level: u8) -> bool {
    level != OFF && level <= MIN_LEVEL.load(Ordering::Acquire)
}

/// Hands `json` to the sink when `level` is wanted.
pub fn emit(level: u8, json: &str) {
    if !enabled(level) {
        return;
    }
    if let Some(sink) = SINK.read().unwrap_or_else(|p| p.into_inner()).as_ref() {
        sink(level, json);
    }
}

/// The name of a level in records (`severity`).
pub fn severity(level: u8) -> &'static str {
    match level {
        ERROR => "ERROR",
        WARN => "WARN",
        INFO => "INFO",
        DEBUG => "DEBUG",
        _ => "TRACE",
    }
}

/// The `log` crate's levels the bridge passes for a sink at `min_level`.
fn bridge_filter(min_level: u8) -> ::log::LevelFilter {
    match min_level {
        OFF => ::log::LevelFilter::Off,
        ERROR => ::log::LevelFilter::Error,
        DEBUG => ::log::LevelFilter::Debug,
        TRACE => ::log::LevelFilter::Trace,
        _ => ::log::LevelFilter::Warn,
    }
}

/// The current time as GitLab's logs write it: RFC 3339, UTC, milliseconds.
pub fn now_text() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let seconds = forgecore_date::rfc3339(now.as_secs() as i64, 0);
    // `rfc3339` writes `...THH:MM:SS.000+00:00`; GitLab's records carry `...THH:MM:SS.mmmZ`.
    match seconds.strip_suffix(".000+00:00") {
        Some(base) => format!("{base}.{:03}Z", now.subsec_millis()),
        None => seconds,
    }
}

struct Bridge;
static BRIDGE: Bridge = Bridge;

impl ::log::Log for Bridge {
    fn enabled(&self, metadata: &::log::Metadata) -> bool {
        enabled(level_of(metadata.level()))
    }

    fn log(&self, record: &::log::Record) {
        let level = level_of(record.level());
        if !self.enabled(record.metadata()) {
            return;
        }
        let json = serde_json::json!({
            "time": now_text(),
            "severity": severity(level),
            "target": record.target(),
            "message": record.args().to_string(),
        });
        emit(level, &json.to_string());
    }

    fn flush(&self) {}
}

fn level_of(level: ::log::Level) -> u8 {
    match level {
        ::log::Level::Error => ERROR,
        ::log::Level::Warn => WARN,
        ::log::Level::Info => INFO,
        ::log::Level::Debug => DEBUG,
        ::log::Level::Trace => TRACE,
    }
}
