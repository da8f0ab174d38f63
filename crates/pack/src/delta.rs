//! git's delta instructions applied to a base object ("copy from the base" and "insert"), as
//! git's `patch_delta` applies them, with every size and range checked: a hostile pack gets a
//! `None`, never a panic or an allocation its delta does not justify.

/// `base` with the git delta `delta` applied, into `out`; `None` for a delta that does not fit
/// its base (sizes, copies out of range, a zero instruction).
pub fn apply(base: &[u8], delta: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let mut at = 0;
    let mut size = || {
        let (mut value, mut shift) = (0usize, 0u32);
        loop {
            let byte = *delta.get(at)?;
            at += 1;
            value |= usize::from(byte & 0x7f).checked_shl(shift)?;
            shift += 7;
            if byte & 0x80 == 0 || shift > 63 {
                return Some(value);
            }
        }
    };
    let (base_size, made_size) = (size()?, size()?);
    // Each instruction copies at most 0x10000 bytes of the base or inserts at most 127: a size
    // beyond that is not reserved, it is refused.
    let most = delta.len().saturating_mul(base.len().clamp(127, 0x10000));
    if base_size != base.len() || made_size > most {
        return None;
    }
    out.clear();
    out.reserve(made_size);
    while let Some(&op) = delta.get(at) {
        at += 1;
        if op & 0x80 != 0 {
            // Copy from the base: offset bytes by bits 0-3, size bytes by bits 4-6.
            let (mut offset, mut len) = (0usize, 0usize);
            for bit in 0..7 {
                if op & (1 << bit) != 0 {
                    let byte = usize::from(*delta.get(at)?);
                    at += 1;
                    if bit < 4 {
                        offset |= byte << (8 * bit);
                    } else {
                        len |= byte << (8 * (bit - 4));
                    }
                }
            }
            if len == 0 {
                len = 0x10000;
            }
            out.extend_from_slice(base.get(offset..offset.checked_add(len)?)?);
        } else if op != 0 {
            out.extend_from_slice(delta.get(at..at + usize::from(op))?);
            at += usize::from(op);
        } else {
            return None;
        }
    }
    (out.len() == made_size).then_some(())
}

#[cfg(test)]
mod tests {
    use super::apply;

    #[test]
    fn deltas_apply_and_bad_ones_are_refused() {
        let base = b"hello world";
        let mut out = Vec::new();
        // Base 11 bytes, result 6: copy 5 bytes from offset 6, insert "!".
        assert_eq!(apply(base, &[11, 6, 0x91, 6, 5, 1, b'!'], &mut out), Some(()));
        assert_eq!(out, b"world!");
        for bad in [
            &[][..],                                                                 // no sizes
            &[12, 6, 0x91, 6, 5, 1, b'!'],                                           // the base is not 12 bytes
            &[11, 7, 0x91, 6, 5, 1, b'!'],                                           // the result is not 7 bytes
            &[11, 6, 0x91, 7, 5, 1, b'!'],                                           // a copy past the base's end
            &[11, 6, 0x91, 6, 5, 2, b'!'],                                           // an insert past the delta's end
            &[11, 6, 0x91, 6, 5, 0],                                                 // the reserved zero instruction
            &[11, 6, 0x80], // a copy of 0x10000 bytes from an 11-byte base
            &[11, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], // a size too large
        ] {
            assert_eq!(apply(base, bad, &mut out), None, "{bad:?}");
        }
        // Whatever the bytes, an answer and no panic.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let delta: Vec<u8> = (0..(state % 24))
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 24) as u8
                })
                .collect();
            let _ = apply(base, &delta, &mut out);
            state = state.wrapping_add(1);
        }
    }
}
