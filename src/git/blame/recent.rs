//! What a blame works out per commit, kept for the commits it met last rather than for the
//! whole history: two generations of a map, the newer filled until it holds [`Recent::new`]'s
//! bound, then made the older (the older let go). Everything kept so is worked out again when
//! it is asked for after it was let go; what must outlive a generation says so where it is used.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;

/// A map of at most twice its bound, keeping what was inserted last.
pub struct Recent<K, V> {
    newer: HashMap<K, V>,
    older: HashMap<K, V>,
    bound: usize,
}

impl<K: Hash + Eq, V> Recent<K, V> {
    pub fn new(bound: usize) -> Recent<K, V> {
        Recent { newer: HashMap::new(), older: HashMap::new(), bound }
    }

    pub fn get<Q: Hash + Eq + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.newer.get(key).or_else(|| self.older.get(key))
    }

    /// Whether `key` is in the newer generation: it outlives the next [`Recent::age`].
    pub fn is_new<Q: Hash + Eq + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.newer.contains_key(key)
    }

    /// Inserts into the newer generation, aging the map first when that is full.
    pub fn insert(&mut self, key: K, value: V) {
        if self.newer.len() >= self.bound {
            self.age();
        }
        self.newer.insert(key, value);
    }

    /// Inserts into the newer generation without aging the map (the caller ages it with
    /// [`Recent::age_if_full`] where nothing it handed out can be let go).
    pub fn insert_new(&mut self, key: K, value: V) {
        self.newer.insert(key, value);
    }

    /// The newer generation becomes the older; the older is let go.
    pub fn age(&mut self) {
        std::mem::swap(&mut self.newer, &mut self.older);
        self.newer.clear();
    }

    pub fn age_if_full(&mut self) {
        if self.newer.len() >= self.bound {
            self.age();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Recent;

    #[test]
    fn keeps_the_last_inserted_within_twice_its_bound() {
        let mut recent = Recent::new(2);
        for n in 0..10 {
            recent.insert(n, n * 10);
        }
        assert_eq!((recent.get(&9), recent.get(&6), recent.get(&5)), (Some(&90), Some(&60), None));
        assert!(recent.is_new(&9) && !recent.is_new(&7));
    }
}
