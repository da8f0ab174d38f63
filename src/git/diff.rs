//! Diffs between two trees the way `git diff -M` prints them: the changed files in git's order
//! with git's default rename detection, and each file's patch text byte-identical to git's,
//! from its first `@@` (or its `Binary files ... differ` line).
//!
//! gix finds the changed entries; [`super::rename`] pairs renames with git's own passes
//! (`git diff`'s defaults: 50 % similarity, 1000-file limit, no copies, empty files paired
//! too); imara-diff (through gix) computes the line diff with
//! Myers and git's indent heuristic. What git adds on top is ours: xdiff's hunk grouping and
//! header format (`-0,0`, `,1` omitted), the default function-name context after the header,
//! `\ No newline at end of file`, binary detection (a NUL in the first 8000 bytes of either
//! side, or a blob over `core.bigFileThreshold`), submodules as `Subproject commit <id>`, and
//! type changes (file <-> symlink <-> submodule) split into a deletion and an addition.
//! Attributes (`diff`, `binary`, custom drivers) are not read: a bare repository's git does not
//! read them from the tree either.

use super::error::{boxed, BoxError, Classify, Missing};
use super::packs::Packs;
use super::rename;
use gix::bstr::BString;
use gix::diff::blob::{diff_with_slider_heuristics, sources::byte_lines, Algorithm, InternedInput};
use gix::objs::tree::EntryKind;
use gix::ObjectId;
use std::io::Write;
use std::time::Instant;

/// Why a diff could not be made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot compare the trees")]
    Trees(#[source] BoxError),
    #[error("cannot read {id}")]
    Read {
        id: ObjectId,
        #[source]
        source: BoxError,
    },
    #[error(transparent)]
    Blob(#[from] super::blob::Error),
    #[error("the thread computing the patch of {path} panicked")]
    Panicked { path: String },
}

impl Classify for Error {
    fn missing(&self) -> Option<Missing> {
        None
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// `core.bigFileThreshold`'s default: larger blobs are binary to `git diff`.
const BIG_FILE_THRESHOLD: u64 = 512 << 20;
/// Past this many bytes of deleted and added blobs still unpaired after the identical and
/// basename passes, the all-pairs rename pass is skipped (it keeps every file's chunk counts).
const RENAME_CANDIDATE_BYTES: u64 = 32 << 20;
/// Bytes of decoded blobs the patches of one list keep for the next ones ([`patch`]'s `packs`):
/// the two sides of a change are usually one delta chain, met again at once.
pub const PATCH_BLOBS_KEPT: usize = 4 << 20;
/// Lines of context around each change (`-U3`).
const CONTEXT: u32 = 3;
/// xdiff keeps at most this many bytes of a function-name line.
const FUNC_LINE_MAX: usize = 80;
/// xdiff formats a hunk header into a buffer of this size, cutting the function name to fit.
const HUNK_HEADER_MAX: usize = 128;

pub const MODE_FILE: u32 = 0o100644;
pub const MODE_EXECUTABLE: u32 = 0o100755;
pub const MODE_SYMLINK: u32 = 0o120000;
pub const MODE_SUBMODULE: u32 = 0o160000;

/// One changed file, as one `git diff --raw` line (a type change is two: see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub old_path: BString,
    pub new_path: BString,
    /// Git's canonical mode (`0o100644`, `0o100755`, `0o120000`, `0o160000`); 0 for an added file.
    pub old_mode: u32,
    /// 0 for a deleted file.
    pub new_mode: u32,
    /// `None` for an added file.
    pub old_id: Option<ObjectId>,
    /// `None` for a deleted file.
    pub new_id: Option<ObjectId>,
}

impl FileChange {
    pub fn is_new(&self) -> bool {
        self.old_id.is_none()
    }

    pub fn is_deleted(&self) -> bool {
        self.new_id.is_none()
    }

    pub fn is_renamed(&self) -> bool {
        self.old_path != self.new_path
    }

    fn added(path: BString, mode: u32, id: ObjectId) -> FileChange {
        FileChange {
            old_path: path.clone(),
            new_path: path,
            old_mode: 0,
            new_mode: mode,
            old_id: None,
            new_id: Some(id),
        }
    }

    fn deleted(path: BString, mode: u32, id: ObjectId) -> FileChange {
        FileChange {
            old_path: path.clone(),
            new_path: path,
            old_mode: mode,
            new_mode: 0,
            old_id: Some(id),
            new_id: None,
        }
    }

    /// Where git lists it: renames at their destination, deletions before additions of a path.
    fn order_key(&self) -> (&[u8], bool) {
        (self.new_path.as_slice(), !self.is_deleted())
    }
}

/// Git's canonical mode of a non-tree entry; `None` for trees.
fn mode_of(mode: gix::objs::tree::EntryMode) -> Option<u32> {
    match mode.kind() {
        EntryKind::Tree => None,
        EntryKind::Blob => Some(MODE_FILE),
        EntryKind::BlobExecutable => Some(MODE_EXECUTABLE),
        EntryKind::Link => Some(MODE_SYMLINK),
        EntryKind::Commit => Some(MODE_SUBMODULE),
    }
}

/// Files, symlinks and submodules are different types: a change between them is not a
/// modification.
fn same_type(a: u32, b: u32) -> bool {
    let class = |m: u32| if m == MODE_EXECUTABLE { MODE_FILE } else { m };
    class(a) == class(b)
}

/// The object store, refusing every lookup once `deadline` has passed: the rename search,
/// which gix offers no way to stop, then ends at the deadline.
struct UntilDeadline<'a> {
    objects: &'a gix::OdbHandle,
    deadline: Instant,
}

impl UntilDeadline<'_> {
    fn check(&self) -> gix::error::Result<()> {
        if Instant::now() > self.deadline {
            let late = std::io::Error::new(std::io::ErrorKind::TimedOut, "the diff ran past its deadline");
            return Err(gix::Error::from_error(late));
        }
        Ok(())
    }
}

impl gix::objs::Find for UntilDeadline<'_> {
    fn try_find<'a>(&self, id: &gix::oid, buffer: &'a mut Vec<u8>) -> gix::error::Result<Option<gix::objs::Data<'a>>> {
        self.check()?;
        self.objects.try_find(id, buffer)
    }
}

impl gix::objs::FindHeader for UntilDeadline<'_> {
    fn try_header(&self, id: &gix::oid) -> gix::error::Result<Option<gix::objs::Header>> {
        self.check()?;
        self.objects.try_header(id)
    }
}

/// The changes turning tree `old` into tree `new` (`None`: the empty tree), in git's order,
/// renames paired as `git diff -M` pairs them ([`super::rename`]); `None` when `deadline`
/// passed first (the rename search can take long on large trees).
pub fn changes(
    repo: &gix::Repository,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
    deadline: Instant,
) -> Result<Option<Vec<FileChange>>> {
    use gix::diff::tree::recorder::Change;
    let empty = repo.empty_tree();
    let load = |id: Option<ObjectId>| -> Result<gix::Tree<'_>> {
        match id {
            None => Ok(empty.clone()),
            Some(id) => repo.find_tree(id).map_err(|e| Error::Read { id, source: boxed(e) }),
        }
    };
    let (old_tree, new_tree) = (load(old)?, load(new)?);
    let mut recorder =
        gix::diff::tree::Recorder::default().track_location(Some(gix::diff::tree::recorder::Location::Path));
    let diffed = gix::diff::tree(
        gix::objs::TreeRefIter::from_bytes(&old_tree.data, repo.object_hash()),
        gix::objs::TreeRefIter::from_bytes(&new_tree.data, repo.object_hash()),
        &mut Default::default(),
        &UntilDeadline { objects: &repo.objects, deadline },
        &mut recorder,
    );
    match diffed {
        Err(_) if Instant::now() > deadline => return Ok(None),
        Err(e) => return Err(Error::Trees(boxed(e))),
        Ok(()) => {}
    }
    let (mut out, mut deleted, mut added) = (Vec::new(), Vec::new(), Vec::new());
    let file = |path: BString, mode: u32, id: ObjectId| rename::File { path, mode, id };
    for change in recorder.records {
        match change {
            Change::Addition { entry_mode, oid, path, .. } => {
                if let Some(mode) = mode_of(entry_mode) {
                    added.push(file(path, mode, oid));
                }
            }
            Change::Deletion { entry_mode, oid, path, .. } => {
                if let Some(mode) = mode_of(entry_mode) {
                    deleted.push(file(path, mode, oid));
                }
            }
            Change::Modification { previous_entry_mode, previous_oid, entry_mode, oid, path } => {
                match (mode_of(previous_entry_mode), mode_of(entry_mode)) {
                    (Some(old_mode), Some(new_mode)) if same_type(old_mode, new_mode) => out.push(FileChange {
                        old_path: path.clone(),
                        new_path: path,
                        old_mode,
                        new_mode,
                        old_id: Some(previous_oid),
                        new_id: Some(oid),
                    }),
                    // A type change is git's `T`, no rename candidate: listed as a deletion and
                    // an addition. A tree on one side makes the other an addition or deletion.
                    (Some(old_mode), Some(new_mode)) => {
                        out.push(FileChange::deleted(path.clone(), old_mode, previous_oid));
                        out.push(FileChange::added(path, new_mode, oid));
                    }
                    (Some(old_mode), None) => deleted.push(file(path, old_mode, previous_oid)),
                    (None, Some(new_mode)) => added.push(file(path, new_mode, oid)),
                    (None, None) => {}
                }
            }
        }
    }
    // git queues the changes in path order, and its rename passes depend on that order.
    deleted.sort_by(|a, b| a.path.cmp(&b.path));
    added.sort_by(|a, b| a.path.cmp(&b.path));
    let search = rename::Search { all_pairs_bytes: RENAME_CANDIDATE_BYTES, deadline };
    let sources = match rename::pair(repo, &deleted, &added, &search) {
        Ok(sources) => sources,
        Err(rename::Error::Late) => return Ok(None),
        Err(rename::Error::Read { id, source }) => return Err(Error::Read { id, source }),
    };
    let mut renamed = vec![false; deleted.len()];
    for (to, from) in added.into_iter().zip(sources) {
        let Some(s) = from else {
            out.push(FileChange::added(to.path, to.mode, to.id));
            continue;
        };
        renamed[s] = true;
        let from = &deleted[s];
        out.push(FileChange {
            old_path: from.path.clone(),
            new_path: to.path,
            old_mode: from.mode,
            new_mode: to.mode,
            old_id: Some(from.id),
            new_id: Some(to.id),
        });
    }
    for (gone, renamed) in deleted.into_iter().zip(renamed) {
        if !renamed {
            out.push(FileChange::deleted(gone.path, gone.mode, gone.id));
        }
    }
    out.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
    Ok(Some(out))
}

/// Lines added and deleted between two trees, as `git diff --numstat` sums them (renames paired
/// as [`changes`] pairs them; a binary file counts nothing); `None` when `deadline` passed first.
pub fn numstat(
    repo: &gix::Repository,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
    deadline: Instant,
) -> Result<Option<(u64, u64)>> {
    let Some(changes) = changes(repo, old, new, deadline)? else { return Ok(None) };
    let (mut added, mut deleted) = (0u64, 0u64);
    let mut packs = Packs::of(repo).keeping(PATCH_BLOBS_KEPT);
    for change in &changes {
        if Instant::now() > deadline {
            return Ok(None);
        }
        let patch = patch(repo, &mut packs, change)?;
        if patch.binary {
            continue;
        }
        for line in patch.text.split(|&b| b == b'\n') {
            match line.first() {
                Some(b'+') => added += 1,
                Some(b'-') => deleted += 1,
                _ => {}
            }
        }
    }
    Ok(Some((added, deleted)))
}

/// A file's patch as git prints it after the header lines, with the counts Gitaly keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Patch {
    /// From the first `@@` (or the binary notice) to the end; empty when git prints no hunk
    /// (same content, an empty file added or deleted).
    pub text: Vec<u8>,
    /// Lines other than hunk headers: ` `, `+`, `-`, `\` and binary-notice lines.
    pub lines: usize,
    /// Bytes of those lines.
    pub line_bytes: usize,
    pub binary: bool,
}

/// One side's content: absent, too large to diff as text, or the bytes git diffs.
enum Side {
    Absent,
    Big,
    Data(Vec<u8>),
}

impl Side {
    fn bytes(&self) -> &[u8] {
        match self {
            Side::Data(data) => data,
            Side::Absent | Side::Big => &[],
        }
    }

    fn is_binary(&self) -> bool {
        match self {
            Side::Absent => false,
            Side::Big => true,
            Side::Data(data) => forgecore_content::is_binary(data),
        }
    }
}

fn load_side(repo: &gix::Repository, packs: &mut Packs, id: Option<ObjectId>, mode: u32) -> Result<Side> {
    let Some(id) = id else { return Ok(Side::Absent) };
    if mode == MODE_SUBMODULE {
        return Ok(Side::Data(format!("Subproject commit {id}\n").into_bytes()));
    }
    let header = repo.find_header(id).map_err(|e| Error::Read { id, source: boxed(e) })?;
    if header.size() > BIG_FILE_THRESHOLD {
        return Ok(Side::Big);
    }
    let mut data = Vec::new();
    if packs.find(&id, &mut data) == Some(gix::objs::Kind::Blob) {
        return Ok(Side::Data(data));
    }
    Ok(Side::Data(super::blob::read(repo, id)?))
}

/// Whether the patch of `change` has any line at all, without computing it: true exactly when
/// the content differs and is not empty on both sides (an empty side yields no hunk).
pub fn has_lines(repo: &gix::Repository, change: &FileChange) -> Result<bool> {
    if change.old_id == change.new_id {
        return Ok(false);
    }
    let non_empty = |id: Option<ObjectId>, mode: u32| -> Result<bool> {
        match id {
            None => Ok(false),
            Some(_) if mode == MODE_SUBMODULE => Ok(true),
            Some(id) => Ok(repo.find_header(id).map_err(|e| Error::Read { id, source: boxed(e) })?.size() > 0),
        }
    };
    Ok(non_empty(change.old_id, change.old_mode)? || non_empty(change.new_id, change.new_mode)?)
}

/// The patch of one change, byte-identical to what `git diff` prints for it after its header.
/// The blobs are read from `packs` where they are there (the two sides of a change are
/// usually one delta chain, decoded once and kept; libdeflate inflates it), else through gix.
pub fn patch(repo: &gix::Repository, packs: &mut Packs, change: &FileChange) -> Result<Patch> {
    if change.old_id == change.new_id {
        return Ok(Patch::default());
    }
    let old = load_side(repo, packs, change.old_id, change.old_mode)?;
    let new = load_side(repo, packs, change.new_id, change.new_mode)?;
    if old.is_binary() || new.is_binary() {
        let name = |side: &Side, prefix: &str, path: &[u8]| match side {
            Side::Absent => b"/dev/null".to_vec(),
            _ => quote_two(prefix.as_bytes(), path, true),
        };
        let mut text = b"Binary files ".to_vec();
        text.extend_from_slice(&name(&old, "a/", &change.old_path));
        text.extend_from_slice(b" and ");
        text.extend_from_slice(&name(&new, "b/", &change.new_path));
        text.extend_from_slice(b" differ\n");
        let line_bytes = text.len();
        return Ok(Patch { text, lines: 1, line_bytes, binary: true });
    }
    Ok(text_patch(old.bytes(), new.bytes()))
}

/// The hunks of a text diff, formatted as xdiff does with `-U3` and the default funcname rule.
pub fn text_patch(old: &[u8], new: &[u8]) -> Patch {
    let input = InternedInput::new(byte_lines(old), byte_lines(new));
    let diff = diff_with_slider_heuristics(Algorithm::Myers, &input);
    let hunks: Vec<gix::diff::blob::Hunk> = diff.hunks().collect();
    let old_lines: Vec<&[u8]> = input.before.iter().map(|&t| input.interner[t]).collect();
    let new_lines: Vec<&[u8]> = input.after.iter().map(|&t| input.interner[t]).collect();
    let (n_old, n_new) = (old_lines.len() as u32, new_lines.len() as u32);

    let mut patch = Patch::default();
    let mut func: Vec<u8> = Vec::new();
    let mut func_prev: i64 = -1;
    let mut i = 0;
    while i < hunks.len() {
        // Group changes whose gap is at most 2 * context (xdl_get_hunk).
        let mut j = i;
        while j + 1 < hunks.len() && hunks[j + 1].before.start - hunks[j].before.end <= 2 * CONTEXT {
            j += 1;
        }
        let (first, last) = (&hunks[i], &hunks[j]);
        let s1 = first.before.start.saturating_sub(CONTEXT);
        let s2 = first.after.start.saturating_sub(CONTEXT);
        let trailing = CONTEXT.min(n_old - last.before.end).min(n_new - last.after.end);
        let e1 = last.before.end + trailing;
        let e2 = last.after.end + trailing;

        // The function name: searched backwards from the line before the hunk down to the
        // previous hunk's starting point; when none is found the previous one stays.
        let start = i64::from(s1) - 1;
        let mut l = start;
        while l > func_prev && l >= 0 {
            if let Some(name) = func_name(old_lines[l as usize]) {
                func = name.to_vec();
                break;
            }
            l -= 1;
        }
        func_prev = start;
        hunk_header(&mut patch.text, s1, e1 - s1, s2, e2 - s2, &func);

        let emit = |patch: &mut Patch, prefix: u8, line: &[u8]| {
            let before = patch.text.len();
            patch.text.push(prefix);
            patch.text.extend_from_slice(line);
            patch.lines += 1;
            if !line.ends_with(b"\n") {
                patch.text.extend_from_slice(b"\n\\ No newline at end of file\n");
                patch.lines += 1;
            }
            patch.line_bytes += patch.text.len() - before;
        };
        let mut pos_new = s2;
        for hunk in &hunks[i..=j] {
            for line in &new_lines[pos_new as usize..hunk.after.start as usize] {
                emit(&mut patch, b' ', line);
            }
            for line in &old_lines[hunk.before.start as usize..hunk.before.end as usize] {
                emit(&mut patch, b'-', line);
            }
            for line in &new_lines[hunk.after.start as usize..hunk.after.end as usize] {
                emit(&mut patch, b'+', line);
            }
            pos_new = hunk.after.end;
        }
        for line in &new_lines[pos_new as usize..e2 as usize] {
            emit(&mut patch, b' ', line);
        }
        i = j + 1;
    }
    patch
}

/// xdiff's default funcname rule (`def_ff`): a line starting with an ASCII letter, `_` or `$`,
/// cut to 80 bytes, trailing whitespace (` `, `\t`, `\n`, `\r`) removed.
fn func_name(line: &[u8]) -> Option<&[u8]> {
    let first = *line.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_' || first == b'$') {
        return None;
    }
    let mut name = &line[..line.len().min(FUNC_LINE_MAX)];
    while let [rest @ .., b' ' | b'\t' | b'\n' | b'\r'] = name {
        name = rest;
    }
    Some(name)
}

/// `@@ -s1[,c1] +s2[,c2] @@[ func]` with 0-based starts, as `xdl_emit_hunk_hdr` writes it.
fn hunk_header(out: &mut Vec<u8>, s1: u32, c1: u32, s2: u32, c2: u32, func: &[u8]) {
    let mut header = Vec::with_capacity(HUNK_HEADER_MAX);
    let range = |header: &mut Vec<u8>, start: u32, count: u32| {
        let shown = if count == 0 { start } else { start + 1 };
        let _ = write!(header, "{shown}");
        if count != 1 {
            let _ = write!(header, ",{count}");
        }
    };
    header.extend_from_slice(b"@@ -");
    range(&mut header, s1, c1);
    header.extend_from_slice(b" +");
    range(&mut header, s2, c2);
    header.extend_from_slice(b" @@");
    if !func.is_empty() {
        header.push(b' ');
        let room = HUNK_HEADER_MAX.saturating_sub(header.len() + 1);
        let func = &func[..func.len().min(room)];
        header.extend_from_slice(&func[..git_utf8_prefix(func)]);
    }
    header.push(b'\n');
    out.extend_from_slice(&header);
}

/// The length of the longest prefix git's `utf8_width` reads as UTF-8: `sane_truncate_line`
/// cuts a hunk header there, so a name cut mid-character (or not UTF-8 at all) ends early.
/// Stricter than `str::from_utf8` in one way: U+FFFE and U+FFFF end it too.
fn git_utf8_prefix(bytes: &[u8]) -> usize {
    let mut at = 0;
    while let Some(&lead) = bytes.get(at) {
        let rest = &bytes[at + 1..];
        let continuation = |n: usize| rest.len() >= n && rest[..n].iter().all(|&b| b & 0xc0 == 0x80);
        let width = match lead {
            0x00..=0x7f => 1,
            0xc2..=0xdf if continuation(1) => 2,
            0xe0..=0xef if continuation(2) => {
                let (b1, b2) = (rest[0], rest[1]);
                let overlong = lead == 0xe0 && b1 & 0xe0 == 0x80;
                let surrogate = lead == 0xed && b1 & 0xe0 == 0xa0;
                let nonchar = lead == 0xef && b1 == 0xbf && b2 & 0xfe == 0xbe;
                if overlong || surrogate || nonchar {
                    break;
                }
                3
            }
            0xf0..=0xf4 if continuation(3) => {
                let overlong = lead == 0xf0 && rest[0] & 0xf0 == 0x80;
                let too_big = lead == 0xf4 && rest[0] > 0x8f;
                if overlong || too_big {
                    break;
                }
                4
            }
            _ => break,
        };
        at += width;
    }
    at
}

/// Whether git's `quote_c_style` quotes this byte (`quote_path_fully`: bytes >= 0x80 too).
fn must_quote(byte: u8, fully: bool) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\' || byte == 0x7f || (fully && byte >= 0x80)
}

/// git's `quote_two`: `prefix` + `path`, C-quoted as a whole when either needs it.
/// `fully` is `core.quotePath` (true by default: non-ASCII bytes are escaped as octal).
pub fn quote_two(prefix: &[u8], path: &[u8], fully: bool) -> Vec<u8> {
    let needs = prefix.iter().chain(path).any(|&b| must_quote(b, fully));
    if !needs {
        return [prefix, path].concat();
    }
    let mut out = vec![b'"'];
    for &byte in prefix.iter().chain(path) {
        if !must_quote(byte, fully) {
            out.push(byte);
            continue;
        }
        match byte {
            0x07 => out.extend_from_slice(b"\\a"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0b => out.extend_from_slice(b"\\v"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            other => {
                let _ = write!(out, "\\{other:03o}");
            }
        }
    }
    out.push(b'"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(old: &str, new: &str) -> String {
        String::from_utf8(text_patch(old.as_bytes(), new.as_bytes()).text).unwrap()
    }

    #[test]
    fn hunk_headers_are_xdiffs() {
        assert_eq!(text("", "a\n"), "@@ -0,0 +1 @@\n+a\n");
        assert_eq!(text("a\n", ""), "@@ -1 +0,0 @@\n-a\n");
        assert_eq!(text("a\nb\n", "a\nc\n"), "@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
        assert_eq!(text("a", "a\n"), "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n");
    }

    #[test]
    fn function_names_follow_the_default_rule() {
        let old: String =
            (0..20).map(|i| if i == 2 { "fn main() {  \n".to_string() } else { format!(" {i}\n") }).collect();
        let new = old.replace(" 15\n", " fifteen\n");
        assert!(text(&old, &new).starts_with("@@ -13,7 +13,7 @@ fn main() {\n"), "{}", text(&old, &new));
        assert_eq!(func_name(b"_x\r\n"), Some(&b"_x"[..]));
        assert_eq!(func_name(b" indented\n"), None);
        assert_eq!(func_name(&[b'a'; 100]).map(<[u8]>::len), Some(80));
    }

    #[test]
    fn hunk_header_ends_where_git_stops_reading_utf8() {
        assert_eq!(git_utf8_prefix("fn é ü ∑ 𝄞".as_bytes()), "fn é ü ∑ 𝄞".len());
        assert_eq!(git_utf8_prefix(b"ab\xc3"), 2);
        assert_eq!(git_utf8_prefix(b"ab\xe2\x88"), 2);
        assert_eq!(git_utf8_prefix(b"latin1 caf\xe9 x"), 10);
        assert_eq!(git_utf8_prefix(b"a\xc0\x80"), 1, "overlong");
        assert_eq!(git_utf8_prefix(b"a\xed\xa0\x80"), 1, "surrogate");
        assert_eq!(git_utf8_prefix(b"a\xef\xbf\xbe"), 1, "U+FFFE");
        assert_eq!(git_utf8_prefix(b"a\xf4\x90\x80\x80"), 1, "past U+10FFFF");
        let mut name = vec![b'x'; 79];
        name.extend_from_slice("é".as_bytes());
        let mut out = Vec::new();
        hunk_header(&mut out, 4, 7, 4, 7, func_name(&name).unwrap_or_default());
        assert_eq!(out, [b"@@ -5,7 +5,7 @@ ".as_slice(), &[b'x'; 79], b"\n"].concat());
    }

    #[test]
    fn quoting_is_gits() {
        assert_eq!(quote_two(b"a/", b"plain.txt", true), b"a/plain.txt");
        assert_eq!(quote_two(b"a/", "ü".as_bytes(), true), b"\"a/\\303\\274\"");
        assert_eq!(quote_two(b"a/", "ü".as_bytes(), false), "a/ü".as_bytes());
        assert_eq!(quote_two(b"b/", b"x\ny\"", false), b"\"b/x\\ny\\\"\"");
    }
}
