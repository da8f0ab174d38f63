//! git's binary-content heuristic (`buffer_is_binary`): content is binary when a NUL byte is
//! among its first 8000 bytes (`FIRST_FEW_BYTES`). One copy, used where the core answers a raw
//! blob's content type and a diff's `Binary files ... differ`, and where an archive sets a zip
//! member's text flag. [`BinaryProbe`] decides the same for content that arrives in pieces.
//!
//! A raw blob is served as `text/plain; charset=utf-8` when it is text: not binary, and valid
//! UTF-8 throughout ([`is_text`]; [`TextProbe`] for pieces). UTF-8 is validated with
//! `simdutf8`, several times the speed of `std::str::from_utf8` on text that is not ASCII (a
//! megabyte of Bulgarian took a sixth of a raw blob's time).
#![forbid(unsafe_code)]

use simdutf8::compat::from_utf8;

/// How much of the start of the content git inspects (`FIRST_FEW_BYTES`).
pub const PROBE_BYTES: usize = 8000;

/// Whether `data` is binary to git: a NUL among its first [`PROBE_BYTES`] bytes.
pub fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(PROBE_BYTES)].contains(&0)
}

/// [`is_binary`] over content seen piece by piece.
#[derive(Debug, Clone, Default)]
pub struct BinaryProbe {
    seen: usize,
    binary: bool,
}

impl BinaryProbe {
    /// Looks at the next piece of the content.
    pub fn feed(&mut self, piece: &[u8]) {
        if self.seen < PROBE_BYTES {
            self.binary |= is_binary(&piece[..piece.len().min(PROBE_BYTES - self.seen)]);
            self.seen += piece.len();
        }
    }

    /// What [`is_binary`] answers for everything fed so far.
    pub fn is_binary(&self) -> bool {
        self.binary
    }
}

/// Whether `data` is text: not binary ([`is_binary`]) and valid UTF-8.
pub fn is_text(data: &[u8]) -> bool {
    !is_binary(data) && simdutf8::basic::from_utf8(data).is_ok()
}

/// [`is_text`] over content seen piece by piece, holding nothing but a character cut at the
/// end of a piece (at most 3 bytes).
#[derive(Debug, Clone, Default)]
pub struct TextProbe {
    binary: BinaryProbe,
    cut: [u8; 4],
    cut_len: usize,
    invalid: bool,
}

impl TextProbe {
    /// Looks at the next piece of the content; false once the content cannot be text, after
    /// which more pieces change nothing.
    pub fn feed(&mut self, mut piece: &[u8]) -> bool {
        if !self.possibly_text() {
            return false;
        }
        self.binary.feed(piece);
        if self.cut_len > 0 {
            // The cut character with the bytes that complete it (and maybe more after them).
            let taken = piece.len().min(self.cut.len() - self.cut_len);
            let end = self.cut_len + taken;
            self.cut[self.cut_len..end].copy_from_slice(&piece[..taken]);
            match from_utf8(&self.cut[..end]) {
                Ok(_) => {
                    self.cut_len = 0;
                    piece = &piece[taken..];
                }
                Err(e) if e.valid_up_to() >= self.cut_len => {
                    piece = &piece[e.valid_up_to() - self.cut_len..];
                    self.cut_len = 0;
                }
                Err(e) if e.error_len().is_none() => {
                    self.cut_len = end; // still cut: the piece was too short to complete it
                    return true;
                }
                Err(_) => self.invalid = true,
            }
        }
        if !self.invalid {
            match from_utf8(piece) {
                Ok(_) => {}
                Err(e) if e.error_len().is_none() => {
                    let rest = &piece[e.valid_up_to()..];
                    self.cut[..rest.len()].copy_from_slice(rest);
                    self.cut_len = rest.len();
                }
                Err(_) => self.invalid = true,
            }
        }
        self.possibly_text()
    }

    fn possibly_text(&self) -> bool {
        !self.invalid && !self.binary.is_binary()
    }

    /// What [`is_text`] answers for everything fed so far.
    pub fn is_text(&self) -> bool {
        self.possibly_text() && self.cut_len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_nul_among_the_first_bytes_makes_binary() {
        assert!(!is_binary(b""));
        assert!(!is_binary("caf\u{e9}\r\n".as_bytes()));
        assert!(is_binary(b"a\0b"));
        let mut late = vec![b'x'; PROBE_BYTES];
        late.push(0);
        assert!(!is_binary(&late), "a NUL past the first 8000 bytes does not count");
        late[PROBE_BYTES - 1] = 0;
        assert!(is_binary(&late));
    }

    #[test]
    fn pieces_answer_as_the_whole() {
        let mut content = vec![b'x'; 20_000];
        for nul_at in [None, Some(0), Some(7999), Some(8000), Some(15_000)] {
            if let Some(at) = nul_at {
                content[at] = 0;
            }
            for piece in [1, 7, 4096, 8000, 20_000] {
                let mut probe = BinaryProbe::default();
                content.chunks(piece).for_each(|c| probe.feed(c));
                assert_eq!(probe.is_binary(), is_binary(&content), "NUL at {nul_at:?}, pieces of {piece}");
            }
            if let Some(at) = nul_at {
                content[at] = b'x';
            }
        }
    }

    #[test]
    fn text_is_valid_utf8_without_an_early_nul() {
        assert!(is_text(b""));
        assert!(is_text("\u{43f}\u{440}\u{438} \u{1f600}\r\n".as_bytes()));
        assert!(!is_text(b"a\0b"));
        assert!(!is_text(b"caf\xe9"), "Latin-1");
        assert!(!is_text(b"\xd0"), "a cut character at the end");
        assert!(!is_text(b"\xed\xa0\x80"), "a surrogate");
    }

    #[test]
    fn text_in_pieces_answers_as_the_whole_at_every_cut() {
        let samples: [&[u8]; 9] = [
            "\u{43f}\u{440}\u{438}\u{432}\u{435}\u{442} \u{1f600} \u{20ac}x".as_bytes(),
            b"ab\xf0\x9f\x98",               // cut at the end
            b"ab\xf0\x9f\x98\x80\xc3",       // a whole one, then a cut one
            b"a\xf0\x9f\x98\x41b",           // a four-byte start with too few continuations
            b"\xc3\xa9\x80",                 // a stray continuation
            b"\xe2\x82\xac\xe2\x82\xac",     // two whole ones
            b"\xf4\x90\x80\x80",             // past U+10FFFF
            b"\xe2\x82\xac\xc3\xa9\xf0\x9f", // whole ones, then a cut one
            b"\xc3\xa9\0",                   // a NUL
        ];
        for sample in samples {
            let whole = is_text(sample);
            for first in 0..=sample.len() {
                for second in first..=sample.len() {
                    let mut probe = TextProbe::default();
                    for piece in [&sample[..first], &sample[first..second], &sample[second..]] {
                        probe.feed(piece);
                    }
                    assert_eq!(probe.is_text(), whole, "{sample:x?} cut at {first} and {second}");
                }
            }
            let mut bytewise = TextProbe::default();
            for byte in sample.chunks(1) {
                bytewise.feed(byte);
            }
            assert_eq!(bytewise.is_text(), whole, "{sample:x?} byte by byte");
        }
        let texts = samples.iter().filter(|s| is_text(s)).count();
        assert_eq!(texts, 2, "the samples are text and not text as their comments say");
    }
}
