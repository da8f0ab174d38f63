//! The listeners every context has, in the order they hear:
//! - [`OpenHandles`]: a host keeps its gix handle of a repository open across requests, and its
//!   object store learns of new packs only when a lookup misses; after a push (objects and refs
//!   written by receive-pack, outside gix) both handles of the repository (the API's, by the
//!   store's path, and the transport's, by its canonical git directory) are forgotten, so that
//!   the next request opens it afresh. The API's own writes went through that handle.
//! - [`Maintenance`]: the moved refs' repository is queued for housekeeping (a new
//!   commit-graph layer with its Bloom filters, packs rolled up), never waited for.
//!
//! What answers from refs needs no listener: it reads them from the repository on every
//! request, and the answers cache keys on commit ids, never on names. Other hosts (PostgreSQL
//! clusters) keep nothing derived from refs either, so no notification goes between hosts.

use super::{Event, Listener, Through};
use crate::git;
use crate::git::maintenance::worker::Maintenance;

/// Forgets the open repository handles a push made stale.
pub struct OpenHandles;

impl Listener for OpenHandles {
    fn heard(&self, event: &Event) {
        let Event::RefsMoved(moved) = event;
        if moved.through == Through::Push {
            git::forget(&moved.repository);
            git::forget(&moved.git_dir);
        }
    }
}

/// Queues the repository whose refs moved for maintenance.
impl Listener for Maintenance {
    fn heard(&self, event: &Event) {
        let Event::RefsMoved(moved) = event;
        self.after_refs_changed(&moved.git_dir);
    }
}
