//! The blamed path's history along first parents from the blame's start, worked out on another
//! core ahead of the blame: where the skipping view ([`super::skip`]) goes from each commit a
//! change leaves as a first parent (`P'` for `P`), with what it read on the way (the commits
//! there and the path's entries in them). gix-blame's diffs and the walk that finds the
//! commits to diff are then done at the same time, on two cores, where git does one after the
//! other. The view asks here first and works out itself what is not here; for the stretch this
//! walk is on at that moment, it waits for it rather than do it twice.
//!
//! The walk is the view's own code (a skipping view of its own, on its own handle of the
//! repository, made by the caller as a [`Stretches`]), so its answers are the ones the view
//! would have found. It ends at the root, or soon after the blame is done with it (the
//! [`Ahead`] dropped). It keeps at most [`AHEAD_MAX`] stretches the blame has not taken yet,
//! waiting for the blame beyond that, and the blame takes what it reads: what is handed over
//! stays small however long the history is.

use super::history::{Info, Stretch};
use gix::ObjectId;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The walk ahead of one blame; dropping it stops the walk.
pub struct Ahead {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    found: Mutex<Found>,
    changed: Condvar,
    stop: Arc<AtomicBool>,
}

/// Stretches worked out and not yet taken by the blame, at most: the walk waits beyond them.
const AHEAD_MAX: usize = 1024;

/// What the walk has worked out and the blame has not taken yet.
#[derive(Default)]
struct Found {
    /// `P'` by `P`, for the commits a stretch began at.
    skips: HashMap<ObjectId, ObjectId>,
    /// The commits the stretches in `skips` began at, in the walk's order.
    order: VecDeque<ObjectId>,
    /// The commits at either end of each stretch.
    infos: HashMap<ObjectId, Info>,
    /// The path's entry in those commits (`None`: the commit lacks the path).
    entries: HashMap<ObjectId, Option<(ObjectId, u16)>>,
    /// The commit the stretch being walked began at.
    walking_from: Option<ObjectId>,
    done: bool,
}

/// What walks the stretches: the skipping view, made on the walk's thread.
pub trait Stretches {
    /// The stretch of first parents from `from` to `P'`, with the commits at its ends and the
    /// path's entries there; `None` when the walk was stopped.
    fn stretch(&self, from: ObjectId) -> Option<Stretch>;
}

impl Ahead {
    /// Starts the walk from `start` in `repo` with the walker `walker` makes (given the walk's
    /// own handle of the repository and the flag that stops it); `None` on one core.
    pub fn start<W>(repo: &gix::Repository, start: ObjectId, walker: W) -> Option<Ahead>
    where
        W: for<'r> FnOnce(&'r gix::Repository, Arc<AtomicBool>) -> Box<dyn Stretches + 'r> + Send + 'static,
    {
        if std::thread::available_parallelism().map_or(1, usize::from) < 2 {
            return None;
        }
        let shared = Arc::new(Shared::default());
        let (walk_shared, repo) = (Arc::clone(&shared), repo.clone().into_sync());
        // Detached: it stops soon after the blame lets go; nothing waits for it.
        std::thread::Builder::new()
            .name("fc-blame-ahead".into())
            .spawn(move || {
                // Done however the walk ends (a panic included): the blame never waits for it then.
                let _done = Done(&walk_shared);
                let repo = repo.to_thread_local();
                walk(&*walker(&repo, Arc::clone(&walk_shared.stop)), start, &walk_shared);
            })
            .ok()?;
        Some(Ahead { shared })
    }

    fn found(&self) -> std::sync::MutexGuard<'_, Found> {
        self.shared.found.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `P'` for `parent`, when the walk has worked it out or is working it out now. The
    /// stretch is taken, and those the walk found before it, which the blame went past.
    pub fn skip(&self, parent: &gix::oid) -> Option<ObjectId> {
        let mut found = self.found();
        loop {
            if let Some(to) = found.skips.get(parent).copied() {
                found.take_until(parent, to);
                self.shared.changed.notify_all();
                return Some(to);
            }
            if found.done || found.walking_from.as_ref().is_none_or(|from| from.as_ref() != parent) {
                return None;
            }
            found = self.shared.changed.wait(found).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Commit `id`, when the walk read it at the end of a stretch; taken.
    pub fn info(&self, id: &gix::oid) -> Option<Info> {
        self.found().infos.remove(id)
    }

    /// The path's entry in commit `id`, when the walk read it; taken.
    pub fn entry(&self, id: &gix::oid) -> Option<Option<(ObjectId, u16)>> {
        self.found().entries.remove(id)
    }
}

impl Found {
    /// Lets go of the stretches up to the one from `parent` (to `to`), but for the path's entry
    /// in `to`, which the blame reads next (it reads commit `to` itself, as the object).
    fn take_until(&mut self, parent: &gix::oid, to: ObjectId) {
        while let Some(from) = self.order.pop_front() {
            let end = self.skips.remove(&from);
            for id in [Some(from), end].into_iter().flatten() {
                self.infos.remove(&id);
                if id != to {
                    self.entries.remove(&id);
                }
            }
            if from == parent {
                break;
            }
        }
    }
}

impl Drop for Ahead {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        // A walk waiting for the blame to take its stretches wakes to end.
        let _found = self.found();
        self.shared.changed.notify_all();
    }
}

/// Marks the walk done when dropped.
struct Done<'a>(&'a Shared);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        let mut found = self.0.found.lock().unwrap_or_else(|p| p.into_inner());
        found.done = true;
        found.walking_from = None;
        self.0.changed.notify_all();
    }
}

/// Walks stretch after stretch along first parents from `start`, publishing each.
fn walk(walker: &dyn Stretches, start: ObjectId, shared: &Shared) {
    let mut next = Some(start);
    while let Some(from) = next {
        {
            let mut found = shared.found.lock().unwrap_or_else(|p| p.into_inner());
            while found.order.len() >= AHEAD_MAX && !shared.stop.load(Ordering::Relaxed) {
                found = shared.changed.wait(found).unwrap_or_else(|p| p.into_inner());
            }
            if shared.stop.load(Ordering::Relaxed) {
                return;
            }
            found.walking_from = Some(from);
        }
        let stretch = walker.stretch(from);
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        let Some(stretch) = stretch else { return };
        next =
            stretch.infos.iter().find(|(id, _)| *id == stretch.to).and_then(|(_, info)| info.parents.first().copied());
        let mut found = shared.found.lock().unwrap_or_else(|p| p.into_inner());
        if found.skips.insert(stretch.from, stretch.to).is_none() {
            found.order.push_back(stretch.from);
        }
        found.infos.extend(stretch.infos);
        found.entries.extend(stretch.entries);
        found.walking_from = None;
        shared.changed.notify_all();
    }
}
