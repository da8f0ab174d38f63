//! Archives kept on disk, as GitLab's Workhorse keeps them: `data_dir/archive-cache/<key>`,
//! where the key digests everything the bytes depend on (the commit id, never a branch name;
//! the format, prefix, path, excludes as normalized; the repository's config and
//! `info/attributes`).
//!
//! The first request for a key starts one build: a thread writes the archive into a temporary
//! file at full speed, and every request for the key meanwhile (the first one and any that
//! join it) reads that file as it grows, so concurrent first downloads build once. When the
//! archive is complete the file is renamed into place: a reader never sees a half-written
//! entry under the final name. The build runs at most [`LEAD`] bytes ahead of its furthest
//! reader, so a build whose readers all went away mid-stream, or that fails, stops and removes
//! its file: an abandoned or failed download leaves nothing. A hit streams the file;
//! every read is of a bounded buffer.
//!
//! The capacity bounds the disk: finished entries and the bytes builds in progress have written
//! count together. A write that would pass the capacity stops caching its build: it is no
//! longer joined nor kept, and goes on for the readers it has from a buffer of at most
//! [`LEAD`] bytes held ahead of its slowest reader (what it had written stays readable from its
//! file, which is removed at the end). No entry is evicted while a build is under way, so a
//! build that turns out larger than the cache (an `export-subst` expanding a small repository
//! to gigabytes) never empties it. When a build completes, the least recently used entries
//! (file modification time, touched on every hit) go until a quarter of the capacity is free
//! again, room for the next builds.
//!
//! Within one process a key is built once at a time; two processes sharing a data directory
//! may both build it, and the second rename replaces an identical file. Each process counts its
//! own builds; every eviction recounts the entries on disk. A temporary file is locked
//! (`flock`) by its writer for as long as it writes: opening the cache removes only temporary
//! files no writer holds (another host's or worker's downloads in progress are left alone).

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

/// How far a build may run ahead of the furthest of its readers (of the slowest, once it no
/// longer writes to its file).
const LEAD: u64 = 1 << 20;
/// A temporary file younger than this is never removed by an opening cache: its writer may be
/// between creating and locking it.
const TEMP_GRACE: Duration = Duration::from_secs(10);

pub struct Archives {
    dir: PathBuf,
    capacity: u64,
    flights: Mutex<HashMap<String, Arc<Flight>>>,
    builds: AtomicU64,
    usage: Arc<Mutex<Usage>>,
    /// Lookups served from the cache or a build under way, and lookups that built, for
    /// `/-/metrics`.
    pub hits: AtomicU64,
    pub misses: AtomicU64,
}

/// The bytes this process knows on disk.
#[derive(Debug, Default)]
struct Usage {
    /// Finished entries (recounted from the directory by every eviction).
    cached: u64,
    /// Temporary files of builds in progress (and of stopped ones whose readers still read).
    building: u64,
}

/// One build in progress, shared by its builder and its readers.
struct Flight {
    temp: PathBuf,
    state: Mutex<State>,
    changed: Condvar,
    usage: Arc<Mutex<Usage>>,
}

struct State {
    written: u64,
    /// Bytes in the temporary file (readers read them there).
    in_file: u64,
    /// Of those, the ones counted in `Usage::building` (until the flight ends, or they are an
    /// entry's).
    counted: u64,
    /// Where each reader is (by reader number).
    positions: HashMap<u64, u64>,
    next_reader: u64,
    /// `Some` once the build stopped caching: the bytes from `in_file` on are in `ring`.
    ring: Option<Ring>,
    /// `Some` once the build ended: `Ok` complete, `Err` failed.
    outcome: Option<Result<(), String>>,
}

/// The bytes of a build that no longer writes its file, from `start` on.
struct Ring {
    start: u64,
    bytes: VecDeque<u8>,
}

impl State {
    fn furthest(&self) -> u64 {
        self.positions.values().copied().max().unwrap_or(0)
    }

    fn slowest(&self) -> u64 {
        self.positions.values().copied().min().unwrap_or(self.written)
    }
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

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

fn is_temp(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().starts_with('.')
}

impl Archives {
    /// The cache in `dir` (created when missing), holding at most `capacity` bytes. Temporary
    /// files whose writer is gone (no lock on them) are removed.
    pub fn open(dir: PathBuf, capacity: u64) -> io::Result<Archives> {
        std::fs::create_dir_all(&dir)?;
        for entry in std::fs::read_dir(&dir)?.flatten() {
            if is_temp(&entry.file_name()) && abandoned_temp(&entry.path()) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        let archives = Archives {
            dir,
            capacity,
            flights: Mutex::default(),
            builds: AtomicU64::new(0),
            usage: Arc::default(),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        };
        let cached: u64 = archives.entries().iter().map(|(_, len, _)| len).sum();
        lock(&archives.usage).cached = cached;
        if cached > capacity {
            // A smaller capacity than before: builds would find no room until an eviction.
            archives.evict(None);
        }
        Ok(archives)
    }

    fn flights(&self) -> MutexGuard<'_, HashMap<String, Arc<Flight>>> {
        lock(&self.flights)
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
            self.hits.fetch_add(1, Ordering::Relaxed);
            crate::observe::stats::add_cache_hit();
            return Ok(Lookup::Join(Growing::join(Arc::clone(flight))?));
        }
        if let Some(cached) = self.hit(key) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            crate::observe::stats::add_cache_hit();
            return Ok(Lookup::Hit(cached));
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let temp = self.dir.join(format!(".{key}.{}.{nanos}.tmp", std::process::id()));
        let file = File::create(&temp)?;
        // Held until the file is closed: another process opening the cache leaves it alone.
        try_lock(&file)?;
        let flight = Arc::new(Flight {
            temp,
            state: Mutex::new(State {
                written: 0,
                in_file: 0,
                counted: 0,
                positions: HashMap::new(),
                next_reader: 0,
                ring: None,
                outcome: None,
            }),
            changed: Condvar::new(),
            usage: Arc::clone(&self.usage),
        });
        let reader = Growing::join(Arc::clone(&flight))?;
        flights.insert(key.to_string(), Arc::clone(&flight));
        self.builds.fetch_add(1, Ordering::Relaxed);
        let builder = Builder { cache: Arc::clone(self), key: key.to_string(), flight, file: Some(file) };
        Ok(Lookup::Build(builder, reader))
    }

    /// Whether a build of `key` is under way in this process (a request for it joins).
    pub fn is_building(&self, key: &str) -> bool {
        self.flights().contains_key(key)
    }

    /// How many builds this cache started.
    pub fn builds(&self) -> u64 {
        self.builds.load(Ordering::Relaxed)
    }

    /// The bytes on disk this process knows: finished entries and builds' temporary files.
    pub fn used_bytes(&self) -> u64 {
        let usage = lock(&self.usage);
        usage.cached + usage.building
    }

    /// The finished entries: (modification time, length, path).
    fn entries(&self) -> Vec<(SystemTime, u64, PathBuf)> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        entries
            .flatten()
            .filter(|e| !is_temp(&e.file_name()))
            .filter_map(|e| {
                let meta = e.metadata().ok()?;
                Some((meta.modified().ok()?, meta.len(), e.path()))
            })
            .collect()
    }

    /// Whether `n` more bytes of a build fit: counted, or refused (the build stops caching).
    fn reserve(&self, n: u64) -> bool {
        let mut usage = lock(&self.usage);
        if usage.cached + usage.building + n > self.capacity {
            return false;
        }
        usage.building += n;
        true
    }

    /// Removes the least recently used entries (but `newest`, just completed) until a quarter of
    /// the capacity is free for the builds to come, builds in progress counted.
    fn evict(&self, newest: Option<&Path>) {
        let mut files = self.entries();
        let mut total: u64 = files.iter().map(|(_, len, _)| len).sum();
        files.sort();
        let mut usage = lock(&self.usage);
        let keep = (self.capacity - self.capacity / 4).saturating_sub(usage.building);
        for (_, len, path) in files {
            if total <= keep {
                break;
            }
            if Some(path.as_path()) == newest {
                continue;
            }
            if std::fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
        usage.cached = total;
    }
}

/// Whether a temporary file of the cache was left by a writer that is gone: nobody holds its
/// lock, and it is not so new that its writer may not have locked it yet.
fn abandoned_temp(path: &Path) -> bool {
    let Ok(file) = File::open(path) else { return false };
    let old = file
        .metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age >= TEMP_GRACE);
    old && try_lock(&file).is_ok()
}

/// An exclusive `flock` on `file` without waiting, held until the file is closed; an error when
/// another open file holds one (in this process or another).
fn try_lock(file: &File) -> io::Result<()> {
    rustix::fs::flock(file, rustix::fs::FlockOperation::NonBlockingLockExclusive).map_err(io::Error::from)
}

/// The writing end of a build.
pub struct Builder {
    cache: Arc<Archives>,
    key: String,
    flight: Arc<Flight>,
    /// The temporary file while the build caches; `None` once it stopped caching or ended.
    file: Option<File>,
}

fn abandoned() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "every reader of the archive went away")
}

impl Write for Builder {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        if self.file.is_some() {
            let mut state = self.flight.lock();
            while !state.positions.is_empty() && state.written - state.furthest() >= LEAD {
                state = self.flight.wait(state);
            }
            if state.positions.is_empty() {
                return Err(abandoned());
            }
            drop(state);
            if self.cache.reserve(data.len() as u64) {
                return self.write_file(data);
            }
            self.stop_caching();
        }
        self.write_memory(data)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Builder {
    /// Writes into the temporary file `data`, whose bytes were reserved.
    fn write_file(&mut self, data: &[u8]) -> io::Result<usize> {
        let reserved = data.len() as u64;
        let written = match self.file.as_mut() {
            Some(file) => file.write(data),
            None => Err(abandoned()),
        };
        let n = *written.as_ref().unwrap_or(&0) as u64;
        let mut state = self.flight.lock();
        lock(&self.flight.usage).building -= reserved - n;
        state.written += n;
        state.in_file += n;
        state.counted += n;
        self.flight.changed.notify_all();
        written
    }

    /// Once the build stopped caching: `data` into memory, at most [`LEAD`] bytes ahead of the
    /// slowest reader.
    fn write_memory(&mut self, data: &[u8]) -> io::Result<usize> {
        let mut state = self.flight.lock();
        while !state.positions.is_empty() && state.written - state.slowest() >= LEAD {
            state = self.flight.wait(state);
        }
        if state.positions.is_empty() {
            return Err(abandoned());
        }
        let slowest = state.slowest();
        let room = LEAD - (state.written - slowest);
        let n = data.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let ring = state.ring.as_mut().ok_or_else(abandoned)?;
        ring.bytes.extend(&data[..n]);
        let done = slowest.saturating_sub(ring.start).min(ring.bytes.len() as u64);
        ring.bytes.drain(..usize::try_from(done).unwrap_or(0));
        ring.start += done;
        state.written += n as u64;
        self.flight.changed.notify_all();
        Ok(n)
    }

    /// The build passed the capacity: it is no longer joined nor kept, and writes on into
    /// memory for the readers it has. Its file stays readable (and counted) until they are done.
    fn stop_caching(&mut self) {
        {
            let mut flights = self.cache.flights();
            if flights.get(&self.key).is_some_and(|f| Arc::ptr_eq(f, &self.flight)) {
                flights.remove(&self.key);
            }
        }
        self.file = None;
        let mut state = self.flight.lock();
        let start = state.written;
        state.ring = Some(Ring { start, bytes: VecDeque::new() });
    }

    /// Ends the build: a complete archive moves into place (and the cache is trimmed); a failed
    /// one, or one that stopped caching, is removed, its readers told.
    pub fn finish(mut self, result: io::Result<()>) {
        let caching = self.flight.lock().ring.is_none();
        let file = self.file.take();
        let written = result.and_then(|()| file.map_or(Ok(()), |f| f.sync_all()));
        self.end(written.map_err(|e| e.to_string()), caching);
    }

    /// Moves a complete archive into place (trimming the cache), or removes a failed or uncached
    /// one, and only then tells the readers: when a download ends, the cap holds.
    fn end(&self, written: Result<(), String>, caching: bool) {
        let (outcome, kept) = {
            let mut flights = self.cache.flights();
            let kept = match (&written, caching) {
                (Ok(()), true) => std::fs::rename(&self.flight.temp, self.cache.path(&self.key)).is_ok(),
                _ => false,
            };
            if !kept {
                let _ = std::fs::remove_file(&self.flight.temp);
            }
            if flights.get(&self.key).is_some_and(|f| Arc::ptr_eq(f, &self.flight)) {
                flights.remove(&self.key);
            }
            let outcome = match (written, caching, kept) {
                (Ok(()), true, false) => Err("the archive could not be kept".to_string()),
                (written, _, _) => written,
            };
            (outcome, kept)
        };
        if kept {
            // The file is an entry now: its bytes count as cached, no longer as building.
            let mut state = self.flight.lock();
            let mut usage = lock(&self.flight.usage);
            usage.building -= state.counted;
            usage.cached += state.counted;
            state.counted = 0;
            drop(usage);
            drop(state);
            self.cache.evict(Some(&self.cache.path(&self.key)));
        }
        let mut state = self.flight.lock();
        state.outcome = Some(outcome);
        self.flight.changed.notify_all();
    }
}

impl Drop for Builder {
    /// A builder dropped before `finish` (a panic in the producer) fails its build.
    fn drop(&mut self) {
        let ended = self.flight.lock().outcome.is_some();
        if !ended {
            self.file = None;
            self.end(Err("the archive's builder stopped".into()), false);
        }
    }
}

impl Flight {
    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    fn wait<'a>(&self, state: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed.wait(state).unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Flight {
    /// The last reader is gone: the temporary file's bytes (if it was not kept) are free.
    fn drop(&mut self) {
        let counted = lock(&self.state).counted;
        let mut usage = lock(&self.usage);
        usage.building = usage.building.saturating_sub(counted);
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
    id: u64,
    position: u64,
}

impl Growing {
    fn join(flight: Arc<Flight>) -> io::Result<Growing> {
        let (file, id) = {
            let mut state = flight.lock();
            let file = File::open(&flight.temp)?;
            let id = state.next_reader;
            state.next_reader += 1;
            state.positions.insert(id, 0);
            (file, id)
        };
        Ok(Growing { flight, file, id, position: 0 })
    }
}

/// Where a reader's next bytes are.
enum Source {
    File(u64),
    Copied(usize),
}

impl Read for Growing {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let source = {
            let mut state = self.flight.lock();
            loop {
                if state.in_file > self.position {
                    break Source::File(state.in_file - self.position);
                }
                if state.written > self.position {
                    if let Some(ring) = &state.ring {
                        let from = usize::try_from(self.position - ring.start).unwrap_or(usize::MAX);
                        let (a, b) = ring.bytes.as_slices();
                        let n = out.len().min(ring.bytes.len().saturating_sub(from));
                        for (i, byte) in out[..n].iter_mut().enumerate() {
                            let at = from + i;
                            *byte = if at < a.len() { a[at] } else { b[at - a.len()] };
                        }
                        break Source::Copied(n);
                    }
                }
                match &state.outcome {
                    Some(Ok(())) => return Ok(0),
                    Some(Err(why)) => return Err(io::Error::other(why.clone())),
                    None => state = self.flight.wait(state),
                }
            }
        };
        let n = match source {
            Source::Copied(n) => n,
            Source::File(available) => {
                let want = out.len().min(usize::try_from(available).unwrap_or(usize::MAX));
                self.file.seek(SeekFrom::Start(self.position))?;
                self.file.read(&mut out[..want])?
            }
        };
        self.position += n as u64;
        let mut state = self.flight.lock();
        state.positions.insert(self.id, self.position);
        self.flight.changed.notify_all();
        Ok(n)
    }
}

impl Drop for Growing {
    fn drop(&mut self) {
        let mut state = self.flight.lock();
        state.positions.remove(&self.id);
        self.flight.changed.notify_all();
    }
}

/// The directory of the archive cache in `data_dir`.
pub fn dir_in(data_dir: &Path) -> PathBuf {
    data_dir.join("archive-cache")
}

/// A bound on the archives built at once (each is a thread and, while its readers are slow,
/// a long one): a build waits for a slot up to a timeout, then is refused.
pub struct Slots {
    max: usize,
    wait: Duration,
    busy: Mutex<usize>,
    freed: Condvar,
}

/// A slot held for one build; dropping it frees the slot.
pub struct Slot {
    slots: Arc<Slots>,
}

impl Slots {
    pub fn new(max: usize, wait: Duration) -> Slots {
        Slots { max: max.max(1), wait, busy: Mutex::new(0), freed: Condvar::new() }
    }

    /// A slot, waiting for one up to the configured time; `None` when none came free.
    pub fn acquire(self: &Arc<Self>) -> Option<Slot> {
        let deadline = Instant::now() + self.wait;
        let mut busy = lock(&self.busy);
        while *busy >= self.max {
            let left = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero())?;
            busy = self.freed.wait_timeout(busy, left).unwrap_or_else(|p| p.into_inner()).0;
        }
        *busy += 1;
        Some(Slot { slots: Arc::clone(self) })
    }

    /// Builds running now.
    pub fn busy(&self) -> usize {
        *lock(&self.busy)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        *lock(&self.slots.busy) -= 1;
        self.slots.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh_dir(name: &str) -> PathBuf {
        let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        std::env::temp_dir().join(format!("fc-archives-{name}-{}-{nanos}", std::process::id()))
    }

    /// Two readers at different speeds of a build that passes the capacity: both read every
    /// byte, the disk never holds more than the capacity, and nothing is left afterwards.
    #[test]
    fn readers_of_a_build_past_the_capacity_read_it_whole() {
        let dir = fresh_dir("past");
        let cache = Arc::new(Archives::open(dir.clone(), 100_000).expect("open"));
        let Ok(Lookup::Build(mut builder, mut fast)) = cache.lookup("k") else { panic!("a build") };
        let Ok(Lookup::Join(mut slow)) = cache.lookup("k") else { panic!("a join") };
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i.wrapping_mul(7) % 251) as u8).collect();
        let expected = data.clone();
        let writer = std::thread::spawn(move || {
            let written = builder.write_all(&data);
            builder.finish(written);
        });
        let fast = std::thread::spawn(move || {
            let mut all = Vec::new();
            fast.read_to_end(&mut all).map(|_| all)
        });
        let mut all = Vec::new();
        let mut piece = [0u8; 777];
        loop {
            let n = slow.read(&mut piece).expect("read");
            if n == 0 {
                break;
            }
            all.extend_from_slice(&piece[..n]);
            assert!(cache.used_bytes() <= 100_000, "{} bytes", cache.used_bytes());
        }
        assert!(all == expected, "the slow reader read it whole");
        assert!(fast.join().expect("joined").expect("read") == expected, "the fast reader too");
        writer.join().expect("writer");
        drop(slow);
        assert!(!cache.is_building("k"));
        assert_eq!(cache.used_bytes(), 0);
        let left: Vec<_> = std::fs::read_dir(&dir).expect("dir").flatten().map(|e| e.file_name()).collect();
        assert!(left.is_empty(), "{left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn slots_bound_what_runs_and_come_back() {
        let slots = Arc::new(Slots::new(2, Duration::from_millis(50)));
        let (a, b) = (slots.acquire(), slots.acquire());
        assert!(a.is_some() && b.is_some());
        assert!(slots.acquire().is_none(), "a third waits, then gives up");
        drop(a);
        assert!(slots.acquire().is_some());
        assert_eq!(slots.busy(), 1);
    }
}
