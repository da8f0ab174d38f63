//! Where converted content goes, piece by piece: [`Out`], the sink every stage of the
//! conversion writes to, and the [`Emitter`] that `export-subst` writes through.
//!
//! git expands a format into the output written so far, so `%-x` (drop the newlines before an
//! empty expansion) can remove newlines written before the placeholder, even from the file's own
//! text. The emitter therefore holds back its trailing newlines, as a count, until something
//! else follows.

use std::io;

/// Where a piece of output goes.
pub type Out<'a> = &'a mut dyn FnMut(&[u8]) -> io::Result<()>;

/// Output with its trailing newlines held back.
#[derive(Default)]
pub struct Emitter {
    newlines: u64,
}

impl Emitter {
    pub fn emit(&mut self, data: &[u8], out: Out<'_>) -> io::Result<()> {
        let body = data.iter().rposition(|b| *b != b'\n').map_or(0, |at| at + 1);
        if body > 0 {
            self.release(out)?;
            out(&data[..body])?;
        }
        self.newlines += (data.len() - body) as u64;
        Ok(())
    }

    /// git's `%-`: the newlines at the end of the output so far go.
    pub fn drop_newlines(&mut self) {
        self.newlines = 0;
    }

    pub fn release(&mut self, out: Out<'_>) -> io::Result<()> {
        const NEWLINES: [u8; 256] = [b'\n'; 256];
        while self.newlines > 0 {
            let n = self.newlines.min(256) as usize;
            out(&NEWLINES[..n])?;
            self.newlines -= n as u64;
        }
        Ok(())
    }
}
