//! A pool of worker threads that run jobs and hand their results back in submission order,
//! shared by the archive's stages that run beside the walk: object loading (`walk`),
//! compression (`compress`) and zip members (`zip`).

use crate::error::Error;
use std::io;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Most worker threads per pool (two beat git's one thread already, and keep memory bounded
/// whatever the machine).
const MAX_WORKERS: usize = 2;

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

/// Workers per pool on this machine.
pub(crate) fn worker_count() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, MAX_WORKERS)
}
