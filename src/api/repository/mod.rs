//! The Repositories API and the families under `/projects/:id/repository/`, as GitLab's API
//! reference groups them: the tree, blobs, archives, compare, contributors, the merge base, the
//! changelog and the repository's health (the seed's operations), then repository files,
//! commits, branches and tags, one folder each with one file per operation.

pub mod archive;
pub mod blobs;
pub mod branches;
pub mod changelog;
pub mod commits;
pub mod compare;
pub mod contributors;
pub mod files;
pub mod health;
pub mod merge_base;
pub mod tags;
pub mod tree;
