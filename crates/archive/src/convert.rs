//! What `git archive` does to a file's content on its way into the archive (its
//! `convert_to_working_tree` followed by `format_subst`), ported from git 2.39's `convert.c`:
//! which conversion a path gets from its attributes and the repository's `core.autocrlf` /
//! `core.eol` (`convert_attrs`, `output_eol`), `ident` (`ident_to_worktree`), LF to CRLF
//! (`crlf_to_worktree` with `gather_stats`, `convert_is_binary` and the "auto" safety rules), and
//! the stream that chains them with `export-subst` (`subst`), in bounded memory.
//!
//! No filter driver (`filter=`) and no `working-tree-encoding` conversion is ever applied: no
//! program runs. As in git, a blob larger than `core.bigFileThreshold` is archived as it is
//! unless it is marked `export-subst`.
//!
//! Memory: every stage works on pieces. The LF-to-CRLF decision needs statistics of the whole
//! content, and a tar header needs the converted size first, so the content is read more than
//! once (statistics, size, write) instead of being held. `ident` holds what follows a `$Id:` up
//! to [`IDENT_HOLD`] bytes; for a longer one, a first pass over the content records how each such
//! candidate ends, so the pass that writes never holds more.

use crate::attributes::{State, Verdict};
use crate::content::Stream;
use crate::error::Error;
use crate::output::Out;
use crate::pretty::Facts;
use crate::subst::Subst;
use std::io;

/// Bytes after `$Id:` held before the decision for that candidate comes from the first pass.
const IDENT_HOLD: usize = 64 << 10;
/// git's default `core.bigFileThreshold`.
const BIG_FILE_THRESHOLD: u64 = 512 << 20;

/// `core.autocrlf`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AutoCrlf {
    False,
    True,
    Input,
}

/// `core.eol` (`native` is LF here, as on every platform but Windows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CoreEol {
    Unset,
    Lf,
    Crlf,
}

/// The repository configuration the conversion depends on, read as git reads it.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    auto_crlf: AutoCrlf,
    eol: CoreEol,
    pub big_file_threshold: u64,
}

impl Settings {
    pub fn from_repo(repo: &gix::Repository) -> Settings {
        let config = repo.config_snapshot();
        let text = |key: &str| config.string(key).map(|value| value.to_string().to_ascii_lowercase());
        let auto_crlf = match text("core.autocrlf").as_deref() {
            Some("input") => AutoCrlf::Input,
            _ if config.boolean("core.autocrlf") == Some(true) => AutoCrlf::True,
            _ => AutoCrlf::False,
        };
        let eol = match text("core.eol").as_deref() {
            Some("lf") | Some("native") => CoreEol::Lf,
            Some("crlf") => CoreEol::Crlf,
            _ => CoreEol::Unset,
        };
        let big_file_threshold = config
            .integer("core.bigFileThreshold")
            .and_then(|value| u64::try_from(value).ok())
            .unwrap_or(BIG_FILE_THRESHOLD);
        Settings { auto_crlf, eol, big_file_threshold }
    }

    /// git's `text_eol_is_crlf`.
    fn text_eol_is_crlf(&self) -> bool {
        match self.auto_crlf {
            AutoCrlf::True => true,
            AutoCrlf::Input => false,
            AutoCrlf::False => self.eol == CoreEol::Crlf,
        }
    }
}

/// git's `convert_crlf_action`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Undefined,
    Binary,
    Text,
    TextInput,
    TextCrlf,
    Auto,
    AutoCrlf,
    AutoInput,
}

/// `git_path_check_crlf`.
fn check_crlf(state: &State) -> Action {
    match state {
        State::Set => Action::Text,
        State::Unset => Action::Binary,
        State::Unspecified => Action::Undefined,
        State::Value(value) if value == b"input" => Action::TextInput,
        State::Value(value) if value == b"auto" => Action::Auto,
        State::Value(_) => Action::Undefined,
    }
}

/// What happens to one file's content.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Conversion {
    /// `$Id$` expansion.
    pub ident: bool,
    /// LF to CRLF, and whether git's "auto" safety rules apply (no CR at all, not binary).
    pub crlf: Option<bool>,
    /// `$Format:...$` expansion.
    pub subst: bool,
}

impl Conversion {
    /// `convert_attrs` and `output_eol` for a path with these attributes.
    pub fn of(verdict: &Verdict, settings: &Settings) -> Conversion {
        let mut action = check_crlf(&verdict.text);
        if action == Action::Undefined {
            action = check_crlf(&verdict.crlf);
        }
        if action != Action::Binary {
            let eol = match &verdict.eol {
                State::Value(value) if value == b"lf" => Some(false),
                State::Value(value) if value == b"crlf" => Some(true),
                _ => None,
            };
            action = match (action, eol) {
                (Action::Auto, Some(false)) => Action::AutoInput,
                (Action::Auto, Some(true)) => Action::AutoCrlf,
                (_, Some(false)) => Action::TextInput,
                (_, Some(true)) => Action::TextCrlf,
                (action, None) => action,
            };
        }
        if action == Action::Text {
            action = if settings.text_eol_is_crlf() { Action::TextCrlf } else { Action::TextInput };
        }
        if action == Action::Undefined {
            action = match settings.auto_crlf {
                AutoCrlf::False => Action::Binary,
                AutoCrlf::True => Action::AutoCrlf,
                AutoCrlf::Input => Action::AutoInput,
            };
        }
        let crlf = match action {
            Action::Binary | Action::TextInput | Action::AutoInput => None,
            Action::TextCrlf => Some(false),
            Action::Undefined | Action::AutoCrlf => Some(true),
            Action::Text => settings.text_eol_is_crlf().then_some(false),
            Action::Auto => settings.text_eol_is_crlf().then_some(true),
        };
        Conversion { ident: verdict.ident, crlf, subst: verdict.export_subst }
    }

    pub fn is_none(&self) -> bool {
        !self.ident && self.crlf.is_none() && !self.subst
    }
}

/// How `ident` learns the end of a candidate longer than [`IDENT_HOLD`].
enum Plan {
    /// First pass: note each one's outcome (true: substituted).
    Record(Vec<bool>),
    /// Later passes: take them in order.
    Replay(Vec<bool>, usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IdentState {
    Normal,
    /// After a `$`: `pending` holds what followed it (a prefix of `Id$` or `Id:...`).
    Candidate,
    /// A long candidate being recorded: nothing held, only what decides it.
    Counting,
    /// A long candidate known to be substituted: dropped up to its closing `$`.
    Skipping,
}

/// `ident_to_worktree` on content in pieces.
struct Ident {
    replacement: Vec<u8>,
    state: IdentState,
    pending: Vec<u8>,
    /// In a `$Id:` candidate: a newline seen, and where the first space from index 4 is.
    newline: bool,
    space: Option<usize>,
    length: usize,
    plan: Plan,
}

impl Ident {
    fn new(id: &gix::oid, plan: Plan) -> Ident {
        let replacement = format!("Id: {} $", id.to_hex()).into_bytes();
        Ident {
            replacement,
            state: IdentState::Normal,
            pending: Vec::new(),
            newline: false,
            space: None,
            length: 0,
            plan,
        }
    }

    /// The candidate is literal: what was held goes out, and scanning resumes.
    fn literal(&mut self, out: Out<'_>) -> io::Result<()> {
        self.state = IdentState::Normal;
        out(&self.pending)?;
        self.pending.clear();
        Ok(())
    }

    fn record(&mut self, substituted: bool) {
        if let Plan::Record(outcomes) = &mut self.plan {
            outcomes.push(substituted);
        }
        self.state = IdentState::Normal;
    }

    fn feed(&mut self, mut input: &[u8], out: Out<'_>) -> io::Result<()> {
        while !input.is_empty() {
            match self.state {
                IdentState::Normal => match input.iter().position(|b| *b == b'$') {
                    None => return out(input),
                    Some(at) => {
                        out(&input[..=at])?;
                        input = &input[at + 1..];
                        self.state = IdentState::Candidate;
                        self.pending.clear();
                        self.newline = false;
                        self.space = None;
                    }
                },
                IdentState::Skipping => match input.iter().position(|b| *b == b'$') {
                    None => return Ok(()),
                    Some(at) => {
                        out(&self.replacement)?;
                        input = &input[at + 1..];
                        self.state = IdentState::Normal;
                    }
                },
                IdentState::Counting => {
                    // `self.length` is the index in the candidate of `byte`.
                    let byte = input[0];
                    let at = self.length;
                    if byte == b'$' {
                        // Still open, so neither a newline nor a space followed by more came:
                        // git substitutes it.
                        self.record(true);
                        input = &input[1..];
                        continue;
                    }
                    input = &input[1..];
                    self.length += 1;
                    if byte == b'\n' {
                        self.newline = true;
                        self.record(false);
                    } else if byte == b' ' && at >= 4 && self.space.is_none() {
                        self.space = Some(at);
                    } else if self.space.is_some_and(|s| s < at) {
                        self.record(false);
                    }
                }
                IdentState::Candidate => {
                    let byte = input[0];
                    let held = self.pending.len();
                    if held < 2 {
                        if byte == b"Id"[held] {
                            self.pending.push(byte);
                            input = &input[1..];
                        } else {
                            self.literal(out)?;
                        }
                        continue;
                    }
                    if held == 2 {
                        match byte {
                            b'$' => {
                                input = &input[1..];
                                self.pending.clear();
                                self.state = IdentState::Normal;
                                out(&self.replacement)?;
                            }
                            b':' => {
                                input = &input[1..];
                                self.pending.push(byte);
                            }
                            _ => self.literal(out)?,
                        }
                        continue;
                    }
                    // In `Id:...`: index `held` is where `byte` lands. git keeps the candidate
                    // when a newline comes before its closing `$`, or a space (from index 4)
                    // with more before the `$`; both are decided as they arrive (below), so a
                    // candidate still open at its `$` is substituted.
                    if byte == b'$' {
                        input = &input[1..];
                        self.pending.clear();
                        self.state = IdentState::Normal;
                        out(&self.replacement)?;
                        continue;
                    }
                    input = &input[1..];
                    self.pending.push(byte);
                    if byte == b'\n' {
                        self.newline = true;
                    } else if byte == b' ' && held >= 4 && self.space.is_none() {
                        self.space = Some(held);
                        continue;
                    }
                    // Decided already: a newline, or a space with a byte after it.
                    if self.newline || self.space.is_some_and(|s| s < held) {
                        self.literal(out)?;
                        continue;
                    }
                    if self.pending.len() > IDENT_HOLD {
                        self.long(out)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// A candidate outgrew [`IDENT_HOLD`]: record it, or follow what was recorded.
    fn long(&mut self, out: Out<'_>) -> io::Result<()> {
        match &mut self.plan {
            Plan::Record(_) => {
                self.length = self.pending.len();
                self.pending.clear();
                self.state = IdentState::Counting;
                Ok(())
            }
            Plan::Replay(outcomes, next) => {
                let substituted = outcomes.get(*next).copied().unwrap_or(false);
                *next += 1;
                if substituted {
                    self.pending.clear();
                    self.state = IdentState::Skipping;
                    Ok(())
                } else {
                    self.literal(out)
                }
            }
        }
    }

    /// The end: a candidate still open is literal (git's "incomplete keyword").
    fn finish(&mut self, out: Out<'_>) -> io::Result<()> {
        match self.state {
            IdentState::Candidate => self.literal(out),
            IdentState::Counting => {
                self.record(false);
                Ok(())
            }
            _ => {
                self.state = IdentState::Normal;
                Ok(())
            }
        }
    }
}

/// git's `struct text_stat`, gathered piece by piece.
#[derive(Debug, Clone, Default)]
struct Stats {
    nul: u64,
    lonecr: u64,
    lonelf: u64,
    crlf: u64,
    printable: u64,
    nonprintable: u64,
    len: u64,
    last: u8,
    /// A `\r` ended the previous piece.
    cr: bool,
}

impl Stats {
    fn feed(&mut self, input: &[u8]) {
        for &c in input {
            if self.cr {
                self.cr = false;
                if c == b'\n' {
                    self.crlf += 1;
                    continue;
                }
                self.lonecr += 1;
            }
            match c {
                b'\r' => self.cr = true,
                b'\n' => self.lonelf += 1,
                127 => self.nonprintable += 1,
                b'\x08' | b'\t' | b'\x1b' | b'\x0c' => self.printable += 1,
                0 => {
                    self.nul += 1;
                    self.nonprintable += 1;
                }
                c if c < 32 => self.nonprintable += 1,
                _ => self.printable += 1,
            }
        }
        if let Some(&last) = input.last() {
            self.last = last;
        }
        self.len += input.len() as u64;
    }

    fn finish(&mut self) {
        if self.cr {
            self.cr = false;
            self.lonecr += 1;
        }
        // A file ending in ^Z (DOS EOF) does not count it as non-printable.
        if self.len >= 1 && self.last == b'\x1a' {
            self.nonprintable = self.nonprintable.saturating_sub(1);
        }
    }

    /// `convert_is_binary`.
    fn is_binary(&self) -> bool {
        self.lonecr > 0 || self.nul > 0 || (self.printable >> 7) < self.nonprintable
    }

    /// `will_convert_lf_to_crlf` once the output is known to be CRLF.
    fn will_convert(&self, auto: bool) -> bool {
        if self.len == 0 || self.lonelf == 0 {
            return false;
        }
        !(auto && (self.lonecr > 0 || self.crlf > 0 || self.is_binary()))
    }
}

/// LF to CRLF on content in pieces: every LF not preceded by CR.
#[derive(Default)]
struct ToCrlf {
    cr: bool,
}

impl ToCrlf {
    fn feed(&mut self, mut input: &[u8], out: Out<'_>) -> io::Result<()> {
        while let Some(at) = input.iter().position(|b| *b == b'\n') {
            let before_cr = if at > 0 { input[at - 1] == b'\r' } else { self.cr };
            if before_cr {
                out(&input[..=at])?;
            } else {
                out(&input[..at])?;
                out(b"\r\n")?;
            }
            self.cr = false;
            input = &input[at + 1..];
        }
        if let Some(&last) = input.last() {
            self.cr = last == b'\r';
            out(input)?;
        }
        Ok(())
    }
}

/// Where the original content comes from, as often as needed.
pub enum Source<'a> {
    Bytes(&'a [u8]),
    Stream(&'a mut dyn Stream),
}

impl Source<'_> {
    fn copy_to(&mut self, sink: Out<'_>) -> io::Result<()> {
        match self {
            Source::Bytes(data) => {
                for piece in data.chunks(64 << 10) {
                    sink(piece)?;
                }
                Ok(())
            }
            Source::Stream(stream) => stream.copy_to(sink),
        }
    }

    fn len(&self) -> u64 {
        match self {
            Source::Bytes(data) => data.len() as u64,
            Source::Stream(stream) => stream.size(),
        }
    }
}

/// A file's content converted as `git archive` converts it, produced again on every read.
pub struct Converted<'a, 'f> {
    source: Source<'a>,
    id: gix::ObjectId,
    conversion: Conversion,
    /// Outcomes of the long `ident` candidates.
    ident_plan: Vec<bool>,
    /// Whether LF becomes CRLF, decided from the whole (ident-expanded) content.
    to_crlf: bool,
    facts: Option<&'f Facts>,
    /// The `%(describe)` state every expansion of this file starts from.
    describe_mark: u32,
    size: u64,
}

impl<'a, 'f> Converted<'a, 'f> {
    /// Reads the content as often as the decisions need (long `ident` candidates, the
    /// statistics for CRLF, the converted size) before the first byte is written.
    pub fn new(
        mut source: Source<'a>,
        id: gix::ObjectId,
        conversion: Conversion,
        facts: Option<&'f Facts>,
    ) -> io::Result<Converted<'a, 'f>> {
        let mut ident_plan = Vec::new();
        if conversion.ident && source.len() > IDENT_HOLD as u64 {
            let mut ident = Ident::new(&id, Plan::Record(Vec::new()));
            let mut discard = |_: &[u8]| Ok(());
            source.copy_to(&mut |piece| ident.feed(piece, &mut discard))?;
            ident.finish(&mut discard)?;
            if let Plan::Record(outcomes) = ident.plan {
                ident_plan = outcomes;
            }
        }
        let mut converted = Converted {
            source,
            id,
            conversion,
            ident_plan,
            to_crlf: false,
            facts: conversion.subst.then_some(facts).flatten(),
            describe_mark: facts.map_or(0, Facts::describe_mark),
            size: 0,
        };
        let mut stats = Stats::default();
        converted.run(false, false, &mut |piece| {
            stats.feed(piece);
            Ok(())
        })?;
        stats.finish();
        converted.to_crlf = conversion.crlf.is_some_and(|auto| stats.will_convert(auto));
        converted.size = if converted.facts.is_some() {
            let mut size = 0u64;
            converted.run(converted.to_crlf, true, &mut |piece| {
                size += piece.len() as u64;
                Ok(())
            })?;
            size
        } else {
            stats.len + if converted.to_crlf { stats.lonelf } else { 0 }
        };
        Ok(converted)
    }

    /// The pipeline: ident, then (when `crlf`) LF to CRLF, then (when `subst`) `$Format:`.
    fn run(&mut self, crlf: bool, subst: bool, sink: Out<'_>) -> io::Result<()> {
        let mut ident = self.conversion.ident.then(|| Ident::new(&self.id, Plan::Replay(self.ident_plan.clone(), 0)));
        let mut to_crlf = crlf.then(ToCrlf::default);
        let mut format = match (subst, self.facts) {
            (true, Some(facts)) => {
                facts.rewind_describe(self.describe_mark);
                Some(Subst::new(facts))
            }
            _ => None,
        };
        {
            let mut last = |piece: &[u8]| match format.as_mut() {
                Some(format) => format.feed(piece, sink),
                None => sink(piece),
            };
            let mut middle = |piece: &[u8]| match to_crlf.as_mut() {
                Some(to_crlf) => to_crlf.feed(piece, &mut last),
                None => last(piece),
            };
            match ident.as_mut() {
                Some(ident) => {
                    self.source.copy_to(&mut |piece| ident.feed(piece, &mut middle))?;
                    ident.finish(&mut middle)?;
                }
                None => self.source.copy_to(&mut middle)?,
            }
        }
        if let Some(format) = format.as_mut() {
            format.finish(sink)?;
        }
        Ok(())
    }

    /// The converted content whole, when it is at most `limit` bytes.
    pub fn collect(&mut self, limit: u64, out: &mut Vec<u8>) -> io::Result<bool> {
        if self.size > limit {
            return Ok(false);
        }
        out.clear();
        out.reserve(self.size as usize);
        self.copy_to(&mut |piece| {
            out.extend_from_slice(piece);
            Ok(())
        })?;
        Ok(true)
    }
}

impl Stream for Converted<'_, '_> {
    fn size(&self) -> u64 {
        self.size
    }

    fn copy_to(&mut self, sink: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        let (crlf, subst) = (self.to_crlf, self.facts.is_some());
        let mut written = 0u64;
        self.run(crlf, subst, &mut |piece| {
            written += piece.len() as u64;
            sink(piece)
        })?;
        if written != self.size {
            return Err(Error::ConversionChanged { id: self.id }.into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ident(content: &[u8], piece: usize) -> Vec<u8> {
        let id = gix::ObjectId::null(gix::hash::Kind::Sha1);
        let mut plan = Ident::new(&id, Plan::Record(Vec::new()));
        let mut discard = |_: &[u8]| Ok(());
        for chunk in content.chunks(piece.max(1)) {
            plan.feed(chunk, &mut discard).expect("feeds");
        }
        plan.finish(&mut discard).expect("finishes");
        let Plan::Record(outcomes) = plan.plan else { panic!("recorded") };
        let mut ident = Ident::new(&id, Plan::Replay(outcomes, 0));
        let mut out = Vec::new();
        let mut sink = |piece: &[u8]| {
            out.extend_from_slice(piece);
            Ok(())
        };
        for chunk in content.chunks(piece.max(1)) {
            ident.feed(chunk, &mut sink).expect("feeds");
        }
        ident.finish(&mut sink).expect("finishes");
        out
    }

    #[test]
    fn ident_follows_git_in_any_pieces() {
        let z = "0".repeat(40);
        let cases: Vec<(&[u8], String)> = vec![
            (b"$Id$", format!("$Id: {z} $")),
            (b"$$Id$x", format!("$$Id: {z} $x")),
            (b"$Id: old $", format!("$Id: {z} $")),
            (b"$Id: a b $", "$Id: a b $".into()),
            (b"$Id:a\n$Id$", format!("$Id:a\n$Id: {z} $")),
            (b"$Id: open", "$Id: open".into()),
            (b"$I", "$I".into()),
            (b"$Id", "$Id".into()),
            (b"$Idx$Id$", format!("$Idx$Id: {z} $")),
            (b"$Id: a b $Id$", format!("$Id: a b $Id: {z} $")),
        ];
        for (input, expected) in cases {
            for piece in [1, 2, 3, 100] {
                assert_eq!(
                    String::from_utf8_lossy(&ident(input, piece)),
                    expected,
                    "{:?} in pieces of {piece}",
                    String::from_utf8_lossy(input)
                );
            }
        }
    }

    #[test]
    fn long_ident_candidates_are_decided_by_the_first_pass() {
        let z = "0".repeat(40);
        let long = "x".repeat(IDENT_HOLD * 2);
        for (input, expected) in [
            (format!("$Id:{long}$ tail"), format!("$Id: {z} $ tail")),
            (format!("$Id:{long}\n$Id$"), format!("$Id:{long}\n$Id: {z} $")),
            (format!("$Id:{long} y$"), format!("$Id:{long} y$")),
            (format!("$Id:{long}"), format!("$Id:{long}")),
        ] {
            assert!(ident(input.as_bytes(), 4096) == expected.as_bytes(), "{}", &input[..10]);
        }
    }

    #[test]
    fn stats_count_crlf_across_pieces() {
        let mut stats = Stats::default();
        for piece in [&b"a\r"[..], b"\nb\n", b"\r"] {
            stats.feed(piece);
        }
        stats.finish();
        assert_eq!((stats.crlf, stats.lonelf, stats.lonecr), (1, 1, 1));
        let mut out = Vec::new();
        let mut to_crlf = ToCrlf::default();
        for piece in [&b"a\r"[..], b"\nb\n", b"\n"] {
            to_crlf
                .feed(piece, &mut |p| {
                    out.extend_from_slice(p);
                    Ok(())
                })
                .expect("converts");
        }
        assert_eq!(out, b"a\r\nb\r\n\r\n");
    }

    /// Content made on the fly, never held: `line` over and over, cut at `size` bytes.
    struct Generated {
        line: &'static [u8],
        size: u64,
    }

    impl Stream for Generated {
        fn size(&self) -> u64 {
            self.size
        }

        fn copy_to(&mut self, sink: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
            let piece: Vec<u8> = self.line.iter().copied().cycle().take(64 * self.line.len() * 16).collect();
            let mut left = self.size;
            while left > 0 {
                let n = piece.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                sink(&piece[..n])?;
                left -= n as u64;
            }
            Ok(())
        }
    }

    /// The process's peak resident memory (`VmHWM`), where Linux tells it.
    fn peak_resident() -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
        Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
    }

    #[test]
    fn large_content_converts_in_bounded_memory() {
        // 64 MiB of text whose every line has an `$Id$`, a `$Format:...$` and an LF to become
        // CRLF: converted whole in memory, the peak would grow by well over 64 MiB.
        let Some(before) = peak_resident() else { return };
        let line: &'static [u8] = b"$Id$ line $Format:%H %h %s%n$ of text\n";
        let mut source = Generated { line, size: 64 << 20 };
        let id = gix::ObjectId::null(gix::hash::Kind::Sha1);
        let facts = Facts::example();
        let conversion = Conversion { ident: true, crlf: Some(false), subst: true };
        let mut converted = Converted::new(Source::Stream(&mut source), id, conversion, Some(&facts)).expect("sized");
        let lines = (64u64 << 20) / line.len() as u64;
        assert!(converted.size() > (64 << 20) + lines * 80, "every line grew: {}", converted.size());
        let (mut written, mut largest, mut first) = (0u64, 0usize, Vec::new());
        converted
            .copy_to(&mut |piece| {
                written += piece.len() as u64;
                largest = largest.max(piece.len());
                if first.len() < 200 {
                    first.extend_from_slice(piece);
                }
                Ok(())
            })
            .expect("converts");
        assert_eq!(written, converted.size());
        let z = "0".repeat(40);
        let expected = format!(
            "$Id: {z} $ line {} {} Example subject\n of text\r\n",
            Facts::EXAMPLE_HEX,
            &Facts::EXAMPLE_HEX[..7]
        );
        assert!(first.starts_with(expected.as_bytes()), "{}", String::from_utf8_lossy(&first));
        assert!(largest <= 1 << 20, "pieces stay small: {largest}");
        let grown = peak_resident().unwrap_or(0).saturating_sub(before);
        assert!(grown < 40 << 20, "the peak grew by {} MiB", grown >> 20);
    }
}
