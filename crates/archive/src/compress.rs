//! gzip and bzip2 of the tar stream on worker threads, as a series of independent members.
//!
//! The stream is cut into chunks of a fixed size; each chunk becomes one complete gzip member
//! (RFC 1952 allows many; `gzip`, Python, Go and `tar` read them as one stream) or one bzip2
//! stream (concatenated streams as `pbzip2` writes them; `bzip2`, Python and `tar` read them).
//! Chunks go round-robin to the workers and come back in order, so the output depends only on
//! the input and the chunk size, never on the number of workers or their timing: the same
//! request gives the same bytes on any machine. gzip members carry no time and no name.
//!
//! Memory: two workers at most, whatever the machine, so the peak does not grow with the core
//! count. Each holds at most one chunk and its compressed form, plus one chunk being filled,
//! and its compressor's state: about 4.4 MB for bzip2 with 500k blocks (`bzip2 -5`), chosen
//! over `-9` (7.6 MB a worker) to keep a host's peak under 64 MiB, for output about 5% larger.

use crate::error::Error;
use crate::ordered::Ordered;
use flate2::{Compression, GzBuilder};
use std::io::{self, Write};

/// Bytes per gzip member: large enough that the lost history costs little, small enough that
/// the workers stay busy.
const GZIP_CHUNK: usize = 512 << 10;
/// bzip2 block size in units of 100 kB (see the module's note on memory).
const BZIP2_LEVEL: u32 = 5;
/// Bytes per bzip2 stream: about one block.
const BZIP2_CHUNK: usize = BZIP2_LEVEL as usize * 100_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    Gzip,
    Bzip2,
}

impl Codec {
    fn chunk_size(self) -> usize {
        match self {
            Codec::Gzip => GZIP_CHUNK,
            Codec::Bzip2 => BZIP2_CHUNK,
        }
    }

    /// One complete member holding `data`; a failure is [`Error::Compress`].
    fn compress(self, data: &[u8]) -> io::Result<Vec<u8>> {
        self.encode(data).map_err(|e| Error::Compress(e).into())
    }

    fn encode(self, data: &[u8]) -> io::Result<Vec<u8>> {
        match self {
            Codec::Gzip => {
                // `gzip -n`: no name, no time; level 6 as `git archive` uses.
                let mut encoder = GzBuilder::new()
                    .mtime(0)
                    .operating_system(3)
                    .write(Vec::with_capacity(data.len() / 3 + 64), Compression::new(6));
                encoder.write_all(data)?;
                encoder.finish()
            }
            Codec::Bzip2 => {
                let mut encoder = bzip2::write::BzEncoder::new(
                    Vec::with_capacity(data.len() / 3 + 64),
                    bzip2::Compression::new(BZIP2_LEVEL),
                );
                encoder.write_all(data)?;
                encoder.finish()
            }
        }
    }
}

/// A `Write` that compresses what it is given into `out` as a series of members.
pub struct Members<W: Write> {
    out: W,
    codec: Codec,
    chunk: Vec<u8>,
    pool: Ordered<Vec<u8>, io::Result<Vec<u8>>>,
    any_input: bool,
}

impl<W: Write> Members<W> {
    pub fn new(out: W, codec: Codec) -> io::Result<Members<W>> {
        let pool = Ordered::new("z", || move |data: Vec<u8>| codec.compress(&data))?;
        Ok(Members { out, codec, chunk: Vec::with_capacity(codec.chunk_size()), pool, any_input: false })
    }

    fn dispatch(&mut self) -> io::Result<()> {
        let data = std::mem::replace(&mut self.chunk, Vec::with_capacity(self.codec.chunk_size()));
        if let Some(compressed) = self.pool.submit(data)? {
            self.out.write_all(&compressed?)?;
        }
        Ok(())
    }

    /// Compresses the last chunk, writes every member in order and stops the workers.
    pub fn finish(mut self) -> io::Result<()> {
        if !self.chunk.is_empty() || !self.any_input {
            self.dispatch()?;
        }
        while let Some(compressed) = self.pool.collect()? {
            self.out.write_all(&compressed?)?;
        }
        self.pool.join();
        self.out.flush()
    }
}

impl<W: Write> Write for Members<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.any_input |= !data.is_empty();
        let size = self.codec.chunk_size();
        let mut rest = data;
        while !rest.is_empty() {
            let room = size - self.chunk.len();
            let n = room.min(rest.len());
            self.chunk.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            if self.chunk.len() == size {
                self.dispatch()?;
            }
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn roundtrip(codec: Codec, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut members = Members::new(&mut out, codec).expect("workers start");
        for piece in data.chunks(7919) {
            members.write_all(piece).expect("write");
        }
        members.finish().expect("finish");
        out
    }

    #[test]
    fn members_decompress_to_the_input_and_are_deterministic() {
        let data: Vec<u8> = (0..2_000_000u32).map(|i| (i % 251) as u8 ^ (i / 4096) as u8).collect();
        for codec in [Codec::Gzip, Codec::Bzip2] {
            let first = roundtrip(codec, &data);
            assert_eq!(first, roundtrip(codec, &data), "{codec:?} output differs between runs");
            let mut back = Vec::new();
            match codec {
                Codec::Gzip => flate2::read::MultiGzDecoder::new(&first[..]).read_to_end(&mut back),
                Codec::Bzip2 => bzip2::read::MultiBzDecoder::new(&first[..]).read_to_end(&mut back),
            }
            .expect("decompresses");
            assert_eq!(back, data, "{codec:?}");
        }
        // Empty input still gives one valid member.
        let empty = roundtrip(Codec::Gzip, b"");
        let mut back = Vec::new();
        flate2::read::MultiGzDecoder::new(&empty[..]).read_to_end(&mut back).expect("decompresses");
        assert!(back.is_empty());
    }
}
