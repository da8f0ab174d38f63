//! Archives kept on disk, as GitLab's Workhorse keeps them: `data_dir/archive-cache/<key>`,
//! where the key digests everything the bytes depend on (the commit id, never a branch name;
//! the format, prefix, path, excludes; the repository's config and `info/attributes`).
//!
//! The first request for a key starts one build: a thread writes the archive into a temporary
//! file at full speed, and every request for the key meanwhile (the first one and any that
//! join it) reads that file as it grows, so concurrent first downloads build once. When the
//! archive is complete the file is renamed into place: a reader never sees a half-written
//! entry under the final name. The build runs at most [`LEAD`] bytes ahead of its furthest
//! reader, so a build whose readers all went away mid-stream, or that fails, stops and removes
//! its file: an abandoned or failed download leaves nothing. A hit streams the file;
//! every read is of a bounded buffer. Entries are capped in bytes, least recently used (file
//! modification time, touched on every hit) first out.
//!
//! Within one process a key is built once at a time; two processes sharing a data directory
//! may both build it, and the second rename replaces an identical file.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::SystemTime;

/// How far a build may run ahead of the furthest of its readers.
const LEAD: u64 = 1 << 20;

pub struct Archives {
    dir: PathBuf,
    capacity: u64,
    flights: Mutex<HashMap<String, Arc<Flight>>>,
    builds: AtomicU64,
}

/// One build in progress, shared by its builder and its readers.
struct Flight {
    temp: PathBuf,
    state: Mutex<State>,
    changed: Condvar,
}

struct State {
    written: u64,
    /// The furthest any reader has read.
    read: u64,
    /// `Some` once the build ended: `Ok` complete (and renamed into place), `Err` failed.
    outcome: Option<Result<(), String>>,
    readers: usize,
}

/// What a request gets for a key.
pub enum Lookup {
    /// The cached archive.
    Hit(Cached),
    /// A build this request must start: write the archive into the [`Builder`], and answer
    /// with the [`Growing`] reader.
    Build(Builder, Growing),
    /// A build another request started: read it as it grows.
    Join(Growing),
}

impl Archives {
    /// The cache in `dir` (created when missing), holding at most `capacity` bytes. Temporary
    /// files that a process left behind are removed.
    pub fn open(dir: PathBuf, capacity: u64) -> io::Result<Archives> {
        std::fs::create_dir_all(&dir)?;
        for entry in std::fs::read_dir(&dir)?.flatten() {
            if entry.file_name().to_string_lossy().starts_with('.') {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Ok(Archives { dir, capacity, flights: Mutex::default(), builds: AtomicU64::new(0) })
    }

    fn flights(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Flight>>> {
        self.flights.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(key)
    }

    /// The archive cached under `key`, if there is one (touched: it is now the most recently
    /// used).
    pub fn hit(&self, key: &str) -> Option<Cached> {
        let file = File::open(self.path(key)).ok()?;
        let _ = file.set_modified(SystemTime::now());
        let len = file.metadata().ok()?.len();
        Some(Cached { file, len })
    }

    /// The archive under `key`: cached, being built, or to be built by this request.
    pub fn lookup(self: &Arc<Self>, key: &str) -> io::Result<Lookup> {
        // The flights' lock is held until this request has joined, or registered its own: a build
        // renames its file and leaves the map under the same lock, so a joiner never opens a
        // temporary file that is gone.
        let mut flights = self.flights();
        if let Some(flight) = flights.get(key) {
            return Ok(Lookup::Join(Growing::join(Arc::clone(flight))?));
        }
        if let Some(cached) = self.hit(key) {
            return Ok(Lookup::Hit(cached));
        }
        let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let temp = self.dir.join(format!(".{key}.{}.{nanos}.tmp", std::process::id()));
        let file = File::create(&temp)?;
        let flight = Arc::new(Flight {
            temp,
            state: Mutex::new(State { written: 0, read: 0, outcome: None, readers: 0 }),
            changed: Condvar::new(),
        });
        let reader = Growing::join(Arc::clone(&flight))?;
        flights.insert(key.to_string(), Arc::clone(&flight));
        self.builds.fetch_add(1, Ordering::Relaxed);
        let builder = Builder { cache: Arc::clone(self), key: key.to_string(), flight, file: Some(file) };
        Ok(Lookup::Build(builder, reader))
    }

    /// How many builds this cache started.
    pub fn builds(&self) -> u64 {
        self.builds.load(Ordering::Relaxed)
    }

    /// Removes the least recently used entries until the cache holds at most its capacity.
    fn evict(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        let mut files: Vec<(SystemTime, u64, PathBuf)> = entries
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .filter_map(|e| {
                let meta = e.metadata().ok()?;
                Some((meta.modified().ok()?, meta.len(), e.path()))
            })
            .collect();
        let mut total: u64 = files.iter().map(|(_, len, _)| len).sum();
        files.sort();
        for (_, len, path) in files {
            if total <= self.capacity {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
    }
}

/// The writing end of a build.
pub struct Builder {
    cache: Arc<Archives>,
    key: String,
    flight: Arc<Flight>,
    file: Option<File>,
}

fn abandoned() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "every reader of the archive went away")
}

impl Write for Builder {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        {
            let mut state = self.flight.lock();
            while state.readers > 0 && state.written - state.read >= LEAD {
                state = self.flight.changed.wait(state).unwrap_or_else(|p| p.into_inner());
            }
            if state.readers == 0 {
                return Err(abandoned());
            }
        }
        let file = self.file.as_mut().ok_or_else(abandoned)?;
        let n = file.write(data)?;
        let mut state = self.flight.lock();
        state.written += n as u64;
        self.flight.changed.notify_all();
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Builder {
    /// Ends the build: a complete archive moves into place (and the cache is trimmed to its
    /// capacity); a failed one is removed, its readers told.
    pub fn finish(mut self, result: io::Result<()>) {
        let file = self.file.take();
        let written = result.and_then(|()| file.map_or(Ok(()), |f| f.sync_all()));
        self.end(written.map_err(|e| e.to_string()));
    }

    /// Moves a complete archive into place (trimming the cache to its capacity), or removes a
    /// failed one, and only then tells the readers: when a download ends, the cap holds.
    fn end(&self, written: Result<(), String>) {
        let outcome = {
            let mut flights = self.cache.flights();
            let outcome = written.and_then(|()| {
                std::fs::rename(&self.flight.temp, self.cache.path(&self.key)).map_err(|e| e.to_string())
            });
            if outcome.is_err() {
                let _ = std::fs::remove_file(&self.flight.temp);
            }
            flights.remove(&self.key);
            outcome
        };
        if outcome.is_ok() {
            // Readers read through the descriptors they hold: evicting this very entry is safe.
            self.cache.evict();
        }
        let mut state = self.flight.lock();
        state.outcome = Some(outcome);
        self.flight.changed.notify_all();
    }
}

impl Drop for Builder {
    /// A builder dropped before `finish` (a panic in the producer) fails its build.
    fn drop(&mut self) {
        if self.file.is_some() {
            self.file = None;
            self.end(Err("the archive's builder stopped".into()));
        }
    }
}

impl Flight {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A cached archive, read in bounded pieces.
pub struct Cached {
    file: File,
    len: u64,
}

impl Cached {
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Read for Cached {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.file.read(out)
    }
}

/// A reader of an archive being built: it reads what was written so far and waits for more
/// until the build ends.
pub struct Growing {
    flight: Arc<Flight>,
    file: File,
    position: u64,
}

impl Growing {
    fn join(flight: Arc<Flight>) -> io::Result<Growing> {
        let file = {
            let mut state = flight.lock();
            let file = File::open(&flight.temp)?;
            state.readers += 1;
            file
        };
        Ok(Growing { flight, file, position: 0 })
    }
}

impl Read for Growing {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let available = {
            let mut state = self.flight.lock();
            loop {
                if state.written > self.position {
                    break state.written - self.position;
                }
                match &state.outcome {
                    Some(Ok(())) => return Ok(0),
                    Some(Err(why)) => return Err(io::Error::other(why.clone())),
                    None => {
                        state = self.flight.changed.wait(state).unwrap_or_else(|p| p.into_inner());
                    }
                }
            }
        };
        let want = out.len().min(usize::try_from(available).unwrap_or(usize::MAX));
        self.file.seek(SeekFrom::Start(self.position))?;
        let n = self.file.read(&mut out[..want])?;
        self.position += n as u64;
        let mut state = self.flight.lock();
        if self.position > state.read {
            state.read = self.position;
            self.flight.changed.notify_all();
        }
        Ok(n)
    }
}

impl Drop for Growing {
    fn drop(&mut self) {
        let mut state = self.flight.lock();
        state.readers -= 1;
        self.flight.changed.notify_all();
    }
}

/// The directory of the archive cache in `data_dir`.
pub fn dir_in(data_dir: &Path) -> PathBuf {
    data_dir.join("archive-cache")
}
