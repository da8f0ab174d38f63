//! What a container writer (`tar`, `zip`) receives from the walk: the members, in archive
//! order, through [`Sink`], and a file's [`Content`], in memory or as a [`Stream`] read piece
//! by piece (a converted file, an LFS object, a large blob).

use std::io;

/// What a container writer receives from the walk, in archive order. `path` is the member name
/// without a trailing `/` (writers add it to directories); `id` is the tree, blob or commit id.
/// Writers speak `io::Error`; a failure that is not the output's carries an [`Error`].
/// `text` is what the `diff` attribute says about a zip member's text flag (`Some(true)` for
/// `diff`, `Some(false)` for `-diff` or a driver with `binary` set), `None` to look at the
/// content as git's `buffer_is_binary` does.
///
/// [`Error`]: crate::error::Error
pub trait Sink {
    fn directory(&mut self, path: &[u8], id: &gix::oid) -> io::Result<()>;
    fn file(
        &mut self,
        path: &[u8],
        id: &gix::oid,
        executable: bool,
        content: Content<'_>,
        text: Option<bool>,
    ) -> io::Result<()>;
    fn symlink(&mut self, path: &[u8], id: &gix::oid, target: &[u8], text: Option<bool>) -> io::Result<()>;
}

/// A file's content: a blob in memory, or one read piece by piece (an LFS object from its
/// file, a large blob from the object database).
pub enum Content<'a> {
    Bytes(&'a [u8]),
    Stream(&'a mut dyn Stream),
}

/// Content read piece by piece, as often as a writer needs (zip reads it twice).
pub trait Stream {
    /// Its length in bytes, known before the first byte.
    fn size(&self) -> u64;
    /// Hands exactly `size()` bytes, from the start, to `sink` in bounded pieces; an error if
    /// the source has fewer or more (an [`Error`] carried in the `io::Error`, while an error of
    /// `sink` comes back as it is).
    ///
    /// [`Error`]: crate::error::Error
    fn copy_to(&mut self, sink: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()>;
}
