//! gzip and bzip2 of the tar stream on worker threads, as a series of independent members.
//!
//! The stream is cut into chunks of a fixed size; each chunk becomes one complete gzip member
//! (RFC 1952 allows many; `gzip`, Python, Go and `tar` read them as one stream) or one bzip2
//! stream (concatenated streams as `pbzip2` writes them; `bzip2`, Python and `tar` read them).
//! Chunks go round-robin to the workers and come back in order, so the output depends only on
//! the input and the chunk size, never on the number of workers or their timing: the same
//! request gives the same bytes on any machine. gzip members carry no time and no name.
//!
//! Memory: two workers at most, whatever the machine, so the peak does not grow with the core
//! count. Each holds at most one chunk and its compressed form, plus one chunk being filled,
//! and its compressor's state: about 4.4 MB for bzip2 with 500k blocks (`bzip2 -5`), chosen
//! over `-9` (7.6 MB a worker) to keep a host's peak under 64 MiB, for output about 5% larger.

use crate::Error;
use flate2::{Compression, GzBuilder};
use std::io::{self, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Bytes per gzip member: large enough that the lost history costs little, small enough that
/// the workers stay busy.
const GZIP_CHUNK: usize = 512 << 10;
/// bzip2 block size in units of 100 kB (see the module's note on memory).
const BZIP2_LEVEL: u32 = 5;
/// Bytes per bzip2 stream: about one block.
const BZIP2_CHUNK: usize = BZIP2_LEVEL as usize * 100_000;
/// Most worker threads per archive (two beat git's one compressor already).
const MAX_WORKERS: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    Gzip,
    Bzip2,
}

impl Codec {
    fn chunk_size(self) -> usize {
        match self {
            Codec::Gzip => GZIP_CHUNK,
            Codec::Bzip2 => BZIP2_CHUNK,
        }
    }

    /// One complete member holding `data`; a failure is [`Error::Compress`].
    fn compress(self, data: &[u8]) -> io::Result<Vec<u8>> {
        self.encode(data).map_err(|e| Error::Compress(e).into())
    }

    fn encode(self, data: &[u8]) -> io::Result<Vec<u8>> {
        match self {
            Codec::Gzip => {
                // `gzip -n`: no name, no time; level 6 as `git archive` uses.
                let mut encoder = GzBuilder::new()
                    .mtime(0)
                    .operating_system(3)
                    .write(Vec::with_capacity(data.len() / 3 + 64), Compression::new(6));
                encoder.write_all(data)?;
                encoder.finish()
            }
            Codec::Bzip2 => {
                let mut encoder = bzip2::write::BzEncoder::new(
                    Vec::with_capacity(data.len() / 3 + 64),
                    bzip2::Compression::new(BZIP2_LEVEL),
                );
                encoder.write_all(data)?;
                encoder.finish()
            }
        }
    }
}

struct Worker<J, R> {
    jobs: Option<SyncSender<J>>,
    results: Receiver<R>,
    handle: Option<JoinHandle<()>>,
}

/// A pool of worker threads that run jobs and hand their results back in submission order:
/// job `i` goes to worker `i % n`, which works in order, so collecting round-robin is enough.
/// Each worker holds at most one job and one result, so memory is bounded by the pool size.
/// Dropping the pool closes the channels; the workers finish their job and stop.
pub struct Ordered<J, R> {
    workers: Vec<Worker<J, R>>,
    sent: u64,
    received: u64,
}

fn stopped() -> io::Error {
    Error::WorkerStopped.into()
}

impl<J: Send + 'static, R: Send + 'static> Ordered<J, R> {
    /// `make_worker()` builds each worker's job function (which may keep state, such as a
    /// compressor, across jobs).
    pub fn new<F, M>(label: &str, make_worker: M) -> io::Result<Ordered<J, R>>
    where
        M: Fn() -> F,
        F: FnMut(J) -> R + Send + 'static,
    {
        let mut workers = Vec::new();
        for i in 0..worker_count() {
            let (job_tx, job_rx) = sync_channel::<J>(1);
            let (result_tx, result_rx) = sync_channel::<R>(1);
            let mut work = make_worker();
            let handle = std::thread::Builder::new()
                .name(format!("fc-archive-{label}{i}"))
                .spawn(move || {
                    // Ends when the jobs channel closes or nobody collects the results.
                    while let Ok(job) = job_rx.recv() {
                        if result_tx.send(work(job)).is_err() {
                            return;
                        }
                    }
                })
                .map_err(Error::StartWorker)?;
            workers.push(Worker { jobs: Some(job_tx), results: result_rx, handle: Some(handle) });
        }
        Ok(Ordered { workers, sent: 0, received: 0 })
    }

    /// A pool without workers, to take the place of one that was joined.
    pub fn empty() -> Ordered<J, R> {
        Ordered { workers: Vec::new(), sent: 0, received: 0 }
    }

    /// Jobs submitted and not yet collected.
    pub fn in_flight(&self) -> u64 {
        self.sent - self.received
    }

    /// The result of the oldest job in flight (`None` when none is).
    pub fn collect(&mut self) -> io::Result<Option<R>> {
        if self.in_flight() == 0 {
            return Ok(None);
        }
        let n = self.workers.len() as u64;
        let result = self.workers[(self.received % n) as usize].results.recv().map_err(|_| stopped())?;
        self.received += 1;
        Ok(Some(result))
    }

    /// Submits `job`; when every worker is busy, first takes the oldest result and returns it.
    pub fn submit(&mut self, job: J) -> io::Result<Option<R>> {
        let n = self.workers.len() as u64;
        let oldest = if self.in_flight() >= n { self.collect()? } else { None };
        let jobs = self.workers[(self.sent % n) as usize].jobs.as_ref().ok_or_else(stopped)?;
        jobs.send(job).map_err(|_| stopped())?;
        self.sent += 1;
        Ok(oldest)
    }

    /// Stops the workers once everything was collected, waiting for them.
    pub fn join(mut self) {
        for worker in &mut self.workers {
            worker.jobs = None;
            if let Some(handle) = worker.handle.take() {
                let _ = handle.join();
            }
        }
    }
}

/// A `Write` that compresses what it is given into `out` as a series of members.
pub struct Members<W: Write> {
    out: W,
    codec: Codec,
    chunk: Vec<u8>,
    pool: Ordered<Vec<u8>, io::Result<Vec<u8>>>,
    any_input: bool,
}

fn worker_count() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, MAX_WORKERS)
}

impl<W: Write> Members<W> {
    pub fn new(out: W, codec: Codec) -> io::Result<Members<W>> {
        let pool = Ordered::new("z", || move |data: Vec<u8>| codec.compress(&data))?;
        Ok(Members { out, codec, chunk: Vec::with_capacity(codec.chunk_size()), pool, any_input: false })
    }

    fn dispatch(&mut self) -> io::Result<()> {
        let data = std::mem::replace(&mut self.chunk, Vec::with_capacity(self.codec.chunk_size()));
        if let Some(compressed) = self.pool.submit(data)? {
            self.out.write_all(&compressed?)?;
        }
        Ok(())
    }

    /// Compresses the last chunk, writes every member in order and stops the workers.
    pub fn finish(mut self) -> io::Result<()> {
        if !self.chunk.is_empty() || !self.any_input {
            self.dispatch()?;
        }
        while let Some(compressed) = self.pool.collect()? {
            self.out.write_all(&compressed?)?;
        }
        self.pool.join();
        self.out.flush()
    }
}

impl<W: Write> Write for Members<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.any_input |= !data.is_empty();
        let size = self.codec.chunk_size();
        let mut rest = data;
        while !rest.is_empty() {
            let room = size - self.chunk.len();
            let n = room.min(rest.len());
            self.chunk.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            if self.chunk.len() == size {
                self.dispatch()?;
            }
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn roundtrip(codec: Codec, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut members = Members::new(&mut out, codec).expect("workers start");
        for piece in data.chunks(7919) {
            members.write_all(piece).expect("write");
        }
        members.finish().expect("finish");
        out
    }

    #[test]
    fn members_decompress_to_the_input_and_are_deterministic() {
        let data: Vec<u8> = (0..2_000_000u32).map(|i| (i % 251) as u8 ^ (i / 4096) as u8).collect();
        for codec in [Codec::Gzip, Codec::Bzip2] {
            let first = roundtrip(codec, &data);
            assert_eq!(first, roundtrip(codec, &data), "{codec:?} output differs between runs");
            let mut back = Vec::new();
            match codec {
                Codec::Gzip => flate2::read::MultiGzDecoder::new(&first[..]).read_to_end(&mut back),
                Codec::Bzip2 => bzip2::read::MultiBzDecoder::new(&first[..]).read_to_end(&mut back),
            }
            .expect("decompresses");
            assert_eq!(back, data, "{codec:?}");
        }
        // Empty input still gives one valid member.
        let empty = roundtrip(Codec::Gzip, b"");
        let mut back = Vec::new();
        flate2::read::MultiGzDecoder::new(&empty[..]).read_to_end(&mut back).expect("decompresses");
        assert!(back.is_empty());
    }
}
