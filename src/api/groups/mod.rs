//! Groups: `GET /groups/:id` today (decisions D7); the group's projects are `projects::list`'s
//! and its custom roles `member_roles`'s. One file per operation.

pub mod delete;
pub mod get;
pub mod restore;
