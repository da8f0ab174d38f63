//! Answers that are pure functions of resolved commit ids, kept in memory and shared by every
//! thread of a context: the contributors of a tip, a merge base, a compare, the commits of a
//! changelog range. A key always names commit ids (and the repository and parameters), never a
//! branch: a branch that moves resolves to another id, hence another key, so nothing is stale.
//!
//! Bounded by the bytes the values weigh (the caller says how much), least recently used first
//! out. A value heavier than the whole cache is answered but not kept.

use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

type Value = Arc<dyn Any + Send + Sync>;

struct Entry {
    value: Value,
    weight: usize,
    used: u64,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    bytes: usize,
    clock: u64,
}

pub struct Answers {
    capacity: usize,
    inner: Mutex<Inner>,
    /// Lookups that found a value, and that did not, for `/-/metrics`.
    pub hits: AtomicU64,
    pub misses: AtomicU64,
}

impl Answers {
    pub fn new(capacity_bytes: u64) -> Answers {
        Answers {
            capacity: usize::try_from(capacity_bytes).unwrap_or(usize::MAX),
            inner: Mutex::default(),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The value kept under `key`, if it is one of type `T`.
    pub fn get<T: Any + Send + Sync>(&self, key: &str) -> Option<Arc<T>> {
        let found = self.find::<T>(key);
        if found.is_some() {
            self.hits.fetch_add(1, Ordering::Relaxed);
            crate::observe::stats::add_cache_hit();
        } else {
            self.misses.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    fn find<T: Any + Send + Sync>(&self, key: &str) -> Option<Arc<T>> {
        let mut inner = self.lock();
        inner.clock += 1;
        let now = inner.clock;
        let entry = inner.entries.get_mut(key)?;
        entry.used = now;
        Arc::clone(&entry.value).downcast::<T>().ok()
    }

    /// Keeps `value` under `key`, weighing `weight` bytes, evicting the least recently used
    /// values until everything fits.
    pub fn put<T: Any + Send + Sync>(&self, key: String, value: Arc<T>, weight: usize) {
        if self.capacity == 0 || weight > self.capacity {
            return;
        }
        let mut inner = self.lock();
        inner.clock += 1;
        let used = inner.clock;
        if let Some(old) = inner.entries.insert(key, Entry { value, weight, used }) {
            inner.bytes -= old.weight;
        }
        inner.bytes += weight;
        while inner.bytes > self.capacity {
            let Some(oldest) = inner.entries.iter().min_by_key(|(_, e)| e.used).map(|(k, _)| k.clone()) else { break };
            if let Some(gone) = inner.entries.remove(&oldest) {
                inner.bytes -= gone.weight;
            }
        }
    }

    /// The value under `key`, computed by `compute` (and kept, weighed by `weigh`) when absent.
    pub fn get_or_compute<T: Any + Send + Sync, E>(
        &self,
        key: String,
        weigh: impl FnOnce(&T) -> usize,
        compute: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        if let Some(found) = self.get::<T>(&key) {
            return Ok(found);
        }
        let value = Arc::new(compute()?);
        self.put(key, Arc::clone(&value), weigh(&value));
        Ok(value)
    }

    /// Bytes held, for tests and figures.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_go_first_and_the_bound_holds() {
        let answers = Answers::new(100);
        answers.put("a".into(), Arc::new(1u32), 40);
        answers.put("b".into(), Arc::new(2u32), 40);
        assert_eq!(answers.get::<u32>("a").as_deref(), Some(&1), "a is now the most recent");
        answers.put("c".into(), Arc::new(3u32), 40);
        assert!(answers.get::<u32>("b").is_none(), "b was the least recently used");
        assert_eq!(answers.get::<u32>("a").as_deref(), Some(&1));
        assert!(answers.bytes() <= 100);
        answers.put("huge".into(), Arc::new(4u32), 101);
        assert!(answers.get::<u32>("huge").is_none(), "heavier than the whole cache");
        assert!(answers.get::<String>("a").is_none(), "another type is not this value");
    }

    #[test]
    fn computed_once_then_reused() {
        let answers = Answers::new(1000);
        let mut runs = 0;
        for _ in 0..3 {
            let value = answers
                .get_or_compute(
                    "k".into(),
                    |_| 8,
                    || -> Result<u64, ()> {
                        runs += 1;
                        Ok(42)
                    },
                )
                .unwrap();
            assert_eq!(*value, 42);
        }
        assert_eq!(runs, 1);
    }
}
