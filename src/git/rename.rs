//! Rename detection as `git diff -M` does it (git 2.39's `diffcore-rename.c` with
//! `diffcore-delta.c`): which deleted file each added file was renamed from.
//!
//! Three passes, each only over what the one before left unpaired: identical content (the
//! object id; a source of the same basename preferred), then files whose basename is unique
//! among the remaining sources and among the remaining destinations (paired when at least 75 %
//! similar), then, unless sources times destinations exceed the rename limit squared, every
//! destination against every source (at least 50 % similar), the most similar pairs first.
//! Similarity is git's estimate: both blobs cut into chunks ending at a newline or after 64
//! bytes, each chunk hashed, and the share of the larger file's bytes found in both counted.
//! Only regular files are compared by content; symlinks and submodules pair by identity only,
//! and so do blobs over 16 MiB (git would read them whole; one is read at a time here).
//! No copies, no break detection: `git diff`'s defaults.

use std::collections::HashMap;
use std::time::Instant;

use gix::bstr::{BStr, ByteSlice};
use gix::ObjectId;

/// Git's similarity scale: 60000 is identical.
const MAX_SCORE: f64 = 60000.0;
/// `-M`'s default threshold, 50 %.
const MINIMUM_SCORE: i32 = 30000;
/// The basename pass asks for halfway between the threshold and identity, 75 %.
const MINIMUM_BASENAME_SCORE: i32 = MINIMUM_SCORE + (0.5 * (MAX_SCORE - MINIMUM_SCORE as f64)) as i32;
/// `diff.renameLimit`'s default: past this many sources times as many destinations, the
/// all-pairs pass is skipped.
const RENAME_LIMIT: u64 = 1000;
/// Candidates kept per destination in the all-pairs pass.
const CANDIDATES_PER_DESTINATION: usize = 4;
/// Identical sources looked at for one destination at most.
const IDENTICAL_ALTERNATIVES: usize = 100;
/// Chunk hashes are taken modulo this prime.
const HASHBASE: u32 = 107927;
/// The clock is read once every this many similarity estimates.
const DEADLINE_EVERY: usize = 64;
/// Blobs larger than this are not read for a similarity estimate (git would read them whole;
/// memory stays bounded instead): only identical content pairs them.
const LARGEST_COMPARED: u64 = 16 << 20;

/// A deleted or added file.
#[derive(Debug, Clone)]
pub struct File {
    pub path: gix::bstr::BString,
    /// Git's canonical mode (`0o100644`, `0o100755`, `0o120000`, `0o160000`).
    pub mode: u32,
    pub id: ObjectId,
}

impl File {
    fn is_regular(&self) -> bool {
        self.mode & 0o170000 == 0o100000
    }

    fn basename(&self) -> &BStr {
        let path = self.path.as_bstr();
        match path.rfind_byte(b'/') {
            Some(slash) => path[slash + 1..].as_bstr(),
            None => path,
        }
    }
}

/// Why the pairing stopped.
#[derive(Debug)]
pub enum Error {
    /// A blob could not be read.
    Read { id: ObjectId, source: super::error::BoxError },
    /// The deadline passed.
    Late,
}

/// What a rename search may do.
pub struct Search {
    /// The all-pairs pass keeps the chunk counts of every file it compares: it is skipped when
    /// the blobs left unpaired add up to more than this (the identical and basename passes
    /// always run).
    pub all_pairs_bytes: u64,
    pub deadline: Instant,
}

/// Pairs each destination with the source it was renamed from, as `git diff -M` does: the
/// answer has, for each of `added` (in its order), the index in `deleted` of its source.
/// Both lists must be in git's path order (bytewise by full path).
pub fn pair(
    repo: &gix::Repository,
    deleted: &[File],
    added: &[File],
    search: &Search,
) -> Result<Vec<Option<usize>>, Error> {
    let mut state = State {
        repo,
        deadline: search.deadline,
        estimates: 0,
        used: vec![false; deleted.len()],
        source_of: vec![None; added.len()],
        source_sizes: vec![None; deleted.len()],
        destination_sizes: vec![None; added.len()],
        buf: Vec::new(),
    };
    if deleted.is_empty() || added.is_empty() {
        return Ok(state.source_of);
    }
    state.identical(deleted, added);
    let mut sources: Vec<usize> = (0..deleted.len()).filter(|&s| !state.used[s]).collect();
    state.basenames(deleted, added, &sources)?;
    sources.retain(|&s| !state.used[s]);
    let destinations: Vec<usize> = (0..added.len()).filter(|&d| state.source_of[d].is_none()).collect();
    if sources.is_empty() || destinations.is_empty() {
        return Ok(state.source_of);
    }
    if (destinations.len() as u64) * (sources.len() as u64) > RENAME_LIMIT * RENAME_LIMIT {
        return Ok(state.source_of);
    }
    if state.unpaired_bytes(deleted, added, &sources, &destinations)? > search.all_pairs_bytes {
        return Ok(state.source_of);
    }
    state.all_pairs(deleted, added, &sources, &destinations)?;
    Ok(state.source_of)
}

struct State<'r> {
    repo: &'r gix::Repository,
    deadline: Instant,
    estimates: usize,
    /// Sources already renamed (git's `rename_used`).
    used: Vec<bool>,
    source_of: Vec<Option<usize>>,
    source_sizes: Vec<Option<u64>>,
    destination_sizes: Vec<Option<u64>>,
    buf: Vec<u8>,
}

/// One entry of the all-pairs pass's candidate table (git's `struct diff_score`); `None` is
/// an unused slot.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    pair: Option<(usize, usize)>,
    score: i32,
    name_score: i32,
}

/// git's `score_compare`: unused slots last, then the higher score, then the same basename.
fn score_order(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a.pair, b.pair) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        _ if a.score == b.score => b.name_score.cmp(&a.name_score),
        _ => b.score.cmp(&a.score),
    }
}

/// git's `basename_same`: the paths end in the same file name.
fn basename_same(a: &File, b: &File) -> bool {
    a.basename() == b.basename()
}

impl State<'_> {
    fn record(&mut self, source: usize, destination: usize) {
        self.used[source] = true;
        self.source_of[destination] = Some(source);
    }

    /// `find_exact_renames`: each destination, in order, takes an unused source with its
    /// object id (and, unless both are regular files, its mode), the first of the same
    /// basename if any, else the first.
    fn identical(&mut self, deleted: &[File], added: &[File]) {
        let mut by_id: HashMap<ObjectId, Vec<usize>> = HashMap::new();
        for (s, file) in deleted.iter().enumerate() {
            by_id.entry(file.id).or_default().push(s);
        }
        for (d, target) in added.iter().enumerate() {
            let Some(sources) = by_id.get(&target.id) else { continue };
            let mut best: Option<(usize, u8)> = None;
            let mut looked = 0;
            for &s in sources {
                let source = &deleted[s];
                if (!source.is_regular() || !target.is_regular()) && source.mode != target.mode {
                    continue;
                }
                if self.used[s] {
                    continue;
                }
                let score = 1 + u8::from(basename_same(source, target));
                if best.is_none_or(|(_, b)| score > b) {
                    best = Some((s, score));
                    if score == 2 {
                        break;
                    }
                }
                looked += 1;
                if looked == IDENTICAL_ALTERNATIVES {
                    break;
                }
            }
            if let Some((s, _)) = best {
                self.record(s, d);
            }
        }
    }

    /// `find_basename_matches`: a source whose basename no other remaining source has, and
    /// one destination alone with that basename, are a rename when 75 % similar.
    fn basenames(&mut self, deleted: &[File], added: &[File], sources: &[usize]) -> Result<(), Error> {
        let mut source_names: HashMap<&BStr, Option<usize>> = HashMap::new();
        for &s in sources {
            source_names.entry(deleted[s].basename()).and_modify(|u| *u = None).or_insert(Some(s));
        }
        let mut destination_names: HashMap<&BStr, Option<usize>> = HashMap::new();
        for (d, file) in added.iter().enumerate() {
            if self.source_of[d].is_none() {
                destination_names.entry(file.basename()).and_modify(|u| *u = None).or_insert(Some(d));
            }
        }
        for &s in sources {
            let name = deleted[s].basename();
            let (Some(&Some(source)), Some(&Some(d))) = (source_names.get(name), destination_names.get(name)) else {
                continue;
            };
            if self.source_of[d].is_some() {
                continue;
            }
            let mut counts = (None, None);
            let score = self.similarity(deleted, added, source, d, MINIMUM_BASENAME_SCORE, &mut counts)?;
            if score >= MINIMUM_BASENAME_SCORE {
                self.record(source, d);
            }
        }
        Ok(())
    }

    /// The bytes of the regular files left to the all-pairs pass.
    fn unpaired_bytes(
        &mut self,
        deleted: &[File],
        added: &[File],
        sources: &[usize],
        destinations: &[usize],
    ) -> Result<u64, Error> {
        let mut total = 0u64;
        for &s in sources.iter().filter(|&&s| deleted[s].is_regular()) {
            total += cached_size(self.repo, &mut self.source_sizes[s], deleted[s].id)?;
        }
        for &d in destinations.iter().filter(|&&d| added[d].is_regular()) {
            total += cached_size(self.repo, &mut self.destination_sizes[d], added[d].id)?;
        }
        Ok(total)
    }

    /// The all-pairs pass (`diffcore_rename`'s matrix and `find_renames`): each destination
    /// keeps its four best sources, all kept pairs are taken most similar first.
    fn all_pairs(
        &mut self,
        deleted: &[File],
        added: &[File],
        sources: &[usize],
        destinations: &[usize],
    ) -> Result<(), Error> {
        let mut source_counts: Vec<Option<Counts>> = vec![None; deleted.len()];
        let unused = Candidate { pair: None, score: 0, name_score: 0 };
        let mut table = Vec::with_capacity(destinations.len() * CANDIDATES_PER_DESTINATION);
        for &d in destinations {
            let mut best = [unused; CANDIDATES_PER_DESTINATION];
            let mut destination_counts = None;
            for &s in sources {
                let mut counts = (source_counts[s].take(), destination_counts.take());
                let score = self.similarity(deleted, added, s, d, MINIMUM_SCORE, &mut counts);
                (source_counts[s], destination_counts) = counts;
                let candidate = Candidate {
                    pair: Some((s, d)),
                    score: score?,
                    name_score: i32::from(basename_same(&deleted[s], &added[d])),
                };
                // record_if_better: replace the worst kept candidate when this one is better.
                let mut worst = 0;
                for i in 1..CANDIDATES_PER_DESTINATION {
                    if score_order(&best[i], &best[worst]).is_gt() {
                        worst = i;
                    }
                }
                if score_order(&best[worst], &candidate).is_gt() {
                    best[worst] = candidate;
                }
            }
            table.extend_from_slice(&best);
        }
        table.sort_by(score_order);
        for candidate in table {
            let Some((s, d)) = candidate.pair else { break };
            if candidate.score < MINIMUM_SCORE {
                break;
            }
            if self.source_of[d].is_some() || self.used[s] {
                continue;
            }
            self.record(s, d);
        }
        Ok(())
    }

    /// `estimate_similarity`: how much of the larger file is found in the other, on git's
    /// scale; 0 for anything but two regular files, or sizes too far apart for `minimum`.
    /// `counts` holds the two files' chunk counts, computed here when missing.
    fn similarity(
        &mut self,
        deleted: &[File],
        added: &[File],
        s: usize,
        d: usize,
        minimum: i32,
        counts: &mut (Option<Counts>, Option<Counts>),
    ) -> Result<i32, Error> {
        let (source, destination) = (&deleted[s], &added[d]);
        if !source.is_regular() || !destination.is_regular() {
            return Ok(0);
        }
        self.estimates += 1;
        if self.estimates % DEADLINE_EVERY == 0 && Instant::now() > self.deadline {
            return Err(Error::Late);
        }
        let source_size = cached_size(self.repo, &mut self.source_sizes[s], source.id)?;
        let destination_size = cached_size(self.repo, &mut self.destination_sizes[d], destination.id)?;
        let max_size = source_size.max(destination_size);
        if max_size > LARGEST_COMPARED {
            return Ok(0);
        }
        let delta_size = max_size - source_size.min(destination_size);
        if (max_size as f64) * (MAX_SCORE - f64::from(minimum)) < (delta_size as f64) * MAX_SCORE {
            return Ok(0);
        }
        if counts.0.is_none() {
            counts.0 = Some(self.counts(source.id)?);
        }
        if counts.1.is_none() {
            counts.1 = Some(self.counts(destination.id)?);
        }
        let (Some(from), Some(to)) = (&counts.0, &counts.1) else { return Ok(0) };
        if destination_size == 0 {
            return Ok(0);
        }
        let copied = copied_bytes(from, to);
        Ok((copied as f64 * MAX_SCORE / max_size as f64) as i32)
    }

    fn counts(&mut self, id: ObjectId) -> Result<Counts, Error> {
        use gix::objs::FindExt;
        let blob = self
            .repo
            .objects
            .find_blob(&id, &mut self.buf)
            .map_err(|e| Error::Read { id, source: super::error::boxed(e) })?;
        Ok(Counts::of(blob.data))
    }
}

/// The size of blob `id`, read from its header once.
fn cached_size(repo: &gix::Repository, slot: &mut Option<u64>, id: ObjectId) -> Result<u64, Error> {
    if let Some(size) = *slot {
        return Ok(size);
    }
    let size = repo.find_header(id).map_err(|e| Error::Read { id, source: super::error::boxed(e) })?.size();
    *slot = Some(size);
    Ok(size)
}

/// A blob's chunks (git's `spanhash`): for each chunk hash, the bytes of the chunks with it,
/// sorted by hash.
#[derive(Debug, Clone)]
pub struct Counts(Vec<(u32, u32)>);

impl Counts {
    /// git's `hash_chars`: chunks end at a newline or after 64 bytes; in text (not binary to
    /// git's probe) a CR before a LF is skipped.
    pub fn of(data: &[u8]) -> Counts {
        let is_text = !forgecore_content::is_binary(data);
        let mut counts: HashMap<u32, u32> = HashMap::new();
        let (mut accum1, mut accum2, mut n) = (0u32, 0u32, 0u32);
        for (i, &c) in data.iter().enumerate() {
            if is_text && c == b'\r' && data.get(i + 1) == Some(&b'\n') {
                continue;
            }
            let old1 = accum1;
            accum1 = (accum1 << 7) ^ (accum2 >> 25);
            accum2 = (accum2 << 7) ^ (old1 >> 25);
            accum1 = accum1.wrapping_add(u32::from(c));
            n += 1;
            if n < 64 && c != b'\n' {
                continue;
            }
            let hash = accum1.wrapping_add(accum2.wrapping_mul(0x61)) % HASHBASE;
            *counts.entry(hash).or_default() += n;
            n = 0;
            accum1 = 0;
            accum2 = 0;
        }
        let mut sorted: Vec<(u32, u32)> = counts.into_iter().collect();
        sorted.sort_unstable();
        Counts(sorted)
    }
}

/// git's `diffcore_count_changes`, the copied half: for each chunk hash, the bytes found in
/// both (the smaller of the two counts).
pub fn copied_bytes(source: &Counts, destination: &Counts) -> u64 {
    let (mut copied, mut d) = (0u64, destination.0.iter().peekable());
    for &(hash, source_count) in &source.0 {
        while d.next_if(|&&(h, _)| h < hash).is_some() {}
        if let Some(&(_, destination_count)) = d.next_if(|&&(h, _)| h == hash) {
            copied += u64::from(source_count.min(destination_count));
        }
    }
    copied
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_lines_or_64_bytes_and_crlf_counts_as_lf() {
        let lf = Counts::of(b"one\ntwo\n");
        assert_eq!(lf.0.iter().map(|&(_, n)| n).sum::<u32>(), 8);
        let crlf = Counts::of(b"one\r\ntwo\r\n");
        assert_eq!(lf.0, crlf.0, "text: a CR before LF is not hashed");
        let binary = Counts::of(b"one\r\n\0\n");
        assert_eq!(binary.0.iter().map(|&(_, n)| n).sum::<u32>(), 7, "binary: every byte counts");
        let long = Counts::of(&[b'x'; 130]);
        assert_eq!(long.0, vec![long.0[0]], "two full 64-byte chunks share a hash");
        assert_eq!(long.0[0].1, 128, "as in git, bytes after the last full chunk are not counted");
    }

    #[test]
    fn copied_bytes_take_the_smaller_count_per_chunk() {
        let a = Counts::of(b"same\nsame\nonly a\n");
        let b = Counts::of(b"same\nonly b\n");
        assert_eq!(copied_bytes(&a, &b), 5);
        assert_eq!(copied_bytes(&a, &a), 17);
    }

    #[test]
    fn the_basename_threshold_is_gits() {
        assert_eq!(MINIMUM_BASENAME_SCORE, 45000);
    }
}
