//! Token texts: GitLab-like prefixes over 160 bits from the OS's random source, stored only as
//! SHA-256 digests. A lookup by digest of a high-entropy secret does not leak the secret through
//! timing, so no other comparison is needed.

use sha2::{Digest, Sha256};
use std::io::Read;

pub const PERSONAL_PREFIX: &str = "glpat-";
pub const JOB_PREFIX: &str = "glcbt-";
const MAX_TOKEN_LEN: usize = 256;
const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

pub fn digest(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// Whether a text can be a token at all: bounded, printable ASCII. Anything else is refused
/// before it reaches the store.
pub fn plausible(token: &str) -> bool {
    !token.is_empty() && token.len() <= MAX_TOKEN_LEN && token.bytes().all(|b| b.is_ascii_graphic())
}

/// A new token text: `prefix` followed by 27 characters (160 random bits).
pub fn generate(prefix: &str) -> std::io::Result<String> {
    let mut random = [0u8; 27];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut random)?;
    let mut token = String::from(prefix);
    // 62 does not divide 256; the small bias over 27 characters still leaves > 155 bits.
    token.extend(random.iter().map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char));
    Ok(token)
}

/// `bytes` random bytes from the OS's random source as lower-case hex (Ruby's
/// `SecureRandom.hex(bytes)`).
pub fn random_hex(bytes: usize) -> std::io::Result<String> {
    let mut random = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut random)?;
    Ok(random.iter().map(|b| format!("{b:02x}")).collect())
}
