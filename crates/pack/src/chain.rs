//! A pack entry decoded through its delta chain: down from the entry to the first member the
//! caller's cache has (or to the chain's base, inflated), then up again, each delta inflated
//! and applied to the object below it. The base, and unless the cache says otherwise every
//! member made on the way up, is offered to the cache, so that the next object of a history,
//! usually a delta of one of them, finds its chain ready.

use crate::{buffers, delta, Inflater};
use gix::odb::pack::data;

/// Longest chain followed: git writes at most 4,095 (`pack.depth` is capped there); a longer
/// one is a cycle or a pack no git writes.
const CHAIN_MAX: usize = 10_000;
/// The decoder's own buffers are given back ([`buffers::give`]) after an object that made them
/// larger than this, so a reader that met one large delta does not hold its size until it is
/// dropped; the rest are given back when it is dropped.
const BUFFER_KEPT_MAX: usize = 4 << 20;

/// Decoded objects a caller keeps, by pack and data offset (a [`data::Entry`]'s `data_offset`).
pub trait Bases {
    /// Whether the deltas of a chain are offered too, or only its base (as gix offers them):
    /// a history's walk meets the members again, a single tree's walk hardly does.
    const MEMBERS: bool = true;
    /// The object kept for `offset` of pack `pack`, copied into `out`, and its kind.
    fn get(&mut self, pack: u32, offset: u64, out: &mut Vec<u8>) -> Option<gix::objs::Kind>;
    /// Keeps (or not) the object decoded at `offset` of pack `pack`.
    fn put(&mut self, pack: u32, offset: u64, data: &[u8], kind: gix::objs::Kind);
}

/// The buffers of a chain's decoding, kept between objects.
#[derive(Default)]
pub struct Decoder {
    inflate: Inflater,
    /// Pack entries of the chain being decoded, newest first.
    chain: Vec<data::Entry>,
    /// A delta's instructions, and the object it makes.
    delta: Vec<u8>,
    made: Vec<u8>,
}

impl Decoder {
    /// The object at `entry` of the pack `pack` into `out`, and its kind. `ref_base` answers
    /// the offset in this pack of a base named by id; the members are kept in `bases` under
    /// `pack.id`. `None` when the chain leaves the pack or anything fails to decode.
    pub fn decode<B: Bases>(
        &mut self,
        pack: &data::File,
        entry: data::Entry,
        ref_base: impl Fn(&gix::oid) -> Option<u64>,
        bases: &mut B,
        out: &mut Vec<u8>,
    ) -> Option<gix::objs::Kind> {
        let Decoder { inflate, chain, delta, made } = self;
        chain.clear();
        let mut cursor = entry;
        let kind = loop {
            if let Some(kind) = bases.get(pack.id, cursor.data_offset, out) {
                break kind;
            }
            let base_offset = match cursor.header {
                data::entry::Header::OfsDelta { base_distance } => cursor.checked_base_pack_offset(base_distance)?,
                data::entry::Header::RefDelta { base_id } => ref_base(&base_id)?,
                header => {
                    let kind = header.as_kind()?;
                    if !inflate.entry(pack, &cursor, out) {
                        return None;
                    }
                    bases.put(pack.id, cursor.data_offset, out, kind);
                    break kind;
                }
            };
            let base = pack.entry(base_offset).ok()?;
            chain.push(std::mem::replace(&mut cursor, base));
            if chain.len() > CHAIN_MAX {
                return None;
            }
        };
        if let Some(largest) = chain.iter().map(|member| member.decompressed_size).max() {
            if delta.capacity() == 0 {
                *delta = buffers::take(usize::try_from(largest).unwrap_or(usize::MAX));
            }
            if made.capacity() == 0 {
                *made = buffers::take(out.len()); // the object made is about its base's size
            }
        }
        let decoded = (|| {
            while let Some(member) = chain.pop() {
                if !inflate.entry(pack, &member, delta) {
                    return None;
                }
                delta::apply(out, delta, made)?;
                std::mem::swap(out, made);
                if B::MEMBERS {
                    bases.put(pack.id, member.data_offset, out, kind);
                }
            }
            Some(kind)
        })();
        for buffer in [delta, made] {
            if buffer.capacity() > BUFFER_KEPT_MAX {
                buffers::give(std::mem::take(buffer));
            }
        }
        decoded
    }
}

impl Drop for Decoder {
    fn drop(&mut self) {
        buffers::give(std::mem::take(&mut self.delta));
        buffers::give(std::mem::take(&mut self.made));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::path::Path;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
        let out = Command::new("git")
            .current_dir(dir)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    }

    /// Keeps everything offered, and counts what it was asked for and had.
    #[derive(Default)]
    struct Everything {
        kept: HashMap<(u32, u64), (gix::objs::Kind, Vec<u8>)>,
        hits: usize,
    }

    impl Bases for Everything {
        fn get(&mut self, pack: u32, offset: u64, out: &mut Vec<u8>) -> Option<gix::objs::Kind> {
            let (kind, data) = self.kept.get(&(pack, offset))?;
            self.hits += 1;
            out.clone_from(data);
            Some(*kind)
        }

        fn put(&mut self, pack: u32, offset: u64, data: &[u8], kind: gix::objs::Kind) {
            self.kept.insert((pack, offset), (kind, data.to_vec()));
        }
    }

    /// Keeps nothing.
    struct Nothing;

    impl Bases for Nothing {
        const MEMBERS: bool = false;
        fn get(&mut self, _: u32, _: u64, _: &mut Vec<u8>) -> Option<gix::objs::Kind> {
            None
        }
        fn put(&mut self, _: u32, _: u64, _: &[u8], _: gix::objs::Kind) {}
    }

    #[test]
    fn every_object_of_a_deep_pack_is_gits() {
        let dir = std::env::temp_dir().join(format!("forgecore-pack-chain-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        git(&dir, &["init", "-q", "-b", "main"]);
        // Forty versions of a file, each a line longer: git stores them as a chain of deltas.
        let mut text = String::new();
        for version in 0..40 {
            text.push_str(&format!("line {version} of a file that grows by one line a commit\n"));
            std::fs::write(dir.join("grows.txt"), &text).unwrap();
            git(&dir, &["add", "."]);
            git(&dir, &["-c", "user.name=A", "-c", "user.email=a@x", "commit", "-q", "-m", &format!("v{version}")]);
        }
        git(&dir, &["repack", "-adfq", "--depth=50", "--window=50"]);
        let git_dir = dir.join(".git");
        let pack_dir = git_dir.join("objects/pack");
        let pack_path = std::fs::read_dir(&pack_dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "pack"))
            .unwrap();
        let pack = data::File::at(&pack_path, gix::hash::Kind::Sha1).unwrap();
        let index = gix::odb::pack::index::File::at(pack_path.with_extension("idx"), gix::hash::Kind::Sha1).unwrap();
        let ref_base = |id: &gix::oid| Some(index.pack_offset_at_index(index.lookup(id)?));
        let (mut decoder, mut everything, mut out) = (Decoder::default(), Everything::default(), Vec::new());
        let mut deltas = 0;
        // Oldest first, so that the newest find the chain's members kept.
        let mut entries: Vec<_> = index.iter().collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.pack_offset));
        for object in entries {
            let entry = pack.entry(object.pack_offset).unwrap();
            deltas += usize::from(entry.header.is_delta());
            let id = object.oid.to_string();
            let kind = String::from_utf8(git(&git_dir, &["cat-file", "-t", &id])).unwrap();
            let expected = git(&git_dir, &["cat-file", kind.trim(), &id]);
            let decoded = decoder.decode(&pack, entry.clone(), ref_base, &mut Nothing, &mut out);
            assert_eq!((decoded.map(|k| k.to_string()), &out), (Some(kind.trim().to_string()), &expected), "{id}");
            let decoded = decoder.decode(&pack, entry, ref_base, &mut everything, &mut out);
            assert_eq!((decoded.map(|k| k.to_string()), &out), (Some(kind.trim().to_string()), &expected), "{id}");
        }
        assert!(deltas >= 30, "the pack has chains ({deltas} deltas)");
        assert!(everything.hits > 0, "kept members were used");
        // A delta whose base is not in the pack (named by an id the pack lacks) is not decoded.
        let delta = index.iter().map(|o| pack.entry(o.pack_offset).unwrap()).find(|e| e.header.is_delta()).unwrap();
        let mut foreign = delta.clone();
        foreign.header = data::entry::Header::RefDelta { base_id: gix::ObjectId::null(gix::hash::Kind::Sha1) };
        assert_eq!(decoder.decode(&pack, foreign, ref_base, &mut Nothing, &mut out), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
