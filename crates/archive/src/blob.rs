//! One blob read for the core's blob routes (`blobs/:sha` and `blobs/:sha/raw`) through the
//! archive's own reader of the object database (`objects`), so that a large blob is never held
//! whole while a client reads it: a blob of at least [`STREAM_FROM`] bytes stored whole (not
//! as a delta) is inflated piece by piece on each [`Blob::copy_to`], with the mapped pack pages
//! kept to the reader's budget; a smaller one, or one stored as a delta (decoded whole, as git
//! does), is held, and [`Blob::held`] says how much so that the caller can bound it. Held
//! content lives in a buffer of `forgecore_pack::buffers`, given back when the blob is dropped.

use crate::error::Error;
use crate::objects::{LargeBlob, Objects};
use std::io;
use std::path::Path;

/// Blobs at least this large and stored whole are streamed rather than held.
pub const STREAM_FROM: u64 = 64 << 10;
/// Piece handed to a sink.
const PIECE: usize = 64 << 10;

enum Content {
    Held(Vec<u8>),
    Streamed(LargeBlob),
}

/// An open blob, readable as often as wanted.
pub struct Blob {
    objects: Objects,
    content: Content,
}

impl Blob {
    /// Blob `id` of the repository at `git_dir`, opened on a reader of its own (the repository
    /// as the core opens it: in isolation, no program run). A missing object or another kind
    /// is an error.
    pub fn open(git_dir: &Path, id: &gix::oid) -> Result<Blob, Error> {
        let mut objects = Objects::open(git_dir)?;
        // One object: nothing would ask for its base again.
        objects.keep_no_bases();
        // A kept buffer, already in memory, and the largest: most blobs held are deltas of
        // about a base's size.
        let mut held = forgecore_pack::buffers::take(usize::MAX);
        let content = match objects.load_blob_from(id, &mut held, STREAM_FROM)? {
            Some(large) => Content::Streamed(large),
            None => Content::Held(held),
        };
        Ok(Blob { objects, content })
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        match &self.content {
            Content::Held(data) => data.len() as u64,
            Content::Streamed(large) => large.size(),
        }
    }

    /// The bytes of content held in memory: 0 when the blob is streamed.
    pub fn held(&self) -> usize {
        match &self.content {
            Content::Held(data) => data.len(),
            Content::Streamed(_) => 0,
        }
    }

    /// Hands the whole content, from the start, to `sink` in pieces of at most 64 KiB; an error
    /// when the object database has fewer or more bytes than its header said (an [`Error`]
    /// inside the `io::Error`) or when `sink` fails (its error as it is).
    pub fn copy_to(&mut self, sink: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        match &mut self.content {
            Content::Held(data) => data.chunks(PIECE).try_for_each(sink),
            Content::Streamed(large) => self.objects.copy_large(large, sink),
        }
    }
}

impl Drop for Blob {
    fn drop(&mut self) {
        if let Content::Held(data) = &mut self.content {
            forgecore_pack::buffers::give(std::mem::take(data));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
        let output = Command::new("git").arg("-C").arg(dir).args(args).output().expect("git runs");
        assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        output.stdout
    }

    #[test]
    fn blobs_read_as_git_has_them_streamed_or_held() {
        // layered.git: packs with deltas and loose objects, blobs over 1 MiB among them.
        let root = std::env::temp_dir().join(format!("fc-archive-blob-{}", std::process::id()));
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/layered.sh");
        assert!(Command::new("bash").arg(script).arg(&root).status().expect("bash runs").success());
        let git_dir = root.join("layered.git");
        let listing = git(&git_dir, &["cat-file", "--batch-all-objects", "--batch-check"]);
        let (mut streamed, mut held) = (0, 0);
        for line in String::from_utf8(listing).expect("UTF-8").lines() {
            let fields: Vec<&str> = line.split(' ').collect();
            if fields[1] != "blob" {
                continue;
            }
            let id = gix::ObjectId::from_hex(fields[0].as_bytes()).expect("hex");
            let expected = git(&git_dir, &["cat-file", "blob", fields[0]]);
            let mut blob = Blob::open(&git_dir, &id).expect("open");
            assert_eq!(blob.size(), expected.len() as u64);
            for _ in 0..2 {
                let mut ours = Vec::new();
                blob.copy_to(&mut |piece| {
                    assert!(!piece.is_empty() && piece.len() <= PIECE);
                    ours.extend_from_slice(piece);
                    Ok(())
                })
                .expect("copy");
                assert!(ours == expected, "{id} differs");
            }
            if blob.held() == 0 && !expected.is_empty() {
                streamed += 1;
            } else {
                assert_eq!(blob.held(), expected.len());
                held += 1;
            }
        }
        assert!(streamed >= 2 && held >= 2, "{streamed} streamed, {held} held");
        let not_a_blob = gix::ObjectId::from_hex(&git(&git_dir, &["rev-parse", "HEAD^{tree}"])[..40]).expect("hex");
        assert!(Blob::open(&git_dir, &not_a_blob).is_err(), "a tree is no blob");
        let _ = std::fs::remove_dir_all(&root);
    }
}
