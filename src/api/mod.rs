//! The operations, in plain Rust, one file each. Both front doors (`http` and the typed C
//! exports) call these and nothing else; an operation answers a whole `Response`, so both doors
//! give the same status, headers and body.

pub mod admin;
pub mod archive;
pub mod blobs;
pub mod branches;
mod call;
pub mod changelog;
pub mod commits;
pub mod compare;
pub mod conditional;
pub mod contributors;
pub mod files;
pub mod groups;
pub mod health;
pub mod member_roles;
pub mod merge_base;
pub mod monitoring;
pub mod pagination;
pub mod projects;
pub mod protected_branches;
pub mod push;
pub mod tags;
pub mod tree;
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
