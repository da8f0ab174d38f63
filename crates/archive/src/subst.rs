//! `export-subst`: git archive's `format_subst` on content in pieces. Each `$Format:<fmt>$`
//! becomes `<fmt>` expanded on the archived commit (`pretty`); a `$Format:` with no closing `$`
//! ends the expansion and the rest stays as it is. The format ends at its first NUL, as git
//! reads it as a C string.
//!
//! The text around the formats, and each expansion, is written through an [`Emitter`]
//! (`output`), which holds back trailing newlines for git's `%-`.
//!
//! Difference from git: a format longer than [`FORMAT_HOLD`] bytes is left as it is rather
//! than held whole.

use crate::output::{Emitter, Out};
use crate::pretty::Facts;
use std::io;

const MARK: &[u8] = b"$Format:";
/// Longest format expanded.
const FORMAT_HOLD: usize = 1 << 20;

pub struct Subst<'f> {
    facts: &'f Facts,
    emitter: Emitter,
    /// How much of [`MARK`] has been matched (held, not yet written).
    matched: usize,
    /// Inside `$Format:...`: the format so far.
    format: Option<Vec<u8>>,
}

impl<'f> Subst<'f> {
    pub fn new(facts: &'f Facts) -> Subst<'f> {
        Subst { facts, emitter: Emitter::default(), matched: 0, format: None }
    }

    pub fn feed(&mut self, mut input: &[u8], out: Out<'_>) -> io::Result<()> {
        while !input.is_empty() {
            if let Some(format) = self.format.as_mut() {
                match input.iter().position(|b| *b == b'$') {
                    None => {
                        format.extend_from_slice(input);
                        input = &[];
                        if format.len() > FORMAT_HOLD {
                            self.unclosed(out)?;
                        }
                    }
                    Some(at) => {
                        format.extend_from_slice(&input[..at]);
                        input = &input[at + 1..];
                        let mut format = self.format.take().unwrap_or_default();
                        if let Some(nul) = format.iter().position(|b| *b == 0) {
                            format.truncate(nul);
                        }
                        crate::pretty::expand(self.facts, &format, &mut self.emitter, out)?;
                    }
                }
                continue;
            }
            if self.matched == 0 {
                match input.iter().position(|b| *b == b'$') {
                    None => return self.emitter.emit(input, out),
                    Some(at) => {
                        self.emitter.emit(&input[..at], out)?;
                        input = &input[at + 1..];
                        self.matched = 1;
                    }
                }
                continue;
            }
            if input[0] == MARK[self.matched] {
                input = &input[1..];
                self.matched += 1;
                if self.matched == MARK.len() {
                    self.matched = 0;
                    self.format = Some(Vec::new());
                }
            } else {
                // `$` only starts the mark, so the held part is plain text.
                self.emitter.emit(&MARK[..self.matched], out)?;
                self.matched = 0;
            }
        }
        Ok(())
    }

    /// A format that does not close (or is too long): written as it is, and scanning goes on
    /// after it.
    fn unclosed(&mut self, out: Out<'_>) -> io::Result<()> {
        if let Some(format) = self.format.take() {
            self.emitter.emit(MARK, out)?;
            self.emitter.emit(&format, out)?;
        }
        Ok(())
    }

    pub fn finish(&mut self, out: Out<'_>) -> io::Result<()> {
        self.unclosed(out)?;
        self.emitter.emit(&MARK[..self.matched], out)?;
        self.matched = 0;
        self.emitter.release(out)
    }
}
