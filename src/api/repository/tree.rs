//! B1: `GET /projects/:id/repository/tree`.
//!
//! Parameters: `ref` (branch, tag or SHA; HEAD by default), `path` (a directory; a trailing `/`
//! and the empty string are fine), `recursive` (Grape booleans), `pagination` (`legacy`,
//! `keyset` or `none`), `page`, `per_page`, `page_token`. The answer is GitLab's `TreeObject`
//! array (`id`, `name`, `type`, `path`, `mode`): every tree, then every blob, then every
//! submodule, each in git's order (see [`crate::git::tree`] for the order and the cost).
//!
//! - `legacy` (the default): offset pagination with GitLab's headers. `X-Total` needs the
//!   whole listing, so every page walks the whole tree; only the entries up to the page's end
//!   are kept in memory.
//! - `keyset`: a page of `per_page` entries after `page_token`, and a `Link: <...>; rel="next"`
//!   carrying every parameter of the request plus the next `page_token` only when more entries
//!   follow. Our tokens name the position unambiguously: the entry's group and full path
//!   (`t.`, `b.` or `c.` and the path in unpadded base64url), so following the links gives
//!   every entry exactly once even when ids repeat (identical files or directories share one).
//!   A raw entry id (what GitLab documents as "tree record ID") is accepted too: the page then
//!   starts after the first entry with that id. Anything else is 400 `page_token is invalid`.
//! - `none` (only with `recursive`): the whole listing, no pagination headers.
//!
//! Errors: an unknown `ref` or an empty repository is 404 `Tree Not Found`; a `path` that is
//! not a directory at that commit is 404 `invalid revision or path Not Found`.
//!
//! Names and paths are bytes in git; those that are not UTF-8 are decoded lossily (each invalid
//! sequence becomes U+FFFD) when the JSON is written. GitLab guesses an encoding for such names
//! instead, so they may read differently there; valid UTF-8 is never changed.

use crate::api::pagination;
use crate::api::Call;
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult, GitResultExt};
use crate::git::tree::{self as git_tree, Entry, Group, Position};
use crate::git::{self, Missing};
use crate::params::Params;
use crate::response::{Body, Response};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Legacy,
    Keyset,
    None,
}

/// Parameters GitLab repeats in its links even when the client did not send them (Grape
/// fills in declared defaults).
const LINK_DEFAULTS: [(&str, &str); 2] = [("recursive", "false"), ("pagination", "legacy")];

const NOT_A_DIRECTORY: &str = "invalid revision or path";

pub fn list(call: &Call, project: &str, params: &Params) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadCode)?;

    // Parameters first: every 400 before any repository work.
    let revision = params.revision("ref")?;
    let path = params.string("path")?.unwrap_or_default();
    let recursive = params.bool("recursive")?.unwrap_or(false);
    let mode = match params.string("pagination")?.as_deref() {
        None | Some("legacy") => Mode::Legacy,
        Some("keyset") => Mode::Keyset,
        Some("none") => Mode::None,
        Some(_) => return Err(ApiError::InvalidValue("pagination".into())),
    };
    if mode == Mode::None && !recursive {
        return Err(ApiError::ParamError("pagination cannot be \"none\" unless \"recursive\" is true".into()));
    }
    let page = pagination::page(call, params)?;
    let token = match mode {
        Mode::Keyset => match params.string("page_token")? {
            Some(text) if !text.is_empty() => Some(Token::parse(&text)?),
            _ => None,
        },
        _ => None,
    };
    let components = directory(&path);

    let repo = call.repository(&project, "Tree")?;
    let commit = git::resolve_or_head(&repo, revision.as_deref()).or_not_found(ApiError::NotFound("Tree"))?;
    let root = call.git("tree", || git_tree::commit_tree(&repo, commit)).map_err(git_error)?;
    let components = components.ok_or(ApiError::NotFound(NOT_A_DIRECTORY))?;
    let dir = call.git("tree", || git_tree::resolve_dir(&repo, root, &components)).map_err(git_error)?;
    let base = components.join(&b'/');

    match mode {
        Mode::None => whole_listing(&repo, dir, &base, recursive),
        Mode::Legacy => {
            let keep = page.offset().saturating_add(page.per_page);
            let listing = git_tree::list_grouped(&repo, dir, &base, recursive, keep).map_err(git_error)?;
            let total = listing.total();
            let range = page.offset().min(total)..keep.min(total);
            let path_bytes = range.clone().filter_map(|i| listing.get(i)).map(|e| e.path.len()).sum();
            let mut response = json_response(range.len(), path_bytes, range.filter_map(|i| listing.get(i)));
            let defaults: Vec<(&str, String)> = LINK_DEFAULTS.iter().map(|(n, v)| (*n, v.to_string())).collect();
            response.headers.extend(pagination::offset_headers(call, page, total, &defaults));
            Ok(response)
        }
        Mode::Keyset => {
            let per_page = page.per_page;
            let after = match token {
                None => None,
                Some(Token::Position(position)) => {
                    // A token from another directory's listing.
                    let inside = base.is_empty()
                        || (position.path.starts_with(&base) && position.path.get(base.len()) == Some(&b'/'));
                    if !inside {
                        return Err(ApiError::InvalidParam("page_token".into()));
                    }
                    Some(position)
                }
                Some(Token::Id(id)) => Some(
                    git_tree::position_of_id(&repo, dir, &base, recursive, &id)
                        .map_err(git_error)?
                        .ok_or(ApiError::InvalidParam("page_token".into()))?,
                ),
            };
            let entries =
                git_tree::list_after(&repo, dir, &base, recursive, after.as_ref(), per_page.saturating_add(1))
                    .map_err(git_error)?;
            let shown = entries.len().min(per_page);
            let mut response = json_response(shown, entries.path_bytes(), entries.iter().take(shown));
            if entries.len() > per_page {
                if let Some(last) = entries.get(per_page - 1) {
                    let mut overrides: Vec<(&str, String)> = LINK_DEFAULTS
                        .iter()
                        .filter(|(name, _)| !call.origin.query.iter().any(|(q, _)| q == name))
                        .map(|(n, v)| (*n, v.to_string()))
                        .collect();
                    overrides.push(("per_page", per_page.to_string()));
                    overrides.push(("page_token", Token::encode(&last)));
                    response
                        .headers
                        .push(("Link".into(), format!("<{}>; rel=\"next\"", pagination::link_url(call, &overrides))));
                }
            }
            Ok(response)
        }
    }
}

/// A failed tree read: a path that is no directory, or a tree that is not there.
fn git_error(e: git::tree::Error) -> ApiError {
    ApiError::from_git(e, |missing| match missing {
        Missing::Path => ApiError::NotFound(NOT_A_DIRECTORY),
        _ => ApiError::NotFound("Tree"),
    })
}

/// The components of a `path` parameter: trailing slashes and `.` (Gitaly's spelling of the
/// root) are the root; `None` when a component is empty, `.` or `..` (never a directory name
/// in git).
fn directory(path: &str) -> Option<Vec<&[u8]>> {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() || trimmed == "." {
        return Some(Vec::new());
    }
    let components: Vec<&[u8]> = trimmed.split('/').map(str::as_bytes).collect();
    if components.iter().any(|c| c.is_empty() || *c == b"." || *c == b"..") {
        return None;
    }
    Some(components)
}

/// A `page_token`: our own position token, or a raw entry id.
enum Token {
    Position(Position),
    Id(gix::ObjectId),
}

impl Token {
    fn parse(text: &str) -> ApiResult<Token> {
        let invalid = || ApiError::InvalidParam("page_token".into());
        if let Ok(id) = gix::ObjectId::from_hex(text.as_bytes()) {
            return Ok(Token::Id(id));
        }
        let (tag, encoded) = text.split_once('.').ok_or_else(invalid)?;
        let group = match tag {
            "t" => Group::Tree,
            "b" => Group::Blob,
            "c" => Group::Commit,
            _ => return Err(invalid()),
        };
        // Canonical unpadded base64url only (no padding, zero trailing bits): one spelling a path.
        let path = URL_SAFE_NO_PAD.decode(encoded).map_err(|_| invalid())?;
        // A full path as git stores it: non-empty components, no NUL.
        if path.contains(&0) || path.split(|b| *b == b'/').any(|c| c.is_empty()) {
            return Err(invalid());
        }
        Ok(Token::Position(Position { group, path }))
    }

    fn encode(entry: &Entry<'_>) -> String {
        let tag = match entry.group() {
            Group::Tree => "t.",
            Group::Blob => "b.",
            Group::Commit => "c.",
        };
        format!("{tag}{}", URL_SAFE_NO_PAD.encode(entry.path))
    }
}

/// GitLab's `TreeObject` JSON, written by hand: this is the hot loop of a large listing (one
/// object per entry, ids in hex, only `name` and `path` need escaping), and writing the
/// constant parts as bytes is several times faster than a serializer.
mod json {
    use crate::git::tree::Entry;
    use gix::objs::tree::EntryKind;

    fn type_then_path_key(kind: EntryKind) -> &'static [u8] {
        match kind {
            EntryKind::Tree => b",\"type\":\"tree\",\"path\":",
            EntryKind::Blob | EntryKind::BlobExecutable | EntryKind::Link => b",\"type\":\"blob\",\"path\":",
            EntryKind::Commit => b",\"type\":\"commit\",\"path\":",
        }
    }

    fn mode(kind: EntryKind) -> &'static [u8] {
        match kind {
            EntryKind::Tree => b",\"mode\":\"040000\"}",
            EntryKind::Blob => b",\"mode\":\"100644\"}",
            EntryKind::BlobExecutable => b",\"mode\":\"100755\"}",
            EntryKind::Link => b",\"mode\":\"120000\"}",
            EntryKind::Commit => b",\"mode\":\"160000\"}",
        }
    }

    /// Whether `bytes` can go into a JSON string as they are: valid UTF-8, no `"`, `\` or
    /// control character.
    fn plain(bytes: &[u8]) -> bool {
        let special = bytes.iter().fold(false, |acc, &b| acc | (b < 0x20) | (b == b'"') | (b == b'\\'));
        !special && std::str::from_utf8(bytes).is_ok()
    }

    /// A JSON string of `bytes`, decoded lossily (U+FFFD) when they are not UTF-8; escapes as
    /// serde_json writes them.
    fn string(out: &mut Vec<u8>, bytes: &[u8], plain: bool) {
        out.push(b'"');
        if plain {
            out.extend_from_slice(bytes);
        } else {
            let text = String::from_utf8_lossy(bytes);
            let text = text.as_bytes();
            let mut start = 0;
            for (i, &b) in text.iter().enumerate() {
                let short: &[u8] = match b {
                    b'"' => b"\\\"",
                    b'\\' => b"\\\\",
                    b'\n' => b"\\n",
                    b'\r' => b"\\r",
                    b'\t' => b"\\t",
                    0x08 => b"\\b",
                    0x0c => b"\\f",
                    0..=0x1f => b"",
                    _ => continue,
                };
                out.extend_from_slice(&text[start..i]);
                if short.is_empty() {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    out.extend_from_slice(&[
                        b'\\',
                        b'u',
                        b'0',
                        b'0',
                        HEX[usize::from(b >> 4)],
                        HEX[usize::from(b & 15)],
                    ]);
                } else {
                    out.extend_from_slice(short);
                }
                start = i + 1;
            }
            out.extend_from_slice(&text[start..]);
        }
        out.push(b'"');
    }

    /// `{"id":...,"name":...,"type":...,"path":...,"mode":...}`.
    pub fn entry(out: &mut Vec<u8>, entry: &Entry<'_>) {
        let mut hex = [0u8; 64];
        out.extend_from_slice(b"{\"id\":\"");
        out.extend_from_slice(entry.id.hex_to_buf(&mut hex).as_bytes());
        out.extend_from_slice(b"\",\"name\":");
        // The name is the path's last component: when the path is plain, so is the name.
        let path_plain = plain(entry.path);
        let name = entry.name();
        string(out, name, path_plain || plain(name));
        out.extend_from_slice(type_then_path_key(entry.kind));
        string(out, entry.path, path_plain);
        out.extend_from_slice(mode(entry.kind));
    }

    /// Bytes one entry takes, roughly, for sizing buffers.
    pub fn estimate(path_len: usize) -> usize {
        110 + path_len * 2
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn entry_json(path: &[u8], kind: EntryKind) -> serde_json::Value {
            let id = gix::ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
            let name_start = path.iter().rposition(|b| *b == b'/').map_or(0, |i| i + 1);
            let mut out = Vec::new();
            entry(&mut out, &Entry { path, name_start, id: &id, kind });
            serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
        }

        #[test]
        fn writes_what_serde_json_reads_back() {
            for (path, name) in [
                (&b"a/b.txt"[..], "b.txt"),
                (b"q\"uote/back\\slash", "back\\slash"),
                (b"ctl\x01\x1f\n\t\x7f", "ctl\u{1}\u{1f}\n\t\u{7f}"),
                (b"d/latin\xe9.txt", "latin\u{FFFD}.txt"),
                ("ünïcode/naïve.txt".as_bytes(), "naïve.txt"),
            ] {
                let value = entry_json(path, EntryKind::BlobExecutable);
                assert_eq!(value["name"], name);
                assert_eq!(value["path"].as_str().unwrap(), String::from_utf8_lossy(path));
                assert_eq!(value["type"], "blob");
                assert_eq!(value["mode"], "100755");
                assert_eq!(value["id"], "0123456789abcdef0123456789abcdef01234567");
            }
            assert_eq!(entry_json(b"t", EntryKind::Tree)["mode"], "040000");
            assert_eq!(entry_json(b"s", EntryKind::Commit)["type"], "commit");
            // Escapes are serde_json's, byte for byte.
            let mut out = Vec::new();
            string(&mut out, b"a\"\\\x01\x08\x0c\n\r\t\x7f", false);
            assert_eq!(out, serde_json::to_vec("a\"\\\u{1}\u{8}\u{c}\n\r\t\u{7f}").unwrap());
        }
    }
}

fn json_body(body: Vec<u8>) -> Response {
    Response { status: 200, headers: vec![("Content-Type".into(), "application/json".into())], body: Body::Bytes(body) }
}

/// 200 with the JSON array of `entries` (`count` of them, `path_bytes` of paths, for sizing).
fn json_response<'a>(count: usize, path_bytes: usize, entries: impl Iterator<Item = Entry<'a>>) -> Response {
    let mut body = Vec::with_capacity(2 + json::estimate(0) * count + path_bytes * 2);
    body.push(b'[');
    for entry in entries {
        json::entry(&mut body, &entry);
        body.push(b',');
    }
    if body.len() > 1 {
        body.pop();
    }
    body.push(b']');
    json_body(body)
}

/// The whole listing as JSON, written while walking: one buffer per group, joined at the end.
fn whole_listing(repo: &gix::Repository, dir: gix::ObjectId, base: &[u8], recursive: bool) -> ApiResult<Response> {
    let mut groups: [Vec<u8>; 3] = Default::default();
    git_tree::walk(repo, dir, base, recursive, None, |entry| {
        let out = &mut groups[entry.group() as usize];
        json::entry(out, entry);
        out.push(b',');
        std::ops::ControlFlow::Continue(())
    })
    .map_err(git_error)?;
    let mut body = Vec::with_capacity(2 + groups.iter().map(Vec::len).sum::<usize>());
    body.push(b'[');
    for group in &groups {
        body.extend_from_slice(group);
    }
    if body.len() > 1 {
        body.pop();
    }
    body.push(b']');
    Ok(json_body(body))
}

#[cfg(test)]
mod tests {
    use super::URL_SAFE_NO_PAD;
    use base64::Engine;

    /// The tokens' base64url: every path round-trips, and only its canonical spelling decodes.
    #[test]
    fn round_trips() {
        let encode = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
        let decode = |text: &str| URL_SAFE_NO_PAD.decode(text).ok();
        for input in [&b""[..], b"a", b"ab", b"abc", b"abcd", b"latin\xe9.txt", b"\xff\xfe\x00/x"] {
            let encoded = encode(input);
            assert!(encoded.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
            assert_eq!(decode(&encoded).as_deref(), Some(input), "{encoded}");
        }
        assert_eq!(encode(b"abc"), "YWJj");
        assert_eq!(encode(b"ab"), "YWI");
        assert_eq!(decode("YWJ"), None, "non-canonical trailing bits");
        assert_eq!(decode("Y"), None);
        assert_eq!(decode("YW=="), None);
    }
}
