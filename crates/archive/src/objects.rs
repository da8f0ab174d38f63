//! The archive's own reader of the object database, which keeps the pack pages it has read
//! from piling up in the process's resident memory.
//!
//! Pack data is read through memory maps, and every page read through a mapping stays resident
//! until the mapping goes away: by the end of an archive, the packs it read would be resident in
//! full (hundreds of MiB for a large repository). So the archive maps the pack data itself
//! (gix's pack files, outside the shared repository cache), and whenever the process's resident
//! file-backed memory has grown by its budget since the last look that found it over, it maps
//! the pack data again, which drops the old mapping and its pages with it. The pages stay in the
//! kernel's page cache, so reading them again is a minor fault, not disk I/O; the delta-base
//! cache and the inflate state outlive the remapping. Pack indexes are not mapped at all
//! (`index`), so lookups add nothing to resident memory.
//!
//! The growth is read from `/proc/self/statm` every [`CHECK_OBJECTS`] objects or
//! [`CHECK_BYTES`] of object data. Where that file does not exist nothing is remapped. An
//! archive's readers (the writer's and its loaders', `prefetch`) share [`MAPPED_BUDGET`]: each
//! remaps when the memory has grown by its share since the lowest it saw since its own last
//! remap (growth caused by the others only makes its remap come sooner, and their remaps lower
//! its baseline), so together they keep to about the whole.
//!
//! A blob of at least [`STREAM_BYTES`] stored whole (not as a delta) is not read into memory
//! at all: [`Objects::load_blob`] answers where it is and [`BlobStream`] inflates it piece by
//! piece, as often as the writer asks, reading the pack with `pread` rather than through the
//! mapping (its pages would stay resident once per reader). A large blob stored as a delta is
//! decoded whole, its chain with it (`forgecore-pack`).
//!
//! Objects the archive's packs cannot give (loose objects, packs reached through alternates or
//! only through a multi-pack index, deltas against another pack) are read through the loose
//! object store, then through a gix handle of the archive's own.

use crate::error::Error;
use crate::index::PackIndex;
use gix::odb::pack::cache::lru::StaticLinkedList;
use gix::odb::pack::data;
use gix::odb::pack::data::decode::header::ResolvedBase as HeaderBase;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Growth of the resident file-backed memory that makes the pack data map again, shared by an
/// archive's readers.
const MAPPED_BUDGET: u64 = 6 << 20;
/// Objects read between two looks at the process's resident memory.
const CHECK_OBJECTS: u32 = 16;
/// Object bytes read between two looks at the process's resident memory.
const CHECK_BYTES: u64 = 512 << 10;
/// Blobs at least this large are read piece by piece when stored whole.
const STREAM_BYTES: u64 = 1 << 20;
/// Compressed bytes read from a pack between two looks at the mapped pages while streaming.
/// Piece of a streamed blob.
const PIECE: usize = 64 * 1024;
/// Delta bases kept between objects (gix's default would be 96 MiB).
const PACK_CACHE_BYTES: usize = 2 << 20;

/// One pack: its index, read without a mapping and shared by the archive's readers, and its
/// data, mapped by each reader on its own.
struct Pack {
    index: Arc<PackIndex>,
    data: data::File,
}

impl Pack {
    /// The entry at which `id` starts, if this pack has it.
    fn entry_of(&self, id: &gix::oid) -> Option<data::Entry> {
        self.index.lookup(id).and_then(|offset| self.data.entry(offset).ok())
    }
}

pub struct Objects {
    pack_dir: PathBuf,
    hash: gix::hash::Kind,
    packs: Vec<Pack>,
    loose: gix::odb::loose::Store,
    /// Everything else; opened apart from the shared cache so that its mappings end with the
    /// archive.
    repo: gix::Repository,
    /// For object sizes (the headers of delta chains).
    inflate: gix::zlib::Inflate,
    /// Packed objects, inflated at once with libdeflate (about 0.6 to 0.8 of zlib's time).
    decoder: forgecore_pack::Decoder,
    cache: BaseCache,
    /// `RssFile` when the indexes were mapped, if the platform tells.
    baseline: Option<u64>,
    budget: u64,
    objects_since_check: u32,
    bytes_since_check: u64,
    pack_remaps: u32,
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

/// A reader to be, sent to the thread it will read on (a repository handle stays on the thread
/// that opened it).
pub struct Another {
    git_dir: PathBuf,
    packs: Vec<Pack>,
}

impl Another {
    pub fn open(self) -> Result<Objects, Error> {
        Ok(Objects::with_packs(open_repository(&self.git_dir)?, self.packs))
    }
}

/// A blob of at least [`STREAM_BYTES`] that [`BlobStream`] reads piece by piece.
pub struct LargeBlob {
    id: gix::ObjectId,
    place: Place,
    size: u64,
}

thread_local! {
    /// `/proc/self/statm`, kept open: reading it again from the start takes a microsecond,
    /// `/proc/self/status` fourteen.
    static STATM: Option<std::fs::File> = std::fs::File::open("/proc/self/statm").ok();
}

/// The process's resident file-backed (and shared) memory in bytes (Linux), `None` elsewhere:
/// the third field of `/proc/self/statm`, in pages.
fn resident_file_bytes() -> Option<u64> {
    use std::os::unix::fs::FileExt;
    let mut text = [0u8; 256];
    // `try_with`: a reader dropped with its thread's locals may still look.
    let n = STATM.try_with(|statm| statm.as_ref()?.read_at(&mut text, 0).ok()).ok()??;
    let pages: u64 = std::str::from_utf8(&text[..n]).ok()?.split_whitespace().nth(2)?.parse().ok()?;
    Some(pages * page_size()?)
}

/// The kernel's page size, as `/proc/self/smaps` states it for the first mapping.
fn page_size() -> Option<u64> {
    static PAGE: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *PAGE.get_or_init(|| {
        use std::io::BufRead;
        let smaps = io::BufReader::new(std::fs::File::open("/proc/self/smaps").ok()?);
        let line = smaps.lines().map_while(Result::ok).find(|line| line.starts_with("KernelPageSize:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    })
}

/// Every pack with an index in `pack_dir`; a pack that cannot be opened (being deleted by a
/// repack, say) is left to the fallback.
fn open_packs(pack_dir: &Path, hash: gix::hash::Kind) -> Vec<Pack> {
    let Ok(entries) = std::fs::read_dir(pack_dir) else {
        return Vec::new();
    };
    let mut indexes: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "idx"))
        .collect();
    indexes.sort();
    indexes
        .into_iter()
        .filter_map(|path| {
            let index = PackIndex::open(&path, hash.len_in_bytes())?;
            let data = data::File::at(path.with_extension("pack"), hash).ok()?;
            // An index of another pack than its namesake would answer wrong offsets.
            (index.len() == data.num_objects()).then(|| Pack { index: Arc::new(index), data })
        })
        .collect()
}

/// The same packs, each data file mapped anew (for another reader); `None` when one cannot be
/// opened again.
fn map_again(packs: &[Pack]) -> Option<Vec<Pack>> {
    packs
        .iter()
        .map(|pack| {
            let data = data::File::at(pack.data.path(), pack.data.object_hash()).ok()?;
            Some(Pack { index: Arc::clone(&pack.index), data })
        })
        .collect()
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
        let repo = open_repository(git_dir)?;
        let pack_dir = repo.objects.store_ref().path().join("pack");
        let packs = open_packs(&pack_dir, repo.object_hash());
        Ok(Objects::with_packs(repo, packs))
    }

    /// What another reader on the same repository is opened from, on another thread: the same
    /// pack indexes, the pack data mapped on its own.
    pub fn another(&self) -> Another {
        let packs = map_again(&self.packs).unwrap_or_else(|| open_packs(&self.pack_dir, self.hash));
        Another { git_dir: self.repo.git_dir().to_owned(), packs }
    }

    fn with_packs(mut repo: gix::Repository, packs: Vec<Pack>) -> Objects {
        repo.object_cache_size(None::<usize>);
        let hash = repo.object_hash();
        let objects_dir = repo.objects.store_ref().path().to_path_buf();
        let pack_dir = objects_dir.join("pack");
        Objects {
            packs,
            pack_dir,
            hash,
            loose: gix::odb::loose::Store::at(objects_dir, hash),
            repo,
            inflate: gix::zlib::Inflate::default(),
            decoder: forgecore_pack::Decoder::default(),
            cache: BaseCache(StaticLinkedList::new(PACK_CACHE_BYTES)),
            baseline: resident_file_bytes(),
            budget: MAPPED_BUDGET,
            objects_since_check: 0,
            bytes_since_check: 0,
            pack_remaps: 0,
            fallbacks: 0,
        }
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
        self.load_blob_from(id, out, STREAM_BYTES)
    }

    /// [`Objects::load_blob`] with blobs of at least `stream_from` bytes left to [`BlobStream`].
    pub fn load_blob_from(
        &mut self,
        id: &gix::oid,
        out: &mut Vec<u8>,
        stream_from: u64,
    ) -> Result<Option<LargeBlob>, Error> {
        let kind = match self.find(id, out, stream_from)? {
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

    /// Shares the mapped-page budget and the delta-base cache's bytes among `readers` readers
    /// of one archive (this one among them): each keeps to its part, so together they keep to
    /// the whole.
    pub fn share_budget(&mut self, readers: u64) {
        let readers = readers.max(1);
        self.budget = MAPPED_BUDGET / readers;
        self.cache = BaseCache(StaticLinkedList::new(PACK_CACHE_BYTES / readers as usize));
    }

    /// Keeps no delta base for later objects: for a reader of one object, whose bases nothing
    /// asks for again (keeping one is a copy of it).
    pub fn keep_no_bases(&mut self) {
        self.cache = BaseCache(StaticLinkedList::new(0));
    }

    /// Whether the resident file-backed memory has grown by the budget since the lowest it was
    /// seen since this reader last remapped: the baseline follows the memory down when other
    /// readers drop their pages, so their drops never hide this reader's growth.
    fn over_budget(&mut self) -> bool {
        let (Some(baseline), Some(now)) = (self.baseline, resident_file_bytes()) else {
            return false;
        };
        self.baseline = Some(baseline.min(now));
        now - baseline.min(now) >= self.budget
    }

    /// Maps every pack's data again (dropping the old mappings and their pages) and takes a new
    /// baseline; false when a pack could not be opened again (its old mapping stays). Growth
    /// this reader could not undo (another reader's, the host's) is not counted against it
    /// again.
    fn remap_pack_data(&mut self) -> bool {
        let mut all_there = true;
        for pack in &mut self.packs {
            match data::File::at(pack.data.path(), pack.data.object_hash()) {
                Ok(data) => pack.data = data,
                Err(_) => all_there = false,
            }
        }
        self.pack_remaps += 1;
        self.baseline = resident_file_bytes();
        all_there
    }

    /// Object `id` read into `out`, or where it is when it is a blob of at least `stream_from`
    /// bytes stored whole: from the archive's packs, else loose, else through the gix handle.
    fn find(&mut self, id: &gix::oid, out: &mut Vec<u8>, stream_from: u64) -> Result<Found, Error> {
        let unreadable = |source| Error::FindObject { id: id.to_owned(), source };
        for (i, pack) in self.packs.iter().enumerate() {
            let Some(entry) = pack.entry_of(id) else { continue };
            if entry.header == data::entry::Header::Blob && entry.decompressed_size >= stream_from {
                let place = Place::Packed { pack: i, data_offset: entry.data_offset };
                return Ok(Found::Large(LargeBlob { id: id.to_owned(), place, size: entry.decompressed_size }));
            }
            // A delta's base named by id must be in the same pack; otherwise (or on any error)
            // the object is for the fallback.
            let ref_base = |base: &gix::oid| pack.index.lookup(base);
            if let Some(kind) = self.decoder.decode(&pack.data, entry, ref_base, &mut self.cache, out) {
                return Ok(Found::Read(kind));
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
            let Some(entry) = pack.entry_of(id) else { continue };
            let resolve = |base: &gix::oid| Ok(pack.entry_of(base).map(HeaderBase::InPack));
            if let Ok(header) = pack.data.decode_header(entry, &mut self.inflate, &resolve) {
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
        if !self.over_budget() {
            return;
        }
        // Replacing a mapping drops the old one; the new one holds no page yet. When a pack
        // went away (a repack replaced it), the directory is listed again.
        if !self.remap_pack_data() {
            self.packs.clear();
            self.packs = open_packs(&self.pack_dir, self.hash);
            self.baseline = resident_file_bytes();
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

impl crate::content::Stream for BlobStream<'_> {
    fn size(&self) -> u64 {
        self.blob.size
    }

    fn copy_to(&mut self, sink: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        self.objects.copy_large(&self.blob, sink)
    }
}

impl Objects {
    /// Inflates the large blob `blob` into `sink`, piece by piece: exactly its size, or an error.
    pub fn copy_large(&mut self, blob: &LargeBlob, sink: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        let LargeBlob { id, size, .. } = *blob;
        match self.open_place(id, &blob.place)? {
            Some(opened) => copy_opened(id, opened, size, sink),
            // A repack (maintenance) moved it since it was found: its pack or its loose copy
            // is gone. The packs are listed again and it is read from where it is now.
            None => self.copy_repacked(id, size, sink),
        }
    }

    /// Opens the file `place` names; `None` when it is gone.
    fn open_place(&self, id: gix::ObjectId, place: &Place) -> io::Result<Option<Opened>> {
        let (path, opened): (&Path, fn(std::fs::File) -> Opened) = match place {
            Place::Loose(path) => (path, Opened::Loose),
            Place::Packed { pack, data_offset } => {
                let data = &self.packs.get(*pack).ok_or(Error::MissingObject { id })?.data;
                let (data_offset, pack_end) = (*data_offset, data.pack_end() as u64);
                return match std::fs::File::open(data.path()) {
                    Ok(file) => Ok(Some(Opened::Packed { file, data_offset, pack_end })),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                    Err(source) => Err(Error::ReadPackedBlob { id, source }.into()),
                };
            }
        };
        match std::fs::File::open(path) {
            Ok(file) => Ok(Some(opened(file))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(Error::ReadLooseBlob { id, source }.into()),
        }
    }

    /// Copies blob `id`, moved by a repack, from the packs listed again now: exactly `size`
    /// bytes, or an error.
    fn copy_repacked(
        &mut self,
        id: gix::ObjectId,
        size: u64,
        sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        self.packs = open_packs(&self.pack_dir, self.hash);
        self.baseline = resident_file_bytes();
        let mut out = Vec::new();
        match self.find(&id, &mut out, 0)? {
            Found::Large(blob) => match self.open_place(id, &blob.place)? {
                Some(opened) => copy_opened(id, opened, size, sink),
                None => Err(Error::MissingObject { id }.into()),
            },
            Found::Read(gix::objs::Kind::Blob) if out.len() as u64 == size => sink(&out),
            Found::Read(_) => Err(Error::BlobSize { id, size }.into()),
            Found::Missing => Err(Error::MissingObject { id }.into()),
        }
    }
}

/// The file of a large blob, open: from here on it is read even if a repack removes it.
enum Opened {
    /// A pack, the blob's zlib stream at `data_offset`, its entries ending at `pack_end`.
    Packed {
        file: std::fs::File,
        data_offset: u64,
        pack_end: u64,
    },
    Loose(std::fs::File),
}

fn copy_opened(
    id: gix::ObjectId,
    opened: Opened,
    size: u64,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    match opened {
        Opened::Packed { file, data_offset, pack_end } => copy_packed(id, &file, data_offset, pack_end, size, sink),
        Opened::Loose(file) => copy_loose(id, file, size, sink),
    }
}

/// The delta-base cache of one reader (gix's, bounded in bytes), offered only the bases of
/// the chains it decodes: the members of one tree's chains are rarely met again.
struct BaseCache(StaticLinkedList<64>);

impl forgecore_pack::Bases for BaseCache {
    const MEMBERS: bool = false;

    fn get(&mut self, pack: u32, offset: u64, out: &mut Vec<u8>) -> Option<gix::objs::Kind> {
        gix::odb::pack::cache::DecodeEntry::get(&mut self.0, pack, offset, out).map(|(kind, _)| kind)
    }

    fn put(&mut self, pack: u32, offset: u64, data: &[u8], kind: gix::objs::Kind) {
        gix::odb::pack::cache::DecodeEntry::put(&mut self.0, pack, offset, data, kind, 0);
    }
}

/// Inflates the zlib stream of blob `id` at `data_offset` of the pack `file` (whose entries
/// end at `pack_end`) into `sink`: exactly `size` bytes, or an error.
fn copy_packed(
    id: gix::ObjectId,
    file: &std::fs::File,
    data_offset: u64,
    pack_end: u64,
    size: u64,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let wrong_size = || io::Error::from(Error::BlobSize { id, size });
    // Read with pread, not through the pack's mapping: pages read through a mapping stay
    // resident for as long as it lives, once per reader (a hundred clients of one large blob
    // would hold a hundred copies of what each has read); these reads only pass through the
    // page cache.
    let mut inflate = flate2::Decompress::new(true);
    let (mut input, mut out) = (vec![0u8; PIECE], vec![0u8; PIECE]);
    let mut pos = data_offset;
    loop {
        let want = usize::try_from(pack_end.saturating_sub(pos)).unwrap_or(usize::MAX).min(PIECE);
        let read = file.read_at(&mut input[..want], pos).map_err(|source| Error::ReadPackedBlob { id, source })?;
        let (before_in, before_out) = (inflate.total_in(), inflate.total_out());
        let status = inflate
            .decompress(&input[..read], &mut out, flate2::FlushDecompress::None)
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
    }
    if inflate.total_out() != size {
        return Err(wrong_size());
    }
    Ok(())
}

/// Inflates the loose object `id` in `file` (`blob <size>\0` then the content) into `sink`:
/// exactly `size` bytes of content, or an error.
fn copy_loose(
    id: gix::ObjectId,
    file: std::fs::File,
    size: u64,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let unreadable = |source| io::Error::from(Error::ReadLooseBlob { id, source });
    let wrong_size = || io::Error::from(Error::BlobSize { id, size });
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(git_dir: &Path, args: &[&str]) -> Vec<u8> {
        let output = Command::new("git").arg("--git-dir").arg(git_dir).args(args).output().expect("git runs");
        assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        output.stdout
    }

    /// The whole of the large blob `blob`, read piece by piece; `what` names the read if it fails.
    fn read_large(objects: &mut Objects, blob: &LargeBlob, what: &str) -> Vec<u8> {
        let mut read = Vec::new();
        objects
            .copy_large(blob, &mut |piece| {
                read.extend_from_slice(piece);
                Ok(())
            })
            .expect(what);
        read
    }

    #[test]
    fn a_large_blob_repacked_after_it_was_found_is_read_from_where_it_is_now() {
        // As maintenance does it: `git repack -d` packs the blob and removes its loose copy
        // between the lookup and the read.
        let root = std::env::temp_dir().join(format!("fc-archive-repacked-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let git_dir = root.join("r.git");
        let init = Command::new("git").args(["init", "-q", "--bare"]).arg(&git_dir).status().expect("git runs");
        assert!(init.success());
        let content: Vec<u8> = (0..3_000_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        std::fs::write(root.join("big"), &content).expect("write");
        let hex = String::from_utf8(git(&git_dir, &["hash-object", "-w", root.join("big").to_str().unwrap()]))
            .expect("UTF-8");
        let id = gix::ObjectId::from_hex(hex.trim().as_bytes()).expect("hex");
        git(&git_dir, &["tag", "big", hex.trim()]); // reachable, so that the repack packs it
        let mut objects = Objects::open(&git_dir).expect("open");
        let blob = objects.load_blob(&id, &mut Vec::new()).expect("load").expect("a large blob");
        assert!(matches!(blob.place, Place::Loose(_)));
        git(&git_dir, &["repack", "-adq"]);
        assert!(!objects.loose.contains(&id), "the loose copy is gone");
        assert!(read_large(&mut objects, &blob, "read from the new pack") == content, "the content");
        // Found in that pack, which the next repack (another object to pack) replaces.
        let blob = objects.load_blob(&id, &mut Vec::new()).expect("load").expect("a large blob");
        assert!(matches!(blob.place, Place::Packed { .. }));
        std::fs::write(root.join("small"), b"another object\n").expect("write");
        let other = String::from_utf8(git(&git_dir, &["hash-object", "-w", root.join("small").to_str().unwrap()]))
            .expect("UTF-8");
        git(&git_dir, &["tag", "small", other.trim()]);
        git(&git_dir, &["repack", "-adq"]);
        let read = read_large(&mut objects, &blob, "read from the pack that replaced it");
        assert!(read == content, "the content, again");
        std::fs::remove_dir_all(&root).expect("clean up");
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
                        crate::content::Stream::copy_to(&mut stream, &mut |piece| {
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
            assert!(objects.pack_remaps > 0);
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}
