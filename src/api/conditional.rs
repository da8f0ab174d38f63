//! Conditional requests, beyond GitLab: an answer addressed by object ids (a blob by its id, an
//! archive of a full commit id, a compare of two full commit ids) never changes, so it carries
//! an `ETag`, and a request whose `If-None-Match` names that tag is answered 304 with no body,
//! before any object is read. Clients that send no `If-None-Match` (python-gitlab, GitLab's Go
//! client) see nothing new but the header.
//!
//! `If-None-Match: *` is never answered 304 here. RFC 9110 has `*` match only a current
//! representation, and these checks come before the object is known to exist (a blob or commit
//! id that names nothing would be "not modified"); the full answer (or its 404) is always a
//! correct answer to `*`.

use super::Call;
use crate::response::Response;
use sha2::{Digest, Sha256};

/// A strong entity tag: an object id as it is, or a digest of everything else an answer
/// depends on.
pub fn etag(text: &str) -> String {
    if text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return format!("\"{}\"", text.to_ascii_lowercase());
    }
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// Whether `text` is a full object id (what may be answered 304 without a lookup).
pub fn is_full_id(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether the request's `If-None-Match` names `etag`; weak tags compare equal to strong ones,
/// as RFC 9110 has it for `If-None-Match`. `*` names no tag (see the module's note).
fn matches(if_none_match: &str, etag: &str) -> bool {
    if_none_match.split(',').map(str::trim).any(|tag| tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

/// 304 with the tag, when the request already holds the answer tagged `etag`.
pub fn not_modified(call: &Call, etag: &str) -> Option<Response> {
    let header = call.if_none_match.as_deref()?;
    matches(header, etag).then(|| Response::empty(304).with_header("ETag", etag))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_match_as_rfc_9110_says() {
        let tag = etag(&"A".repeat(40));
        assert_eq!(tag, format!("\"{}\"", "a".repeat(40)));
        assert!(matches(&tag, &tag));
        assert!(matches(&format!("\"x\", W/{tag}"), &tag));
        assert!(!matches("*", &tag), "`*` is checked before the object is known to exist");
        assert!(!matches("\"other\"", &tag));
        assert!(!matches(&tag[1..tag.len() - 1], &tag), "unquoted is another tag");
        assert_ne!(etag("a"), etag("b"));
        assert_eq!(etag("a").len(), 34);
    }
}
