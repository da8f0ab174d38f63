//! A request body held until it is complete, so that no git program (and none of its
//! repository's places, `git::places`) waits on a slow client: the first [`IN_MEMORY`] bytes
//! in memory, the rest in a temporary file of the data directory's, unlinked as soon as it is
//! made (nothing is left behind whatever happens to the process). Memory per body stays
//! bounded whatever its size; how large a body may grow is the caller's limit (a fetch's
//! negotiation, a push's `limits.git_push_max_bytes`), checked before each write.

use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::ChildStdin;
use std::sync::atomic::{AtomicU64, Ordering};

/// A body's bytes kept in memory before the rest goes to a file: git's own negotiations are a
/// few kilobytes, so a fetch seldom needs a file, and a host's connections times this is what
/// bodies may hold in memory at most.
pub const IN_MEMORY: usize = 256 << 10;

/// Where bodies are spooled under a data directory.
pub fn bodies_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("git").join("bodies")
}

/// A body so far.
pub struct Spool {
    dir: PathBuf,
    memory: Vec<u8>,
    file: Option<File>,
}

impl Spool {
    /// An empty body whose file, if it needs one, is made in `dir`.
    pub fn new(dir: PathBuf) -> Spool {
        Spool { dir, memory: Vec::new(), file: None }
    }

    /// Appends `data`.
    pub fn write(&mut self, data: &[u8]) -> io::Result<()> {
        if self.file.is_none() && self.memory.len() + data.len() <= IN_MEMORY {
            self.memory.extend_from_slice(data);
            return Ok(());
        }
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(unlinked(&self.dir)?),
        };
        file.write_all(data)
    }

    /// Hands the whole body to a program's stdin; `Err` when the body cannot be read back (the
    /// program must then not go on with part of it). A program that stops reading has its pipe
    /// set to `None`, as one that refused its input (its answer says why).
    pub fn feed(self, pipe: &mut Option<ChildStdin>) -> io::Result<()> {
        let mut file = self.file;
        if let Some(file) = file.as_mut() {
            file.flush()?;
            file.rewind()?;
        }
        let mut rest: Box<dyn Read> = match file {
            Some(file) => Box::new(io::Cursor::new(self.memory).chain(file)),
            None => Box::new(io::Cursor::new(self.memory)),
        };
        let mut piece = vec![0u8; 64 << 10];
        loop {
            let n = match rest.read(&mut piece) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let Some(stdin) = pipe.as_mut() else { return Ok(()) };
            if stdin.write_all(&piece[..n]).is_err() {
                *pipe = None;
            }
        }
    }
}

/// A new file in `dir` (made if missing), readable by this process only, already unlinked.
fn unlinked(dir: &Path) -> io::Result<File> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    std::fs::create_dir_all(dir)?;
    loop {
        let name = format!("body-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let path = dir.join(name);
        match std::fs::OpenOptions::new().read(true).write(true).create_new(true).mode(0o600).open(&path) {
            Ok(file) => {
                std::fs::remove_file(&path)?;
                return Ok(file);
            }
            // Left by an earlier process of the same id: take the next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    /// What `cat` reads of a spool of `pieces`, with the files left in its directory.
    fn through_cat(pieces: &[Vec<u8>]) -> (Vec<u8>, usize) {
        let dir = std::env::temp_dir().join(format!("forgecore-spool-{}-{}", std::process::id(), pieces.len()));
        let mut spool = Spool::new(dir.clone());
        for piece in pieces {
            spool.write(piece).unwrap();
        }
        let mut cat = Command::new("cat").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let mut stdin = cat.stdin.take();
        let reader = std::thread::spawn(move || {
            let mut out = Vec::new();
            cat.stdout.take().unwrap().read_to_end(&mut out).unwrap();
            cat.wait().unwrap();
            out
        });
        spool.feed(&mut stdin).unwrap();
        drop(stdin);
        let left = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
        let _ = std::fs::remove_dir_all(&dir);
        (reader.join().unwrap(), left)
    }

    #[test]
    fn small_bodies_stay_in_memory_and_large_ones_spill_to_an_unlinked_file() {
        let small = vec![b"0032want ".to_vec(), b"0000".to_vec()];
        let (out, left) = through_cat(&small);
        assert_eq!((out, left), (b"0032want 0000".to_vec(), 0));
        let large: Vec<Vec<u8>> = (0..40u8).map(|i| vec![i; 20_000]).collect();
        let (out, left) = through_cat(&large);
        assert_eq!(out, large.concat());
        assert_eq!(left, 0, "the spilled file is unlinked");
    }
}
