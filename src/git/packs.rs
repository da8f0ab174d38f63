//! Objects read from a repository's packs the way git reads them along a history: every delta
//! base met on the way is kept, as git's delta base cache keeps them. gix keeps only the object
//! it was asked for, which is no help where consecutive versions of a tree are deltas of one
//! another: a pack `git fast-import` wrote (and every repack that reuses its deltas) stores each
//! version as a delta of the one before it, so the newest root tree is the end of a chain of
//! some forty deltas, and reading the root trees of a history from its tip down made gix
//! inflate a whole chain for every one of them (`perf`: most of a path walk's time). Here the
//! chain is decoded from its base up (`forgecore_pack::Decoder`), each member kept, so the next
//! (older) tree is found ready: about one inflate per tree, as for git.
//!
//! [`Packs`] answers only objects it finds in the packs present when it was opened; anything
//! else (loose objects, a pack written since, a damaged entry) is `None`, for the caller to read
//! through gix as before. At most [`KEPT_MAX`] bytes of objects are kept, or less where the
//! caller says so ([`Packs::keeping`]: a list of commits, each read once, keeps none).

use forgecore_pack::{Bases, Decoder};
use gix::odb::pack;
use std::collections::HashMap;
use std::path::Path;

/// Bytes of decoded objects kept (git's `core.deltaBaseCacheLimit` is 96 MiB per process; this
/// is per walk, and a walk's root trees are usually small).
const KEPT_MAX: usize = 16 << 20;

/// A repository's packs as they were when opened, with the objects decoded from them.
pub struct Packs {
    packs: Vec<(pack::index::File, pack::data::File)>,
    kept: Kept,
    decoder: Decoder,
}

impl Packs {
    /// The packs in `objects` (the repository's objects directory); unreadable ones are left out.
    pub fn open(objects: &Path, kind: gix::hash::Kind) -> Packs {
        let mut packs = open_all(objects, kind);
        for (n, (_, data)) in packs.iter_mut().enumerate() {
            // Our own numbering: the key of what is kept.
            data.id = n as u32;
        }
        Packs { packs, kept: Kept { limit: KEPT_MAX, ..Kept::default() }, decoder: Decoder::default() }
    }

    /// Keeps at most `bytes` of decoded objects (and as much again of buffers for them) instead
    /// of [`KEPT_MAX`]: 0 where no object is read twice.
    pub fn keeping(mut self, bytes: usize) -> Packs {
        self.kept.limit = bytes;
        self
    }

    /// The packs of `repo` as they are now.
    pub fn of(repo: &gix::Repository) -> Packs {
        Packs::open(repo.objects.store_ref().path(), repo.object_hash())
    }

    /// Object `id` into `out` (its kind returned), when it is in one of the packs and decodes.
    pub fn find(&mut self, id: &gix::oid, out: &mut Vec<u8>) -> Option<gix::objs::Kind> {
        let (index, data, at) = self.packs.iter().find_map(|(index, data)| Some((index, data, index.lookup(id)?)))?;
        let entry = data.entry(index.pack_offset_at_index(at)).ok()?;
        let ref_base = |base: &gix::oid| Some(index.pack_offset_at_index(index.lookup(base)?));
        self.decoder.decode(data, entry, ref_base, &mut self.kept, out)
    }
}

/// The packs in `objects` (a repository's objects directory), index and data each, as they are
/// now; unreadable ones are left out.
pub fn open_all(objects: &Path, kind: gix::hash::Kind) -> Vec<(pack::index::File, pack::data::File)> {
    let mut packs = Vec::new();
    for entry in std::fs::read_dir(objects.join("pack")).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "idx") {
            continue;
        }
        let Ok(index) = pack::index::File::at(&path, kind) else { continue };
        let Ok(data) = pack::data::File::at(path.with_extension("pack"), kind) else { continue };
        packs.push((index, data));
    }
    packs
}

/// Decoded objects by (pack, data offset), at most `limit` bytes: the newer half and the
/// older, which is let go when the newer fills up (what was used since moved to the newer).
#[derive(Default)]
struct Kept {
    limit: usize,
    newer: HashMap<(u32, u64), Object, Offsets>,
    older: HashMap<(u32, u64), Object, Offsets>,
    bytes: usize,
    /// Buffers of objects let go, for the next ones kept.
    spare: Vec<Vec<u8>>,
    /// The capacity of the buffers in `spare`, at most `limit` / 2.
    spare_bytes: usize,
}

impl Kept {
    /// Keeps `buf` for reuse, while the spare buffers stay within their bound.
    fn spare(&mut self, buf: Vec<u8>) {
        if self.spare_bytes + buf.capacity() <= self.limit / 2 {
            self.spare_bytes += buf.capacity();
            self.spare.push(buf);
        }
    }
}

impl Bases for Kept {
    fn put(&mut self, pack: u32, offset: u64, data: &[u8], kind: gix::objs::Kind) {
        if data.len() > self.limit / 2 {
            return;
        }
        if self.bytes + data.len() > self.limit / 2 {
            let older = std::mem::replace(&mut self.older, std::mem::take(&mut self.newer));
            older.into_values().for_each(|(_, buf)| self.spare(buf));
            self.bytes = 0;
        }
        self.bytes += data.len();
        let mut buf = self.spare.pop().unwrap_or_default();
        self.spare_bytes -= buf.capacity();
        buf.clear();
        buf.extend_from_slice(data);
        if let Some((_, old)) = self.newer.insert((pack, offset), (kind, buf)) {
            self.spare(old);
        }
    }

    fn get(&mut self, pack: u32, offset: u64, out: &mut Vec<u8>) -> Option<gix::objs::Kind> {
        if let Some(moved) = self.older.remove(&(pack, offset)) {
            self.bytes += moved.1.len();
            self.newer.insert((pack, offset), moved);
        }
        let (kind, data) = self.newer.get(&(pack, offset))?;
        out.clear();
        out.extend_from_slice(data);
        Some(*kind)
    }
}

/// A decoded object: its kind and data.
type Object = (gix::objs::Kind, Vec<u8>);

/// Hashes a (pack, offset) key: offsets are already spread, one multiply mixes them.
#[derive(Default, Clone, Copy)]
struct Offsets;

impl std::hash::BuildHasher for Offsets {
    type Hasher = OffsetHasher;
    fn build_hasher(&self) -> OffsetHasher {
        OffsetHasher(0)
    }
}

struct OffsetHasher(u64);

impl std::hash::Hasher for OffsetHasher {
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(26)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 ^= u64::from(n) << 48;
    }
    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
}
