//! Flushing what a write made to disk: gix writes objects and references by temporary file and
//! rename but never calls fsync, so an acknowledged commit could vanish with the machine.

use gix::ObjectId;
use std::path::Path;

fn fsync_path(path: &Path) -> std::io::Result<()> {
    std::fs::File::open(path)?.sync_all()
}

/// Flushes the loose object `id` (when it was written as one) and its fan-out directory.
fn fsync_object(objects_dir: &Path, id: ObjectId) -> std::io::Result<()> {
    let hex = id.to_string();
    let dir = objects_dir.join(&hex[..2]);
    let file = dir.join(&hex[2..]);
    if !file.exists() {
        return Ok(());
    }
    fsync_path(&file)?;
    fsync_path(&dir)
}

/// Flushes `file` and every directory from its parent up to `root`.
fn fsync_with_parents(file: &Path, root: &Path) -> std::io::Result<()> {
    fsync_path(file)?;
    let mut dir = file.parent();
    while let Some(d) = dir {
        fsync_path(d)?;
        if d == root {
            break;
        }
        dir = d.parent();
    }
    Ok(())
}

/// The ids of the tree `root` and of the trees along `path` in it (as far as they exist).
fn trees_along(repo: &gix::Repository, root: ObjectId, path: &str) -> Vec<ObjectId> {
    let mut out = vec![root];
    let mut tree = root;
    let components: Vec<&str> = path.split('/').collect();
    for name in &components[..components.len().saturating_sub(1)] {
        match super::entry_at(repo, tree, &[name]) {
            Ok(Some((id, gix::objs::tree::EntryKind::Tree))) => {
                out.push(id);
                tree = id;
            }
            _ => break,
        }
    }
    out
}

/// Flushes a new commit: the commit, its tree, the trees along every changed path and the
/// blobs at them (the only objects an edit writes).
pub fn flush_commit(repo: &gix::Repository, tree: ObjectId, commit: ObjectId, changed: &[&str]) -> std::io::Result<()> {
    let objects_dir = repo.objects.store_ref().path().to_path_buf();
    let mut written = vec![commit];
    for path in changed {
        written.extend(trees_along(repo, tree, path));
        let components: Vec<&str> = path.split('/').collect();
        if let Ok(Some((id, _))) = super::entry_at(repo, tree, &components) {
            written.push(id);
        }
    }
    written.sort();
    written.dedup();
    for id in written {
        fsync_object(&objects_dir, id)?;
    }
    fsync_path(&objects_dir)
}

/// Flushes the loose reference `name` (`refs/heads/x`, `HEAD`) and its reflog, if kept.
pub fn flush_ref(repo: &gix::Repository, name: &str) -> std::io::Result<()> {
    let common_dir = repo.common_dir();
    let file = common_dir.join(name);
    if file.exists() {
        fsync_with_parents(&file, common_dir)?;
    }
    let log = common_dir.join("logs").join(name);
    if log.exists() {
        fsync_with_parents(&log, common_dir)?;
    }
    Ok(())
}

/// Whether a reference edit failed because another writer moved the reference (or holds its
/// lock): a lost compare-and-swap, worth another attempt.
pub fn lost_race(e: &gix::Error) -> bool {
    use gix::refs::file::transaction::prepare::{MustNotExist, ReferenceOutOfDate};
    e.downcast_any_ref::<ReferenceOutOfDate>().is_some()
        || e.downcast_any_ref::<MustNotExist>().is_some()
        || e.downcast_any_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::AlreadyExists)
}
