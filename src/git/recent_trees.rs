//! Large trees read lately, kept across requests. Each page of a tree's listing reads the tree
//! again: a keyset page of git's root tree (a 402-byte delta of a 22 KB tree) spent half its
//! time resolving it on a fresh object handle. Gitaly's long-lived `git cat-file` processes keep
//! their delta base cache from one call to the next for the same reason; here a few decoded
//! trees are kept instead.
//!
//! A tree is found by its repository (its objects directory: an id names one content, but a
//! repository sees only its own objects) and id. At most [`SLOTS`] trees of [`KEEP_FROM`] to
//! [`KEEP_UP_TO`] bytes are kept (small trees inflate faster than they are looked up), the
//! least recently used replaced.

use gix::ObjectId;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub const SLOTS: usize = 32;
pub const KEEP_FROM: usize = 4 << 10;
pub const KEEP_UP_TO: usize = 256 << 10;

struct Slot {
    objects: PathBuf,
    id: ObjectId,
    data: Vec<u8>,
    used: u64,
}

struct Recent {
    clock: u64,
    slots: Vec<Slot>,
}

static RECENT: Mutex<Recent> = Mutex::new(Recent { clock: 0, slots: Vec::new() });

fn recent() -> std::sync::MutexGuard<'static, Recent> {
    RECENT.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Tree `id` of the repository whose objects are in `objects`, copied into `out`; false when
/// it is not kept.
pub fn get(objects: &Path, id: &gix::oid, out: &mut Vec<u8>) -> bool {
    let mut recent = recent();
    recent.clock += 1;
    let now = recent.clock;
    let Some(slot) = recent.slots.iter_mut().find(|s| s.id == id && s.objects == objects) else { return false };
    slot.used = now;
    out.clear();
    out.extend_from_slice(&slot.data);
    true
}

/// Keeps tree `id` of the repository whose objects are in `objects`, when its size is worth it.
pub fn put(objects: &Path, id: &gix::oid, data: &[u8]) {
    if !(KEEP_FROM..=KEEP_UP_TO).contains(&data.len()) {
        return;
    }
    let mut recent = recent();
    recent.clock += 1;
    let used = recent.clock;
    if recent.slots.iter().any(|s| s.id == id && s.objects == objects) {
        return;
    }
    let slot = Slot { objects: objects.to_owned(), id: id.to_owned(), data: data.to_vec(), used };
    if recent.slots.len() < SLOTS {
        recent.slots.push(slot);
    } else if let Some(oldest) = recent.slots.iter_mut().min_by_key(|s| s.used) {
        *oldest = slot;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_are_kept_by_repository_and_id_and_the_least_used_goes() {
        let id = |n: u8| ObjectId::from_bytes_or_panic(&[n; 20]);
        let (here, there) = (Path::new("/recent-trees-test/a/objects"), Path::new("/recent-trees-test/b/objects"));
        let tree = vec![7u8; KEEP_FROM];
        let mut out = Vec::new();
        put(here, &id(1), &tree[..KEEP_FROM - 1]);
        assert!(!get(here, &id(1), &mut out), "a small tree is not kept");
        put(here, &id(1), &tree);
        assert!(get(here, &id(1), &mut out) && out == tree);
        assert!(!get(there, &id(1), &mut out), "another repository does not see it");
        // The others' trees (this test's, and any other test's) push it out only when it is the
        // least recently used: read it between every two of them, and it stays.
        for n in 2..=(SLOTS as u8 + 8) {
            put(here, &id(n), &tree);
            assert!(get(here, &id(1), &mut out), "kept while used, after {n}");
        }
        assert!(!get(here, &id(2), &mut out), "the least recently used went");
    }
}
