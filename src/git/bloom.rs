//! The commit-graph's changed-path Bloom filters (`git commit-graph write --changed-paths`):
//! which commits certainly did not change a path against their first parent, read as git's
//! `revision.c` reads them (`check_maybe_different_in_bloom_filter`).
//!
//! gix reads commit-graphs but not their `BIDX`/`BDAT` chunks, so this module reads the graph
//! files itself (kept in memory, a few at a time: git writes new graph files and renames them
//! into place, never changing one, so a file of the same inode, size and time is the same) (the monolithic `objects/info/commit-graph`, else the files of
//! `commit-graphs/commit-graph-chain`), finds a commit by its id through each file's fan-out and
//! sorted ids, and tests the path and each of its leading directories against the commit's
//! filter: any of them certainly absent means the path did not change. Filters of version 1
//! hash bytes above 0x7f as signed (git's old bug), so they are not used for such paths; an
//! empty filter (not computed) and a file without the chunks prove nothing.

use gix::ObjectId;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

/// Graph files kept in memory, the most recently used last.
const CACHED_FILES: usize = 16;
/// Larger graph files are not read (their filters are not used).
const MAX_FILE_BYTES: u64 = 256 << 20;

/// A graph file as last read: its path, inode, size and modification time.
type FileKey = (PathBuf, u64, u64, i64, i64);
type Cached = Vec<(FileKey, Arc<Vec<u8>>)>;
static FILES: LazyLock<Mutex<Cached>> = LazyLock::new(|| Mutex::new(Vec::new()));

/// The bytes of the graph file at `path`, from memory when it was read before unchanged.
fn load(path: &Path) -> Option<Arc<Vec<u8>>> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_FILE_BYTES {
        return None;
    }
    let key = (path.to_path_buf(), meta.ino(), meta.len(), meta.mtime(), meta.mtime_nsec());
    let mut files = FILES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(at) = files.iter().position(|(k, _)| *k == key) {
        let entry = files.remove(at);
        let data = Arc::clone(&entry.1);
        files.push(entry);
        return Some(data);
    }
    drop(files);
    let data = Arc::new(std::fs::read(path).ok()?);
    let mut files = FILES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    files.retain(|(k, _)| k.0 != key.0);
    if files.len() >= CACHED_FILES {
        files.remove(0);
    }
    files.push((key, Arc::clone(&data)));
    Some(data)
}

const SEED_0: u32 = 0x293a_e76f;
const SEED_1: u32 = 0x7e64_6e2c;

/// git's `murmur3_seeded_v2`: MurmurHash3's 32-bit x86 variant.
fn murmur3(seed: u32, data: &[u8]) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mut hash = seed;
    let mut blocks = data.chunks_exact(4);
    for block in &mut blocks {
        let mut k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        k = k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        hash ^= k;
        hash = hash.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let mut k = 0u32;
        for (i, byte) in tail.iter().enumerate() {
            k |= u32::from(*byte) << (8 * i);
        }
        hash ^= k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    }
    hash ^= data.len() as u32;
    hash ^= hash >> 16;
    hash = hash.wrapping_mul(0x85eb_ca6b);
    hash ^= hash >> 13;
    hash = hash.wrapping_mul(0xc2b2_ae35);
    hash ^ (hash >> 16)
}

/// One mapped graph file and where its chunks are.
struct GraphFile {
    data: Arc<Vec<u8>>,
    fanout: usize,
    ids: usize,
    count: usize,
    /// `BIDX` offset, and `BDAT`'s data offset (after its 12-byte header).
    index: usize,
    filters: usize,
    filters_end: usize,
    num_hashes: u32,
    version: u32,
}

fn be32(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?))
}

impl GraphFile {
    fn open(path: &Path, hash_len: usize) -> Option<GraphFile> {
        let data = load(path)?;
        if data.get(0..4)? != b"CGPH" || data[4] != 1 {
            return None;
        }
        let chunks = usize::from(data[6]);
        let mut found = std::collections::HashMap::new();
        for i in 0..=chunks {
            let at = 8 + i * 12;
            let id = data.get(at..at + 4)?;
            let offset = u64::from_be_bytes(data.get(at + 4..at + 12)?.try_into().ok()?) as usize;
            found.insert(<[u8; 4]>::try_from(id).ok()?, offset);
        }
        let chunk_end = |id: &[u8; 4]| {
            let start = *found.get(id)?;
            found.values().filter(|o| **o > start).min().copied()
        };
        let fanout = *found.get(b"OIDF")?;
        let ids = *found.get(b"OIDL")?;
        let count = be32(&data, fanout + 255 * 4)? as usize;
        let index = *found.get(b"BIDX")?;
        let bdat = *found.get(b"BDAT")?;
        let version = be32(&data, bdat)?;
        let num_hashes = be32(&data, bdat + 4)?;
        let filters_end = chunk_end(b"BDAT")?;
        if index + count * 4 > data.len() || ids + count * hash_len > data.len() || !(1..=2).contains(&version) {
            return None;
        }
        Some(GraphFile { data, fanout, ids, count, index, filters: bdat + 12, filters_end, num_hashes, version })
    }

    /// The filter of commit `id`, when this file has the commit.
    fn filter(&self, id: &[u8]) -> Option<&[u8]> {
        let hash_len = id.len();
        let first = usize::from(id[0]);
        let lo = if first == 0 { 0 } else { be32(&self.data, self.fanout + (first - 1) * 4)? as usize };
        let hi = be32(&self.data, self.fanout + first * 4)? as usize;
        let (mut lo, mut hi) = (lo, hi.min(self.count));
        while lo < hi {
            let mid = (lo + hi) / 2;
            let at = self.ids + mid * hash_len;
            match self.data[at..at + hash_len].cmp(id) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let start = if mid == 0 { 0 } else { be32(&self.data, self.index + (mid - 1) * 4)? as usize };
                    let end = be32(&self.data, self.index + mid * 4)? as usize;
                    let (start, end) = (self.filters + start, self.filters + end);
                    return (start <= end && end <= self.filters_end).then(|| &self.data[start..end]);
                }
            }
        }
        None
    }
}

/// The filters of one repository's commit-graph, queried for one path.
pub struct ChangedPaths {
    files: Vec<GraphFile>,
    /// The hash pairs of the path and of each of its leading directories.
    keys: Vec<(u32, u32)>,
}

impl ChangedPaths {
    /// The filters of `repo`'s commit-graph for `path` (`/`-separated), when it has them.
    pub fn for_path(repo: &gix::Repository, path: &str) -> Option<ChangedPaths> {
        let info = repo.objects.store_ref().path().join("info");
        let hash_len = repo.object_hash().len_in_bytes();
        let monolithic = info.join("commit-graph");
        let files: Vec<GraphFile> = if monolithic.is_file() {
            vec![GraphFile::open(&monolithic, hash_len)?]
        } else {
            let dir = info.join("commit-graphs");
            let chain = std::fs::read_to_string(dir.join("commit-graph-chain")).ok()?;
            chain
                .lines()
                .filter(|l| !l.is_empty())
                .map(|hash| GraphFile::open(&dir.join(format!("graph-{hash}.graph")), hash_len))
                .collect::<Option<Vec<_>>>()?
        };
        if files.is_empty() || (files.iter().any(|f| f.version == 1) && !path.is_ascii()) {
            return None;
        }
        let mut keys = Vec::new();
        let mut prefix = path;
        loop {
            keys.push((murmur3(SEED_0, prefix.as_bytes()), murmur3(SEED_1, prefix.as_bytes())));
            match prefix.rfind('/') {
                Some(slash) => prefix = &prefix[..slash],
                None => break,
            }
        }
        Some(ChangedPaths { files, keys })
    }

    /// Whether commit `id`'s filter proves the path unchanged against its first parent.
    pub fn unchanged(&self, id: ObjectId) -> bool {
        let Some((file, filter)) = self.files.iter().find_map(|f| f.filter(id.as_bytes()).map(|filter| (f, filter)))
        else {
            return false;
        };
        let bits = filter.len() as u64 * 8;
        if bits == 0 {
            return false;
        }
        self.keys.iter().any(|(h0, h1)| {
            (0..file.num_hashes).any(|i| {
                let bit = u64::from(h0.wrapping_add(i.wrapping_mul(*h1))) % bits;
                filter[(bit / 8) as usize] & (1 << (bit % 8)) == 0
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::murmur3;

    #[test]
    fn murmur3_matches_the_reference_vectors() {
        assert_eq!(murmur3(0, b""), 0);
        assert_eq!(murmur3(1, b""), 0x514e_28b7);
        assert_eq!(murmur3(0xffff_ffff, b""), 0x81f1_6f39);
        assert_eq!(murmur3(0, b"\xff\xff\xff\xff"), 0x7629_3b50);
        assert_eq!(murmur3(0, b"!Ce\x87"), 0xf55b_516b);
        assert_eq!(murmur3(0x5082_edee, b"!Ce\x87"), 0x2362_f9de);
        assert_eq!(murmur3(0, b"!Ce"), 0x7e4a_8634);
        assert_eq!(murmur3(0, b"!C"), 0xa0f7_b07a);
        assert_eq!(murmur3(0, b"!"), 0x7266_1cf4);
        assert_eq!(murmur3(0x9747_b28c, b"Hello, world!"), 0x2488_4cba);
    }
}
