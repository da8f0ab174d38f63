//! The correlation id of a request: the client's `X-Request-Id` when the configuration trusts
//! it (`requests.trust_request_id`; GitLab's Workhorse does not by default) and it is
//! well-formed, else a new one. It is returned as `X-Request-Id` and put in every record.
//!
//! New ids are ULIDs as GitLab's LabKit makes them: 48 bits of milliseconds and 80 random
//! bits, in Crockford's base32, so they sort by time. The random bits come from std's
//! randomly keyed SipHash (a fresh key for each id): unpredictable enough for an id that
//! names a request, and no new dependency.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::time::{SystemTime, UNIX_EPOCH};

/// Whether a client's id may be used: `^[A-Za-z0-9._:-]{1,128}$`.
pub fn well_formed(id: &str) -> bool {
    (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b"._:-".contains(&b))
}

/// The id of a request: `offered` when trusted and well-formed, else a new one.
pub fn choose(offered: Option<&str>, trust: bool) -> String {
    match offered {
        Some(id) if trust && well_formed(id) => id.to_string(),
        _ => generate(),
    }
}

const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// A new ULID (26 characters).
pub fn generate() -> String {
    let millis = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64) & ((1 << 48) - 1);
    let random = (u128::from(RandomState::new().hash_one(millis)) << 64) | u128::from(RandomState::new().hash_one(1u8));
    let value = (u128::from(millis) << 80) | (random & ((1u128 << 80) - 1));
    (0..26).rev().map(|i| char::from(CROCKFORD[((value >> (i * 5)) & 31) as usize])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_ids_only_when_trusted_and_well_formed() {
        assert_eq!(choose(Some("abc-1.2:3_x"), true), "abc-1.2:3_x");
        assert_ne!(choose(Some("abc"), false), "abc");
        for bad in ["", "a b", "a/b", "é", &"x".repeat(129)] {
            assert!(!well_formed(bad), "{bad:?}");
            assert_eq!(choose(Some(bad), true).len(), 26);
        }
        assert!(well_formed(&"x".repeat(128)));
    }

    #[test]
    fn generated_ids_are_distinct_ulids() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| generate()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids.iter().all(|id| id.len() == 26 && well_formed(id)));
    }
}
