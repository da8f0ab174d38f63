//! forgecore: the embeddable core of a GitLab-compatible forge.
//!
//! Layers, top to bottom (data flows down, never back up; no import cycle):
//! - [`ffi`]: the C ABI, the only module allowed `unsafe`.
//! - [`http`]: routing of raw HTTP requests to operations; parsing and response shaping.
//! - [`api`]: the operations in plain Rust, one folder per family, shared by `http` and the
//!   typed C exports; beside it [`transport`]: git over HTTP (clone, fetch, push) on GitLab's
//!   routes.
//! - [`incoming`]: what both doors share of a request taken in pieces (its connection's facts,
//!   the body's sink).
//! - [`context`]: one open instance; [`events`]: the one seam for what happened.
//! - [`auth`]: caller identity and the permission function every operation uses.
//! - [`cache`], [`config`], [`store`] (two backends, one migration list), [`observe`] (request
//!   records, metrics, the client's address and the correlation id), [`params`], [`error`].
//! - [`git`]: repository access through gix; git's own programs through `git::command` alone.
//! - [`response`]: answers and streamed bodies.
//!
//! Beside it, crates of the workspace (`crates/`) that cannot reach any of these, used by
//! `api`: `forgecore_archive` (repository archives: reads one repository, writes bytes),
//! `forgecore_changelog` (GitLab's changelog engine: no git, no store) and `forgecore_date`
//! (civil-date arithmetic).
#![deny(unsafe_code)]

pub mod api;
pub mod auth;
pub mod cache;
pub mod config;
pub mod context;
pub mod error;
pub mod events;
pub mod ffi;
pub mod git;
pub mod hooks;
pub mod http;
pub mod incoming;
pub mod observe;
pub mod outbound;
pub mod params;
pub mod response;
pub mod store;
pub mod transport;

pub use config::Config;
pub use context::Context;
pub use error::ApiError;
pub use response::Response;

/// Version of the C ABI; bumped on any incompatible change of an export or its conventions.
pub const FC_ABI_VERSION: u32 = 2;
