//! The archive's own reader of the object database, which keeps the pack pages it has read
//! from piling up in the process's resident memory.
//!
//! Pack and index files are read through memory maps, and every page read through a mapping
//! stays resident until the mapping goes away: by the end of an archive, the packs it read would
//! be resident in full (hundreds of MiB for a large repository). So the archive maps the packs
//! itself (gix's pack bundles, outside the shared repository cache), and whenever the process's
//! resident file-backed memory has grown by [`MAPPED_BUDGET`] since they were mapped, it maps
//! the pack data again, which drops the old mapping and its pages with it. When what is left
//! of the growth is still half the budget, the indexes are what holds it, and they are mapped
//! again too (less often: opening an index reads its whole offset table). The pages stay in the
//! kernel's page cache, so reading them again is a minor fault, not disk I/O; the delta-base
//! cache and the inflate state outlive the remapping.
//!
//! The growth is read from `RssFile` in `/proc/self/status` every [`CHECK_OBJECTS`] objects or
//! [`CHECK_BYTES`] of object data. Where that file does not exist nothing is remapped. Growth
//! caused by other threads only makes a remap come sooner; mapping the indexes again takes a
//! new baseline, so nothing repeats on growth the archive cannot undo.
//!
//! A blob of at least [`STREAM_BYTES`] stored whole (not as a delta) is not read into memory
//! at all: [`Objects::load_blob`] answers where it is and [`BlobStream`] inflates it piece by
//! piece, as often as the writer asks, checking the mapped pages as it goes. A large blob
//! stored as a delta is inflated whole, as gix can only do.
//!
//! Objects the archive's packs cannot give (loose objects, packs reached through alternates or
//! only through a multi-pack index, deltas against another pack) are read through the loose
//! object store, then through a gix handle of the archive's own.

use crate::Error;
use gix::odb::pack::cache::lru::StaticLinkedList;
use gix::odb::pack::data::decode::header::ResolvedBase as HeaderBase;
use gix::odb::pack::{data, Bundle};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Growth of the resident file-backed memory that makes the packs map again.
const MAPPED_BUDGET: u64 = 6 << 20;
/// Objects read between two looks at the process's resident memory.
const CHECK_OBJECTS: u32 = 8;
/// Object bytes read between two looks at the process's resident memory.
const CHECK_BYTES: u64 = 256 << 10;
/// Blobs at least this large are read piece by piece when stored whole.
const STREAM_BYTES: u64 = 1 << 20;
/// Compressed bytes read from a pack between two looks at the mapped pages while streaming.
const STREAM_CHECK_BYTES: u64 = 1 << 20;
/// Piece of a streamed blob.
const PIECE: usize = 64 * 1024;
/// Delta bases kept between objects (gix's default would be 96 MiB).
const PACK_CACHE_BYTES: usize = 2 << 20;

pub struct Objects {
    pack_dir: PathBuf,
    hash: gix::hash::Kind,
    packs: Vec<Bundle>,
    loose: gix::odb::loose::Store,
    /// Everything else; opened apart from the shared cache so that its mappings end with the
    /// archive.
    repo: gix::Repository,
    inflate: gix::zlib::Inflate,
    cache: StaticLinkedList<64>,
    /// `RssFile` when the indexes were mapped, if the platform tells.
    baseline: Option<u64>,
    budget: u64,
    objects_since_check: u32,
    bytes_since_check: u64,
    pack_remaps: u32,
    index_remaps: u32,
    /// Objects the packs could not give.
    fallbacks: u32,
}

/// Where a large blob is stored whole.
enum Place {
    /// In `packs[pack]`, its zlib stream starting at `data_offset`.
    Packed {
        pack: usize,
        data_offset: u64,
    },
    Loose(PathBuf),
}

/// What [`Objects::find`] found.
enum Found {
    Read(gix::objs::Kind),
    Large(LargeBlob),
    Missing,
}

/// A blob of at least [`STREAM_BYTES`] that [`BlobStream`] reads piece by piece.
pub struct LargeBlob {
    id: gix::ObjectId,
    place: Place,
    size: u64,
}

/// The process's resident file-backed memory in bytes (Linux), `None` elsewhere.
fn resident_file_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("RssFile:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Every pack with an index in `pack_dir`; a pack that cannot be opened (being deleted by a
/// repack, say) is left to the fallback.
fn map_packs(pack_dir: &Path, hash: gix::hash::Kind) -> Vec<Bundle> {
    let Ok(entries) = std::fs::read_dir(pack_dir) else {
        return Vec::new();
    };
    let mut indexes: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "idx"))
        .collect();
    indexes.sort();
    indexes.into_iter().filter_map(|path| Bundle::at(&path, hash).ok()).collect()
}

/// A handle of the archive's own on the repository at `git_dir`, opened as the core opens every
/// repository (in isolation: no global or user configuration, the path as given) but outside
/// any cache: nothing else shares its object store, so dropping it unmaps every pack it mapped.
fn open_repository(git_dir: &Path) -> Result<gix::Repository, Error> {
    let options = gix::open::Options::isolated().open_path_as_is(true);
    gix::open_opts(git_dir, options).map_err(|source| Error::OpenRepository { path: git_dir.to_owned(), source })
}

impl Objects {
    /// A reader of its own on the repository at `git_dir`.
    pub fn open(git_dir: &Path) -> Result<Objects, Error> {
        let mut repo = open_repository(git_dir)?;
        repo.object_cache_size(None::<usize>);
        let hash = repo.object_hash();
        let objects_dir = repo.objects.store_ref().path().to_path_buf();
        let pack_dir = objects_dir.join("pack");
        Ok(Objects {
            packs: map_packs(&pack_dir, hash),
            pack_dir,
            hash,
            loose: gix::odb::loose::Store::at(objects_dir, hash),
            repo,
            inflate: gix::zlib::Inflate::default(),
            cache: StaticLinkedList::new(PACK_CACHE_BYTES),
            baseline: resident_file_bytes(),
            budget: MAPPED_BUDGET,
            objects_since_check: 0,
            bytes_since_check: 0,
            pack_remaps: 0,
            index_remaps: 0,
            fallbacks: 0,
        })
    }

    /// The repository, for its directories.
    pub fn repo(&self) -> &gix::Repository {
        &self.repo
    }

    pub fn object_hash(&self) -> gix::hash::Kind {
        self.hash
    }

    /// Reads object `id` into `out`, which must be of `kind`.
    pub fn load(&mut self, id: &gix::oid, kind: gix::objs::Kind, out: &mut Vec<u8>) -> Result<(), Error> {
        let found = match self.find(id, out, u64::MAX)? {
            Found::Read(found) => found,
            Found::Large(_) | Found::Missing => return Err(Error::MissingObject { id: id.to_owned() }),
        };
        if found != kind {
            return Err(Error::UnexpectedKind { id: id.to_owned(), expected: kind, actual: found });
        }
        self.count(out.len() as u64);
        Ok(())
    }

    /// Reads blob `id` into `out`; or, when it is a large blob stored whole, leaves `out`
    /// alone and answers where it is, to be read with [`BlobStream`] before anything else is
    /// read (a remap may reorder the packs a [`LargeBlob`] refers to).
    pub fn load_blob(&mut self, id: &gix::oid, out: &mut Vec<u8>) -> Result<Option<LargeBlob>, Error> {
        let kind = match self.find(id, out, STREAM_BYTES)? {
            Found::Large(large) => return Ok(Some(large)),
            Found::Read(kind) => kind,
            Found::Missing => return Err(Error::MissingObject { id: id.to_owned() }),
        };
        if kind != gix::objs::Kind::Blob {
            return Err(Error::UnexpectedKind { id: id.to_owned(), expected: gix::objs::Kind::Blob, actual: kind });
        }
        self.count(out.len() as u64);
        Ok(None)
    }

    /// Whether the resident file-backed memory has grown by the budget.
    fn over_budget(&self) -> bool {
        self.baseline.is_some_and(|baseline| grown(baseline) >= self.budget)
    }

    /// Maps every pack's data again (dropping the old mappings and their pages); false when a
    /// pack could not be opened again (its old mapping stays).
    fn remap_pack_data(&mut self) -> bool {
        let mut all_there = true;
        for bundle in &mut self.packs {
            match data::File::at(bundle.pack.path(), bundle.pack.object_hash()) {
                Ok(pack) => bundle.pack = pack,
                Err(_) => all_there = false,
            }
        }
        self.pack_remaps += 1;
        all_there
    }

    /// Inflates the packed zlib stream of blob `id` at `data_offset` of `packs[pack]` into
    /// `sink`: exactly `size` bytes, or an error.
    fn copy_packed(
        &mut self,
        id: gix::ObjectId,
        pack: usize,
        data_offset: u64,
        size: u64,
        sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let wrong_size = || io::Error::from(Error::BlobSize { id, size });
        let mut inflate = flate2::Decompress::new(true);
        let mut out = vec![0u8; PIECE];
        let (mut pos, mut since_check) = (data_offset, 0u64);
        loop {
            let bundle = self.packs.get(pack).ok_or_else(wrong_size)?;
            let end = (pos + PIECE as u64).min(bundle.pack.pack_end() as u64);
            let input = bundle.pack.entry_slice(pos..end).ok_or_else(wrong_size)?;
            let (before_in, before_out) = (inflate.total_in(), inflate.total_out());
            let status = inflate
                .decompress(input, &mut out, flate2::FlushDecompress::None)
                .map_err(|source| Error::InflateBlob { id, source })?;
            let consumed = inflate.total_in() - before_in;
            let produced = (inflate.total_out() - before_out) as usize;
            if inflate.total_out() > size {
                return Err(wrong_size());
            }
            sink(&out[..produced])?;
            if status == flate2::Status::StreamEnd {
                break;
            }
            if consumed == 0 && produced == 0 {
                return Err(wrong_size());
            }
            pos += consumed;
            since_check += consumed;
            if since_check >= STREAM_CHECK_BYTES {
                since_check = 0;
                if self.over_budget() {
                    self.remap_pack_data();
                }
            }
        }
        if inflate.total_out() != size {
            return Err(wrong_size());
        }
        Ok(())
    }

    /// Object `id` read into `out`, or where it is when it is a blob of at least `stream_from`
    /// bytes stored whole: from the archive's packs, else loose, else through the gix handle.
    fn find(&mut self, id: &gix::oid, out: &mut Vec<u8>, stream_from: u64) -> Result<Found, Error> {
        let unreadable = |source| Error::FindObject { id: id.to_owned(), source };
        for (i, pack) in self.packs.iter().enumerate() {
            let Some(index) = pack.index.lookup(id) else { continue };
            if let Ok(entry) = pack.pack.entry(pack.index.pack_offset_at_index(index)) {
                if entry.header == data::entry::Header::Blob && entry.decompressed_size >= stream_from {
                    let place = Place::Packed { pack: i, data_offset: entry.data_offset };
                    return Ok(Found::Large(LargeBlob { id: id.to_owned(), place, size: entry.decompressed_size }));
                }
            }
            // An error here (a delta whose base is in another pack) is for the fallback.
            if let Ok((data, _)) = pack.get_object_by_index(index, out, &mut self.inflate, &mut self.cache) {
                return Ok(Found::Read(data.kind));
            }
            break;
        }
        if stream_from < u64::MAX {
            if let Ok(Some((size, gix::objs::Kind::Blob))) = self.loose.try_header(id) {
                if size >= stream_from {
                    let place = Place::Loose(self.loose.object_path(id));
                    return Ok(Found::Large(LargeBlob { id: id.to_owned(), place, size }));
                }
            }
        }
        self.fallbacks += 1;
        if let Some(data) = self.loose.try_find(id, out).map_err(unreadable)? {
            return Ok(Found::Read(data.kind));
        }
        use gix::objs::Find;
        Ok(self.repo.try_find(id, out).map_err(unreadable)?.map_or(Found::Missing, |data| Found::Read(data.kind)))
    }

    /// The size of object `id` without inflating it.
    pub fn size(&mut self, id: &gix::oid) -> Result<u64, Error> {
        let size = self.header_size(id)?.ok_or_else(|| Error::MissingObject { id: id.to_owned() })?;
        self.count(0);
        Ok(size)
    }

    fn header_size(&mut self, id: &gix::oid) -> Result<Option<u64>, Error> {
        let unreadable = |source| Error::FindObject { id: id.to_owned(), source };
        for pack in &self.packs {
            let Some(index) = pack.index.lookup(id) else { continue };
            let in_pack = |offset| pack.pack.entry(offset).map(|entry| Some(HeaderBase::InPack(entry)));
            let resolve = |base: &gix::oid| match pack.index.lookup(base) {
                Some(index) => in_pack(pack.index.pack_offset_at_index(index)),
                None => Ok(None),
            };
            let header = pack
                .pack
                .entry(pack.index.pack_offset_at_index(index))
                .and_then(|entry| pack.pack.decode_header(entry, &mut self.inflate, &resolve));
            if let Ok(header) = header {
                return Ok(Some(header.object_size));
            }
            break;
        }
        if let Some((size, _)) = self.loose.try_header(id).map_err(unreadable)? {
            return Ok(Some(size));
        }
        Ok(self.repo.try_find_header(id).map_err(unreadable)?.map(|header| header.size()))
    }

    /// Counts an object read, and every so often maps the packs again when the resident
    /// file-backed memory has grown by the budget.
    fn count(&mut self, bytes: u64) {
        self.objects_since_check += 1;
        self.bytes_since_check += bytes;
        if self.objects_since_check < CHECK_OBJECTS && self.bytes_since_check < CHECK_BYTES {
            return;
        }
        self.objects_since_check = 0;
        self.bytes_since_check = 0;
        let Some(baseline) = self.baseline else { return };
        if !self.over_budget() {
            return;
        }
        // Pack data first: it is most of the growth, and mapping it again costs nothing.
        // Replacing a mapping drops the old one; the new one holds no page yet.
        let all_there = self.remap_pack_data();
        // Indexes, when they are what is left (opening one reads its offset table), or when a
        // pack went away (a repack replaced it).
        if !all_there || grown(baseline) >= self.budget / 2 {
            self.packs.clear();
            self.packs = map_packs(&self.pack_dir, self.hash);
            self.baseline = resident_file_bytes();
            self.index_remaps += 1;
        }
    }
}

impl LargeBlob {
    pub fn size(&self) -> u64 {
        self.size
    }
}

/// A large blob read piece by piece through the archive's reader.
pub struct BlobStream<'a> {
    pub objects: &'a mut Objects,
    pub blob: LargeBlob,
}

impl crate::Stream for BlobStream<'_> {
    fn size(&self) -> u64 {
        self.blob.size
    }

    fn copy_to(&mut self, sink: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        let LargeBlob { id, size, .. } = self.blob;
        match &self.blob.place {
            Place::Packed { pack, data_offset } => self.objects.copy_packed(id, *pack, *data_offset, size, sink),
            Place::Loose(path) => copy_loose(id, path, size, sink),
        }
    }
}

/// Inflates the loose object `id` at `path` (`blob <size>\0` then the content) into `sink`:
/// exactly `size` bytes of content, or an error.
fn copy_loose(
    id: gix::ObjectId,
    path: &Path,
    size: u64,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let unreadable = |source| io::Error::from(Error::ReadLooseBlob { id, source });
    let wrong_size = || io::Error::from(Error::BlobSize { id, size });
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let mut reader = flate2::read::ZlibDecoder::new(io::BufReader::new(file));
    let mut byte = [0u8; 1];
    for _ in 0..64 {
        reader.read_exact(&mut byte).map_err(unreadable)?;
        if byte[0] == 0 {
            break;
        }
    }
    if byte[0] != 0 {
        return Err(Error::LooseHeader { id }.into());
    }
    let mut piece = vec![0u8; PIECE];
    let mut left = size;
    while left > 0 {
        let want = piece.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = reader.read(&mut piece[..want]).map_err(unreadable)?;
        if n == 0 {
            return Err(wrong_size());
        }
        sink(&piece[..n])?;
        left -= n as u64;
    }
    if reader.read(&mut byte).map_err(unreadable)? != 0 {
        return Err(wrong_size());
    }
    Ok(())
}

/// Growth of the resident file-backed memory since `baseline` (0 when it cannot be read).
fn grown(baseline: u64) -> u64 {
    resident_file_bytes().map_or(0, |now| now.saturating_sub(baseline))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(git_dir: &Path, args: &[&str]) -> Vec<u8> {
        let output = Command::new("git").arg("--git-dir").arg(git_dir).args(args).output().expect("git runs");
        assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        output.stdout
    }

    #[test]
    fn objects_read_as_git_has_them_when_remapped_at_every_check() {
        // layered.git: two packs (deltas in them) and loose objects, blobs over 1 MiB among them.
        let root = std::env::temp_dir().join(format!("fc-archive-objects-{}", std::process::id()));
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/layered.sh");
        assert!(Command::new("bash").arg(script).arg(&root).status().expect("bash runs").success());
        let git_dir = root.join("layered.git");
        let mut objects = Objects::open(&git_dir).expect("open");
        objects.budget = 0;

        let counts = String::from_utf8(git(&git_dir, &["count-objects", "-v"])).expect("UTF-8");
        assert!(counts.contains("packs: 2"), "{counts}");
        let loose_ids: std::collections::HashSet<String> = std::fs::read_dir(git_dir.join("objects"))
            .expect("objects")
            .flatten()
            .filter(|dir| dir.file_name().len() == 2)
            .flat_map(|dir| {
                std::fs::read_dir(dir.path())
                    .expect("fan-out")
                    .flatten()
                    .map(move |f| format!("{}{}", dir.file_name().to_string_lossy(), f.file_name().to_string_lossy()))
            })
            .collect();
        // Every object with its content, as `git cat-file --batch` gives them.
        let batch = git(&git_dir, &["cat-file", "--batch-all-objects", "--batch"]);
        let mut rest = &batch[..];
        let (mut seen, mut loose_read, mut streamed_packed, mut streamed_loose, mut large_deltas) = (0, 0, 0, 0, 0);
        while let Some(newline) = rest.iter().position(|b| *b == b'\n') {
            let header = std::str::from_utf8(&rest[..newline]).expect("header");
            let mut fields = header.split(' ');
            let (hex, kind, size) = (fields.next().unwrap(), fields.next().unwrap(), fields.next().unwrap());
            let size: usize = size.parse().expect("size");
            let content = &rest[newline + 1..newline + 1 + size];
            rest = &rest[newline + 2 + size..];
            let id = gix::ObjectId::from_hex(hex.as_bytes()).expect("hex");
            let kind = gix::objs::Kind::from_bytes(kind.as_bytes()).expect("kind");
            let loose = loose_ids.contains(hex);
            let mut ours = Vec::new();
            let large = match kind {
                gix::objs::Kind::Blob => objects.load_blob(&id, &mut ours).expect("load"),
                _ => objects.load(&id, kind, &mut ours).map(|()| None).expect("load"),
            };
            match large {
                Some(blob) => {
                    let mut stream = BlobStream { objects: &mut objects, blob };
                    for _ in 0..2 {
                        ours.clear();
                        crate::Stream::copy_to(&mut stream, &mut |piece| {
                            assert!(piece.len() <= PIECE);
                            ours.extend_from_slice(piece);
                            Ok(())
                        })
                        .expect("stream");
                        assert!(ours == content, "{id} streamed differs");
                    }
                    *(if loose { &mut streamed_loose } else { &mut streamed_packed }) += 1;
                }
                None => {
                    assert!(ours == content, "{id} differs");
                    loose_read += u32::from(loose);
                    large_deltas += u32::from(size as u64 >= STREAM_BYTES);
                }
            }
            assert_eq!(objects.size(&id).expect("size"), size as u64, "{id}");
            seen += 1;
        }
        assert!(seen > 60, "{seen} objects");
        assert!(
            streamed_packed >= 2 && streamed_loose >= 1 && large_deltas >= 1,
            "{streamed_packed} {streamed_loose} {large_deltas}"
        );
        assert_eq!(objects.fallbacks, loose_read, "every packed object comes from the archive's own mapping");
        if resident_file_bytes().is_some() {
            assert!(objects.pack_remaps > 0 && objects.index_remaps > 0);
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}
