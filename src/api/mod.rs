//! The operations, in plain Rust, one file each. Both front doors (`http` and the typed C
//! exports) call these and nothing else; an operation answers a whole `Response`, so both doors
//! give the same status, headers and body.

pub mod admin;
pub mod archive;
pub mod blobs;
mod call;
pub mod changelog;
pub mod commits;
pub mod compare;
pub mod contributors;
pub mod groups;
pub mod health;
pub mod member_roles;
pub mod merge_base;
pub mod pagination;
pub mod projects;
pub mod tree;
pub mod version;

pub use call::{base_url, Call, Origin};
