//! A fork's repository: a real copy of its source's, made by `git clone --bare` from the
//! source's path through [`super::command`] (nothing here starts a process itself).
//!
//! A clone from a local path hard-links the source's object files where it can (same file
//! system) and copies them where it cannot; either way the fork owns its objects and keeps
//! working when the source is deleted, unlike alternates, which GitLab uses only for object
//! pools of non-private sources (reference §8, `git_objects_poolable?`). Branches and tags
//! are copied (a bare clone maps `refs/heads/*` and tags one to one; hidden refs such as
//! `refs/merge-requests/*` are not), HEAD follows the source's, or names `branch` when only
//! that branch is forked (GitLab's `branches` parameter, `import_data.fork_branch`). The
//! clone's `origin` remote is removed: a fork does not fetch from its source.

use super::command::{Git, Spec};
use std::path::Path;
use std::time::Duration;

/// How long a copy may take.
const TIMEOUT: Duration = Duration::from_secs(600);

/// Why the copy failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the fork's repository is already on disk: {0}")]
    Exists(String),
    #[error("cannot run git to copy the repository")]
    Run(#[from] super::command::Error),
    #[error("git could not copy the repository: {0}")]
    Failed(String),
    #[error("cannot prepare the fork's directory")]
    Io(#[from] std::io::Error),
}

/// Copies the bare repository `source` to the new directory `target` (absolute paths), all
/// branches and tags, or only `branch`.
pub fn copy(git: &Git, source: &Path, target: &Path, branch: Option<&str>) -> Result<(), Error> {
    if target.exists() {
        return Err(Error::Exists(target.display().to_string()));
    }
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut spec = Spec::new(source, &["clone", "--bare", "--quiet", "--no-tags"], TIMEOUT);
    if let Some(branch) = branch {
        spec = spec.arg("--single-branch").arg("--branch").arg(branch);
    } else {
        // Tags come with every branch; `--no-tags` above only keeps a one-branch fork to it.
        spec.args.retain(|a| a != "--no-tags");
    }
    let spec = spec.arg("--").arg(source.as_os_str()).arg(target.as_os_str());
    let output = git.run(&spec, 64 * 1024)?;
    if !output.status.success() {
        let _ = std::fs::remove_dir_all(target);
        return Err(Error::Failed(String::from_utf8_lossy(&output.stderr).trim().to_string()));
    }
    let unset = Spec::new(target, &["config", "--remove-section", "remote.origin"], TIMEOUT);
    let output = git.run(&unset, 64 * 1024)?;
    if !output.status.success() {
        let _ = std::fs::remove_dir_all(target);
        return Err(Error::Failed(String::from_utf8_lossy(&output.stderr).trim().to_string()));
    }
    Ok(())
}
