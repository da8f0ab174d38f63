//! Per-request counters of the work a request did on its own thread: store statements and
//! their time, git operations and their time, cache hits. A request is served on one thread
//! from its start to its answer (streamed bodies are produced elsewhere and not counted), so
//! a thread-local is enough: [`take`] at the start resets it, [`take`] at the answer reads it.

use std::cell::Cell;
use std::time::Duration;

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stats {
    pub db_count: u32,
    pub db: Duration,
    pub git_calls: u32,
    pub git: Duration,
    pub cache_hits: u32,
}

thread_local! {
    static STATS: Cell<Stats> = const { Cell::new(Stats {
        db_count: 0,
        db: Duration::ZERO,
        git_calls: 0,
        git: Duration::ZERO,
        cache_hits: 0,
    }) };
}

/// The counters so far, reset to zero.
pub fn take() -> Stats {
    STATS.with(|s| s.replace(Stats::default()))
}

fn update(change: impl FnOnce(&mut Stats)) {
    STATS.with(|s| {
        let mut stats = s.get();
        change(&mut stats);
        s.set(stats);
    });
}

/// One store operation that took `spent`.
pub fn add_db(spent: Duration) {
    update(|s| {
        s.db_count = s.db_count.saturating_add(1);
        s.db += spent;
    });
}

/// One git operation that took `spent`.
pub fn add_git(spent: Duration) {
    update(|s| {
        s.git_calls = s.git_calls.saturating_add(1);
        s.git += spent;
    });
}

/// One answer or archive found in a cache.
pub fn add_cache_hit() {
    update(|s| s.cache_hits = s.cache_hits.saturating_add(1));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_reads_and_resets() {
        take();
        add_db(Duration::from_millis(2));
        add_db(Duration::from_millis(3));
        add_git(Duration::from_millis(7));
        add_cache_hit();
        let stats = take();
        assert_eq!((stats.db_count, stats.db, stats.git_calls, stats.cache_hits), (2, Duration::from_millis(5), 1, 1));
        assert_eq!(take(), Stats::default());
    }
}
