//! A pack index (`.idx`, versions 1 and 2) read with positioned reads rather than a memory map,
//! so that looking objects up adds nothing to the process's resident memory.
//!
//! A mapped index is read by binary search, and each page it touches (with the kernel's
//! fault-around, 64 KiB at a time) stays resident: over an archive's thousands of lookups the
//! whole object-id table becomes resident, and mapping it again to drop those pages means
//! reading its offset table again, which gix does to validate it. Here the fan-out table is
//! read once, each fan-out bucket's every [`SAMPLE`]th id is read the first time the bucket is
//! searched, and a lookup is then a binary search of those samples, one read of at most
//! [`SAMPLE`] ids, and one read of the offset (two for an offset past 2 GiB). The samples are
//! a 64th of the id table, held for the archive's life and shared by its readers.
//!
//! A malformed index (a size that does not match its counts, a fan-out that decreases, an
//! offset past the large-offset table) is refused or answers "not here", never a panic; the
//! object is then read by the archive's fallback (`objects`).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::OnceLock;

/// One id in this many is kept in memory.
const SAMPLE: usize = 64;
const FAN_OUT: usize = 256;
/// SHA-256's 32 bytes.
const MAX_HASH_LEN: usize = 32;
const V2_MAGIC: &[u8; 4] = b"\xfftOc";

/// Where the tables of a version 1 or 2 index lie.
#[derive(Debug, Clone, Copy)]
enum Layout {
    /// Version 1: after the fan-out, each entry is a 4-byte offset then the id.
    V1,
    /// Version 2: after the header and fan-out, all ids, then CRCs, then 4-byte offsets (the
    /// high bit sends to an 8-byte offset in the table after them).
    V2 { large_offsets: u64 },
}

pub struct PackIndex {
    file: File,
    layout: Layout,
    hash_len: usize,
    /// `fan_out[b]`: how many ids have a first byte of at most `b`.
    fan_out: Vec<u32>,
    /// Per first byte, the ids at every [`SAMPLE`]th position of its bucket, concatenated.
    samples: Vec<OnceLock<Box<[u8]>>>,
}

impl PackIndex {
    /// Opens the index at `path` and checks its size against its counts; `None` when it cannot
    /// be read or is not a pack index of version 1 or 2 for ids of `hash_len` bytes.
    pub fn open(path: &Path, hash_len: usize) -> Option<PackIndex> {
        let file = File::open(path).ok()?;
        let size = file.metadata().ok()?.len();
        let mut head = [0u8; 8];
        file.read_exact_at(&mut head, 0).ok()?;
        let v2 = &head[..4] == V2_MAGIC;
        if v2 && u32::from_be_bytes(head[4..8].try_into().ok()?) != 2 {
            return None;
        }
        let mut raw = vec![0u8; FAN_OUT * 4];
        file.read_exact_at(&mut raw, if v2 { 8 } else { 0 }).ok()?;
        let fan_out: Vec<u32> = raw.chunks_exact(4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]])).collect();
        if fan_out.windows(2).any(|pair| pair[0] > pair[1]) {
            return None;
        }
        let count = u64::from(fan_out[FAN_OUT - 1]);
        let hash = hash_len as u64;
        let layout = if v2 {
            let fixed = 8 + FAN_OUT as u64 * 4 + count * (hash + 8) + 2 * hash;
            let extra = size.checked_sub(fixed)?;
            if extra % 8 != 0 {
                return None;
            }
            Layout::V2 { large_offsets: extra / 8 }
        } else {
            if size != FAN_OUT as u64 * 4 + count * (hash + 4) + 2 * hash {
                return None;
            }
            Layout::V1
        };
        let samples = (0..FAN_OUT).map(|_| OnceLock::new()).collect();
        Some(PackIndex { file, layout, hash_len, fan_out, samples })
    }

    /// How many objects the index lists.
    pub fn len(&self) -> u32 {
        self.fan_out[FAN_OUT - 1]
    }

    /// The ids at positions `from..from + out.len() / hash_len` into `out`, contiguous.
    fn read_ids(&self, from: u32, out: &mut [u8]) -> Option<()> {
        match self.layout {
            Layout::V2 { .. } => {
                let at = 8 + FAN_OUT as u64 * 4 + u64::from(from) * self.hash_len as u64;
                self.file.read_exact_at(out, at).ok()
            }
            Layout::V1 => {
                let stride = 4 + self.hash_len;
                let mut raw = vec![0u8; out.len() / self.hash_len * stride];
                let at = FAN_OUT as u64 * 4 + u64::from(from) * stride as u64;
                self.file.read_exact_at(&mut raw, at).ok()?;
                for (id, entry) in out.chunks_exact_mut(self.hash_len).zip(raw.chunks_exact(stride)) {
                    id.copy_from_slice(&entry[4..]);
                }
                Some(())
            }
        }
    }

    /// The range of positions whose ids start with `first`.
    fn bucket(&self, first: u8) -> (u32, u32) {
        let start = if first == 0 { 0 } else { self.fan_out[usize::from(first) - 1] };
        (start, self.fan_out[usize::from(first)])
    }

    /// The sampled ids of bucket `first`, read on first use.
    fn samples_of(&self, first: u8) -> Option<&[u8]> {
        if let Some(samples) = self.samples[usize::from(first)].get() {
            return Some(samples);
        }
        let (start, end) = self.bucket(first);
        let mut all = vec![0u8; (end - start) as usize * self.hash_len];
        self.read_ids(start, &mut all)?;
        let sampled: Vec<u8> = all.chunks_exact(self.hash_len).step_by(SAMPLE).flatten().copied().collect();
        Some(self.samples[usize::from(first)].get_or_init(|| sampled.into_boxed_slice()))
    }

    /// The pack offset of `id`, or `None` when the index does not list it (or cannot be read).
    pub fn lookup(&self, id: &gix::oid) -> Option<u64> {
        let id = id.as_bytes();
        if id.len() != self.hash_len || id.len() > MAX_HASH_LEN {
            return None;
        }
        let (start, end) = self.bucket(id[0]);
        if start == end {
            return None;
        }
        let samples = self.samples_of(id[0])?;
        // The last sample at or before `id`: the id can only be in its run.
        let run = first_above(samples, self.hash_len, id).checked_sub(1)?;
        let from = start + (run * SAMPLE) as u32;
        let count = (end - from).min(SAMPLE as u32) as usize;
        let mut run_ids = [0u8; SAMPLE * MAX_HASH_LEN];
        let run_ids = &mut run_ids[..count * self.hash_len];
        self.read_ids(from, run_ids)?;
        let at = first_above(run_ids, self.hash_len, id).checked_sub(1)?;
        if &run_ids[at * self.hash_len..(at + 1) * self.hash_len] != id {
            return None;
        }
        self.offset_at(from + at as u32)
    }

    /// The pack offset of the object at `position`.
    fn offset_at(&self, position: u32) -> Option<u64> {
        let count = u64::from(self.len());
        let hash = self.hash_len as u64;
        let mut word = [0u8; 4];
        match self.layout {
            Layout::V1 => {
                self.file.read_exact_at(&mut word, FAN_OUT as u64 * 4 + u64::from(position) * (hash + 4)).ok()?;
                Some(u64::from(u32::from_be_bytes(word)))
            }
            Layout::V2 { large_offsets } => {
                let table = 8 + FAN_OUT as u64 * 4 + count * (hash + 4);
                self.file.read_exact_at(&mut word, table + u64::from(position) * 4).ok()?;
                let small = u32::from_be_bytes(word);
                if small & 0x8000_0000 == 0 {
                    return Some(u64::from(small));
                }
                let large = u64::from(small & 0x7fff_ffff);
                if large >= large_offsets {
                    return None;
                }
                let mut wide = [0u8; 8];
                self.file.read_exact_at(&mut wide, table + count * 4 + large * 8).ok()?;
                Some(u64::from_be_bytes(wide))
            }
        }
    }
}

/// How many of the sorted `width`-byte ids in `table` are at most `id`.
fn first_above(table: &[u8], width: usize, id: &[u8]) -> usize {
    let (mut low, mut high) = (0, table.len() / width);
    while low < high {
        let middle = (low + high) / 2;
        if &table[middle * width..(middle + 1) * width] <= id {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) -> String {
        let output = Command::new("git").arg("-C").arg(dir).args(args).output().expect("git runs");
        assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).expect("UTF-8")
    }

    /// A repository of a few hundred objects in one pack, and the pack's path without extension.
    fn packed_repository(root: &Path) -> PathBuf {
        let _ = std::fs::remove_dir_all(root);
        std::fs::create_dir_all(root).expect("mkdir");
        git(root, &["init", "-q"]);
        for commit in 0..20 {
            for file in 0..15 {
                std::fs::write(root.join(format!("f{file}")), format!("{commit} {file}\n").repeat(file + 1))
                    .expect("write");
            }
            git(root, &["add", "-A"]);
            git(root, &["-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", &format!("c{commit}")]);
        }
        git(root, &["gc", "-q"]);
        let pack_dir = root.join(".git/objects/pack");
        let idx = std::fs::read_dir(&pack_dir)
            .expect("pack dir")
            .flatten()
            .map(|entry| entry.path())
            .find(|path| path.extension().is_some_and(|ext| ext == "idx"))
            .expect("an index");
        idx.with_extension("")
    }

    /// Every object the pack lists, with its offset, as `git show-index` reads the index.
    fn listed(idx: &Path) -> Vec<(gix::ObjectId, u64)> {
        let output = Command::new("git")
            .arg("show-index")
            .stdin(std::fs::File::open(idx).expect("idx"))
            .output()
            .expect("git runs");
        String::from_utf8(output.stdout)
            .expect("UTF-8")
            .lines()
            .map(|line| {
                let mut fields = line.split(' ');
                let offset = fields.next().expect("offset").parse().expect("number");
                (gix::ObjectId::from_hex(fields.next().expect("id").as_bytes()).expect("hex"), offset)
            })
            .collect()
    }

    #[test]
    fn lookups_answer_gits_offsets_in_every_index_version() {
        let root = std::env::temp_dir().join(format!("fc-archive-index-{}", std::process::id()));
        let pack = packed_repository(&root);
        let objects = listed(&pack.with_extension("idx"));
        assert!(objects.len() > 300, "{} objects", objects.len());
        // Version 2 as written, version 1, and version 2 with every offset past 16 bytes in the
        // 8-byte table.
        let v1 = root.join("v1.idx");
        let large = root.join("large.idx");
        let pack_file = pack.with_extension("pack");
        for (out, version) in [(&v1, "1"), (&large, "2,16")] {
            let args = ["index-pack", &format!("--index-version={version}"), "-o"];
            let status = Command::new("git").args(args).arg(out).arg(&pack_file).status().expect("git runs");
            assert!(status.success());
        }
        let absent = gix::ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").expect("hex");
        for idx in [pack.with_extension("idx"), v1, large.clone()] {
            let index = PackIndex::open(&idx, 20).expect("opens");
            assert_eq!(index.len() as usize, objects.len());
            for (id, offset) in &objects {
                assert_eq!(index.lookup(id), Some(*offset), "{id} in {}", idx.display());
            }
            assert_eq!(index.lookup(&absent), None);
            // Each id with its last byte changed: a neighbour that is not there.
            for (id, _) in objects.iter().take(50) {
                let mut bytes = id.as_bytes().to_vec();
                bytes[19] ^= 1;
                let near = gix::ObjectId::from_bytes_or_panic(&bytes);
                if objects.iter().all(|(other, _)| *other != near) {
                    assert_eq!(index.lookup(&near), None);
                }
            }
        }
        assert!(
            matches!(PackIndex::open(&large, 20).map(|i| i.layout), Some(Layout::V2 { large_offsets }) if large_offsets > 300)
        );

        // Malformed indexes are refused or answer nothing, never panic.
        let good = std::fs::read(&large).expect("read");
        let bad = root.join("bad.idx");
        let mut truncated = good.clone();
        truncated.truncate(good.len() - 3);
        std::fs::write(&bad, &truncated).expect("write");
        assert!(PackIndex::open(&bad, 20).is_none(), "a truncated index");
        let mut decreasing = good.clone();
        decreasing[8 + 4 * 10..8 + 4 * 11].copy_from_slice(&u32::MAX.to_be_bytes());
        std::fs::write(&bad, &decreasing).expect("write");
        assert!(PackIndex::open(&bad, 20).is_none(), "a fan-out that decreases");
        assert!(PackIndex::open(&bad, 32).is_none(), "ids of another length");
        // Every 4-byte offset pointing past the 8-byte table.
        let count = objects.len();
        let table = 8 + 1024 + count * 24;
        let mut past = good;
        for entry in past[table..table + count * 4].chunks_exact_mut(4) {
            entry.copy_from_slice(&0xffff_fff0u32.to_be_bytes());
        }
        std::fs::write(&bad, &past).expect("write");
        let index = PackIndex::open(&bad, 20).expect("the sizes still agree");
        assert!(objects.iter().all(|(id, _)| index.lookup(id).is_none()));
        let _ = std::fs::remove_dir_all(&root);
    }
}
