//! Large buffers kept for the next object, process-wide. A megabyte freshly allocated comes as
//! fresh pages, each a page fault and a page cleared when first written (a third of a raw
//! blob's time, and of every delta decoded into a new buffer); a buffer kept here is already
//! there. Buffers of [`KEEP_FROM`] to [`KEEP_UP_TO`] bytes are kept, at most [`KEPT_BYTES`]
//! of them, the rest go back to the allocator.

use std::sync::Mutex;

/// Smaller buffers are cheap to allocate (the allocator's own free lists keep them).
pub const KEEP_FROM: usize = 64 << 10;
/// Larger buffers are let go, so that one huge object does not stay allocated.
pub const KEEP_UP_TO: usize = 16 << 20;
/// The most that is kept, all buffers together.
pub const KEPT_BYTES: usize = 32 << 20;

/// Buffers kept, and the most their capacities may add up to.
pub struct Store {
    kept: Mutex<Vec<Vec<u8>>>,
    bytes: usize,
}

/// The process's store, which [`take`] and [`give`] use.
static STORE: Store = Store::new(KEPT_BYTES);

/// [`Store::take`] from the process's store.
pub fn take(wanted: usize) -> Vec<u8> {
    STORE.take(wanted)
}

/// [`Store::give`] to the process's store.
pub fn give(buffer: Vec<u8>) {
    STORE.give(buffer);
}

impl Store {
    pub const fn new(bytes: usize) -> Store {
        Store { kept: Mutex::new(Vec::new()), bytes }
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Vec<Vec<u8>>> {
        self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// An empty buffer: a kept one when there is one (the smallest holding `wanted` bytes,
    /// else the largest), else a new one without capacity.
    pub fn take(&self, wanted: usize) -> Vec<u8> {
        let mut kept = self.kept();
        let fits = (0..kept.len()).filter(|&i| kept[i].capacity() >= wanted).min_by_key(|&i| kept[i].capacity());
        let chosen = fits.or_else(|| (0..kept.len()).max_by_key(|&i| kept[i].capacity()));
        chosen.map_or_else(Vec::new, |i| kept.swap_remove(i))
    }

    /// Gives `buffer` back: kept when its size is worth keeping and there is room, else freed.
    pub fn give(&self, mut buffer: Vec<u8>) {
        let capacity = buffer.capacity();
        if !(KEEP_FROM..=KEEP_UP_TO).contains(&capacity) {
            return;
        }
        buffer.clear();
        let mut kept = self.kept();
        if kept.iter().map(Vec::capacity).sum::<usize>() + capacity <= self.bytes {
            kept.push(buffer);
        }
    }

    /// The capacities of the kept buffers, added up.
    pub fn kept_bytes(&self) -> usize {
        self.kept().iter().map(Vec::capacity).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_buffers_come_back_and_stay_within_bounds() {
        let store = Store::new(KEPT_BYTES);
        store.give(Vec::with_capacity(KEEP_FROM - 1));
        store.give(Vec::with_capacity(KEEP_UP_TO + 1));
        assert_eq!(store.kept_bytes(), 0, "too small and too large are not kept");

        let mut one_mib = Vec::with_capacity(1 << 20);
        one_mib.extend_from_slice(b"old content");
        let address = one_mib.as_ptr();
        store.give(one_mib);
        store.give(Vec::with_capacity(4 << 20));
        let back = store.take(100 << 10);
        assert_eq!((back.as_ptr(), back.len()), (address, 0), "the smallest that fits, emptied");
        assert_eq!(store.take(8 << 20).capacity(), 4 << 20, "none fits: the largest");
        assert_eq!(store.take(1).capacity(), 0, "none left: a new one");

        for _ in 0..KEPT_BYTES / KEEP_UP_TO + 2 {
            store.give(Vec::with_capacity(KEEP_UP_TO));
        }
        assert_eq!(store.kept_bytes(), KEPT_BYTES, "kept up to the bound, no further");
    }
}
