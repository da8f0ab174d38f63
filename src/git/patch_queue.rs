//! The patches of a list of changes, taken in the list's order by one thread and computed by
//! every thread that takes part. The taker ([`Taker::next`]) computes whatever nobody has
//! claimed yet and waits only for a change another thread is computing; any other thread may
//! [`PatchQueue::help`] until the list is done or the taker stops. A compare's commit list is
//! usually written before its patches are done: its thread helps with the rest.
//!
//! Changes are claimed in order and at most [`AHEAD`] past the one the taker waits for, so what
//! is computed and not yet taken stays bounded, and a taker that stops early (a limit, the
//! deadline, an error) wastes at most what was already claimed.

use super::diff::{self, Error, FileChange, Patch, Result};
use super::packs::Packs;
use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, MutexGuard};

/// How far past the change being taken a change may be claimed.
pub const AHEAD: usize = 64;

/// What is known of one change's patch.
pub enum Computed {
    /// The whole patch.
    Patch(Patch),
    /// Past the queue's `lines_only_from`: only whether it has any line ([`diff::has_lines`]).
    HasLines(bool),
}

/// The shared list; see the module's doc.
pub struct PatchQueue<'a> {
    changes: &'a [FileChange],
    lines_only_from: usize,
    state: Mutex<State>,
    /// Signalled when a change is computed, taken, or the taker stops.
    moved: Condvar,
}

struct State {
    /// Changes before this one are claimed.
    claimed: usize,
    /// Changes before this one are taken.
    taken: usize,
    /// Computed by a helper (or by the taker ahead of its turn), not yet taken.
    done: BTreeMap<usize, Result<Computed>>,
    stopped: bool,
}

impl<'a> PatchQueue<'a> {
    /// The queue of `changes`; from index `lines_only_from` on only whether a patch has lines
    /// is computed.
    pub fn new(changes: &'a [FileChange], lines_only_from: usize) -> PatchQueue<'a> {
        PatchQueue {
            changes,
            lines_only_from,
            state: Mutex::new(State { claimed: 0, taken: 0, done: BTreeMap::new(), stopped: false }),
            moved: Condvar::new(),
        }
    }

    pub fn changes(&self) -> &'a [FileChange] {
        self.changes
    }

    /// The one taker of this queue. Dropping it stops the queue, so helpers return.
    pub fn taker(&self, repo: &gix::Repository) -> Taker<'_, 'a> {
        Taker { queue: self, packs: Packs::of(repo).keeping(diff::PATCH_BLOBS_KEPT) }
    }

    /// Computes changes nobody has claimed, until every change is claimed or the taker stops,
    /// and says how many it computed. A panic while computing leaves an error in the change's
    /// place, so the taker never waits for it.
    pub fn help(&self, repo: &gix::Repository) -> usize {
        let mut packs = Packs::of(repo).keeping(diff::PATCH_BLOBS_KEPT);
        let mut computed_here = 0;
        let mut state = self.lock();
        loop {
            if state.stopped || state.claimed >= self.changes.len() {
                return computed_here;
            }
            let Some(index) = self.claim(&mut state) else {
                state = self.moved.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
                continue;
            };
            drop(state);
            let mut placeholder = Placeholder { queue: self, index: Some(index) };
            let computed = self.compute(repo, &mut packs, index);
            placeholder.index = None;
            computed_here += 1;
            state = self.lock();
            // A change's first result stands: the error a placeholder left is never replaced
            // (only one helper claims a change, so this is that helper's, unless it was given up).
            state.done.entry(index).or_insert(computed);
            self.moved.notify_all();
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn claim(&self, state: &mut State) -> Option<usize> {
        let index = state.claimed;
        if state.stopped || index >= self.changes.len() || index >= state.taken + AHEAD {
            return None;
        }
        state.claimed += 1;
        Some(index)
    }

    fn compute(&self, repo: &gix::Repository, packs: &mut Packs, index: usize) -> Result<Computed> {
        let change = &self.changes[index];
        if index >= self.lines_only_from {
            diff::has_lines(repo, change).map(Computed::HasLines)
        } else {
            diff::patch(repo, packs, change).map(Computed::Patch)
        }
    }
}

/// Takes the queue's changes in order; see [`PatchQueue::taker`].
pub struct Taker<'q, 'a> {
    queue: &'q PatchQueue<'a>,
    packs: Packs,
}

impl Taker<'_, '_> {
    /// The next change's patch, `None` after the last.
    pub fn next(&mut self, repo: &gix::Repository) -> Option<Result<Computed>> {
        let queue = self.queue;
        let mut state = queue.lock();
        let wanted = state.taken;
        if wanted >= queue.changes.len() {
            return None;
        }
        loop {
            if let Some(computed) = state.done.remove(&wanted) {
                state.taken += 1;
                queue.moved.notify_all();
                return Some(computed);
            }
            match queue.claim(&mut state) {
                Some(index) => {
                    drop(state);
                    let computed = queue.compute(repo, &mut self.packs, index);
                    state = queue.lock();
                    if index == wanted {
                        state.taken += 1;
                        queue.moved.notify_all();
                        return Some(computed);
                    }
                    state.done.insert(index, computed);
                }
                None => state = queue.moved.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner()),
            }
        }
    }
}

impl Drop for Taker<'_, '_> {
    fn drop(&mut self) {
        self.queue.lock().stopped = true;
        self.queue.moved.notify_all();
    }
}

/// A helper's claimed change while it is computed: if the helper unwinds, an error takes the
/// change's place.
struct Placeholder<'q, 'a> {
    queue: &'q PatchQueue<'a>,
    index: Option<usize>,
}

impl Drop for Placeholder<'_, '_> {
    fn drop(&mut self) {
        if let Some(index) = self.index {
            let path = String::from_utf8_lossy(&self.queue.changes[index].new_path).into_owned();
            self.queue.lock().done.insert(index, Err(Error::Panicked { path }));
            self.queue.moved.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};
    use std::process::Command;
    use std::time::{Duration, Instant, SystemTime};

    const FILES: usize = 200;

    fn git(dir: &Path, args: &[&str]) {
        let status = Command::new("git")
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    /// A repository whose two commits change FILES files; the changes between them.
    fn changed_files(name: &str) -> (PathBuf, Vec<FileChange>) {
        let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("forgecore-patch-queue-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        git(&dir, &["init", "-q"]);
        let write = |round: usize| {
            for i in 0..FILES {
                let text: String =
                    (0..40).map(|l| format!("file {i} line {l} {}\n", if l % 7 == round { "x" } else { "" })).collect();
                std::fs::write(dir.join(format!("f{i:03}.txt")), text).unwrap();
            }
        };
        write(0);
        git(&dir, &["add", "."]);
        git(&dir, &["commit", "-q", "-m", "one"]);
        write(3);
        git(&dir, &["commit", "-q", "-a", "-m", "two"]);
        let repo = crate::git::open(dir.join(".git")).unwrap();
        let tree = |rev: &str| repo.rev_parse_single(rev).unwrap().object().unwrap().peel_to_tree().unwrap().id;
        let far = Instant::now() + Duration::from_secs(600);
        let changes = diff::changes(&repo, Some(tree("HEAD~1")), Some(tree("HEAD")), far).unwrap().unwrap();
        assert_eq!(changes.len(), FILES);
        (dir, changes)
    }

    fn texts(queue: &PatchQueue<'_>, repo: &gix::Repository) -> Vec<Option<Vec<u8>>> {
        let mut taker = queue.taker(repo);
        let mut out = Vec::new();
        while let Some(computed) = taker.next(repo) {
            out.push(match computed.unwrap() {
                Computed::Patch(patch) => Some(patch.text),
                Computed::HasLines(has) => {
                    assert!(has, "every change has lines");
                    None
                }
            });
        }
        out
    }

    #[test]
    fn a_helper_computes_ahead_and_the_taker_gets_every_patch_in_order() {
        let (dir, changes) = changed_files("helped");
        let repo = crate::git::open(dir.join(".git")).unwrap();
        let alone = texts(&PatchQueue::new(&changes, 150), &repo);
        assert_eq!(alone.len(), FILES);
        for (change, text) in changes.iter().zip(&alone).take(150) {
            let patch = diff::patch(&repo, &mut Packs::of(&repo), change).unwrap();
            assert_eq!(text.as_deref(), Some(&patch.text[..]));
            assert!(!patch.text.is_empty());
        }
        assert!(alone[150..].iter().all(Option::is_none), "past lines_only_from only has_lines is asked");

        let queue = PatchQueue::new(&changes, 150);
        std::thread::scope(|scope| {
            let helper = scope.spawn(|| queue.help(&crate::git::open(dir.join(".git")).unwrap()));
            // The helper claims AHEAD changes before the taker starts, then waits for it.
            while queue.lock().claimed < AHEAD {
                std::thread::yield_now();
            }
            std::thread::sleep(Duration::from_millis(20));
            assert_eq!(queue.lock().claimed, AHEAD, "no change is claimed past the window");
            assert_eq!(texts(&queue, &repo), alone);
            assert!(helper.join().unwrap() >= AHEAD);
        });
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_taker_that_stops_releases_a_waiting_helper_and_a_panicked_change_is_an_error() {
        let (dir, changes) = changed_files("stopped");
        let repo = crate::git::open(dir.join(".git")).unwrap();
        let queue = PatchQueue::new(&changes, usize::MAX);
        let mut taker = queue.taker(&repo);
        std::thread::scope(|scope| {
            let helper = scope.spawn(|| queue.help(&crate::git::open(dir.join(".git")).unwrap()));
            while queue.lock().claimed < AHEAD {
                std::thread::yield_now();
            }
            drop(Placeholder { queue: &queue, index: Some(AHEAD - 1) });
            let mut taken = 0;
            while taken < AHEAD - 1 {
                assert!(taker.next(&repo).unwrap().is_ok());
                taken += 1;
            }
            assert!(matches!(taker.next(&repo), Some(Err(Error::Panicked { .. }))));
            drop(taker);
            // Without the stop, the helper would compute the rest of the list.
            assert!(helper.join().unwrap() < FILES);
        });
        std::fs::remove_dir_all(dir).unwrap();
    }
}
