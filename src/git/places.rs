//! The places of git's programs on each repository: how many run on one repository at once is
//! bounded (`limits.git_per_repository`), and a program holds its [`Slot`] for as long as it
//! runs. The context owns one [`Places`]; the transport takes a slot before it starts a program,
//! which is once the request's body is whole: a client still sending holds none.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The git programs running per repository, bounded by `limits.git_per_repository`.
#[derive(Default)]
pub struct Places {
    counts: Arc<Mutex<HashMap<PathBuf, u32>>>,
}

/// One program's place among its repository's; given back when dropped.
pub struct Slot {
    counts: Arc<Mutex<HashMap<PathBuf, u32>>>,
    dir: PathBuf,
}

impl Places {
    /// A place for one more program on `dir`, or `None` when `limit` already run there.
    pub fn take(&self, dir: &Path, limit: u32) -> Option<Slot> {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        let count = counts.entry(dir.to_path_buf()).or_insert(0);
        if *count >= limit {
            return None;
        }
        *count += 1;
        Some(Slot { counts: Arc::clone(&self.counts), dir: dir.to_path_buf() })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = counts.get_mut(&self.dir) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                counts.remove(&self.dir);
            }
        }
    }
}
