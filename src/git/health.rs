//! B10 facts: what lies in a repository's git directory, the way Gitaly's `RepositoryInfo`
//! gathers it. Only directory listings, file sizes and times, and a few small reads (the headers
//! of commit-graphs, bitmaps and the multi-pack-index, the alternates and `commondir` files):
//! never an object, an index or a reference is parsed, so the cost follows the number of files,
//! not the size of the history.
//!
//! Where Gitaly would fail on a file it cannot understand (a foreign bitmap version, a truncated
//! commit-graph), this module reports what it can read and leaves the rest out: a health report
//! of a damaged repository is more useful than a 500. Loose objects are named as git names them
//! (`objects/xx/` plus 38 hex digits for SHA-1, 62 for SHA-256), so the counts agree with
//! `git count-objects -v`; anything else in a shard is garbage. Only the repository's own objects
//! are counted, not those of its alternates (again as `git count-objects` does).

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Loose objects older than this are stale (Gitaly's `StaleObjectsGracePeriod`).
pub const STALE_AFTER: Duration = Duration::from_secs(10 * 24 * 3600);
/// The file Gitaly touches after every full repack.
const FULL_REPACK_TIMESTAMP: &str = ".gitaly-full-repack-timestamp";
/// Reading a header: at most this many bytes of any file.
const HEADER_MAX: usize = 8 + 12 * 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReferenceBackend {
    Files,
    Reftable,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct References {
    /// Files under `refs/` (the files backend only).
    pub loose_count: u64,
    /// Bytes of `packed-refs` (the files backend only).
    pub packed_size: u64,
    pub backend: ReferenceBackend,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LooseObjects {
    pub count: u64,
    /// Apparent bytes of the object files.
    pub size: u64,
    /// Those last modified before the stale cutoff (also counted in `count` and `size`).
    pub stale_count: u64,
    pub stale_size: u64,
    /// Files in the shards that are not objects (temporary files, stray names).
    pub garbage_count: u64,
    pub garbage_size: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bitmap {
    pub version: u16,
    pub has_hash_cache: bool,
    pub has_lookup_table: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultiPackIndex {
    pub version: u8,
    pub packfile_count: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Packfiles {
    /// Every `pack-*.pack`, kept and cruft ones included.
    pub count: u64,
    pub size: u64,
    pub reverse_index_count: u64,
    /// Packs with a `.mtimes` file and no `.keep` (cruft packs).
    pub cruft_count: u64,
    pub cruft_size: u64,
    /// Packs with a `.keep` file.
    pub keep_count: u64,
    pub keep_size: u64,
    /// Files in `objects/pack` of no known kind.
    pub garbage_count: u64,
    pub bitmap: Option<Bitmap>,
    pub multi_pack_index: Option<MultiPackIndex>,
    pub multi_pack_index_bitmap: Option<Bitmap>,
    /// Newest modification time of a pack bitmap (git writes one only when it packs everything).
    pub newest_pack_bitmap: Option<SystemTime>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CommitGraph {
    /// Length of `commit-graphs/commit-graph-chain`; 0 for a single `commit-graph` file.
    pub chain_length: u64,
    pub has_bloom_filters: bool,
    pub has_generation_data: bool,
    pub has_generation_data_overflow: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternates {
    /// The lines of `objects/info/alternates` as written (comments and blank lines left out).
    pub object_directories: Vec<String>,
    pub last_modified: SystemTime,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    /// Apparent bytes of every file under the git directory.
    pub size: u64,
    pub references: References,
    pub loose: LooseObjects,
    pub packs: Packfiles,
    pub commit_graph: Option<CommitGraph>,
    pub alternates: Option<Alternates>,
    /// The directory sits where GitLab keeps object pools (`@pools/xx/yy/<sha256>.git`).
    pub is_object_pool: bool,
    /// Gitaly's full-repack timestamp file, else the newest pack bitmap.
    pub last_full_repack: Option<SystemTime>,
}

/// Gathers the report of the git directory `git_dir` at time `now` (the stale cutoff counts back
/// from it). Files that vanish while they are looked at are skipped; other I/O errors fail.
pub fn collect(git_dir: &Path, now: SystemTime) -> io::Result<Health> {
    let common = common_dir(git_dir);
    let objects = common.join("objects");
    let stale_before = now.checked_sub(STALE_AFTER).unwrap_or(SystemTime::UNIX_EPOCH);

    let mut walk = Walk { size: 0, loose: LooseObjects::default(), loose_refs: 0, stale_before };
    walk.tree(git_dir, Place::Other, true)?;
    // A linked work tree keeps its objects and refs in the common directory, outside `git_dir`.
    if common != git_dir {
        walk.tree(&objects, Place::Objects, false)?;
        walk.tree(&common.join("refs"), Place::Refs, false)?;
    } else if !objects.is_dir() {
        return Err(io::Error::new(io::ErrorKind::NotFound, "no objects directory"));
    }

    let reftable = common.join("reftable").is_dir();
    let references = if reftable {
        References { loose_count: 0, packed_size: 0, backend: ReferenceBackend::Reftable }
    } else {
        let packed_size = optional(fs::metadata(common.join("packed-refs")))?.map_or(0, |m| m.len());
        References { loose_count: walk.loose_refs, packed_size, backend: ReferenceBackend::Files }
    };
    let packs = packfiles(&objects.join("pack"))?;
    let repack_marker = optional(fs::metadata(git_dir.join(FULL_REPACK_TIMESTAMP)))?.and_then(|m| m.modified().ok());
    Ok(Health {
        size: walk.size,
        references,
        loose: walk.loose,
        last_full_repack: repack_marker.or(packs.newest_pack_bitmap),
        packs,
        commit_graph: commit_graph(&objects.join("info"))?,
        alternates: alternates(&objects.join("info/alternates"))?,
        is_object_pool: is_pool_path(git_dir),
    })
}

/// `Ok(None)` for a file that does not exist (or vanished).
fn optional<T>(result: io::Result<T>) -> io::Result<Option<T>> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The directory holding objects and refs: `git_dir/commondir` when present (a linked work
/// tree), else `git_dir` itself.
fn common_dir(git_dir: &Path) -> PathBuf {
    match fs::read(git_dir.join("commondir")) {
        Ok(bytes) if bytes.len() < 4096 => match std::str::from_utf8(&bytes).map(str::trim) {
            Ok(text) if !text.is_empty() => git_dir.join(text),
            _ => git_dir.to_path_buf(),
        },
        _ => git_dir.to_path_buf(),
    }
}

/// What a directory is, which decides what its entries count as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Other,
    /// `objects/`: its two-hex-digit children are loose-object shards.
    Objects,
    Shard,
    /// `refs/` and below: every file is a loose reference.
    Refs,
}

struct Walk {
    size: u64,
    loose: LooseObjects,
    loose_refs: u64,
    stale_before: SystemTime,
}

impl Walk {
    /// Walks `root` without following symbolic links, with an explicit stack (no recursion, so
    /// a hostile depth cannot exhaust the thread's stack). `count_size` adds file sizes to
    /// `size`; `root` itself is `place`, and at the top `objects` and `refs` are recognised.
    fn tree(&mut self, root: &Path, place: Place, count_size: bool) -> io::Result<()> {
        let mut pending = vec![(root.to_path_buf(), place, true)];
        while let Some((dir, place, top)) = pending.pop() {
            let entries = match optional(fs::read_dir(&dir))? {
                Some(entries) => entries,
                None => continue,
            };
            for entry in entries {
                let entry = match optional(entry)? {
                    Some(entry) => entry,
                    None => continue,
                };
                let file_type = match optional(entry.file_type())? {
                    Some(file_type) => file_type,
                    None => continue,
                };
                let name = entry.file_name();
                if file_type.is_dir() {
                    let child = match (place, name.to_str()) {
                        (Place::Other, Some("objects")) if top && count_size => Place::Objects,
                        (Place::Other, Some("refs")) if top && count_size => Place::Refs,
                        (Place::Objects, Some(shard)) if is_hex(shard) && shard.len() == 2 => Place::Shard,
                        (Place::Refs, _) => Place::Refs,
                        _ => Place::Other,
                    };
                    pending.push((entry.path(), child, false));
                    continue;
                }
                let metadata = match optional(entry.metadata())? {
                    Some(metadata) => metadata,
                    None => continue,
                };
                if count_size {
                    self.size += metadata.len();
                }
                match place {
                    Place::Shard => self.loose_file(name.to_str(), &metadata),
                    Place::Refs => self.loose_refs += 1,
                    Place::Other | Place::Objects => {}
                }
            }
        }
        Ok(())
    }

    fn loose_file(&mut self, name: Option<&str>, metadata: &Metadata) {
        let len = metadata.len();
        let is_object = name.is_some_and(|n| (n.len() == 38 || n.len() == 62) && is_hex(n));
        if !is_object {
            self.loose.garbage_count += 1;
            self.loose.garbage_size += len;
            return;
        }
        self.loose.count += 1;
        self.loose.size += len;
        if metadata.modified().is_ok_and(|t| t < self.stale_before) {
            self.loose.stale_count += 1;
            self.loose.stale_size += len;
        }
    }
}

fn is_hex(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The first bytes of `path` (at most `max`); `None` when it does not exist.
fn head(path: &Path, max: usize) -> io::Result<Option<Vec<u8>>> {
    let Some(file) = optional(File::open(path))? else { return Ok(None) };
    let mut bytes = Vec::with_capacity(max.min(HEADER_MAX));
    file.take(max as u64).read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

/// Everything about `objects/pack`, from one listing.
fn packfiles(pack_dir: &Path) -> io::Result<Packfiles> {
    let mut info = Packfiles::default();
    let Some(entries) = optional(fs::read_dir(pack_dir))? else { return Ok(info) };
    let mut files: Vec<(String, fs::DirEntry)> = Vec::new();
    for entry in entries {
        let Some(entry) = optional(entry)? else { continue };
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        match entry.file_name().into_string() {
            Ok(name) => files.push((name, entry)),
            Err(_) => info.garbage_count += 1,
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let has = |name: &str| files.binary_search_by(|(n, _)| n.as_str().cmp(name)).is_ok();
    for (name, entry) in &files {
        let pack_stem = name.strip_prefix("pack-").and_then(|rest| rest.rsplit_once('.'));
        match pack_stem {
            Some((stem, "pack")) => {
                let Some(metadata) = optional(entry.metadata())? else { continue };
                let size = metadata.len();
                info.count += 1;
                info.size += size;
                if has(&format!("pack-{stem}.keep")) {
                    info.keep_count += 1;
                    info.keep_size += size;
                } else if has(&format!("pack-{stem}.mtimes")) {
                    info.cruft_count += 1;
                    info.cruft_size += size;
                }
            }
            Some((_, "idx" | "keep" | "mtimes" | "promisor")) => {}
            Some((_, "rev")) => info.reverse_index_count += 1,
            Some((_, "bitmap")) => {
                if let Some(bitmap) = bitmap(&entry.path())? {
                    info.bitmap = Some(bitmap);
                    let modified = optional(entry.metadata())?.and_then(|m| m.modified().ok());
                    info.newest_pack_bitmap = info.newest_pack_bitmap.max(modified);
                }
            }
            _ if name == "multi-pack-index" => info.multi_pack_index = multi_pack_index(&entry.path())?,
            _ if name.starts_with("multi-pack-index-") && name.ends_with(".bitmap") => {
                if let Some(bitmap) = bitmap(&entry.path())? {
                    info.multi_pack_index_bitmap = Some(bitmap);
                }
            }
            _ => info.garbage_count += 1,
        }
    }
    Ok(info)
}

/// The header of a pack or multi-pack-index bitmap (gitformat-bitmap(5)): `BITM`, a 16-bit
/// version, 16 bits of flags (4: name-hash cache, 16: lookup table).
fn bitmap(path: &Path) -> io::Result<Option<Bitmap>> {
    let Some(header) = head(path, 8)? else { return Ok(None) };
    if header.len() < 8 || &header[..4] != b"BITM" {
        return Ok(None);
    }
    let version = u16::from_be_bytes([header[4], header[5]]);
    let flags = u16::from_be_bytes([header[6], header[7]]);
    Ok(Some(Bitmap { version, has_hash_cache: flags & 0x4 != 0, has_lookup_table: flags & 0x10 != 0 }))
}

/// The header of `multi-pack-index` (gitformat-pack(5)): `MIDX`, version, object id version,
/// chunk count, base file count, then the number of packs as a 32-bit big-endian integer.
fn multi_pack_index(path: &Path) -> io::Result<Option<MultiPackIndex>> {
    let Some(header) = head(path, 12)? else { return Ok(None) };
    if header.len() < 12 || &header[..4] != b"MIDX" {
        return Ok(None);
    }
    let packfile_count = u32::from_be_bytes([header[8], header[9], header[10], header[11]]);
    Ok(Some(MultiPackIndex { version: header[4], packfile_count }))
}

/// The commit-graph: the chain in `info/commit-graphs/` when there is one, else the single
/// `info/commit-graph`; the chunk tables of its files say which optional data they carry.
fn commit_graph(info_dir: &Path) -> io::Result<Option<CommitGraph>> {
    let graphs_dir = info_dir.join("commit-graphs");
    let mut graph = CommitGraph::default();
    let files: Vec<PathBuf> = match head(&graphs_dir.join("commit-graph-chain"), 1 << 20)? {
        Some(chain) => {
            let text = String::from_utf8_lossy(&chain);
            let ids: Vec<&str> = text.split('\n').map(str::trim).filter(|l| !l.is_empty()).collect();
            graph.chain_length = ids.len() as u64;
            ids.iter().filter(|id| is_hex(id)).map(|id| graphs_dir.join(format!("graph-{id}.graph"))).collect()
        }
        None => {
            let single = info_dir.join("commit-graph");
            if optional(fs::symlink_metadata(&single))?.is_none() {
                return Ok(None);
            }
            vec![single]
        }
    };
    for file in files {
        let Some(header) = head(&file, HEADER_MAX)? else { continue };
        // CGPH, version, hash version, chunk count, base graph count; then (count + 1) entries
        // of a 4-byte chunk id and an 8-byte offset.
        if header.len() < 8 || &header[..4] != b"CGPH" {
            continue;
        }
        let chunks = usize::from(header[6]);
        for entry in header[8..].chunks_exact(12).take(chunks) {
            match &entry[..4] {
                b"BIDX" | b"BDAT" => graph.has_bloom_filters = true,
                b"GDA2" => graph.has_generation_data = true,
                b"GDO2" => graph.has_generation_data_overflow = true,
                _ => {}
            }
        }
    }
    Ok(Some(graph))
}

/// `objects/info/alternates`: its lines, minus blank ones and `#` comments, as git reads them.
fn alternates(path: &Path) -> io::Result<Option<Alternates>> {
    let Some(metadata) = optional(fs::metadata(path))? else { return Ok(None) };
    let Some(bytes) = head(path, 1 << 20)? else { return Ok(None) };
    let object_directories = String::from_utf8_lossy(&bytes)
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_string)
        .collect();
    let last_modified = metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH);
    Ok(Some(Alternates { object_directories, last_modified }))
}

/// GitLab keeps object pools at `@pools/<2 hex>/<2 hex>/<64 hex>.git`, the two directories
/// being the first four digits of the name.
fn is_pool_path(git_dir: &Path) -> bool {
    let parts: Vec<&str> = git_dir.iter().rev().take(4).filter_map(|c| c.to_str()).collect();
    let [name, second, first, pools] = parts.as_slice() else { return false };
    let Some(hash) = name.strip_suffix(".git") else { return false };
    *pools == "@pools"
        && hash.len() == 64
        && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && hash.get(..2) == Some(*first)
        && hash.get(2..4) == Some(*second)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("forgecore-health-{name}-{}-{nanos}", std::process::id()));
        fs::create_dir_all(dir.join("objects/pack")).unwrap();
        fs::create_dir_all(dir.join("objects/info")).unwrap();
        fs::create_dir_all(dir.join("refs/heads")).unwrap();
        dir
    }

    #[test]
    fn pool_paths_follow_gitlabs_layout() {
        let hash = "5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9";
        assert!(is_pool_path(Path::new(&format!("/srv/@pools/5f/ec/{hash}.git"))));
        assert!(!is_pool_path(Path::new(&format!("/srv/@pools/5f/ed/{hash}.git"))));
        assert!(!is_pool_path(Path::new(&format!("/srv/pools/5f/ec/{hash}.git"))));
        assert!(!is_pool_path(Path::new(&format!("/srv/@pools/5f/ec/{hash}"))));
        assert!(!is_pool_path(Path::new("/srv/@pools/5f/ec/5fec.git")));
        assert!(!is_pool_path(Path::new("x.git")));
    }

    #[test]
    fn a_reftable_directory_means_the_reftable_backend() {
        let dir = scratch("reftable");
        fs::create_dir_all(dir.join("reftable")).unwrap();
        fs::write(dir.join("reftable/tables.list"), "0x000000000001-0x000000000002-01234567.ref\n").unwrap();
        // git writes a placeholder file where refs/heads would be; it is not a reference.
        fs::write(dir.join("refs/heads/placeholder"), "").unwrap();
        fs::write(dir.join("packed-refs"), "# pack-refs with: peeled\n").unwrap();
        let health = collect(&dir, SystemTime::now()).unwrap();
        assert_eq!(
            health.references,
            References { loose_count: 0, packed_size: 0, backend: ReferenceBackend::Reftable }
        );
        fs::remove_dir_all(dir.join("reftable")).unwrap();
        let health = collect(&dir, SystemTime::now()).unwrap();
        assert_eq!(health.references, References { loose_count: 1, packed_size: 25, backend: ReferenceBackend::Files });
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unreadable_headers_are_left_out_not_fatal() {
        let dir = scratch("headers");
        let pack = dir.join("objects/pack");
        fs::write(pack.join("pack-aa.pack"), b"PACK").unwrap();
        fs::write(pack.join("pack-aa.bitmap"), b"NOPE\0\x01\0\x14").unwrap();
        fs::write(pack.join("multi-pack-index"), b"MID").unwrap();
        fs::write(pack.join("multi-pack-index-aa.bitmap"), b"BITM\0\x02\0\x14").unwrap();
        fs::write(pack.join("tmp_pack_123"), b"x").unwrap();
        fs::write(dir.join("objects/info/commit-graph"), b"CG").unwrap();
        let health = collect(&dir, SystemTime::now()).unwrap();
        assert_eq!(health.packs.bitmap, None);
        assert_eq!(health.packs.multi_pack_index, None);
        assert_eq!(
            health.packs.multi_pack_index_bitmap,
            Some(Bitmap { version: 2, has_hash_cache: true, has_lookup_table: true })
        );
        assert_eq!(health.packs.garbage_count, 1);
        assert_eq!(health.commit_graph, Some(CommitGraph::default()), "present, but nothing readable in it");
        assert_eq!(health.last_full_repack, None, "an unreadable bitmap is no sign of a full repack");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_git_directory_is_not_found() {
        let error = collect(Path::new("/nonexistent/forgecore/health.git"), SystemTime::now()).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
    }
}
