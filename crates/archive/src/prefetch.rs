//! Blob loading beside the walk. The walk hands the members it selects over in batches; two
//! worker threads, each with a reader of its own (`Objects::another`), inflate a batch's blobs
//! while the walk goes on and the writer writes the batch before; the writer takes the batches
//! back in order. Inflating blobs is most of an archive's work, so this spreads it over the
//! cores the way the compressors already are.
//!
//! The output is the same as when every blob is read as it is written: a worker leaves a blob
//! it cannot hold (one streamed because it is large, one past the batch's byte budget, or any
//! error) to the writer, which reads it as it always did and reports the error then. Small
//! archives (under one batch) start no thread.
//!
//! Memory: a batch holds at most [`BATCH_MEMBERS`] members and [`BATCH_BYTES`] of blobs (or one
//! blob, when the first is larger); one batch per worker is in flight, one is being filled and
//! one written. The workers' readers share the mapped-page budget and the delta-base cache
//! with the writer's (`Objects::share_budget`).

use crate::convert::Conversion;
use crate::error::Error;
use crate::objects::Objects;
use crate::ordered::Ordered;
use std::ops::Range;

/// Members per batch: enough that a hand-over costs nothing next to the loading.
const BATCH_MEMBERS: usize = 128;
/// Blob bytes a batch holds: a batch of a source tree's files (git's: 11 KiB on average) fits,
/// so its blobs are inflated by the workers, not left to the writer.
const BATCH_BYTES: usize = 2 << 20;
/// A worker's buffer larger than this is given back after use.
const KEPT_BUFFER: usize = 256 << 10;

/// What a member is and how it is written.
#[derive(Clone, Copy)]
pub enum What {
    /// A tree, or a submodule (written as an empty directory).
    Directory,
    Symlink {
        text: Option<bool>,
    },
    File {
        executable: bool,
        text: Option<bool>,
        conversion: Conversion,
        lfs: bool,
    },
}

/// One member of the archive, as the walk selected it.
pub struct Member {
    path: Range<usize>,
    pub id: gix::ObjectId,
    pub what: What,
}

/// Members in archive order, with their paths and the blobs a worker loaded for them.
#[derive(Default)]
pub struct Batch {
    pub members: Vec<Member>,
    paths: Vec<u8>,
    contents: Vec<u8>,
    /// Per member, where its blob lies in `contents` when a worker loaded it.
    loaded: Vec<Option<Range<usize>>>,
}

impl Batch {
    pub fn push(&mut self, path: &[u8], id: gix::ObjectId, what: What) {
        let start = self.paths.len();
        self.paths.extend_from_slice(path);
        self.members.push(Member { path: start..self.paths.len(), id, what });
    }

    pub fn is_full(&self) -> bool {
        self.members.len() >= BATCH_MEMBERS
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    pub fn path(&self, member: &Member) -> &[u8] {
        &self.paths[member.path.clone()]
    }

    /// The blob of member `i`, when a worker loaded it.
    pub fn loaded(&self, i: usize) -> Option<&[u8]> {
        self.loaded.get(i)?.as_ref().map(|range| &self.contents[range.clone()])
    }

    /// Loads what `objects` can of the batch's blobs within the byte budget.
    /// Once a blob does not fit, the rest of the batch is left to the writer too (a blob is
    /// only known not to fit once inflated: trying every later one could inflate each twice).
    fn load(&mut self, objects: &mut Objects, buffer: &mut Vec<u8>) {
        self.loaded.clear();
        self.contents.clear();
        let mut full = false;
        for member in &self.members {
            let range = match member.what {
                What::Directory => None,
                _ if full => None,
                What::Symlink { .. } | What::File { .. } => match objects.load_blob(&member.id, buffer) {
                    Ok(None) if self.contents.is_empty() || self.contents.len() + buffer.len() <= BATCH_BYTES => {
                        let start = self.contents.len();
                        self.contents.extend_from_slice(buffer);
                        Some(start..self.contents.len())
                    }
                    Ok(None) => {
                        full = true;
                        None
                    }
                    _ => None,
                },
            };
            self.loaded.push(range);
        }
        if buffer.capacity() > KEPT_BUFFER {
            *buffer = Vec::new();
        }
    }
}

/// The workers, started with the first full batch.
#[derive(Default)]
pub struct Loader {
    pool: Option<Ordered<Batch, Batch>>,
    /// Whether starting them was tried (it is not tried again when it failed).
    tried: bool,
}

impl Loader {
    /// Hands `batch` to a worker; gives back the oldest loaded batch when it is due to be
    /// written. Without workers (none could start), the batch comes back as it is.
    pub fn submit(&mut self, batch: Batch, objects: &mut Objects) -> Result<Option<Batch>, Error> {
        if !self.tried {
            self.tried = true;
            self.pool = start(objects);
        }
        match &mut self.pool {
            Some(pool) => Ok(pool.submit(batch)?),
            None => Ok(Some(batch)),
        }
    }

    /// The oldest batch in flight, when one is.
    pub fn collect(&mut self) -> Result<Option<Batch>, Error> {
        match &mut self.pool {
            Some(pool) => Ok(pool.collect()?),
            None => Ok(None),
        }
    }

    /// Whether no worker was started (so a last partial batch can be written at once).
    pub fn is_idle(&self) -> bool {
        self.pool.is_none()
    }

    /// Stops the workers, once every batch was collected.
    pub fn finish(self) {
        if let Some(pool) = self.pool {
            pool.join();
        }
    }
}

thread_local! {
    /// A worker's reader, opened on the worker's thread (a repository handle cannot move between
    /// threads) and dropped, with its mappings, when the thread ends with the archive.
    static READER: std::cell::RefCell<Option<Objects>> = const { std::cell::RefCell::new(None) };
}

/// Workers with readers of their own, sharing the mapped-page budget with the writer's reader;
/// `None` when no thread started. A worker whose reader cannot be opened loads nothing.
fn start(objects: &mut Objects) -> Option<Ordered<Batch, Batch>> {
    let workers = crate::ordered::worker_count();
    let shares = workers as u64 + 1;
    objects.share_budget(shares);
    Ordered::new("load", || {
        let mut another = Some(objects.another());
        let mut buffer = Vec::new();
        move |mut batch: Batch| {
            READER.with_borrow_mut(|reader| {
                if let Some(another) = another.take() {
                    *reader = another.open().ok();
                    if let Some(reader) = reader.as_mut() {
                        reader.share_budget(shares);
                    }
                }
                if let Some(reader) = reader.as_mut() {
                    batch.load(reader, &mut buffer);
                }
            });
            batch
        }
    })
    .ok()
}
