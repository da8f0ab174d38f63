//! What a compare needs from git besides the diff and the commits of its range
//! ([`super::range::ids`]): one object store over two repositories of a fork network.
//!
//! Across forks, `to` lives in one repository and `from` in another, and the merge base, the
//! walk and the diff need objects of both. GitLab fetches `to` into the other repository under a
//! temporary ref. We write nothing into either repository: a "fork view" is a bare git
//! directory under the data directory whose `objects/info/alternates` names both object
//! directories, so gix finds every object of either through it (no object is copied; the view
//! is three small files, made once per pair and reused). Refs are still resolved in each
//! project's own repository.

use super::error::{Classify, Missing};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Why a fork view could not be made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the object directory {} cannot be used in a fork view", path.display())]
    ObjectsDir {
        path: PathBuf,
        #[source]
        source: Option<std::io::Error>,
    },
    #[error("cannot make the fork view {}", path.display())]
    View {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Classify for Error {
    fn missing(&self) -> Option<Missing> {
        None
    }
}

/// The object directory of an opened repository, absolute.
fn objects_dir(repo: &gix::Repository) -> Result<PathBuf, Error> {
    let dir = repo.common_dir().join("objects");
    std::fs::canonicalize(&dir).map_err(|e| Error::ObjectsDir { path: dir, source: Some(e) })
}

/// The git directory of a view over the objects of `first` and `second`, created under
/// `views_dir` when missing. Creation is atomic (a rename), so concurrent callers, in this
/// process or another, agree on one complete directory.
pub fn fork_view(views_dir: &Path, first: &gix::Repository, second: &gix::Repository) -> Result<PathBuf, Error> {
    let mut alternates = Vec::new();
    for repo in [first, second] {
        let dir = objects_dir(repo)?;
        // One path a line, as UTF-8 text: a path that is not, or holds a newline, cannot be named.
        let Some(text) = dir.to_str().filter(|text| !text.contains('\n')) else {
            return Err(Error::ObjectsDir { path: dir, source: None });
        };
        alternates.extend_from_slice(text.as_bytes());
        alternates.push(b'\n');
    }
    let digest = Sha256::digest(&alternates);
    let name: String = digest.iter().take(12).map(|b| format!("{b:02x}")).collect();
    let view = views_dir.join(format!("{name}.git"));
    if view.join("objects/info/alternates").is_file() {
        return Ok(view);
    }
    let broken = |e: std::io::Error| Error::View { path: view.clone(), source: e };
    std::fs::create_dir_all(views_dir).map_err(broken)?;
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let temp = views_dir.join(format!(".{name}.{}.{nanos}.tmp", std::process::id()));
    let build = || -> std::io::Result<()> {
        std::fs::create_dir_all(temp.join("objects/info"))?;
        std::fs::create_dir_all(temp.join("objects/pack"))?;
        std::fs::create_dir_all(temp.join("refs/heads"))?;
        std::fs::create_dir_all(temp.join("refs/tags"))?;
        std::fs::write(temp.join("HEAD"), "ref: refs/heads/main\n")?;
        std::fs::write(temp.join("config"), "[core]\n\trepositoryformatversion = 0\n\tbare = true\n")?;
        std::fs::write(temp.join("objects/info/alternates"), &alternates)
    };
    if let Err(e) = build() {
        let _ = std::fs::remove_dir_all(&temp);
        return Err(broken(e));
    }
    match std::fs::rename(&temp, &view) {
        Ok(()) => Ok(view),
        Err(_) if view.join("objects/info/alternates").is_file() => {
            // Another caller made it first; theirs is identical.
            let _ = std::fs::remove_dir_all(&temp);
            Ok(view)
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&temp);
            Err(broken(e))
        }
    }
}
