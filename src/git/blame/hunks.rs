//! The part of the blamed file not yet attributed, and how one diff moves it: each
//! [`Unblamed`] run of lines has the commits it may still come from (its suspects) and where the
//! lines are in each one's version of the file; a diff of a suspect against a parent passes the
//! lines the parent has unchanged on to it, shifted to where they are there, and leaves the
//! added or replaced ones with the suspect.
//!
//! This is gix-blame's algorithm (`gix-blame` 0.20, `src/file/mod.rs`, MIT or Apache-2.0), case
//! for case, so that blame answers as it did and as git does; what it owns is only the state of
//! the blame, never a version of the file ([`super::walk`]).

use gix::bstr::BString;
use gix::ObjectId;
use std::ops::Range;

/// Lines of the blamed file not yet attributed: `lines` in the blamed file, and for each suspect
/// the same lines in its version of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Unblamed {
    pub lines: Range<u32>,
    pub suspects: Vec<(ObjectId, Range<u32>)>,
    /// The path the lines had in the suspects, where it differs from the blamed path (a rename).
    pub source: Option<BString>,
}

/// One region of a diff, in lines of the newer version.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Unchanged(Range<u32>),
    /// Lines added or replaced, and how many lines of the older version they replace.
    AddedOrReplaced(Range<u32>, u32),
    /// Lines of the older version deleted before this line.
    Deleted(u32, u32),
}

impl Unblamed {
    pub fn new(lines: Range<u32>, suspect: ObjectId) -> Unblamed {
        Unblamed { suspects: vec![(suspect, lines.clone())], lines, source: None }
    }

    pub fn has(&self, suspect: &ObjectId) -> bool {
        self.suspects.iter().any(|(id, _)| id == suspect)
    }

    pub fn range(&self, suspect: &ObjectId) -> Option<&Range<u32>> {
        self.suspects.iter().find(|(id, _)| id == suspect).map(|(_, range)| range)
    }

    /// Its lines in `from` are now `to`'s.
    pub fn pass(&mut self, from: ObjectId, to: ObjectId) {
        if let Some(entry) = self.suspects.iter_mut().find(|(id, _)| *id == from) {
            entry.0 = to;
        }
    }

    fn passed(mut self, from: ObjectId, to: ObjectId) -> Unblamed {
        self.pass(from, to);
        self
    }

    /// `to` is a suspect too, with the lines `from` has.
    pub fn share(&mut self, from: ObjectId, to: ObjectId) {
        if let Some(range) = self.range(&from).cloned() {
            self.suspects.push((to, range));
        }
    }

    pub fn remove(&mut self, suspect: ObjectId) {
        self.suspects.retain(|(id, _)| *id != suspect);
    }

    /// Its lines in `suspect` moved up by `offset` (added lines less deleted ones before them).
    fn shifted(mut self, suspect: ObjectId, offset: i64) -> Unblamed {
        if let Some((_, range)) = self.suspects.iter_mut().find(|(id, _)| *id == suspect) {
            let shift = |line: u32| u32::try_from(i64::from(line) - offset).unwrap_or(0);
            *range = shift(range.start)..shift(range.end);
        }
        self
    }

    /// Split before `line` of `suspect`'s version, when that falls strictly inside it.
    fn split_at(self, suspect: ObjectId, line: u32) -> Result<(Unblamed, Unblamed), Unblamed> {
        let Some(range) = self.range(&suspect) else { return Err(self) };
        if !range.contains(&line) || line == range.start {
            return Err(self);
        }
        let at = line - range.start;
        let before = Unblamed {
            lines: self.lines.start..self.lines.start + at,
            suspects: self.suspects.iter().map(|(id, r)| (*id, r.start..r.start + at)).collect(),
            source: self.source.clone(),
        };
        let after = Unblamed {
            lines: self.lines.start + at..self.lines.end,
            suspects: self.suspects.iter().map(|(id, r)| (*id, r.start + at..r.end)).collect(),
            source: self.source,
        };
        Ok((before, after))
    }
}

/// Whether the last line of `test` lies in `within`.
fn ends_within(test: &Range<u32>, within: &Range<u32>) -> bool {
    test.end > within.start && test.end <= within.end
}

/// What `diff` (the changes from `parent`'s version to `suspect`'s) makes of `hunks`: each
/// hunk of `suspect` split where the changes begin and end, the unchanged parts passed to
/// `parent`, the rest left with `suspect`.
pub fn process(hunks: Vec<Unblamed>, diff: &[Change], suspect: ObjectId, parent: ObjectId) -> Vec<Unblamed> {
    let mut out = Vec::new();
    let mut pass = Passing { out: &mut out, suspect, parent, offset: 0 };
    for hunk in hunks {
        pass.offset = 0;
        let mut changes = diff.iter().cloned();
        let mut change = changes.next();
        let mut hunk = Some(hunk);
        while let Some(current) = hunk.take() {
            let (rest, pending) = pass.one(current, change);
            hunk = rest;
            change = pending.or_else(|| changes.next());
        }
    }
    out
}

/// One hunk meeting the changes of one diff, in order.
struct Passing<'a> {
    out: &'a mut Vec<Unblamed>,
    suspect: ObjectId,
    parent: ObjectId,
    /// Added lines less deleted lines before the change at hand.
    offset: i64,
}

impl Passing<'_> {
    /// `hunk` passed to the parent, at its place there.
    fn pass_on(&mut self, hunk: Unblamed) {
        self.out.push(hunk.passed(self.suspect, self.parent).shifted(self.parent, self.offset));
    }

    /// What `change` makes of `hunk`: the part of the hunk still to meet later changes, and the
    /// change when later hunks are still to meet it (else the next change is taken).
    fn one(&mut self, hunk: Unblamed, change: Option<Change>) -> (Option<Unblamed>, Option<Change>) {
        let Some(change) = change else {
            self.pass_on(hunk);
            return (None, None);
        };
        let Some(range) = hunk.range(&self.suspect).cloned() else {
            // Not this suspect's: as it is.
            self.out.push(hunk);
            return (None, Some(change));
        };
        match change {
            Change::Unchanged(ref unchanged) => {
                if ends_within(unchanged, &range) || unchanged.end <= range.start {
                    // The changes after it reach into the hunk.
                    (Some(hunk), None)
                } else {
                    self.pass_on(hunk);
                    (None, Some(change))
                }
            }
            Change::AddedOrReplaced(ref added, deleted) => {
                let grown = i64::from(added.end - added.start) - i64::from(deleted);
                match (range.contains(&added.start), ends_within(added, &range)) {
                    (true, true) => {
                        let at_added = self.before_to_parent(hunk, added.start);
                        self.offset += grown;
                        self.keep_until(at_added, added.end)
                    }
                    (true, false) => {
                        let at_added = self.before_to_parent(hunk, added.start);
                        self.out.push(at_added);
                        (None, Some(change))
                    }
                    (false, true) => {
                        self.offset += grown;
                        self.keep_until(hunk, added.end)
                    }
                    (false, false) if added.end <= range.start => {
                        self.offset += grown;
                        (Some(hunk), None)
                    }
                    (false, false) if range.end <= added.start => {
                        self.pass_on(hunk);
                        (None, Some(change))
                    }
                    (false, false) => {
                        // Within the added lines: the suspect's.
                        self.out.push(hunk);
                        (None, Some(change))
                    }
                }
            }
            Change::Deleted(at, deleted) => {
                if at < range.start {
                    self.offset -= i64::from(deleted);
                    (Some(hunk), None)
                } else if at < range.end {
                    let after = self.before_to_parent(hunk, at);
                    self.offset -= i64::from(deleted);
                    (Some(after), None)
                } else {
                    self.pass_on(hunk);
                    (None, Some(change))
                }
            }
        }
    }

    /// The lines of `hunk` before `line` passed to the parent; the rest.
    fn before_to_parent(&mut self, hunk: Unblamed, line: u32) -> Unblamed {
        match hunk.split_at(self.suspect, line) {
            Ok((before, after)) => {
                self.pass_on(before);
                after
            }
            Err(whole) => whole,
        }
    }

    /// The lines of `hunk` before `end` kept by the suspect; the rest, still to meet changes.
    fn keep_until(&mut self, hunk: Unblamed, end: u32) -> (Option<Unblamed>, Option<Change>) {
        match hunk.split_at(self.suspect, end) {
            Ok((kept, after)) => {
                self.out.push(kept);
                (Some(after), None)
            }
            Err(whole) => {
                self.out.push(whole);
                (None, None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> ObjectId {
        ObjectId::from_bytes_or_panic(&[n; 20])
    }

    #[test]
    fn unchanged_lines_pass_to_the_parent_shifted_and_added_ones_stay() {
        let (suspect, parent) = (id(1), id(2));
        // Lines 0..10; the parent had 2 lines where the suspect has 3..6, and one more line
        // deleted before line 8.
        let diff = [
            Change::Unchanged(0..3),
            Change::AddedOrReplaced(3..6, 2),
            Change::Unchanged(6..8),
            Change::Deleted(8, 1),
            Change::Unchanged(8..10),
        ];
        let out = process(vec![Unblamed::new(0..10, suspect)], &diff, suspect, parent);
        let got: Vec<_> = out.iter().map(|h| (h.lines.clone(), h.suspects.clone())).collect();
        assert_eq!(
            got,
            [
                (0..3, vec![(parent, 0..3)]),
                (3..6, vec![(suspect, 3..6)]),
                (6..8, vec![(parent, 5..7)]),
                (8..10, vec![(parent, 8..10)]),
            ]
        );
    }

    #[test]
    fn a_hunk_of_another_suspect_is_left_as_it_is() {
        let hunk = Unblamed::new(0..4, id(3));
        let out = process(vec![hunk.clone()], &[Change::AddedOrReplaced(0..4, 0)], id(1), id(2));
        assert_eq!(out, [hunk]);
    }
}
