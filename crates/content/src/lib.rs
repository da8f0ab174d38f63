//! git's binary-content heuristic (`buffer_is_binary`): content is binary when a NUL byte is
//! among its first 8000 bytes (`FIRST_FEW_BYTES`). One copy, used where the core answers a raw
//! blob's content type and a diff's `Binary files ... differ`, and where an archive sets a zip
//! member's text flag. [`BinaryProbe`] decides the same for content that arrives in pieces.
#![forbid(unsafe_code)]

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
}
