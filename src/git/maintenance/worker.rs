//! The maintenance queue of one context: a thread of its own (started with the first job) runs
//! [`super::run`] for one repository after another, so a request only ever queues. A repository
//! is queued once however often it is asked for; asked for while it runs, it runs once more
//! after (what changed meanwhile is not in the run's plan). Closing the context drops what is
//! queued and waits for the run in progress, which its time limit bounds: killing git in the
//! middle of a run could leave its lock files behind for the next one.
//!
//! Two triggers: [`Maintenance::after_refs_changed`], after forgecore itself changed a
//! repository's references (the write path's commits, branch and tag writes, pushes), and
//! [`Maintenance::served`], asked as a request opens a repository: at most once every
//! `check_interval` per repository, it queues a look, which runs only what the repository's
//! state calls for.

use super::{Limits, Outcome};
use crate::git::command::Git;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Repositories queued at most; past it, a request to queue another is dropped (a later change
/// or request asks again).
const QUEUE_MAX: usize = 1024;
/// Repositories whose last look is remembered for `served`; past it, the memory starts over.
const CHECKED_MAX: usize = 4096;
/// Outcomes kept for [`Maintenance::last_outcome`].
const OUTCOMES_MAX: usize = 256;

/// The maintenance of one context; inert when maintenance is off.
pub struct Maintenance {
    shared: Option<Arc<Shared>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    check_interval: Duration,
    checked: Mutex<HashMap<PathBuf, Instant>>,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled when a job is queued, when a run ends, and on close.
    changed: Condvar,
    git: Git,
    limits: Limits,
}

#[derive(Default)]
struct State {
    queue: VecDeque<PathBuf>,
    /// Queued repositories, each with whether forgecore changed it.
    queued: HashMap<PathBuf, bool>,
    running: Option<PathBuf>,
    /// Asked for while running: run again after.
    again: HashMap<PathBuf, bool>,
    outcomes: HashMap<PathBuf, Outcome>,
    closed: bool,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl Maintenance {
    /// Off: nothing is ever queued.
    pub fn off() -> Maintenance {
        Maintenance {
            shared: None,
            worker: Mutex::new(None),
            check_interval: Duration::MAX,
            checked: Mutex::new(HashMap::new()),
        }
    }

    pub fn new(git: Git, limits: Limits, check_interval: Duration) -> Maintenance {
        let shared = Shared { state: Mutex::new(State::default()), changed: Condvar::new(), git, limits };
        Maintenance {
            shared: Some(Arc::new(shared)),
            worker: Mutex::new(None),
            check_interval,
            checked: Mutex::new(HashMap::new()),
        }
    }

    pub fn enabled(&self) -> bool {
        self.shared.is_some()
    }

    /// forgecore changed the references of the repository at `git_dir`: queue a run.
    pub fn after_refs_changed(&self, git_dir: &Path) {
        self.enqueue(git_dir, true);
    }

    /// A request opened the repository at `git_dir`: queue a look at it, unless one was queued
    /// less than `check_interval` ago.
    pub fn served(&self, git_dir: &Path) {
        if self.shared.is_none() {
            return;
        }
        {
            let mut checked = locked(&self.checked);
            if checked.get(git_dir).is_some_and(|at| at.elapsed() < self.check_interval) {
                return;
            }
            if checked.len() >= CHECKED_MAX {
                checked.clear();
            }
            checked.insert(git_dir.to_path_buf(), Instant::now());
        }
        self.enqueue(git_dir, false);
    }

    fn enqueue(&self, git_dir: &Path, changed: bool) {
        let Some(shared) = &self.shared else { return };
        {
            let mut state = locked(&shared.state);
            if state.closed {
                return;
            }
            if state.running.as_deref() == Some(git_dir) {
                *state.again.entry(git_dir.to_path_buf()).or_default() |= changed;
                return;
            }
            if let Some(queued) = state.queued.get_mut(git_dir) {
                *queued |= changed;
                return;
            }
            if state.queue.len() >= QUEUE_MAX {
                return;
            }
            state.queue.push_back(git_dir.to_path_buf());
            state.queued.insert(git_dir.to_path_buf(), changed);
        }
        shared.changed.notify_all();
        let mut worker = locked(&self.worker);
        if worker.is_none() {
            let shared = Arc::clone(shared);
            // Without a thread nothing runs, and nothing is lost but maintenance.
            *worker = std::thread::Builder::new().name("fc-maintenance".into()).spawn(move || work(&shared)).ok();
        }
    }

    /// Waits until nothing is queued or running, at most `timeout`; whether that happened.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        let Some(shared) = &self.shared else { return true };
        let deadline = Instant::now() + timeout;
        let mut state = locked(&shared.state);
        while !state.queue.is_empty() || state.running.is_some() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = shared.changed.wait_timeout(state, left).unwrap_or_else(|p| p.into_inner()).0;
        }
        true
    }

    /// How the last run on `git_dir` (as it was queued) ended, on this context.
    pub fn last_outcome(&self, git_dir: &Path) -> Option<Outcome> {
        let shared = self.shared.as_ref()?;
        locked(&shared.state).outcomes.get(git_dir).cloned()
    }
}

/// The thread: one run after another until the context closes.
fn work(shared: &Shared) {
    loop {
        let (git_dir, changed) = {
            let mut state = locked(&shared.state);
            loop {
                if state.closed {
                    return;
                }
                if let Some(next) = state.queue.pop_front() {
                    let changed = state.queued.remove(&next).unwrap_or(false);
                    state.running = Some(next.clone());
                    break (next, changed);
                }
                state = shared.changed.wait(state).unwrap_or_else(|p| p.into_inner());
            }
        };
        let reason = if changed { "changed" } else { "served" };
        // git is given an absolute, resolved directory (named as its safe.directory too).
        let outcome = match std::fs::canonicalize(&git_dir) {
            Ok(dir) => super::run(&shared.git, &dir, changed, shared.limits, reason),
            Err(e) => Outcome::Failed { tasks: Vec::new(), error: format!("cannot find the repository: {e}") },
        };
        {
            let mut state = locked(&shared.state);
            state.running = None;
            if state.outcomes.len() >= OUTCOMES_MAX {
                state.outcomes.clear();
            }
            state.outcomes.insert(git_dir.clone(), outcome);
            if let Some(again) = state.again.remove(&git_dir) {
                if !state.closed && !state.queued.contains_key(&git_dir) {
                    state.queue.push_back(git_dir.clone());
                    state.queued.insert(git_dir, again);
                }
            }
        }
        shared.changed.notify_all();
    }
}

impl Drop for Maintenance {
    fn drop(&mut self) {
        let Some(shared) = &self.shared else { return };
        {
            let mut state = locked(&shared.state);
            state.closed = true;
            state.queue.clear();
            state.queued.clear();
        }
        shared.changed.notify_all();
        if let Some(worker) = locked(&self.worker).take() {
            let _ = worker.join();
        }
    }
}
