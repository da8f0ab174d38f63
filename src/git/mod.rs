//! Repository access through gix, always in isolation: no global or user configuration, never a
//! hook, filter or other external program.

use std::path::{Path, PathBuf};

/// Options every repository is opened with.
fn open_options() -> gix::open::Options {
    gix::open::Options::isolated().open_path_as_is(true)
}

/// The git directory of `dir`: `dir/.git` for a work tree, `dir` itself for a bare repository.
/// `None` when neither is a git repository.
pub fn git_dir_of(dir: &Path) -> Option<PathBuf> {
    let dot_git = dir.join(".git");
    for candidate in [dot_git, dir.to_path_buf()] {
        if candidate.is_dir() && gix::ThreadSafeRepository::open_opts(&candidate, open_options()).is_ok() {
            return Some(candidate);
        }
    }
    None
}

/// The short name of the branch HEAD points at, even when that branch has no commit yet.
pub fn default_branch(git_dir: &str) -> Option<String> {
    let repo = gix::ThreadSafeRepository::open_opts(git_dir, open_options()).ok()?.to_thread_local();
    let name = repo.head_name().ok()??;
    Some(name.shorten().to_string())
}
