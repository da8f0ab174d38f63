//! Commit objects inflated ahead of a walk, on a second core, for repositories without a
//! commit-graph. A walk learns a commit's parents only once it has inflated it, so it reads one
//! object after another; but git writes a pack's commits first, newest first, in about the
//! order a walk from a tip meets them. A thread of its own goes through the pack's commits in
//! that order from the tip's, inflating them into a map the walk takes them from; the walk
//! inflates itself what is not (yet) there. The thread stays ahead of the walk (it skips to
//! where the walk will be rather than redo what it has read), holds at most [`HELD_MAX`] bytes
//! not yet taken, and stops when the walk is done with it (the [`Prefetch`] dropped).
//!
//! Only whole commits are read ahead (a commit stored as a delta is left to the walk), and only
//! from the pack holding the tip; a walk from several tips (a merge base) reads ahead from the
//! first of them in that pack's order. A walk that needs no message keeps only the commits'
//! heads ([`Keep::Heads`], `super::commit_head`), so that many more fit in what is held.
//! [`ReadAhead`] is how a path's log and a merge base use it: only once the walk has proved
//! long.

use gix::odb::pack;
use gix::ObjectId;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Bytes of inflated commits waiting for the walk, at most.
const HELD_MAX: usize = 16 << 20;
/// How far ahead of the walk (in commits, pack order) the thread starts reading.
const AHEAD: usize = 64;
/// Entries of the pack ordered at a time (the commits are at its start).
const CHUNK: usize = 8192;
/// Non-commit entries in a row after the commits, past which the commits are taken to be over.
const PAST_COMMITS: usize = 1024;
/// Commits published to the map at a time.
const BATCH: usize = 32;

#[derive(Default)]
struct Shared {
    ready: Mutex<gix::hashtable::HashMap<ObjectId, Vec<u8>>>,
    held: AtomicUsize,
    /// Commits the walk has read (taken or inflated itself).
    walked: AtomicUsize,
    stop: AtomicBool,
}

/// What of each commit is kept for the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    Whole,
    /// Up to and including the committer line (a commit without one is left to the walk).
    Heads,
}

/// The read-ahead of one walk; dropping it stops the thread.
pub struct Prefetch {
    shared: Arc<Shared>,
}

impl Prefetch {
    /// Starts reading the commits of `repo` ahead of a walk from `tips` that has read `walked`
    /// commits already; `None` on one core, without a tip, or when the store knows
    /// replacements (the pack's objects are then not always what the walk must see).
    pub fn start(repo: &gix::Repository, tips: Vec<ObjectId>, walked: usize, keep: Keep) -> Option<Prefetch> {
        if std::thread::available_parallelism().map_or(1, usize::from) < 2
            || tips.is_empty()
            || repo.objects.store_ref().replacements().next().is_some()
        {
            return None;
        }
        let shared = Arc::new(Shared { walked: AtomicUsize::new(walked), ..Shared::default() });
        let (objects, kind) = (repo.objects.store_ref().path().to_path_buf(), repo.object_hash());
        let thread_shared = Arc::clone(&shared);
        // Detached: it stops soon after the walk lets go; nothing waits for it.
        std::thread::Builder::new()
            .name("fc-prefetch".into())
            .spawn(move || read_ahead(&objects, kind, &tips, keep, &thread_shared))
            .ok()?;
        Some(Prefetch { shared })
    }

    /// The inflated commit `id` when it was read ahead; counts one commit read by the walk.
    pub fn take(&self, id: &gix::oid) -> Option<Vec<u8>> {
        self.shared.walked.fetch_add(1, Ordering::Relaxed);
        let taken = self.shared.ready.lock().unwrap_or_else(|p| p.into_inner()).remove(id)?;
        self.shared.held.fetch_sub(taken.len(), Ordering::Relaxed);
        Some(taken)
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
    }
}

/// Commit objects a walk reads itself before it is deemed long enough to read ahead for: a
/// page filled within the newest commits never pays for the thread's setup.
const READ_AHEAD_AFTER: usize = 256;

/// A walk's reading ahead, begun once the walk has read [`READ_AHEAD_AFTER`] commit objects
/// itself; a walk that was given no tip never reads ahead.
pub struct ReadAhead {
    tips: Vec<ObjectId>,
    keep: Keep,
    read: usize,
    prefetch: Option<Prefetch>,
}

impl ReadAhead {
    /// Reading ahead from `tips`, where the walk starts, when it gets long.
    pub fn from(tips: Vec<ObjectId>, keep: Keep) -> ReadAhead {
        ReadAhead { tips, keep, read: 0, prefetch: None }
    }

    /// The inflated commit `id` when it was read ahead; counts one commit object read by the walk.
    pub fn take(&mut self, repo: &gix::Repository, id: &gix::oid) -> Option<Vec<u8>> {
        self.read += 1;
        if self.read == READ_AHEAD_AFTER {
            self.prefetch = Prefetch::start(repo, std::mem::take(&mut self.tips), READ_AHEAD_AFTER, self.keep);
        }
        self.prefetch.as_ref()?.take(id)
    }
}

fn read_ahead(objects: &Path, kind: gix::hash::Kind, tips: &[ObjectId], keep: Keep, shared: &Shared) {
    // The pack holding a tip, and the first place in it of the tips it holds.
    let packs = super::packs::open_all(objects, kind);
    let Some((index, data, from)) = packs.iter().find_map(|(index, data)| {
        let from = tips.iter().filter_map(|tip| Some(index.pack_offset_at_index(index.lookup(tip)?))).min()?;
        Some((index, data, from))
    }) else {
        return;
    };
    let mut rest: Vec<(u64, u32)> = (0..index.num_objects())
        .map(|i| (index.pack_offset_at_index(i), i))
        .filter(|&(offset, _)| offset >= from)
        .collect();
    let mut inflate = forgecore_pack::Inflater::default();
    let mut scratch = Vec::new();
    let (mut commits, mut past, mut batch) = (0usize, 0usize, Vec::with_capacity(BATCH));
    while !rest.is_empty() {
        // The next chunk of entries in pack order, without ordering the whole pack.
        let n = CHUNK.min(rest.len());
        if n < rest.len() {
            rest.select_nth_unstable(n - 1);
        }
        let mut chunk: Vec<(u64, u32)> = rest.drain(..n).collect();
        chunk.sort_unstable();
        for (offset, i) in chunk {
            if shared.stop.load(Ordering::Relaxed) {
                return;
            }
            let Ok(entry) = data.entry(offset) else { return };
            if entry.header != pack::data::entry::Header::Commit {
                past += 1;
                if past > PAST_COMMITS && commits > 0 {
                    publish(shared, &mut batch);
                    return;
                }
                continue;
            }
            past = 0;
            commits += 1;
            // Where the walk is already, or about to be, it reads for itself.
            if commits < shared.walked.load(Ordering::Relaxed) + AHEAD {
                continue;
            }
            while shared.held.load(Ordering::Relaxed) > HELD_MAX {
                if shared.stop.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            if !inflate.entry(data, &entry, &mut scratch) {
                return;
            }
            let kept = match keep {
                Keep::Whole => std::mem::take(&mut scratch),
                Keep::Heads => match super::commit_head::head_end(&scratch) {
                    Some(end) => scratch[..end].to_vec(),
                    None => continue,
                },
            };
            batch.push((index.oid_at_index(i).to_owned(), kept));
            if batch.len() >= BATCH {
                publish(shared, &mut batch);
            }
        }
    }
    publish(shared, &mut batch);
}

fn publish(shared: &Shared, batch: &mut Vec<(ObjectId, Vec<u8>)>) {
    let bytes: usize = batch.iter().map(|(_, b)| b.len()).sum();
    shared.held.fetch_add(bytes, Ordering::Relaxed);
    shared.ready.lock().unwrap_or_else(|p| p.into_inner()).extend(batch.drain(..));
}
