//! The branch a repository's `HEAD` file names, read without opening the repository: lists
//! that show many projects' default branches ask it for every entry. The answer is remembered
//! per repository with the file's identity (device, inode, size, modification time), so an
//! entry costs one `stat` instead of an open, a read and a close; git replaces `HEAD` by
//! renaming a lock file over it, so every change is a new identity and is read afresh.

use std::collections::HashMap;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Repositories remembered at most; past it, the memory starts over.
const REMEMBERED_MAX: usize = 4096;
/// A `HEAD` longer than this is no symbolic ref git writes.
const HEAD_MAX_BYTES: u64 = 4096;

/// What identifies one version of a `HEAD` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    device: u64,
    inode: u64,
    size: u64,
    modified_s: i64,
    modified_ns: i64,
}

type Remembered = HashMap<PathBuf, (Identity, Option<String>)>;

static REMEMBERED: Mutex<Option<Remembered>> = Mutex::new(None);

/// What `git_dir`'s `HEAD` file says: `Some(branch)` when it names a branch (born or not),
/// `Some(None)` when it names none (detached), `None` when there is no readable `HEAD`.
pub fn branch(git_dir: impl AsRef<Path>) -> Option<Option<String>> {
    let path = git_dir.as_ref().join("HEAD");
    let metadata = std::fs::metadata(&path).ok()?;
    let identity = Identity {
        device: metadata.dev(),
        inode: metadata.ino(),
        size: metadata.size(),
        modified_s: metadata.mtime(),
        modified_ns: metadata.mtime_nsec(),
    };
    {
        let remembered = REMEMBERED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((known, branch)) = remembered.as_ref().and_then(|map| map.get(&path)) {
            if *known == identity {
                return Some(branch.clone());
            }
        }
    }
    let branch = read(&path)?;
    // Remembered with the identity seen before reading: a change in between is a new
    // identity at the next call, read afresh then.
    let mut remembered = REMEMBERED.lock().unwrap_or_else(|p| p.into_inner());
    let map = remembered.get_or_insert_with(HashMap::new);
    if map.len() >= REMEMBERED_MAX {
        map.clear();
    }
    map.insert(path, (identity, branch.clone()));
    Some(branch)
}

fn read(path: &Path) -> Option<Option<String>> {
    let mut text = Vec::with_capacity(64);
    std::fs::File::open(path).ok()?.take(HEAD_MAX_BYTES).read_to_end(&mut text).ok()?;
    let text = std::str::from_utf8(&text).ok()?;
    Some(
        text.strip_prefix("ref:")
            .map(|rest| rest.trim())
            .and_then(|name| name.strip_prefix("refs/heads/"))
            .filter(|name| !name.is_empty())
            .map(str::to_string),
    )
}

#[cfg(test)]
mod tests {
    use super::branch;

    #[test]
    fn the_head_file_names_a_branch_or_none() {
        let dir = std::env::temp_dir().join(format!("fc-head-names-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(branch(&dir), None, "no HEAD");
        for (text, expected) in [
            ("ref: refs/heads/main\n", Some("main")),
            ("ref: refs/heads/team/topic\n", Some("team/topic")),
            ("ref:refs/heads/trunk", Some("trunk")),
            ("0123456789012345678901234567890123456789\n", None),
            ("ref: refs/tags/v1\n", None),
            ("ref: refs/heads/\n", None),
        ] {
            std::fs::write(dir.join("HEAD.lock"), text).unwrap();
            std::fs::rename(dir.join("HEAD.lock"), dir.join("HEAD")).unwrap();
            assert_eq!(branch(&dir), Some(expected.map(str::to_string)), "{text:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_changed_head_is_read_afresh() {
        let dir = std::env::temp_dir().join(format!("fc-head-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let head = dir.join("HEAD");
        std::fs::write(&head, "ref: refs/heads/main\n").unwrap();
        assert_eq!(branch(&dir), Some(Some("main".to_string())));
        assert_eq!(branch(&dir), Some(Some("main".to_string())));
        // As git writes it: a lock file renamed over HEAD (same size, possibly the same second).
        std::fs::write(dir.join("HEAD.lock"), "ref: refs/heads/next\n").unwrap();
        std::fs::rename(dir.join("HEAD.lock"), &head).unwrap();
        assert_eq!(branch(&dir), Some(Some("next".to_string())));
        std::fs::write(dir.join("HEAD.lock"), "0123456789012345678901234567890123456789\n").unwrap();
        std::fs::rename(dir.join("HEAD.lock"), &head).unwrap();
        assert_eq!(branch(&dir), Some(None));
        std::fs::remove_file(&head).unwrap();
        assert_eq!(branch(&dir), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
