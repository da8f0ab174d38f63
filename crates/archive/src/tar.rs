//! The tar container, byte for byte as git's `archive-tar.c` writes it: a pax global header
//! carrying the commit id, ustar headers with git's modes (directories 0775, files 0664 or
//! 0775, symlinks 0777), uid/gid 0 named `root`, every mtime the commit's, names longer than
//! 100 bytes split at a `/` into `prefix` or else carried by a pax `path` record (with
//! `<oid>.data` as the ustar name), long link targets in a pax `linkpath` record, sizes over
//! the ustar limit in a pax `size` record, and the stream padded to git's 10240-byte blocks
//! with at least two zero records at the end.

use crate::content::{Content, Sink};
use std::io::{self, Write};

const RECORD: usize = 512;
const BLOCK: u64 = RECORD as u64 * 20;
/// Largest size and mtime the 11 octal digits of a ustar header hold.
const USTAR_MAX: u64 = 0o77777777777;
/// `tar.umask` default: 002.
const UMASK: u32 = 0o002;

const TYPE_REG: u8 = b'0';
const TYPE_LNK: u8 = b'2';
const TYPE_DIR: u8 = b'5';
const TYPE_EXT: u8 = b'x';
const TYPE_GLOBAL: u8 = b'g';

pub struct Tar<W: Write> {
    out: W,
    mtime: u64,
    /// Bytes written so far, for the final padding.
    written: u64,
}

/// Appends a pax record `"<len> <keyword>=<value>\n"`, where `<len>` counts the whole record.
fn pax_record(out: &mut Vec<u8>, keyword: &str, value: &[u8]) {
    let mut len = 1 + 1 + keyword.len() + 1 + value.len() + 1;
    let mut tens = 1;
    while len / 10 >= tens {
        len += 1;
        tens *= 10;
    }
    out.extend_from_slice(format!("{len} {keyword}=").as_bytes());
    out.extend_from_slice(value);
    out.push(b'\n');
}

/// Writes `value` in octal with `digits` digits (zero-padded) and a NUL into `field`.
fn octal(field: &mut [u8], digits: usize, value: u64) {
    let text = format!("{value:0digits$o}");
    let bytes = text.as_bytes();
    let n = bytes.len().min(field.len() - 1);
    field[..n].copy_from_slice(&bytes[bytes.len() - n..]);
    field[n] = 0;
}

/// git's `get_path_prefix`: where to split a long name into `prefix` and `name`.
fn path_prefix_len(path: &[u8], max: usize) -> usize {
    let mut i = path.len();
    if i > 1 && path[i - 1] == b'/' {
        i -= 1;
    }
    if i > max {
        i = max;
    }
    loop {
        i = i.saturating_sub(1);
        if i == 0 || path[i] == b'/' {
            return i;
        }
    }
}

impl<W: Write> Tar<W> {
    /// Starts the stream with the pax global header (`comment=<commit id>`, and `mtime` when the
    /// commit time does not fit a ustar header).
    pub fn new(out: W, commit: &gix::oid, commit_time: i64) -> io::Result<Tar<W>> {
        let mut time = u64::try_from(commit_time).unwrap_or(0);
        let mut records = Vec::new();
        pax_record(&mut records, "comment", commit.to_hex().to_string().as_bytes());
        if time > USTAR_MAX {
            pax_record(&mut records, "mtime", time.to_string().as_bytes());
            time = USTAR_MAX;
        }
        let mut tar = Tar { out, mtime: time, written: 0 };
        let mut header = [0u8; RECORD];
        header[..17].copy_from_slice(b"pax_global_header");
        tar.header(&mut header, TYPE_GLOBAL, 0o100666, records.len() as u64)?;
        tar.blocked(&records)?;
        Ok(tar)
    }

    fn put(&mut self, data: &[u8]) -> io::Result<()> {
        self.out.write_all(data)?;
        self.written += data.len() as u64;
        Ok(())
    }

    /// `data` padded with zeros to a whole number of records.
    fn blocked(&mut self, data: &[u8]) -> io::Result<()> {
        self.put(data)?;
        self.pad()
    }

    fn pad(&mut self) -> io::Result<()> {
        let partial = (self.written % RECORD as u64) as usize;
        if partial != 0 {
            self.put(&[0u8; RECORD][..RECORD - partial])?;
        }
        Ok(())
    }

    /// Fills the common fields of `header` (git's `prepare_header`) and writes it. `mode` has the
    /// file type bits; `size` is written for regular files (and pax headers) only.
    fn header(&mut self, header: &mut [u8; RECORD], typeflag: u8, mode: u32, size: u64) -> io::Result<()> {
        let regular = mode & 0o170000 == 0o100000;
        octal(&mut header[100..108], 7, u64::from(mode & 0o7777));
        octal(&mut header[108..116], 7, 0);
        octal(&mut header[116..124], 7, 0);
        octal(&mut header[124..136], 11, if regular { size } else { 0 });
        octal(&mut header[136..148], 11, self.mtime);
        header[156] = typeflag;
        header[257..263].copy_from_slice(b"ustar\0");
        header[263..265].copy_from_slice(b"00");
        header[265..269].copy_from_slice(b"root");
        header[297..301].copy_from_slice(b"root");
        octal(&mut header[329..337], 7, 0);
        octal(&mut header[337..345], 7, 0);
        header[148..156].fill(b' ');
        let sum: u32 = header.iter().map(|b| u32::from(*b)).sum();
        octal(&mut header[148..156], 7, u64::from(sum));
        self.put(header)
    }

    /// One entry (git's `write_tar_entry`): the extended header if one is needed, the header,
    /// and for a regular file its content.
    fn entry(
        &mut self,
        path: &[u8],
        id: &gix::oid,
        mode: u32,
        link: Option<&[u8]>,
        size: u64,
        content: Option<Content<'_>>,
    ) -> io::Result<()> {
        let mut header = [0u8; RECORD];
        let mut ext = Vec::new();
        let (typeflag, mode) = match mode & 0o170000 {
            0o040000 | 0o160000 => (TYPE_DIR, (mode | 0o777) & !UMASK),
            0o120000 => (TYPE_LNK, mode | 0o777),
            _ => (TYPE_REG, (mode | if mode & 0o100 != 0 { 0o777 } else { 0o666 }) & !UMASK),
        };
        if path.len() > 100 {
            let plen = path_prefix_len(path, 155);
            let rest = path.len() - plen - 1;
            if plen > 0 && rest <= 100 {
                header[345..345 + plen].copy_from_slice(&path[..plen]);
                header[..rest].copy_from_slice(&path[plen + 1..]);
            } else {
                let name = format!("{}.data", id.to_hex());
                header[..name.len()].copy_from_slice(name.as_bytes());
                pax_record(&mut ext, "path", path);
            }
        } else {
            header[..path.len()].copy_from_slice(path);
        }
        if let Some(target) = link {
            if target.len() > 100 {
                let text = format!("see {}.paxheader", id.to_hex());
                header[157..157 + text.len()].copy_from_slice(text.as_bytes());
                pax_record(&mut ext, "linkpath", target);
            } else {
                header[157..157 + target.len()].copy_from_slice(target);
            }
        }
        let mut size_in_header = size;
        if typeflag == TYPE_REG && size > USTAR_MAX {
            size_in_header = 0;
            pax_record(&mut ext, "size", size.to_string().as_bytes());
        }
        if !ext.is_empty() {
            let mut ext_header = [0u8; RECORD];
            let name = format!("{}.paxheader", id.to_hex());
            ext_header[..name.len()].copy_from_slice(name.as_bytes());
            self.header(&mut ext_header, TYPE_EXT, 0o100666, ext.len() as u64)?;
            self.blocked(&ext)?;
        }
        self.header(&mut header, typeflag, mode, size_in_header)?;
        match content {
            Some(Content::Bytes(data)) => self.blocked(data),
            Some(Content::Stream(stream)) => {
                stream.copy_to(&mut |chunk| self.put(chunk))?;
                self.pad()
            }
            None => Ok(()),
        }
    }

    /// Ends the stream as git does: zeros to the end of the current 10240-byte block, and one
    /// more block when fewer than two zero records fitted.
    pub fn finish(mut self) -> io::Result<()> {
        let offset = self.written % BLOCK;
        let tail = BLOCK - offset;
        let zeros = [0u8; RECORD];
        let mut left = tail + if tail < 2 * RECORD as u64 { BLOCK } else { 0 };
        while left > 0 {
            let n = left.min(RECORD as u64) as usize;
            self.put(&zeros[..n])?;
            left -= n as u64;
        }
        self.out.flush()
    }
}

impl<W: Write> Sink for Tar<W> {
    fn directory(&mut self, path: &[u8], id: &gix::oid) -> io::Result<()> {
        let mut name = Vec::with_capacity(path.len() + 1);
        name.extend_from_slice(path);
        name.push(b'/');
        self.entry(&name, id, 0o040777, None, 0, None)
    }

    fn file(
        &mut self,
        path: &[u8],
        id: &gix::oid,
        executable: bool,
        content: Content<'_>,
        _text: Option<bool>,
    ) -> io::Result<()> {
        let mode = if executable { 0o100755 } else { 0o100644 };
        let size = match &content {
            Content::Bytes(data) => data.len() as u64,
            Content::Stream(stream) => stream.size(),
        };
        self.entry(path, id, mode, None, size, Some(content))
    }

    fn symlink(&mut self, path: &[u8], id: &gix::oid, target: &[u8], _text: Option<bool>) -> io::Result<()> {
        self.entry(path, id, 0o120777, Some(target), 0, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pax_record_counts_its_own_length() {
        let mut out = Vec::new();
        pax_record(&mut out, "comment", b"x");
        assert_eq!(out, b"13 comment=x\n");
        let mut long = Vec::new();
        pax_record(&mut long, "path", &[b'a'; 91]);
        // 1 + 1 + 4 + 1 + 91 + 1 = 99 with a one-digit length; 101 once it has three digits.
        assert_eq!(long.len(), 101);
        assert!(long.starts_with(b"101 path="));
    }

    #[test]
    fn long_names_split_at_a_slash() {
        let path = [&[b'd'; 60][..], b"/", &[b'f'; 60][..]].concat();
        assert_eq!(path_prefix_len(&path, 155), 60);
        assert_eq!(path_prefix_len(b"noslash", 155), 0);
    }
}
