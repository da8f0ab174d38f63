//! Objects read from a repository's packs the way git reads them along a history: every delta
//! base met on the way is kept, as git's delta base cache keeps them. gix keeps only the object
//! it was asked for, which is no help where consecutive versions of a tree are deltas of one
//! another: a pack `git fast-import` wrote (and every repack that reuses its deltas) stores each
//! version as a delta of the one before it, so the newest root tree is the end of a chain of
//! some forty deltas, and reading the root trees of a history from its tip down made gix
//! inflate a whole chain for every one of them (`perf`: most of a path walk's time). Here the
//! chain is decoded from its base up, each member kept, so the next (older) tree is found
//! ready: about one inflate per tree, as for git.
//!
//! [`Packs`] answers only objects it finds in the packs present when it was opened; anything
//! else (loose objects, a pack written since, a damaged entry) is `None`, for the caller to read
//! through gix as before. At most [`KEPT_MAX`] bytes of objects are kept.

use super::inflate::Inflater;
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
    inflate: Inflater,
    /// Pack entries of the chain being decoded, newest first.
    chain: Vec<pack::data::Entry>,
    /// A delta's instructions, and the object it makes, while a chain is decoded.
    delta: Vec<u8>,
    made: Vec<u8>,
}

impl Packs {
    /// The packs in `objects` (the repository's objects directory); unreadable ones are left out.
    pub fn open(objects: &Path, kind: gix::hash::Kind) -> Packs {
        let mut packs = open_all(objects, kind);
        for (n, (_, data)) in packs.iter_mut().enumerate() {
            // Our own numbering: the key of what is kept.
            data.id = n as u32;
        }
        let (inflate, chain, delta, made) = Default::default();
        Packs { packs, kept: Kept::default(), inflate, chain, delta, made }
    }

    /// Object `id` into `out` (its kind returned), when it is in one of the packs and decodes.
    pub fn find(&mut self, id: &gix::oid, out: &mut Vec<u8>) -> Option<gix::objs::Kind> {
        let Packs { packs, kept, inflate, chain, delta, made } = self;
        let (index, data, at) = packs.iter().find_map(|(index, data)| Some((index, data, index.lookup(id)?)))?;
        let entry = data.entry(index.pack_offset_at_index(at)).ok()?;
        // Down the chain to the first entry kept or not a delta.
        chain.clear();
        let mut cursor = entry;
        while cursor.header.is_delta() && !kept.has(data.id, cursor.data_offset) {
            let base = match cursor.header {
                pack::data::entry::Header::OfsDelta { base_distance } => {
                    data.entry(cursor.checked_base_pack_offset(base_distance)?).ok()?
                }
                pack::data::entry::Header::RefDelta { base_id } => {
                    data.entry(index.pack_offset_at_index(index.lookup(base_id)?)).ok()?
                }
                _ => return None,
            };
            chain.push(std::mem::replace(&mut cursor, base));
            if chain.len() > 10_000 {
                return None; // a cycle, or a pack no git writes
            }
        }
        let kind = match kept.get(data.id, cursor.data_offset, out) {
            Some(kind) => kind,
            None => {
                let kind = cursor.header.as_kind()?;
                inflated(data, &cursor, inflate, out)?;
                kept.put(data.id, cursor.data_offset, out, kind);
                kind
            }
        };
        // Up again: each delta finds its base kept, and is kept itself.
        while let Some(entry) = chain.pop() {
            inflated(data, &entry, inflate, delta)?;
            apply_delta(out, delta, made)?;
            std::mem::swap(out, made);
            kept.put(data.id, entry.data_offset, out, kind);
        }
        Some(kind)
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

/// The data of pack entry `entry` inflated into `out` (a delta's instructions, or an object).
fn inflated(
    data: &pack::data::File,
    entry: &pack::data::Entry,
    inflate: &mut Inflater,
    out: &mut Vec<u8>,
) -> Option<()> {
    let size = usize::try_from(entry.decompressed_size).ok()?;
    let input = data.entry_slice(entry.data_offset..data.pack_end() as u64)?;
    inflate.entry(input, size, out).then_some(())
}

/// `base` with the git delta `delta` applied, into `out`; `None` for a delta that does not fit
/// its base (sizes, copies out of range, a zero instruction).
fn apply_delta(base: &[u8], delta: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let mut at = 0;
    let mut size = || {
        let (mut value, mut shift) = (0usize, 0u32);
        loop {
            let byte = *delta.get(at)?;
            at += 1;
            value |= usize::from(byte & 0x7f).checked_shl(shift)?;
            shift += 7;
            if byte & 0x80 == 0 || shift > 63 {
                return Some(value);
            }
        }
    };
    let (base_size, made_size) = (size()?, size()?);
    // Each instruction copies at most 0x10000 bytes of the base or inserts at most 127: a size
    // beyond that is not reserved, it is refused.
    let most = delta.len().saturating_mul(base.len().clamp(127, 0x10000));
    if base_size != base.len() || made_size > most {
        return None;
    }
    out.clear();
    out.reserve(made_size);
    while let Some(&op) = delta.get(at) {
        at += 1;
        if op & 0x80 != 0 {
            // Copy from the base: offset bytes by bits 0-3, size bytes by bits 4-6.
            let (mut offset, mut len) = (0usize, 0usize);
            for bit in 0..7 {
                if op & (1 << bit) != 0 {
                    let byte = usize::from(*delta.get(at)?);
                    at += 1;
                    if bit < 4 {
                        offset |= byte << (8 * bit);
                    } else {
                        len |= byte << (8 * (bit - 4));
                    }
                }
            }
            if len == 0 {
                len = 0x10000;
            }
            out.extend_from_slice(base.get(offset..offset.checked_add(len)?)?);
        } else if op != 0 {
            out.extend_from_slice(delta.get(at..at + usize::from(op))?);
            at += usize::from(op);
        } else {
            return None;
        }
    }
    (out.len() == made_size).then_some(())
}

/// Decoded objects by (pack, data offset), at most [`KEPT_MAX`] bytes: the newer half and the
/// older, which is let go when the newer fills up (what was used since moved to the newer).
#[derive(Default)]
struct Kept {
    newer: HashMap<(u32, u64), Object, Offsets>,
    older: HashMap<(u32, u64), Object, Offsets>,
    bytes: usize,
    /// Buffers of objects let go, for the next ones kept.
    spare: Vec<Vec<u8>>,
    /// The capacity of the buffers in `spare`, at most [`KEPT_MAX`] / 2.
    spare_bytes: usize,
}

impl Kept {
    fn has(&self, pack: u32, offset: u64) -> bool {
        self.newer.contains_key(&(pack, offset)) || self.older.contains_key(&(pack, offset))
    }

    /// Keeps `buf` for reuse, while the spare buffers stay within their bound.
    fn spare(&mut self, buf: Vec<u8>) {
        if self.spare_bytes + buf.capacity() <= KEPT_MAX / 2 {
            self.spare_bytes += buf.capacity();
            self.spare.push(buf);
        }
    }

    fn put(&mut self, pack: u32, offset: u64, data: &[u8], kind: gix::objs::Kind) {
        if data.len() > KEPT_MAX / 2 {
            return;
        }
        if self.bytes + data.len() > KEPT_MAX / 2 {
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

#[cfg(test)]
mod tests {
    use super::apply_delta;

    #[test]
    fn deltas_apply_and_bad_ones_are_refused() {
        let base = b"hello world";
        let mut out = Vec::new();
        // Base 11 bytes, result 6: copy 5 bytes from offset 6, insert "!".
        assert_eq!(apply_delta(base, &[11, 6, 0x91, 6, 5, 1, b'!'], &mut out), Some(()));
        assert_eq!(out, b"world!");
        for bad in [
            &[][..],                                                                 // no sizes
            &[12, 6, 0x91, 6, 5, 1, b'!'],                                           // the base is not 12 bytes
            &[11, 7, 0x91, 6, 5, 1, b'!'],                                           // the result is not 7 bytes
            &[11, 6, 0x91, 7, 5, 1, b'!'],                                           // a copy past the base's end
            &[11, 6, 0x91, 6, 5, 2, b'!'],                                           // an insert past the delta's end
            &[11, 6, 0x91, 6, 5, 0],                                                 // the reserved zero instruction
            &[11, 6, 0x80], // a copy of 0x10000 bytes from an 11-byte base
            &[11, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], // a size too large
        ] {
            assert_eq!(apply_delta(base, bad, &mut out), None, "{bad:?}");
        }
        // Whatever the bytes, an answer and no panic.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let delta: Vec<u8> = (0..(state % 24))
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 24) as u8
                })
                .collect();
            let _ = apply_delta(base, &delta, &mut out);
            state = state.wrapping_add(1);
        }
    }
}
