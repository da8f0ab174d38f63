//! Changelogs (B8, B9) as GitLab makes them, without git or the store: the configuration file
//! ([`config`], its YAML in [`yaml`]), the template language ([`template`] over [`value`]s),
//! release dates ([`strftime`]), versions and their order ([`version`]), choosing the previous
//! tag ([`tags`]), reading commits for entries ([`commits`]), the section ([`release`]) and
//! where it goes in an existing file ([`insert`]). Its failures are [`ChangelogError`]s.
//!
//! Without git or the store, and the compiler keeps it so: the crate has no such dependency (no
//! gix, no rusqlite, not forgecore). It is given text (configuration, tag names, commit
//! messages, the current file) and answers text; the core's `api::changelog` reads the
//! repository (`git::range`, `git::write`) and the store, and puts these together.
#![forbid(unsafe_code)]

pub mod commits;
pub mod config;
pub mod insert;
pub mod release;
pub mod strftime;
pub mod tags;
pub mod template;
pub mod value;
pub mod version;
pub mod yaml;

/// A `Gitlab::Changelog::Error`. The API answers it as 422
/// `{"message": "Failed to generate the changelog: <text>"}`, so its text is part of the API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangelogError(pub String);

impl std::fmt::Display for ChangelogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ChangelogError {}
