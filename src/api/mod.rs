//! The operations, in plain Rust, one file each. Both front doors (`http` and the typed C
//! exports) call these and nothing else; an operation answers a whole `Response`, so both doors
//! give the same status, headers and body.
//!
//! One folder per family, named and grouped as GitLab's REST API reference is, one file per
//! operation inside: [`repository`] (the Repositories API and every family under
//! `/projects/:id/repository/`), [`projects`], [`groups`], [`namespaces`], [`users`],
//! [`member_roles`], [`members`], [`protected_branches`], [`personal_access_tokens`],
//! [`monitoring`] (the `/-/` probes and metrics). The families still to come take their
//! folders beside these, by the same rule: `merge_requests/`, `issues/`, `notes/`, `hooks/`,
//! `releases/`, `statuses/`, `push_rules/`. What every family shares stays at this level: the
//! call ([`Call`]), pagination, conditional requests, what every write shares ([`push`]),
//! GitLab's path rules ([`paths`]), the version, and the administration commands of the CLI
//! and embedders ([`admin`]).

pub mod admin;
pub mod award_emoji;
mod call;
pub mod ci_variables;
pub mod conditional;
pub mod deploy_tokens;
pub mod discussions;
pub mod group_hooks;
pub mod groups;
pub mod hooks;
pub mod issues;
pub mod labels;
pub mod member_roles;
pub mod members;
pub mod merge_requests;
pub mod monitoring;
pub mod namespaces;
pub mod notes;
pub mod ordered;
pub mod pagination;
pub mod paths;
pub mod personal_access_tokens;
pub mod projects;
pub mod protected_branches;
pub mod push;
pub mod push_rules;
pub mod releases;
pub mod repository;
pub mod resource_access_tokens;
pub mod resource_label_events;
pub mod statuses;
pub mod system_hooks;
pub mod topics;
pub mod users;
pub mod version;

pub use call::{base_url, Call, Origin};

use crate::error::ApiError;
use crate::store::StoreError;

/// What a store failure answers: 503 while the store cannot serve (the data directory is full
/// or read-only, the database is locked, unreachable or slower than its timeout), with the
/// reason; 500 for anything else. A unique key taken by a racing writer is answered where the
/// write is made (`Name has already been taken`); one that gets here is a bug.
impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::Unavailable { reason, .. } => ApiError::Unavailable(reason),
            other => ApiError::internal(other),
        }
    }
}
