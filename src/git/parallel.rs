//! Reading many commit objects on every core: the ids cut into one slice per thread, each
//! thread with its own repository handle and buffer, the answers back in the ids' order.
//! Inflating the objects is nearly all of such work, and the objects are independent.

use gix::ObjectId;

/// Below this many commits, one thread reads them all.
pub const PARALLEL_FROM: usize = 1024;
/// At most this many threads read for one request.
const THREADS_MAX: usize = 4;

/// `read(repo, id, buf)` for every id, in order; on several threads when there are at least
/// [`PARALLEL_FROM`] ids. The first error (in the ids' order) is the answer's.
pub fn read_commits<T: Send, E: Send>(
    repo: &gix::Repository,
    ids: &[ObjectId],
    read: impl Fn(&gix::Repository, ObjectId, &mut Vec<u8>) -> Result<T, E> + Sync,
) -> Result<Vec<T>, E> {
    read_commits_with(repo, ids, |_| (), |repo, _, id, buf| read(repo, id, buf))
}

/// [`read_commits`] with a state of each thread's own, made by `init` (opened packs, say).
pub fn read_commits_with<S, T: Send, E: Send>(
    repo: &gix::Repository,
    ids: &[ObjectId],
    init: impl Fn(&gix::Repository) -> S + Sync,
    read: impl Fn(&gix::Repository, &mut S, ObjectId, &mut Vec<u8>) -> Result<T, E> + Sync,
) -> Result<Vec<T>, E> {
    let slice = |repo: &gix::Repository, ids: &[ObjectId]| -> Result<Vec<T>, E> {
        let (mut buf, mut state) = (Vec::new(), init(repo));
        ids.iter().map(|&id| read(repo, &mut state, id, &mut buf)).collect()
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from).min(THREADS_MAX);
    if threads == 1 || ids.len() < PARALLEL_FROM {
        return slice(repo, ids);
    }
    let slices: Vec<Result<Vec<T>, E>> = std::thread::scope(|scope| {
        let workers: Vec<_> = ids
            .chunks(ids.len().div_ceil(threads))
            .map(|chunk| {
                let (repo, slice) = (repo.clone(), &slice);
                scope.spawn(move || slice(&repo, chunk))
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    });
    let mut out = Vec::with_capacity(ids.len());
    for slice in slices {
        out.extend(slice?);
    }
    Ok(out)
}
