//! Commit objects read straight from the packs, inflated at once with libdeflate
//! (`forgecore_pack::Inflater`): whole (for messages), or their head (tree, parents, author,
//! committer) for walks that need no more: merge bases, the commit lists of ranges, blame's. A
//! walk without a commit-graph reads every commit it meets, and gix reads each through its
//! caches and zlib.
//!
//! Only commits stored whole in a pack are read this way; anything else (a commit stored as a
//! delta, a loose one, one in a pack that appeared since) is left to the object store, and so
//! is everything in a repository with replacement refs.

use gix::odb::pack;

/// The repository's packs, opened once for a walk.
pub struct Heads {
    packs: Vec<(pack::index::File, pack::data::File)>,
    inflate: forgecore_pack::Inflater,
}

impl Heads {
    /// The packs of `repo`; `None` when the store knows replacements.
    pub fn open(repo: &gix::Repository) -> Option<Heads> {
        if repo.objects.store_ref().replacements().next().is_some() {
            return None;
        }
        let packs = super::packs::open_all(repo.objects.store_ref().path(), repo.object_hash());
        Some(Heads { packs, inflate: Default::default() })
    }

    /// Writes into `out` the commit `id` up to and including its committer line, and answers
    /// whether it did: `false` when a pack does not hold it whole or it has no committer line
    /// in its head (the caller reads the object from the store). The whole object is inflated
    /// (libdeflate, at once: faster than zlib inflating only the head) and cut after the line.
    pub fn read(&mut self, id: &gix::oid, out: &mut Vec<u8>) -> bool {
        if !self.read_whole(id, out) {
            return false;
        }
        match head_end(out) {
            Some(end) => {
                out.truncate(end);
                true
            }
            None => false,
        }
    }

    /// Writes into `out` the whole commit `id`, and answers whether it did: `false` when a pack
    /// does not hold it whole (the caller reads the object from the store).
    pub fn read_whole(&mut self, id: &gix::oid, out: &mut Vec<u8>) -> bool {
        let Some((at, index, data)) =
            self.packs.iter().find_map(|(index, data)| Some((index.lookup(id)?, index, data)))
        else {
            return false;
        };
        let Ok(entry) = data.entry(index.pack_offset_at_index(at)) else { return false };
        if entry.header != pack::data::entry::Header::Commit {
            return false;
        }
        self.inflate.entry(data, &entry, out)
    }
}

/// Commit objects a walk reads through gix before it opens the packs to read them itself:
/// opening a repository's packs costs more than a short walk (a page of commits, the merge base
/// of nearby commits).
const OPEN_AFTER: usize = 64;

/// [`Heads`] opened once a walk has read [`OPEN_AFTER`] commit objects.
#[derive(Default)]
pub struct LaterHeads {
    reads: usize,
    heads: Option<Option<Heads>>,
}

impl LaterHeads {
    /// Counts one commit object read; the reader once it is opened, `None` before (and when
    /// the repository's packs cannot be read this way).
    pub fn get(&mut self, repo: &gix::Repository) -> Option<&mut Heads> {
        self.reads += 1;
        if self.reads < OPEN_AFTER {
            return None;
        }
        self.heads.get_or_insert_with(|| Heads::open(repo)).as_mut()
    }
}

/// Where the committer line of the commit head in `bytes` ends (after its newline), when it
/// is in the head (before the first empty line) and whole.
pub(crate) fn head_end(bytes: &[u8]) -> Option<usize> {
    let mut line = 0;
    while line < bytes.len() {
        let end = line + bytes[line..].iter().position(|&b| b == b'\n')?;
        if end == line {
            return None;
        }
        if bytes[line..end].starts_with(b"committer ") {
            return Some(end + 1);
        }
        line = end + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::head_end;

    #[test]
    fn the_head_ends_after_the_committer_line() {
        let commit = b"tree t\nparent p\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000\ngpgsig x\n\nmessage\n";
        assert_eq!(head_end(commit), Some(b"tree t\nparent p\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000\n".len()));
        // Cut inside the committer line, no committer in the head, or none at all.
        assert_eq!(head_end(b"tree t\nauthor A <a> 1 +0000\ncommitter C <c>"), None);
        assert_eq!(head_end(b"tree t\nauthor A <a> 1 +0000\n\ncommitter C <c> 2 +0000\n"), None);
        assert_eq!(head_end(b"tree t\n"), None);
    }
}
