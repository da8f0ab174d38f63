//! Flushing what a write made to disk: gix writes objects and references by temporary file and
//! rename but never calls fsync, so an acknowledged commit could vanish with the machine.

use gix::ObjectId;
use std::path::Path;

fn fsync_path(path: &Path) -> std::io::Result<()> {
    std::fs::File::open(path)?.sync_all()
}

/// Flushes `path` when it exists. A file or directory that is not there (any more) is not an
/// error: git's maintenance may move what a write made while it is flushed (`prune-packed`
/// removes loose objects it has packed, `pack-refs` loose references it has packed and their
/// emptied directories), and what it moves it writes and flushes itself.
fn fsync_if_present(path: &Path) -> std::io::Result<()> {
    match fsync_path(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Flushes the loose object `id` (when it was written as one) and its fan-out directory.
fn fsync_object(objects_dir: &Path, id: ObjectId) -> std::io::Result<()> {
    let hex = id.to_string();
    let dir = objects_dir.join(&hex[..2]);
    match fsync_path(&dir.join(&hex[2..])) {
        Ok(()) => fsync_if_present(&dir),
        // Not written loose (it was there already), or packed since (see fsync_if_present).
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
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
    flush_objects(repo, &written)
}

/// Flushes what a reference transaction on `name` (`refs/heads/x`, `HEAD`) changed: the loose
/// reference and its reflog when they exist, else the directories that lost them; and
/// `packed-refs`, which a deletion may have rewritten. Every directory from the file up to the
/// repository's common directory.
pub fn flush_ref(repo: &gix::Repository, name: &str) -> std::io::Result<()> {
    let common = repo.common_dir().to_path_buf();
    for file in [common.join(name), common.join("logs").join(name), common.join("packed-refs")] {
        fsync_if_present(&file)?;
        let mut dir = file.parent();
        while let Some(d) = dir {
            fsync_if_present(d)?;
            if d == common || !d.starts_with(&common) {
                break;
            }
            dir = d.parent();
        }
    }
    Ok(())
}

/// Flushes the loose objects `ids` (those written as loose files) and their directories.
pub fn flush_objects(repo: &gix::Repository, ids: &[ObjectId]) -> std::io::Result<()> {
    let objects_dir = repo.objects.store_ref().path().to_path_buf();
    for id in ids {
        fsync_object(&objects_dir, *id)?;
    }
    fsync_path(&objects_dir)
}

/// Whether a reference edit failed because another writer moved the reference (or holds its
/// lock): a lost compare-and-swap, worth another attempt.
pub fn lost_race(e: &gix::Error) -> bool {
    use gix::refs::file::transaction::prepare::{MustNotExist, ReferenceOutOfDate};
    e.downcast_any_ref::<ReferenceOutOfDate>().is_some()
        || e.downcast_any_ref::<MustNotExist>().is_some()
        || e.downcast_any_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::AlreadyExists)
}
