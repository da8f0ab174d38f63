//! B2 and B3: `GET /projects/:id/repository/blobs/:sha[/raw]`.
//!
//! - `sha` names a blob: a full or abbreviated id, or what else [`git::blob::find`] accepts
//!   (`<rev>:<path>`, a tag pointing at a blob). Anything that is not a blob, or cannot be
//!   found or read, is 404 `{"message":"404 Blob Not Found"}`, as GitLab answers for every
//!   failure while loading.
//! - B2 answers `{"size", "encoding": "base64", "content", "sha"}` with strict standard Base64
//!   (padding, no line breaks) and the full blob id. A blob over `limits.blob_json_max_bytes`
//!   is **400** `{"message":"400 Bad request - ..."}` naming the raw route: the request is
//!   fine, the answer would be too large (413 would speak of the request body).
//! - B3 answers the exact bytes as a stream, with GitLab's headers (`Content-Disposition:
//!   inline`, no-cache headers, `nosniff`) and `text/plain; charset=utf-8` for UTF-8 text
//!   without NUL in its first 8000 bytes, `application/octet-stream` otherwise.
//! - Blobs over 10 MB (`size > 10.megabytes`) are rate limited per project and caller (as
//!   archives are; anonymous callers share one bucket a project) by `rate_limits.large_blob`,
//!   checked from the object header before the content is inflated.
//!   B2 counts under `large_blob:<project id>:<caller>` with GitLab's message
//!   (`API::Helpers::BlobHelpers::LARGE_BLOB_THROTTLED_ERROR`, verbatim). GitLab leaves raw
//!   unlimited (Workhorse streams it); every read here inflates the blob (whole, when it is a
//!   delta), so B3 is limited too, under its own counter `large_blob_raw:<project id>:<caller>`
//!   so that B2's advice to use raw holds when B2 is exhausted.
//! - Memory: a blob of at least [`BLOB_STREAM_FROM`] (64 KiB) is read on a thread of its own,
//!   through the archive crate's reader of the object database ([`forgecore_archive::Blob`]),
//!   into the bounded channel of [`stream`]: stored whole, it is inflated piece by piece as the
//!   client reads, B3 sending the bytes and B2 encoding them to Base64 piece by piece between
//!   its JSON head and tail (so neither answer holds the blob, whatever its size and however
//!   slowly it is read). One stored as a delta is inflated whole, as gix can only do; those
//!   held blobs count against [`HELD_BUDGET`] for as long as their answers are read, and one
//!   that would pass it while others are held is a 503. B3's content type needs the whole blob
//!   checked for UTF-8, so a text blob is read twice: once to decide (on the producing thread,
//!   before the first byte: an unreadable blob is still a 404), once to send. A failure after
//!   the first byte (a corrupt pack found midway) ends the stream with an error, never a clean
//!   end, as for archives.

use crate::api::{conditional, Call};
use crate::auth::permissions::ProjectAbility;
use crate::error::{ApiError, ApiResult};
use crate::git::{self, blob::BlobHeader};
use crate::response::{stream, Body, Response};
use crate::store::projects::Project;
use base64::Engine;
use forgecore_archive::{Blob, BLOB_STREAM_FROM};
use gix::ObjectId;
use sha2::{Digest, Sha256};
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::sync_channel;

/// Bytes of blob content held whole (blobs stored as deltas) by the answers being read at once,
/// across the process. One held blob is always let through, however large, so that every blob
/// can be read.
pub const HELD_BUDGET: usize = 64 << 20;
static HELD: AtomicUsize = AtomicUsize::new(0);
const BUSY: &str = "too many large blobs are being read at once, try again later";

/// GitLab's `MAX_BLOB_SIZE = 10.megabytes`: larger blobs are rate limited.
pub const LARGE_BLOB_BYTES: u64 = 10 * 1024 * 1024;

/// GitLab's text, interpolating the integer `10.megabytes` and keeping the heredoc's newlines.
pub(crate) const LARGE_BLOB_THROTTLED: &str = "The requested blob is over the threshold size of 10485760.\n\
Access this blob using '/projects/:id/repository/blobs/:sha/raw' to avoid this error.\n";
const LARGE_RAW_BLOB_THROTTLED: &str =
    "The requested blob is over the threshold size of 10485760 and has been requested too many times. Try again later.";

/// The blob `sha` names in the project's repository, found from its header, with the open
/// repository to read it from.
fn find(call: &Call, project: &Project, sha: &str) -> ApiResult<(gix::Repository, BlobHeader)> {
    let repo = call.repository(project, "Blob")?;
    let header = git::blob::find(&repo, sha).map_err(|_| ApiError::NotFound("Blob"))?;
    Ok((repo, header))
}

/// Counts a large blob under `key` (the project's counter) and the caller: one caller's
/// downloads never lock others out of a project's large blobs.
pub(crate) fn throttle_large(call: &Call, header: &BlobHeader, key: String, message: &str) -> ApiResult<()> {
    if header.size > LARGE_BLOB_BYTES {
        let key = format!("{key}:{}", call.caller.rate_key());
        call.ctx.throttle(call.ctx.config.rate_limits.large_blob, &key, message)?;
    }
    Ok(())
}

fn content(repo: &gix::Repository, header: &BlobHeader) -> ApiResult<Vec<u8>> {
    git::blob::read(repo, header.id).map_err(|_| ApiError::NotFound("Blob"))
}

/// B2: the blob as JSON with Base64 content.
/// 304 when the request already holds the blob: at once when `sha` is its full id, else once
/// the name is resolved to an id; never after reading the content.
fn unchanged(call: &Call, sha: &str, header: Option<&BlobHeader>) -> Option<Response> {
    let id = match header {
        Some(header) => header.id.to_string(),
        None if conditional::is_full_id(sha) => sha.to_string(),
        None => return None,
    };
    conditional::not_modified(call, &conditional::etag(&id))
}

pub fn get(call: &Call, project: &str, sha: &str) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadCode)?;
    if let Some(not_modified) = unchanged(call, sha, None) {
        return Ok(not_modified);
    }
    let (repo, header) = find(call, &project, sha)?;
    if let Some(not_modified) = unchanged(call, sha, Some(&header)) {
        return Ok(not_modified);
    }
    let cap = call.ctx.config.limits.blob_json_max_bytes;
    if header.size > cap {
        return Err(ApiError::BadRequest(format!(
            "The blob is {} bytes, over the {cap} bytes this endpoint answers with. \
             Access it using '/projects/:id/repository/blobs/:sha/raw'",
            header.size
        )));
    }
    throttle_large(call, &header, format!("large_blob:{}", project.id), LARGE_BLOB_THROTTLED)?;
    let etag = conditional::etag(&header.id.to_string());
    if header.size >= BLOB_STREAM_FROM {
        let (head, tail) = (json_head(header.size), json_tail(header.id));
        let length = head.len() as u64 + encoded_len(header.size) + tail.len() as u64;
        let (_, reader) = open_stream(call.git_dir(&project)?, header.id, Wanted::default(), move |_, blob, out| {
            out.write_all(head.as_bytes())?;
            write_base64(blob, out)?;
            out.write_all(tail.as_bytes())
        })?;
        return Ok(Response {
            status: 200,
            headers: vec![
                ("Content-Type".into(), "application/json".into()),
                ("Content-Length".into(), length.to_string()),
                ("ETag".into(), etag),
            ],
            body: Body::Stream(Box::new(reader)),
        });
    }
    let data = content(&repo, &header)?;
    // Built by hand: GitLab's key order, and no second copy of a large `content` string.
    // Base64 and hex need no JSON escaping.
    let encoded_len = base64::encoded_len(data.len(), true).unwrap_or(0);
    let mut body = Vec::with_capacity(encoded_len + 128);
    body.extend_from_slice(json_head(data.len() as u64).as_bytes());
    let start = body.len();
    body.resize(start + encoded_len, 0);
    let written = base64::engine::general_purpose::STANDARD
        .encode_slice(&data, &mut body[start..])
        .map_err(ApiError::internal)?;
    body.truncate(start + written);
    drop(data);
    body.extend_from_slice(json_tail(header.id).as_bytes());
    Ok(Response {
        status: 200,
        headers: vec![("Content-Type".into(), "application/json".into()), ("ETag".into(), etag)],
        body: Body::Bytes(body),
    })
}

/// B3: the exact bytes, streamed.
pub fn raw(call: &Call, project: &str, sha: &str) -> ApiResult<Response> {
    let project = call.project(project, ProjectAbility::ReadCode)?;
    if let Some(not_modified) = unchanged(call, sha, None) {
        return Ok(not_modified);
    }
    let (repo, header) = find(call, &project, sha)?;
    if let Some(not_modified) = unchanged(call, sha, Some(&header)) {
        return Ok(not_modified);
    }
    throttle_large(call, &header, format!("large_blob_raw:{}", project.id), LARGE_RAW_BLOB_THROTTLED)?;
    let (text, body): (bool, Box<dyn io::Read + Send>) = if header.size >= BLOB_STREAM_FROM {
        let wanted = Wanted { text: true, sha256: false };
        let (probed, reader) = open_stream(call.git_dir(&project)?, header.id, wanted, |_, blob, out| copy(blob, out))?;
        (probed.text, Box::new(reader))
    } else {
        let data = content(&repo, &header)?;
        (git::blob::is_text(&data), Box::new(io::Cursor::new(data)))
    };
    let content_type = if text { "text/plain; charset=utf-8" } else { "application/octet-stream" };
    let headers = [
        ("Content-Type", content_type.to_string()),
        ("Content-Length", header.size.to_string()),
        ("Content-Disposition", "inline".to_string()),
        ("Cache-Control", "max-age=0, private, must-revalidate, no-store, no-cache".to_string()),
        ("Expires", "Fri, 01 Jan 1990 00:00:00 GMT".to_string()),
        ("X-Content-Type-Options", "nosniff".to_string()),
        ("ETag", conditional::etag(&header.id.to_string())),
    ];
    Ok(Response {
        status: 200,
        headers: headers.into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
        body: Body::Stream(body),
    })
}

/// Writes the blob's bytes as they are inflated.
pub(crate) fn copy(blob: &mut Blob, out: &mut dyn Write) -> io::Result<()> {
    blob.copy_to(&mut |piece| out.write_all(piece))
}

/// B2's JSON before the content: GitLab's key order. Base64 and hex need no JSON escaping.
fn json_head(size: u64) -> String {
    format!("{{\"size\":{size},\"encoding\":\"base64\",\"content\":\"")
}

fn json_tail(id: ObjectId) -> String {
    format!("\",\"sha\":\"{id}\"}}")
}

/// Length of the padded Base64 of `size` bytes.
pub(crate) fn encoded_len(size: u64) -> u64 {
    size.div_ceil(3) * 4
}

/// Writes the blob's strict standard Base64 (padding, no line breaks) piece by piece: whole
/// groups of three bytes as they come, the last one or two padded at the end.
pub(crate) fn write_base64(blob: &mut Blob, out: &mut dyn Write) -> io::Result<()> {
    let engine = &base64::engine::general_purpose::STANDARD;
    let mut pending: Vec<u8> = Vec::with_capacity(BLOB_STREAM_FROM as usize + 2);
    let mut encoded = vec![0u8; base64::encoded_len(BLOB_STREAM_FROM as usize + 2, true).unwrap_or(0)];
    blob.copy_to(&mut |piece| {
        pending.extend_from_slice(piece);
        let whole = pending.len() / 3 * 3;
        let n = engine.encode_slice(&pending[..whole], &mut encoded).map_err(io::Error::other)?;
        out.write_all(&encoded[..n])?;
        pending.drain(..whole);
        Ok(())
    })?;
    let n = engine.encode_slice(&pending, &mut encoded).map_err(io::Error::other)?;
    out.write_all(&encoded[..n])
}

/// Whether the blob is text as [`git::blob::is_text`] answers for its whole content, read
/// piece by piece: it stops at the first NUL among the first 8000 bytes or the first byte that
/// is not UTF-8.
fn is_text(blob: &mut Blob) -> io::Result<bool> {
    let (mut probe, mut ruled_out) = (forgecore_content::TextProbe::default(), false);
    let read = blob.copy_to(&mut |piece| {
        ruled_out = !probe.feed(piece);
        match ruled_out {
            false => Ok(()),
            true => Err(io::Error::other("not text")),
        }
    });
    match read {
        Ok(()) => Ok(probe.is_text()),
        Err(_) if ruled_out => Ok(false),
        Err(e) => Err(e),
    }
}

/// Holds `bytes` of the budget until dropped; none when others hold blobs and this one would
/// pass [`HELD_BUDGET`].
struct Held(usize);

impl Held {
    fn take(bytes: usize) -> Option<Held> {
        if bytes < BLOB_STREAM_FROM as usize {
            return Some(Held(0));
        }
        HELD.fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
            (now == 0 || now.saturating_add(bytes) <= HELD_BUDGET).then(|| now.saturating_add(bytes))
        })
        .ok()
        .map(|_| Held(bytes))
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD.fetch_sub(self.0, Ordering::AcqRel);
    }
}

/// What an answer needs to know of a blob before its first byte.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Wanted {
    /// Whether it is text ([`git::blob::is_text`] on the whole content).
    pub text: bool,
    /// Its SHA-256 (the files API's `content_sha256`).
    pub sha256: bool,
}

/// What a first reading of a blob found, as [`Wanted`] asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Probed {
    pub text: bool,
    /// Lowercase hex.
    pub sha256: Option<String>,
}

/// Reads the blob once (twice for both answers) for what `wanted` asks.
fn probe(blob: &mut Blob, wanted: Wanted) -> io::Result<Probed> {
    let sha256 = if wanted.sha256 {
        let mut hasher = Sha256::new();
        blob.copy_to(&mut |piece| {
            hasher.update(piece);
            Ok(())
        })?;
        Some(hex(&hasher.finalize()))
    } else {
        None
    };
    let text = wanted.text && is_text(blob)?;
    Ok(Probed { text, sha256 })
}

/// Lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What the producing thread tells the request before the first byte.
enum Opened {
    Ready(Probed),
    Unreadable,
    Busy,
}

/// Opens blob `id` on a thread of its own that then runs `write` into a bounded stream:
/// answers whether it is text (when `detect_text`) and the stream, or the blob's 404 when it
/// cannot be opened or read, or a 503 when it would be held past [`HELD_BUDGET`].
pub(crate) fn open_stream<F>(
    git_dir: PathBuf,
    id: ObjectId,
    wanted: Wanted,
    write: F,
) -> ApiResult<(Probed, stream::Reader)>
where
    F: FnOnce(&Probed, &mut Blob, &mut dyn Write) -> io::Result<()> + Send + 'static,
{
    let (opened_tx, opened_rx) = sync_channel(1);
    let reader = stream::spawn("fc-blob", move |out| {
        let Ok(mut blob) = Blob::open(&git_dir, &id) else {
            let _ = opened_tx.send(Opened::Unreadable);
            return Ok(());
        };
        let Some(_held) = Held::take(blob.held()) else {
            let _ = opened_tx.send(Opened::Busy);
            return Ok(());
        };
        let Ok(probed) = probe(&mut blob, wanted) else {
            let _ = opened_tx.send(Opened::Unreadable);
            return Ok(());
        };
        if opened_tx.send(Opened::Ready(probed.clone())).is_err() {
            return Ok(());
        }
        write(&probed, &mut blob, out)
    })
    .map_err(ApiError::internal)?;
    match opened_rx.recv() {
        Ok(Opened::Ready(probed)) => Ok((probed, reader)),
        Ok(Opened::Unreadable) => Err(ApiError::NotFound("Blob")),
        Ok(Opened::Busy) => Err(ApiError::Unavailable(BUSY)),
        Err(_) => Err(ApiError::internal(io::Error::other("the blob's reader stopped before opening it"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_blobs_share_one_budget_and_one_is_always_let_through() {
        let small = Held::take(1000).expect("small blobs are not counted");
        assert_eq!(HELD.load(Ordering::Acquire), 0);
        let huge = Held::take(2 * HELD_BUDGET).expect("alone, a blob over the budget is let through");
        assert!(Held::take(BLOB_STREAM_FROM as usize).is_none(), "no room beside it");
        drop(huge);
        let half = Held::take(HELD_BUDGET / 2).expect("room again");
        let other = Held::take(HELD_BUDGET / 2).expect("the budget is shared");
        assert!(Held::take(BLOB_STREAM_FROM as usize).is_none(), "the budget is spent");
        drop((half, other, small));
        assert_eq!(HELD.load(Ordering::Acquire), 0, "every byte is given back");
    }
}
