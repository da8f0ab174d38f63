//! The zip container with the members and attributes of git's `archive-zip.c`: directories
//! (and submodules) as `name/` with the MS-DOS directory bit, plain files with no Unix mode,
//! executables as `0100755` and symlinks as `0120777` (made by Unix, the target as content),
//! names as raw bytes (the UTF-8 flag when they are non-ASCII UTF-8), an extended-timestamp
//! field with the commit time, deflate (level 6) unless storing is smaller, ZIP64 records
//! past 65535 entries or 4 GiB, and the commit id as the archive comment.
//!
//! Differences from git that no member shows: DOS times are UTC (git uses the server's local
//! time zone). Content read piece by piece (LFS objects, large blobs), which git holds whole
//! below 512 MiB, is deflated in independent 1 MiB pieces on the workers (as `pigz` does: one
//! valid deflate stream, a little larger than one deflated whole) as it is read for its CRC, and
//! the deflated bytes are spooled until the header, which needs their size, is written; stored
//! instead, it is read a second time. Nothing of it is held in memory past 1 MiB.
//! Members are prepared (CRC, deflate) in batches of up to 1 MiB on the worker threads of
//! [`Ordered`] and written in order, so the output does not depend on the number of workers.
//! The central directory and a streamed member's deflated bytes are kept in memory up to 1 MiB,
//! then in an unlinked temporary file.

use crate::content::{Content, Sink, Stream};
use crate::error::Error;
use crate::ordered::Ordered;
use flate2::{Compress, Compression, FlushCompress, Status};
use forgecore_content::BinaryProbe;
use forgecore_date::civil_from_days;
use std::fs::File;
use std::io::{self, Read, Seek, Write};

const UTF8_FLAG: u16 = 1 << 11;
const METHOD_STORE: u16 = 0;
const METHOD_DEFLATE: u16 = 8;
/// git's `creator_version` for executables and symlinks: made by Unix, spec 2.3.
const CREATOR_UNIX: u16 = 0x0317;
/// Bytes a [`Spool`] keeps in memory before they move to a temporary file.
const SPOOL_MEMORY: usize = 1 << 20;

pub struct Zip<W: Write> {
    out: W,
    commit_hex: String,
    mtime: u32,
    dos_time: u16,
    dos_date: u16,
    offset: u64,
    entries: u64,
    max_creator: u16,
    dir: Spool,
    /// Members waiting to be prepared (CRC, deflate) by the workers, in archive order.
    batch: Vec<Item>,
    batch_bytes: usize,
    pool: Ordered<Vec<Item>, io::Result<Vec<Prepared>>>,
    /// The workers that deflate streamed members' pieces, started with the first.
    pieces: Option<Ordered<Piece, io::Result<Deflated>>>,
}

/// Largest batch of member data handed to one worker at a time.
const BATCH_BYTES: usize = 512 << 10;
const BATCH_ITEMS: usize = 4096;

/// A member as the walk gives it.
enum Item {
    Dir(Vec<u8>),
    Link { path: Vec<u8>, target: Vec<u8>, text: Option<bool> },
    File { path: Vec<u8>, executable: bool, data: Vec<u8>, text: Option<bool> },
}

/// A member ready to be written: its header facts and the bytes that follow the header.
struct Prepared {
    path: Vec<u8>,
    method: u16,
    crc: u32,
    size: u64,
    creator: u16,
    external: u32,
    text: bool,
    payload: Vec<u8>,
}

/// Raw deflate (level 6) of `data` into `out`, from an empty window: a whole stream (`last`),
/// or one piece of a longer one, ended on a byte boundary with a sync flush.
fn deflate(deflater: &mut Compress, data: &[u8], last: bool, out: &mut Vec<u8>) -> io::Result<()> {
    deflater.reset();
    out.clear();
    out.reserve(data.len() / 2 + 64);
    let flush = if last { FlushCompress::Finish } else { FlushCompress::Sync };
    loop {
        let consumed = deflater.total_in() as usize;
        let status = deflater.compress_vec(&data[consumed..], out, flush).map_err(Error::Deflate)?;
        let done = if last {
            status == Status::StreamEnd
        } else {
            deflater.total_in() as usize == data.len() && out.len() < out.capacity()
        };
        if done {
            return Ok(());
        }
        out.reserve(out.capacity().max(4096));
    }
}

/// Bytes of a streamed member deflated as one independent piece.
const PIECE_BYTES: usize = 1 << 20;

/// A piece of a streamed member's content, to be deflated on a worker.
struct Piece {
    data: Vec<u8>,
    /// The member's last piece: its deflate ends the stream.
    last: bool,
    /// Whether the deflated bytes are wanted, or only their number.
    keep: bool,
}

/// A piece deflated.
struct Deflated {
    size: usize,
    bytes: Vec<u8>,
}

/// One piece of a longer stream deflated as `pigz` cuts one (the last with the final block):
/// the pieces in order are one valid deflate stream.
fn deflate_piece(deflater: &mut Compress, piece: Piece) -> io::Result<Deflated> {
    let mut out = Vec::new();
    deflate(deflater, &piece.data, piece.last, &mut out)?;
    let size = out.len();
    Ok(Deflated { size, bytes: if piece.keep { out } else { Vec::new() } })
}

/// A streamed member's content cut into pieces of [`PIECE_BYTES`] that the workers deflate,
/// handed back in order. The cut depends only on the content, so both reads give the same
/// deflated bytes.
struct Pieces<'p> {
    pool: &'p mut Ordered<Piece, io::Result<Deflated>>,
    filling: Vec<u8>,
    /// Bytes fed so far, and the member's size.
    fed: u64,
    size: u64,
    keep: bool,
}

impl<'p> Pieces<'p> {
    fn new(pool: &'p mut Ordered<Piece, io::Result<Deflated>>, size: u64, keep: bool) -> Pieces<'p> {
        Pieces { pool, filling: Vec::with_capacity(PIECE_BYTES), fed: 0, size, keep }
    }

    fn feed(&mut self, mut data: &[u8], out: &mut dyn FnMut(Deflated) -> io::Result<()>) -> io::Result<()> {
        while !data.is_empty() {
            let n = (PIECE_BYTES - self.filling.len()).min(data.len());
            self.filling.extend_from_slice(&data[..n]);
            self.fed += n as u64;
            data = &data[n..];
            // A full piece that ends the content waits for `finish`, which marks it last.
            if self.filling.len() == PIECE_BYTES && self.fed < self.size {
                self.submit(false, out)?;
            }
        }
        Ok(())
    }

    fn submit(&mut self, last: bool, out: &mut dyn FnMut(Deflated) -> io::Result<()>) -> io::Result<()> {
        let data = std::mem::replace(&mut self.filling, Vec::with_capacity(if last { 0 } else { PIECE_BYTES }));
        if let Some(done) = self.pool.submit(Piece { data, last, keep: self.keep })? {
            out(done?)?;
        }
        Ok(())
    }

    /// Deflates the last piece and hands over every piece still in flight.
    fn finish(mut self, out: &mut dyn FnMut(Deflated) -> io::Result<()>) -> io::Result<()> {
        self.submit(true, out)?;
        while let Some(done) = self.pool.collect()? {
            out(done?)?;
        }
        Ok(())
    }
}

/// git's choices for one member: deflate unless storing is no larger, its attributes.
fn prepare(item: Item, deflater: &mut Compress) -> io::Result<Prepared> {
    Ok(match item {
        Item::Dir(mut path) => {
            path.push(b'/');
            Prepared {
                path,
                method: METHOD_STORE,
                crc: 0,
                size: 0,
                creator: 0,
                external: 16,
                text: false,
                payload: Vec::new(),
            }
        }
        Item::Link { path, target, text } => Prepared {
            path,
            method: METHOD_STORE,
            crc: crc32(&target),
            size: target.len() as u64,
            creator: CREATOR_UNIX,
            external: 0o120777 << 16,
            text: text.unwrap_or_else(|| !forgecore_content::is_binary(&target)),
            payload: target,
        },
        Item::File { path, executable, data, text } => {
            let crc = crc32(&data);
            let text = text.unwrap_or_else(|| !forgecore_content::is_binary(&data));
            let mut method = METHOD_STORE;
            let mut payload = data;
            let size = payload.len() as u64;
            if !payload.is_empty() {
                let mut deflated = Vec::new();
                deflate(deflater, &payload, true, &mut deflated)?;
                if deflated.len() < payload.len() {
                    method = METHOD_DEFLATE;
                    payload = deflated;
                }
            }
            Prepared {
                path,
                method,
                crc,
                size,
                creator: if executable { CREATOR_UNIX } else { 0 },
                external: if executable { 0o100755 << 16 } else { 0 },
                text,
                payload,
            }
        }
    })
}

/// MS-DOS (time, date) of a Unix time in UTC, clamped to the years DOS can say (1980-2107).
fn dos_time_date(seconds: i64) -> (u16, u16) {
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    if year < 1980 {
        return (0, (1 << 5) | 1);
    }
    if year > 2107 {
        return ((23 << 11) | (59 << 5) | 29, (127 << 9) | (12 << 5) | 31);
    }
    let secs = seconds.rem_euclid(86_400);
    let (hour, minute, second) = (secs / 3600, secs / 60 % 60, secs % 60);
    let time = (hour << 11) | (minute << 5) | (second / 2);
    let date = ((year - 1980) << 9) | (i64::from(month) << 5) | i64::from(day);
    (time as u16, date as u16)
}

fn le16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn le32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn le64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn crc32(data: &[u8]) -> u32 {
    let mut crc = flate2::Crc::new();
    crc.update(data);
    crc.sum()
}
fn clamp32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// One member's header facts.
struct Member<'a> {
    path: &'a [u8],
    method: u16,
    crc: u32,
    compressed: u64,
    size: u64,
    creator: u16,
    external: u32,
    text: bool,
}

impl<W: Write> Zip<W> {
    pub fn new(out: W, commit: &gix::oid, commit_time: i64) -> io::Result<Zip<W>> {
        let (dos_time, dos_date) = dos_time_date(commit_time);
        let pool = Ordered::new("zip", || {
            let mut deflater = Compress::new(Compression::new(6), false);
            move |batch: Vec<Item>| batch.into_iter().map(|item| prepare(item, &mut deflater)).collect()
        })?;
        Ok(Zip {
            out,
            commit_hex: commit.to_hex().to_string(),
            mtime: u32::try_from(commit_time.max(0)).unwrap_or(u32::MAX),
            dos_time,
            dos_date,
            offset: 0,
            entries: 0,
            max_creator: 0,
            dir: Spool::default(),
            batch: Vec::new(),
            batch_bytes: 0,
            pool,
            pieces: None,
        })
    }

    fn emit(&mut self, prepared: io::Result<Vec<Prepared>>) -> io::Result<()> {
        for member in prepared? {
            self.begin(&Member {
                path: &member.path,
                method: member.method,
                crc: member.crc,
                compressed: member.payload.len() as u64,
                size: member.size,
                creator: member.creator,
                external: member.external,
                text: member.text,
            })?;
            self.put(&member.payload)?;
        }
        Ok(())
    }

    fn push(&mut self, item: Item, bytes: usize) -> io::Result<()> {
        self.batch.push(item);
        self.batch_bytes += bytes;
        if self.batch_bytes >= BATCH_BYTES || self.batch.len() >= BATCH_ITEMS {
            self.submit()?;
        }
        Ok(())
    }

    fn submit(&mut self) -> io::Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        self.batch_bytes = 0;
        let batch = std::mem::take(&mut self.batch);
        if let Some(prepared) = self.pool.submit(batch)? {
            self.emit(prepared)?;
        }
        Ok(())
    }

    /// Writes every member handed out so far.
    fn drain(&mut self) -> io::Result<()> {
        self.submit()?;
        while let Some(prepared) = self.pool.collect()? {
            self.emit(prepared)?;
        }
        Ok(())
    }

    fn put(&mut self, data: &[u8]) -> io::Result<()> {
        self.out.write_all(data)?;
        self.offset += data.len() as u64;
        Ok(())
    }

    fn timestamp_extra(&self, out: &mut Vec<u8>) {
        le16(out, 0x5455);
        le16(out, 5);
        out.push(1);
        le32(out, self.mtime);
    }

    /// Writes the local header of `member` and records its central directory entry.
    fn begin(&mut self, member: &Member<'_>) -> io::Result<()> {
        if member.path.len() > 0xffff {
            return Err(Error::MemberNameTooLong { name: member.path.into() }.into());
        }
        let mut flags = 0;
        if !member.path.is_ascii() && std::str::from_utf8(member.path).is_ok() {
            flags |= UTF8_FLAG;
        }
        let zip64_sizes = member.size > 0xffff_fffe || member.compressed > 0xffff_fffe;
        let offset = self.offset;
        let version_needed: u16 = if zip64_sizes { 45 } else { 10 };
        self.max_creator = self.max_creator.max(member.creator);

        let mut local = Vec::with_capacity(30 + member.path.len() + 29);
        le32(&mut local, 0x0403_4b50);
        le16(&mut local, version_needed);
        le16(&mut local, flags);
        le16(&mut local, member.method);
        le16(&mut local, self.dos_time);
        le16(&mut local, self.dos_date);
        le32(&mut local, member.crc);
        le32(&mut local, if zip64_sizes { u32::MAX } else { clamp32(member.compressed) });
        le32(&mut local, if zip64_sizes { u32::MAX } else { clamp32(member.size) });
        le16(&mut local, member.path.len() as u16);
        le16(&mut local, if zip64_sizes { 9 + 20 } else { 9 });
        local.extend_from_slice(member.path);
        self.timestamp_extra(&mut local);
        if zip64_sizes {
            le16(&mut local, 0x0001);
            le16(&mut local, 16);
            le64(&mut local, member.size);
            le64(&mut local, member.compressed);
        }
        self.put(&local)?;

        let mut zip64 = Vec::new();
        if zip64_sizes {
            le64(&mut zip64, member.size);
            le64(&mut zip64, member.compressed);
        }
        if offset > 0xffff_fffe {
            le64(&mut zip64, offset);
        }
        let mut central = Vec::with_capacity(46 + member.path.len() + 9 + 4 + zip64.len());
        le32(&mut central, 0x0201_4b50);
        le16(&mut central, member.creator);
        le16(&mut central, if zip64.is_empty() { version_needed } else { 45 });
        le16(&mut central, flags);
        le16(&mut central, member.method);
        le16(&mut central, self.dos_time);
        le16(&mut central, self.dos_date);
        le32(&mut central, member.crc);
        le32(&mut central, if zip64_sizes { u32::MAX } else { clamp32(member.compressed) });
        le32(&mut central, if zip64_sizes { u32::MAX } else { clamp32(member.size) });
        le16(&mut central, member.path.len() as u16);
        le16(&mut central, 9 + if zip64.is_empty() { 0 } else { 4 + zip64.len() as u16 });
        le16(&mut central, 0);
        le16(&mut central, 0);
        le16(&mut central, u16::from(member.text));
        le32(&mut central, member.external);
        le32(&mut central, if offset > 0xffff_fffe { u32::MAX } else { clamp32(offset) });
        central.extend_from_slice(member.path);
        self.timestamp_extra(&mut central);
        if !zip64.is_empty() {
            le16(&mut central, 0x0001);
            le16(&mut central, zip64.len() as u16);
            central.extend_from_slice(&zip64);
        }
        self.dir.push(&central)?;
        self.entries += 1;
        Ok(())
    }

    /// A member whose content is read piece by piece, git's header (sizes and CRC before the
    /// content) written all the same: the content is read once for its CRC, its text bit and
    /// its deflated size, deflated in independent pieces on the workers (`Pieces`) and the
    /// deflated bytes spooled; then the header, and the spooled bytes. Stored instead (storing
    /// is no larger, as [`prepare`] decides for members in memory), or when the spool cannot be
    /// kept, the content is read a second time.
    fn file_stream(
        &mut self,
        path: &[u8],
        executable: bool,
        stream: &mut dyn Stream,
        text: Option<bool>,
    ) -> io::Result<()> {
        let size = stream.size();
        let mut pool = match self.pieces.take() {
            Some(pool) => pool,
            None => Ordered::new("zip-piece", || {
                let mut deflater = Compress::new(Compression::new(6), false);
                move |piece: Piece| deflate_piece(&mut deflater, piece)
            })?,
        };
        let (mut crc, mut probe, mut deflated) = (flate2::Crc::new(), BinaryProbe::default(), 0u64);
        // Kept while the deflated bytes are fewer than the content's: past that it is stored.
        let mut spool = Some(Spool::default());
        let mut keep = |piece: Deflated| {
            deflated += piece.size as u64;
            if deflated >= size || spool.as_mut().is_some_and(|spool| spool.push(&piece.bytes).is_err()) {
                spool = None;
            }
            Ok(())
        };
        let mut pieces = Pieces::new(&mut pool, size, true);
        stream.copy_to(&mut |chunk| {
            crc.update(chunk);
            probe.feed(chunk);
            pieces.feed(chunk, &mut keep)
        })?;
        pieces.finish(&mut keep)?;
        let crc = crc.sum();
        let deflate = size > 0 && deflated < size;
        let member = Member {
            path,
            method: if deflate { METHOD_DEFLATE } else { METHOD_STORE },
            crc,
            compressed: if deflate { deflated } else { size },
            size,
            creator: if executable { CREATOR_UNIX } else { 0 },
            external: if executable { 0o100755 << 16 } else { 0 },
            text: text.unwrap_or(!probe.is_binary()),
        };
        self.begin(&member)?;
        let start = self.offset;
        match spool {
            Some(mut spool) if deflate => spool.copy_to(&mut |chunk| self.put(chunk))?,
            _ => {
                let mut again = flate2::Crc::new();
                let mut pieces = Pieces::new(&mut pool, size, true);
                stream.copy_to(&mut |chunk| {
                    again.update(chunk);
                    if deflate {
                        pieces.feed(chunk, &mut |piece| self.put(&piece.bytes))
                    } else {
                        self.put(chunk)
                    }
                })?;
                if deflate {
                    pieces.finish(&mut |piece| self.put(&piece.bytes))?;
                }
                if again.sum() != crc {
                    return Err(Error::MemberChanged { name: path.into() }.into());
                }
            }
        }
        self.pieces = Some(pool);
        if self.offset - start != member.compressed {
            return Err(Error::MemberChanged { name: path.into() }.into());
        }
        Ok(())
    }

    /// The central directory, the ZIP64 end records when needed, and the end record with the
    /// commit id as comment.
    pub fn finish(mut self) -> io::Result<()> {
        self.drain()?;
        let pool = std::mem::replace(&mut self.pool, Ordered::empty());
        pool.join();
        if let Some(pieces) = self.pieces.take() {
            pieces.join();
        }
        let dir_offset = self.offset;
        let dir_size = self.dir.len;
        let mut dir = std::mem::take(&mut self.dir);
        dir.copy_to(&mut |chunk: &[u8]| self.put(chunk))?;
        let clamped = self.entries > 0xfffe || dir_offset > 0xffff_fffe || dir_size > 0xffff_fffe;
        let mut end = Vec::with_capacity(56 + 20 + 22 + self.commit_hex.len());
        if clamped {
            let record_offset = self.offset;
            le32(&mut end, 0x0606_4b50);
            le64(&mut end, 44);
            le16(&mut end, self.max_creator);
            le16(&mut end, 45);
            le32(&mut end, 0);
            le32(&mut end, 0);
            le64(&mut end, self.entries);
            le64(&mut end, self.entries);
            le64(&mut end, dir_size);
            le64(&mut end, dir_offset);
            le32(&mut end, 0x0706_4b50);
            le32(&mut end, 0);
            le64(&mut end, record_offset);
            le32(&mut end, 1);
        }
        let entries16 = u16::try_from(self.entries).unwrap_or(u16::MAX);
        le32(&mut end, 0x0605_4b50);
        le16(&mut end, 0);
        le16(&mut end, 0);
        le16(&mut end, entries16);
        le16(&mut end, entries16);
        le32(&mut end, clamp32(dir_size));
        le32(&mut end, clamp32(dir_offset));
        le16(&mut end, self.commit_hex.len() as u16);
        end.extend_from_slice(self.commit_hex.as_bytes());
        self.put(&end)?;
        self.out.flush()
    }
}

impl<W: Write> Sink for Zip<W> {
    fn directory(&mut self, path: &[u8], _id: &gix::oid) -> io::Result<()> {
        self.push(Item::Dir(path.to_vec()), path.len())
    }

    fn file(
        &mut self,
        path: &[u8],
        _id: &gix::oid,
        executable: bool,
        content: Content<'_>,
        text: Option<bool>,
    ) -> io::Result<()> {
        match content {
            Content::Bytes(data) => self.push(
                Item::File { path: path.to_vec(), executable, data: data.to_vec(), text },
                path.len() + data.len(),
            ),
            Content::Stream(stream) => {
                self.drain()?;
                self.file_stream(path, executable, stream, text)
            }
        }
    }

    fn symlink(&mut self, path: &[u8], _id: &gix::oid, target: &[u8], text: Option<bool>) -> io::Result<()> {
        self.push(Item::Link { path: path.to_vec(), target: target.to_vec(), text }, path.len() + target.len())
    }
}

/// Bytes kept for later as they grow (the central directory, a streamed member's deflated
/// content): in memory up to [`SPOOL_MEMORY`], then in an unlinked temporary file.
#[derive(Default)]
struct Spool {
    memory: Vec<u8>,
    file: Option<File>,
    len: u64,
}

impl Spool {
    fn push(&mut self, record: &[u8]) -> io::Result<()> {
        self.memory.extend_from_slice(record);
        self.len += record.len() as u64;
        if self.memory.len() >= SPOOL_MEMORY {
            if self.file.is_none() {
                self.file = Some(anonymous_file().map_err(Error::TemporaryFile)?);
            }
            if let Some(file) = self.file.as_mut() {
                file.write_all(&self.memory).map_err(Error::TemporaryFile)?;
            }
            self.memory.clear();
        }
        Ok(())
    }

    fn copy_to(&mut self, sink: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        if let Some(file) = self.file.as_mut() {
            file.seek(io::SeekFrom::Start(0)).map_err(Error::TemporaryFile)?;
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let n = file.read(&mut buf).map_err(Error::TemporaryFile)?;
                if n == 0 {
                    break;
                }
                sink(&buf[..n])?;
            }
        }
        sink(&self.memory)
    }
}

/// A new temporary file that no other process can find: created exclusively, then unlinked.
fn anonymous_file() -> io::Result<File> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let path = dir.join(format!(".forgecore-zip-{}-{n}-{nanos}", std::process::id()));
        match std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path) {
            Ok(file) => {
                let _ = std::fs::remove_file(&path);
                return Ok(file);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Content in memory, served as a stream in 64 KiB pieces; counts its reads.
    struct Served {
        data: Vec<u8>,
        reads: usize,
    }

    impl Stream for Served {
        fn size(&self) -> u64 {
            self.data.len() as u64
        }
        fn copy_to(&mut self, sink: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
            self.reads += 1;
            self.data.chunks(64 << 10).try_for_each(sink)
        }
    }

    /// A zip of the one streamed member `big.txt`: its method, CRC, size and content as the
    /// local header and a third-party inflate give them, and how often the content was read.
    fn streamed_member(data: Vec<u8>) -> (u16, u32, u64, Vec<u8>, usize) {
        let mut served = Served { data, reads: 0 };
        let mut out = Vec::new();
        let mut zip = Zip::new(&mut out, &gix::ObjectId::null(gix::hash::Kind::Sha1), 0).expect("zip");
        zip.file(b"big.txt", &gix::ObjectId::null(gix::hash::Kind::Sha1), false, Content::Stream(&mut served), None)
            .expect("member");
        zip.finish().expect("finish");
        let u16_at = |at: usize| u16::from_le_bytes([out[at], out[at + 1]]);
        let u32_at = |at: usize| u32::from_le_bytes([out[at], out[at + 1], out[at + 2], out[at + 3]]);
        let (method, crc, compressed, size) = (u16_at(8), u32_at(14), u64::from(u32_at(18)), u64::from(u32_at(22)));
        let start = 30 + usize::from(u16_at(26)) + usize::from(u16_at(28));
        let stored = &out[start..start + compressed as usize];
        let mut content = Vec::new();
        if method == METHOD_DEFLATE {
            flate2::read::DeflateDecoder::new(stored).read_to_end(&mut content).expect("inflates");
        } else {
            content = stored.to_vec();
        }
        assert_eq!(content.len() as u64, size);
        (method, crc, compressed, content, served.reads)
    }

    /// A fixed sequence of pseudo-random numbers.
    fn generator() -> impl Iterator<Item = u64> {
        std::iter::successors(Some(0x2545_f491_4f6c_dd1du64), |x| {
            Some(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407))
        })
    }

    /// `lines` lines of the numbers in decimal: deflate halves them.
    fn numbers(lines: usize) -> Vec<u8> {
        generator().take(lines).flat_map(|x| format!("{x}\n").into_bytes()).collect()
    }

    /// `len` bytes deflate cannot shrink: the numbers' top bytes.
    fn noise(len: usize) -> Vec<u8> {
        generator().take(len).map(|x| (x >> 56) as u8).collect()
    }

    #[test]
    fn a_streamed_member_is_read_once_when_deflated_and_twice_when_stored() {
        // Deflated past the spool's memory (the spool moves to a temporary file), and within it.
        for lines in [200_000, 60_000] {
            let data = numbers(lines);
            let (method, crc, compressed, content, reads) = streamed_member(data.clone());
            assert_eq!(method, METHOD_DEFLATE);
            assert!(content == data, "{lines} lines: the content inflates back");
            assert_eq!(crc, crc32(&data));
            assert_eq!(reads, 1, "{lines} lines: read once");
            let spilled = compressed > SPOOL_MEMORY as u64;
            assert_eq!(spilled, lines == 200_000, "{lines} lines: {compressed} deflated bytes");
        }
        // Bytes deflate cannot shrink: stored, read a second time.
        let raw = noise(3 << 20);
        let (method, crc, compressed, content, reads) = streamed_member(raw.clone());
        assert_eq!((method, compressed), (METHOD_STORE, raw.len() as u64));
        assert!(content == raw);
        assert_eq!((crc, reads), (crc32(&raw), 2));
    }

    #[test]
    fn dos_times_are_utc() {
        // 2023-11-14 22:13:20 UTC
        let (time, date) = dos_time_date(1_700_000_000);
        assert_eq!(date, ((2023 - 1980) << 9) | (11 << 5) | 14);
        assert_eq!(time, (22 << 11) | (13 << 5) | 10);
        assert_eq!(dos_time_date(0), (0, (1 << 5) | 1));
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }
}
