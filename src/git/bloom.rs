//! The changed-path Bloom filters of a commit-graph (`git commit-graph write --changed-paths`:
//! the `BIDX`/`BDAT` chunks), which gix does not read: for a commit and a path, whether the
//! commit certainly left the path as its first parent had it. `git log -- <path>` asks exactly
//! this before diffing a commit's tree against its first parent's, and so does
//! [`super::log`]: a "certainly not" saves reading the commit's trees at all.
//!
//! Only filters of version 2 (`murmur3` on unsigned bytes) are used, and version 1 ones for
//! ASCII paths (the versions differ only on bytes of 0x80 and above). A commit-graph without
//! filters, or a layer of a chain without them, answers "maybe" for its commits. Filters are
//! read once per graph file and kept (keyed by path, size and modification time) for the next
//! request.
//!
//! A commit is found by its id in the object ids of the very files its filter was read from,
//! never by a position from another reader of the graph alone: maintenance rewrites the
//! commit-graph while requests walk, and a position in one version of the graph names another
//! commit in the next. A position is taken as a hint, used when the id there is the commit's
//! (one comparison, where a search of the ids would cost a walk of many commits dearly).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::SystemTime;

/// How many repositories' filters stay loaded.
const CACHE_CAPACITY: usize = 16;
const SEED0: u32 = 0x293a_e76f;
const SEED1: u32 = 0x7e64_6e2c;

/// One graph file's filters: `index[i]` ends commit `i`'s filter in `data`.
struct Layer {
    commits: u32,
    /// The `OIDL` chunk: the layer's commit ids, sorted.
    ids: Vec<u8>,
    /// `None` when the file has no filters.
    filters: Option<Filters>,
}

struct Filters {
    version: u32,
    hashes: u32,
    index: Vec<u32>,
    data: Vec<u8>,
}

/// The filters of every layer of a repository's commit-graph, in gix's position order.
pub struct Graph {
    layers: Vec<Layer>,
}

/// The hashes of one path and each of its leading directories, as git keys them.
pub struct Keys {
    keys: Vec<(u32, u32)>,
    ascii: bool,
}

impl Keys {
    /// The keys of `path` (components joined by `/`): the whole path and every leading
    /// directory (`a/b/c`, `a/b`, `a`), each changed whenever the path is.
    pub fn new(components: &[Vec<u8>]) -> Keys {
        let mut keys = Vec::with_capacity(components.len());
        for n in (1..=components.len()).rev() {
            let joined = components[..n].join(&b'/');
            keys.push((murmur3(SEED0, &joined), murmur3(SEED1, &joined)));
        }
        let ascii = components.iter().all(|c| c.is_ascii());
        Keys { keys, ascii }
    }
}

/// Murmur3 (x86, 32 bits) as git's `murmur3_seeded_v2` computes it.
pub fn murmur3(seed: u32, data: &[u8]) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mut h = seed;
    let mut blocks = data.chunks_exact(4);
    for block in &mut blocks {
        let mut k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        k = k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h ^= k;
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = blocks.remainder();
    let mut k = 0u32;
    if tail.len() >= 3 {
        k ^= u32::from(tail[2]) << 16;
    }
    if tail.len() >= 2 {
        k ^= u32::from(tail[1]) << 8;
    }
    if !tail.is_empty() {
        k ^= u32::from(tail[0]);
        k = k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h ^= k;
    }
    h ^= data.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

impl Graph {
    /// Whether commit `id` certainly did not change the path of `keys` against its first parent
    /// (`false`, "maybe", for a commit the graph does not hold).
    pub fn certainly_unchanged(&self, id: &gix::oid, keys: &Keys) -> bool {
        self.certainly_unchanged_at(id, None, keys)
    }

    /// As [`Graph::certainly_unchanged`], with `hint` the commit's position (over every layer)
    /// in another reading of the graph, checked before it is trusted.
    pub fn certainly_unchanged_at(&self, id: &gix::oid, hint: Option<u32>, keys: &Keys) -> bool {
        let id = id.as_bytes();
        let width = id.len();
        let hinted = hint.and_then(|position| {
            let mut local = position;
            for (n, layer) in self.layers.iter().enumerate() {
                if local < layer.commits {
                    let at = local as usize * width;
                    return (layer.ids.get(at..at + width) == Some(id)).then_some((n, local));
                }
                local -= layer.commits;
            }
            None
        });
        let found = hinted.or_else(|| {
            self.layers
                .iter()
                .enumerate()
                .find_map(|(n, layer)| binary_search(&layer.ids, width, layer.commits, id).ok().map(|local| (n, local)))
        });
        let Some((n, local)) = found else { return false };
        let Some(filters) = &self.layers[n].filters else { return false };
        if filters.version != 2 && !keys.ascii {
            return false;
        }
        let end = filters.index.get(local as usize).copied().unwrap_or(0) as usize;
        let start = if local == 0 { 0 } else { filters.index.get(local as usize - 1).copied().unwrap_or(0) as usize };
        let Some(filter) = filters.data.get(start..end).filter(|f| !f.is_empty()) else { return false };
        let bits = filter.len() as u64 * 8;
        // git: any key whose bits are not all set means "definitely not changed".
        keys.keys.iter().any(|&(h0, h1)| {
            (0..filters.hashes).any(|i| {
                let bit = u64::from(h0.wrapping_add(i.wrapping_mul(h1))) % bits;
                filter[(bit / 8) as usize] & (1 << (bit % 8)) == 0
            })
        })
    }
}

/// The index of `id` among `count` sorted ids of `width` bytes laid end to end.
fn binary_search(ids: &[u8], width: usize, count: u32, id: &[u8]) -> Result<u32, ()> {
    let (mut low, mut high) = (0u32, count);
    while low < high {
        let middle = low + (high - low) / 2;
        let at = middle as usize * width;
        let Some(here) = ids.get(at..at + width) else { return Err(()) };
        match here.cmp(id) {
            std::cmp::Ordering::Less => low = middle + 1,
            std::cmp::Ordering::Greater => high = middle,
            std::cmp::Ordering::Equal => return Ok(middle),
        }
    }
    Err(())
}

fn be32(data: &[u8], at: usize) -> Option<u32> {
    data.get(at..at + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// One graph file: its commit count and filters, if it has both chunks.
fn layer(bytes: &[u8]) -> Option<Layer> {
    if bytes.get(..4) != Some(b"CGPH".as_slice()) || bytes.get(4) != Some(&1) {
        return None;
    }
    let chunks = usize::from(*bytes.get(6)?);
    let mut table = HashMap::new();
    let mut offsets = Vec::new();
    for i in 0..=chunks {
        let at = 8 + i * 12;
        let id: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
        let offset = u64::from(be32(bytes, at + 4)?) << 32 | u64::from(be32(bytes, at + 8)?);
        offsets.push((id, usize::try_from(offset).ok()?));
    }
    for pair in offsets.windows(2) {
        table.insert(pair[0].0, (pair[0].1, pair[1].1));
    }
    let chunk = |id: &[u8; 4]| table.get(id).and_then(|&(start, end)| bytes.get(start..end));
    let fanout = chunk(b"OIDF")?;
    let commits = be32(fanout, 255 * 4)?;
    // Version 1 graphs name their hash (1: SHA-1, 2: SHA-256).
    let width = match bytes.get(5) {
        Some(1) => 20,
        Some(2) => 32,
        _ => return None,
    };
    let ids = chunk(b"OIDL")?.get(..commits as usize * width)?.to_vec();
    let filters = (|| {
        let (bidx, bdat) = (chunk(b"BIDX")?, chunk(b"BDAT")?);
        let index: Vec<u32> = (0..commits as usize).map(|i| be32(bidx, i * 4)).collect::<Option<_>>()?;
        let (version, hashes) = (be32(bdat, 0)?, be32(bdat, 4)?);
        if !(1..=2).contains(&version) || hashes == 0 || hashes > 64 {
            return None;
        }
        let data = bdat.get(12..)?.to_vec();
        // Offsets must grow and stay inside the data, or no answer is trusted.
        let sane = index.windows(2).all(|w| w[0] <= w[1]) && index.last().is_none_or(|&l| l as usize <= data.len());
        sane.then_some(Filters { version, hashes, index, data })
    })();
    Some(Layer { commits, ids, filters })
}

/// The graph files gix reads for `objects/info`, in its order.
fn graph_files(info: &Path) -> Vec<PathBuf> {
    let single = info.join("commit-graph");
    if single.is_file() {
        return vec![single];
    }
    let dir = info.join("commit-graphs");
    match std::fs::read_to_string(dir.join("commit-graph-chain")) {
        Ok(chain) => chain
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|hash| dir.join(format!("graph-{hash}.graph")))
            .collect(),
        Err(_) => Vec::new(),
    }
}

type Stamp = Vec<(PathBuf, u64, Option<SystemTime>)>;

struct Cache {
    graphs: HashMap<PathBuf, (Stamp, Arc<Graph>, u64)>,
    clock: u64,
}

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(Cache { graphs: HashMap::new(), clock: 0 }));

/// The filters of the commit-graph in `objects_dir/info`, when any layer has them.
pub fn load(objects_dir: &Path) -> Option<Arc<Graph>> {
    let info = objects_dir.join("info");
    let files = graph_files(&info);
    let stamp: Stamp = files
        .iter()
        .map(|f| {
            let meta = std::fs::metadata(f).ok();
            (f.clone(), meta.as_ref().map_or(0, |m| m.len()), meta.and_then(|m| m.modified().ok()))
        })
        .collect();
    {
        let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        cache.clock += 1;
        let now = cache.clock;
        if let Some((kept, graph, used)) = cache.graphs.get_mut(&info) {
            if *kept == stamp {
                *used = now;
                return Some(Arc::clone(graph));
            }
        }
    }
    let layers: Vec<Layer> =
        files.iter().map(|f| std::fs::read(f).ok().and_then(|b| layer(&b))).collect::<Option<_>>()?;
    if layers.iter().all(|l| l.filters.is_none()) {
        return None;
    }
    let graph = Arc::new(Graph { layers });
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if cache.graphs.len() >= CACHE_CAPACITY {
        if let Some(oldest) = cache.graphs.iter().min_by_key(|(_, (_, _, used))| *used).map(|(k, _)| k.clone()) {
            cache.graphs.remove(&oldest);
        }
    }
    let now = cache.clock;
    cache.graphs.insert(info, (stamp, Arc::clone(&graph), now));
    Some(graph)
}

#[cfg(test)]
mod tests {
    use super::murmur3;

    #[test]
    fn murmur3_is_the_reference_hash() {
        assert_eq!(murmur3(0, b""), 0);
        assert_eq!(murmur3(0, b"The quick brown fox jumps over the lazy dog"), 0x2e4f_f723);
        assert_eq!(murmur3(1, b""), 0x514e_28b7);
        assert_eq!(murmur3(0x9747_b28c, b"Hello, world!"), 0x2488_4cba);
    }
}
