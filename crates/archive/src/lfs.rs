//! Git LFS pointers (spec v1) and their objects in the repository's `lfs/objects` store.
//!
//! A pointer is recognised strictly: under 1024 bytes, `key value` lines each ending in a
//! newline, `version https://git-lfs.github.com/spec/v1` first, an `oid sha256:` with exactly
//! 64 lowercase hex digits and a decimal `size`. Anything else (uppercase hex, trailing spaces,
//! `../`) is not a pointer and is archived verbatim, so no file outside the store is ever
//! named. The object is used only when it is a regular file of exactly the stated size.

use crate::error::Error;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Pointer files are small; git-lfs itself never reads more than this as a pointer.
const MAX_POINTER_BYTES: usize = 1024;
const VERSION_LINE: &[u8] = b"version https://git-lfs.github.com/spec/v1";

/// An LFS object opened for reading, with the size its pointer states.
pub struct Object {
    path: PathBuf,
    file: File,
    size: u64,
}

impl crate::content::Stream for Object {
    fn size(&self) -> u64 {
        self.size
    }

    /// Exactly `size` bytes, or an error if the file ends early (it changed since it was
    /// opened).
    fn copy_to(&mut self, sink: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        use std::io::Seek;
        let unreadable = |source| io::Error::from(Error::ReadLfsObject { path: self.path.clone(), source });
        self.file.seek(io::SeekFrom::Start(0)).map_err(unreadable)?;
        let mut buf = vec![0u8; 64 * 1024];
        let mut left = self.size;
        while left > 0 {
            let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            let n = self.file.read(&mut buf[..want]).map_err(unreadable)?;
            if n == 0 {
                return Err(Error::LfsObjectChanged { path: self.path.clone() }.into());
            }
            sink(&buf[..n])?;
            left -= n as u64;
        }
        Ok(())
    }
}

impl Object {
    /// The object's bytes from the start, exactly `size` of them at most.
    pub fn into_reader(mut self) -> io::Result<io::Take<File>> {
        use std::io::Seek;
        self.file.seek(io::SeekFrom::Start(0))?;
        Ok(self.file.take(self.size))
    }

    /// The size its pointer states (and the file has).
    pub fn len(&self) -> u64 {
        self.size
    }

    /// Whether the object is empty.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }
}

/// The object id and size of a pointer file, if `data` is one.
pub fn parse_pointer(data: &[u8]) -> Option<(&str, u64)> {
    if data.len() >= MAX_POINTER_BYTES || !data.ends_with(b"\n") {
        return None;
    }
    let mut lines = data[..data.len() - 1].split(|b| *b == b'\n');
    if lines.next()? != VERSION_LINE {
        return None;
    }
    let (mut oid, mut size) = (None, None);
    for line in lines {
        let text = std::str::from_utf8(line).ok()?;
        let (key, value) = text.split_once(' ')?;
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-.".contains(&b)) {
            return None;
        }
        match key {
            "oid" => {
                let hex = value.strip_prefix("sha256:")?;
                if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
                    return None;
                }
                oid = Some(hex);
            }
            "size" => {
                if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                size = Some(value.parse().ok()?);
            }
            _ => {}
        }
    }
    Some((oid?, size?))
}

/// The object a pointer names, opened, when the store has it with the stated size.
pub fn open(store: &Path, data: &[u8]) -> Option<Object> {
    let (oid, size) = parse_pointer(data)?;
    let path = store.join(&oid[0..2]).join(&oid[2..4]).join(oid);
    let metadata = std::fs::symlink_metadata(&path).ok()?;
    if !metadata.is_file() || metadata.len() != size {
        return None;
    }
    let file = File::open(&path).ok()?;
    let opened = file.metadata().ok()?;
    (opened.is_file() && opened.len() == size).then_some(Object { path, file, size })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OID: &str = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393";

    fn pointer(oid: &str, extra: &str) -> Vec<u8> {
        format!("version https://git-lfs.github.com/spec/v1\noid sha256:{oid}{extra}\nsize 12345\n").into_bytes()
    }

    #[test]
    fn pointers_are_recognised_strictly() {
        assert_eq!(parse_pointer(&pointer(OID, "")), Some((OID, 12345)));
        assert_eq!(parse_pointer(&pointer(&OID.to_uppercase(), "")), None);
        assert_eq!(parse_pointer(&pointer(&OID[1..], "")), None);
        assert_eq!(parse_pointer(&pointer(OID, "  ")), None);
        assert_eq!(parse_pointer(&pointer("../../secret", "")), None);
        let mut unterminated = pointer(OID, "");
        unterminated.pop();
        assert_eq!(parse_pointer(&unterminated), None);
        assert_eq!(parse_pointer(b"hello\n"), None);
        assert_eq!(parse_pointer(&vec![b'a'; 2000]), None);
    }
}
