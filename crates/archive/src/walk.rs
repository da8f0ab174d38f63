//! The walk: the commit's tree depth-first in git's order (each tree's entries as stored), the
//! way `git archive` reads it, handing the selected entries to a [`Sink`].
//!
//! For each entry, in this order: a hostile or repeated name is skipped (with its subtree);
//! the path filter decides; `export-ignore` drops it; then a directory is written and walked
//! into, a submodule is written as an empty directory, a symlink as a link to its blob's text,
//! a file with its blob (or its LFS object). Only the current directory chain is held.

use crate::attributes::{Attributes, State, Verdict};
use crate::content::{Content, Sink};
use crate::convert::{Conversion, Converted, Settings, Source};
use crate::error::Error;
use crate::lfs;
use crate::objects::{BlobStream, Objects};
use crate::paths::Filter;
use crate::prefetch::{Batch, Loader, What};
use crate::pretty::Facts;
use gix::objs::tree::EntryKind;
use gix::objs::TreeRefIter;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Deepest tree nesting walked (git's `core.maxTreeDepth` default is 2048 in newer versions;
/// a deeper tree is refused rather than followed).
const MAX_DEPTH: usize = 4096;
/// `.gitattributes` blobs larger than this are ignored, as git does (`ATTR_MAX_FILE_SIZE`).
const MAX_ATTRIBUTES_BYTES: u64 = 100 * 1024 * 1024;
/// Converted content up to this size is handed to the writer whole; larger is streamed.
const CONVERTED_IN_MEMORY: u64 = 1 << 20;

pub struct Walk<'a> {
    /// The archived commit (for `export-subst`).
    pub commit: gix::ObjectId,
    pub settings: Settings,
    /// What `export-subst` placeholders say, gathered at the first file that needs them.
    pub facts: Option<Facts>,
    pub objects: &'a mut Objects,
    pub tree: gix::ObjectId,
    pub prefix: &'a [u8],
    pub include: &'a [u8],
    pub excludes: &'a [Vec<u8>],
    pub lfs_root: Option<&'a Path>,
    pub info_attributes: Option<PathBuf>,
}

struct Frame {
    /// The tree this frame walks.
    id: gix::ObjectId,
    data: Vec<u8>,
    pos: usize,
    /// Length of the path buffer for this tree's entries (the tree's own path and `/`).
    path_len: usize,
    /// Names seen in this tree, to skip a repeated one.
    seen: HashSet<Vec<u8>>,
}

/// Whether `name` may be a member name component: not empty, `.` or `..`, no `/` or `\`, and
/// not `.git` in any spelling that HFS+ or NTFS would take for it.
pub fn safe_name(name: &[u8]) -> bool {
    let options =
        gix::validate::path::component::Options { protect_windows: false, protect_hfs: true, protect_ntfs: true };
    !name.contains(&b'\\')
        && !name.contains(&0)
        && gix::validate::path::component(gix::bstr::BStr::new(name), None, options).is_ok()
}

/// A zip member's text flag as git's `entry_is_binary` gets it from the `diff` attribute:
/// `diff` is text, `-diff` binary, a driver its `diff.<driver>.binary` when configured.
fn text_flag(repo: &gix::Repository, verdict: &Verdict) -> Option<bool> {
    match &verdict.diff {
        State::Set => Some(true),
        State::Unset => Some(false),
        State::Unspecified => None,
        State::Value(driver) => {
            let key = format!("diff.{}.binary", String::from_utf8_lossy(driver));
            repo.config_snapshot().boolean(key.as_str()).map(|binary| !binary)
        }
    }
}

impl Walk<'_> {
    /// Loads tree `id` for the directory whose entries' paths start at `path[..path_len]`, and
    /// pushes its `.gitattributes` (if it has one as a regular file) when `attributes` are kept.
    fn enter(
        &mut self,
        id: &gix::oid,
        path: &[u8],
        path_len: usize,
        attributes: &mut Attributes,
        free: &mut Vec<Vec<u8>>,
        scratch: &mut Vec<u8>,
    ) -> Result<Frame, Error> {
        let mut data = free.pop().unwrap_or_default();
        self.objects.load(id, gix::objs::Kind::Tree, &mut data)?;
        let mut gitattributes = None;
        for entry in TreeRefIter::from_bytes(&data, self.objects.object_hash()) {
            let entry = entry.map_err(|source| Error::DecodeTree { id: id.to_owned(), source })?;
            if entry.filename == ".gitattributes"
                && matches!(entry.mode.kind(), EntryKind::Blob | EntryKind::BlobExecutable)
            {
                gitattributes = Some(entry.oid.to_owned());
                break;
            }
        }
        // Every frame pushes one list (possibly empty) so that leaving it always pops one.
        let dir = &path[self.prefix.len() + 1..path_len.saturating_sub(1).max(self.prefix.len() + 1)];
        match gitattributes {
            Some(blob) if self.objects.size(&blob).map(|size| size <= MAX_ATTRIBUTES_BYTES).unwrap_or(false) => {
                self.objects.load(&blob, gix::objs::Kind::Blob, scratch)?;
                attributes.push(dir, scratch);
            }
            _ => attributes.push(dir, b""),
        }
        Ok(Frame { id: id.to_owned(), data, pos: 0, path_len, seen: HashSet::new() })
    }

    /// Walks the tree, handing the selected members to the loader in batches, and writes the
    /// batches it gives back, in order, to `sink`.
    pub fn run(&mut self, sink: &mut dyn Sink) -> Result<(), Error> {
        let mut loader = Loader::default();
        let result = self.walk(sink, &mut loader);
        loader.finish();
        result
    }

    fn walk(&mut self, sink: &mut dyn Sink, loader: &mut Loader) -> Result<(), Error> {
        let filter = Filter { include: self.include, excludes: self.excludes };
        let everything = filter.is_everything();
        let mut attributes = Attributes::new(self.info_attributes.as_deref());
        let mut path: Vec<u8> = Vec::with_capacity(self.prefix.len() + 256);
        path.extend_from_slice(self.prefix);
        let mut batch = Batch::default();
        batch.push(&path, self.tree, What::Directory);
        path.push(b'/');
        let mut buffers = Buffers::default();
        let tree = self.tree;
        let root = self.enter(&tree, &path, path.len(), &mut attributes, &mut buffers.free, &mut buffers.scratch)?;
        let mut stack = vec![root];
        let hash = self.objects.object_hash();
        let rel_start = self.prefix.len() + 1;

        'frames: while let Some(mut frame) = stack.pop() {
            loop {
                if batch.is_full() {
                    if let Some(loaded) = loader.submit(std::mem::take(&mut batch), self.objects)? {
                        self.write(&loaded, sink, &mut buffers)?;
                    }
                }
                let rest = &frame.data[frame.pos..];
                let mut iter = TreeRefIter::from_bytes(rest, hash);
                let entry = match iter.next() {
                    None => {
                        attributes.pop();
                        buffers.free.push(std::mem::take(&mut frame.data));
                        continue 'frames;
                    }
                    Some(Err(source)) => return Err(Error::DecodeTree { id: frame.id, source }),
                    Some(Ok(entry)) => entry,
                };
                frame.pos += iter.offset_to_next_entry(rest);
                let name: &[u8] = entry.filename.as_ref();
                if !safe_name(name) || !frame.seen.insert(name.to_vec()) {
                    continue;
                }
                let kind = entry.mode.kind();
                let is_tree = kind == EntryKind::Tree;
                path.truncate(frame.path_len);
                path.extend_from_slice(name);
                let rel = &path[rel_start..];
                if !everything && !filter.takes(rel, is_tree) {
                    continue;
                }
                let verdict = attributes.lookup(rel, matches!(kind, EntryKind::Tree | EntryKind::Commit));
                if verdict.export_ignore {
                    continue;
                }
                let id = entry.oid.to_owned();
                match kind {
                    EntryKind::Tree => {
                        if stack.len() + 1 >= MAX_DEPTH {
                            return Err(Error::TooDeep { max: MAX_DEPTH });
                        }
                        batch.push(&path, id, What::Directory);
                        path.push(b'/');
                        let child = self.enter(
                            &id,
                            &path,
                            path.len(),
                            &mut attributes,
                            &mut buffers.free,
                            &mut buffers.scratch,
                        )?;
                        stack.push(frame);
                        stack.push(child);
                        continue 'frames;
                    }
                    EntryKind::Commit => batch.push(&path, id, What::Directory),
                    EntryKind::Link => {
                        let text = text_flag(self.objects.repo(), &verdict);
                        batch.push(&path, id, What::Symlink { text });
                    }
                    EntryKind::Blob | EntryKind::BlobExecutable => {
                        let executable = kind == EntryKind::BlobExecutable;
                        let text = text_flag(self.objects.repo(), &verdict);
                        let conversion = Conversion::of(&verdict, &self.settings);
                        batch.push(&path, id, What::File { executable, text, conversion, lfs: verdict.lfs });
                    }
                }
            }
        }
        // The last batch: at once when no worker runs, else after the ones in flight.
        if !batch.is_empty() {
            if loader.is_idle() {
                return self.write(&batch, sink, &mut buffers);
            }
            if let Some(loaded) = loader.submit(batch, self.objects)? {
                self.write(&loaded, sink, &mut buffers)?;
            }
        }
        while let Some(loaded) = loader.collect()? {
            self.write(&loaded, sink, &mut buffers)?;
        }
        Ok(())
    }

    /// Writes `batch`'s members to `sink`, reading the blobs no worker loaded.
    fn write(&mut self, batch: &Batch, sink: &mut dyn Sink, buffers: &mut Buffers) -> Result<(), Error> {
        for (i, member) in batch.members.iter().enumerate() {
            let path = batch.path(member);
            let id = member.id;
            match member.what {
                What::Directory => sink.directory(path, &id)?,
                What::Symlink { text } => {
                    let target = match batch.loaded(i) {
                        Some(target) => target,
                        None => {
                            self.objects.load(&id, gix::objs::Kind::Blob, &mut buffers.blob)?;
                            &buffers.blob
                        }
                    };
                    sink.symlink(path, &id, target, text)?;
                }
                What::File { executable, text, conversion, lfs } => {
                    let file = File { path, id, executable, text, conversion, lfs };
                    self.file(&file, batch.loaded(i), sink, buffers)?;
                }
            }
        }
        Ok(())
    }

    /// Writes one file: its blob (`loaded`, or read now), its LFS object in its place, or its
    /// content converted as git converts it for an archive.
    fn file(
        &mut self,
        file: &File<'_>,
        loaded: Option<&[u8]>,
        sink: &mut dyn Sink,
        buffers: &mut Buffers,
    ) -> Result<(), Error> {
        let File { path, id, executable, text, conversion, lfs } = *file;
        // Before the blob: a large one must be read before any other object.
        if conversion.subst && self.facts.is_none() {
            self.facts = Some(Facts::gather(self.objects, self.commit)?);
        }
        let (large, blob) = match loaded {
            Some(blob) => (None, blob),
            None => (self.objects.load_blob(&id, &mut buffers.blob)?, &buffers.blob[..]),
        };
        let object = match self.lfs_root {
            Some(store) if lfs && large.is_none() => lfs::open(store, blob),
            _ => None,
        };
        if let Some(mut object) = object {
            return Ok(sink.file(path, &id, executable, Content::Stream(&mut object), text)?);
        }
        let size = large.as_ref().map_or(blob.len() as u64, |large| large.size());
        // git streams a blob over core.bigFileThreshold as it is, unless it is marked
        // export-subst.
        let convert = !conversion.is_none() && (conversion.subst || size <= self.settings.big_file_threshold);
        if !convert {
            match large {
                Some(large) => {
                    let mut stream = BlobStream { objects: self.objects, blob: large };
                    sink.file(path, &id, executable, Content::Stream(&mut stream), text)?;
                }
                None => sink.file(path, &id, executable, Content::Bytes(blob), text)?,
            }
            return Ok(());
        }
        let facts = self.facts.as_ref();
        let mut stream;
        let source = match large {
            Some(large) => {
                stream = BlobStream { objects: &mut *self.objects, blob: large };
                Source::Stream(&mut stream)
            }
            None => Source::Bytes(blob),
        };
        let mut converted = Converted::new(source, id, conversion, facts)?;
        if converted.collect(CONVERTED_IN_MEMORY, &mut buffers.scratch)? {
            sink.file(path, &id, executable, Content::Bytes(&buffers.scratch), text)?;
        } else {
            sink.file(path, &id, executable, Content::Stream(&mut converted), text)?;
        }
        Ok(())
    }
}

/// One file member to write.
#[derive(Clone, Copy)]
struct File<'p> {
    path: &'p [u8],
    id: gix::ObjectId,
    executable: bool,
    text: Option<bool>,
    conversion: Conversion,
    lfs: bool,
}

/// Buffers the walk and the writer reuse.
#[derive(Default)]
struct Buffers {
    /// Tree buffers of frames that ended.
    free: Vec<Vec<u8>>,
    /// `.gitattributes` blobs and converted content.
    scratch: Vec<u8>,
    /// Blobs read by the writer.
    blob: Vec<u8>,
}
