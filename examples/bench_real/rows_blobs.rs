//! Blob rows: a small text file of the tip's root directory (a README when there is one) and
//! the largest blob of the tip, each as JSON (`blobs/:sha`, Base64 content) and raw
//! (`blobs/:sha/raw`), against `git cat-file blob <id>`.
//!
//! The oracle is tests/blobs.rs's: JSON is `{"size", "encoding": "base64", "content", "sha"}`
//! with strict standard Base64 of exactly git's bytes; raw is git's bytes with
//! `Content-Length` and the content type of the text rule (UTF-8 without NUL in the first
//! 8000 bytes is `text/plain; charset=utf-8`).

use crate::git::Git;
use crate::instance::Instance;
use crate::report::{Check, Report, UNTIMED};
use crate::revisions::Revisions;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::json;

/// A blob of the tip's tree: id, path, size.
struct Blob {
    id: String,
    path: String,
    size: u64,
}

/// Every blob of the tip (`git ls-tree -r -l -z`).
fn blobs(git: &Git, tip: &str) -> Result<Vec<Blob>, String> {
    let listing = git.bytes(&["ls-tree", "-r", "-l", "-z", tip])?;
    let mut out = Vec::new();
    for record in listing.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let tab = record.iter().position(|b| *b == b'\t').ok_or("ls-tree: a record without a tab")?;
        let meta = String::from_utf8_lossy(&record[..tab]);
        let fields: Vec<&str> = meta.split_whitespace().collect();
        if fields.get(1) == Some(&"blob") {
            out.push(Blob {
                id: fields[2].to_string(),
                path: String::from_utf8_lossy(&record[tab + 1..]).into_owned(),
                size: fields[3].parse().map_err(|e| format!("ls-tree size {meta}: {e}"))?,
            });
        }
    }
    Ok(out)
}

/// A README at the root, or else the smallest non-empty file there.
fn small_text(all: &[Blob]) -> Option<&Blob> {
    let root: Vec<&Blob> = all.iter().filter(|b| !b.path.contains('/') && b.size > 0).collect();
    ["README.md", "README", "README.rst", "README.txt"]
        .iter()
        .find_map(|name| root.iter().find(|b| b.path == *name).copied())
        .or_else(|| root.iter().find(|b| b.path.starts_with("README")).copied())
        .or_else(|| root.iter().min_by_key(|b| b.size).copied())
}

fn check_json(fx: &Instance, blob: &Blob, bytes: &[u8], command: &str) -> Check {
    let mut check = Check::new();
    let target = fx.url(&format!("blobs/{}", blob.id));
    let Some(value) = check.or_mismatch(fx.get(&target).json(&target)) else { return check };
    let expected =
        json!({"size": bytes.len(), "encoding": "base64", "content": STANDARD.encode(bytes), "sha": blob.id});
    if value != expected {
        let decoded = value["content"].as_str().and_then(|c| STANDARD.decode(c).ok());
        let what = match decoded {
            Some(d) if d == bytes => format!("fields differ: size {} sha {}", value["size"], value["sha"]),
            Some(d) => format!("content differs: {} bytes decoded, git has {}", d.len(), bytes.len()),
            None => "content is not strict Base64".to_string(),
        };
        check.mismatch(format!("{} ({}): {what}\nforgecore: GET {target}\ngit: {command}", blob.path, blob.id));
    }
    check
}

fn check_raw(fx: &Instance, blob: &Blob, bytes: &[u8], command: &str) -> Check {
    let mut check = Check::new();
    let target = fx.url(&format!("blobs/{}/raw", blob.id));
    let answer = fx.get(&target);
    let (length, content_type) =
        (answer.header("Content-Length").map(str::to_string), answer.header("Content-Type").map(str::to_string));
    let Some(body) = check.or_mismatch(answer.ok(&target)) else { return check };
    let reproduce = format!("{} ({})\nforgecore: GET {target}\ngit: {command}", blob.path, blob.id);
    if body != bytes {
        let at = body.iter().zip(bytes).position(|(a, b)| a != b).unwrap_or(body.len().min(bytes.len()));
        check.mismatch(format!("bytes differ from offset {at} ({} vs {} bytes): {reproduce}", body.len(), bytes.len()));
    }
    if length.as_deref() != Some(bytes.len().to_string().as_str()) {
        check.mismatch(format!("Content-Length {length:?}, git has {} bytes: {reproduce}", bytes.len()));
    }
    let text = !bytes[..bytes.len().min(8000)].contains(&0) && std::str::from_utf8(bytes).is_ok();
    let expected_type = if text { "text/plain; charset=utf-8" } else { "application/octet-stream" };
    if content_type.as_deref() != Some(expected_type) {
        check.mismatch(format!("Content-Type {content_type:?}, expected {expected_type}: {reproduce}"));
    }
    check
}

pub fn rows(report: &mut Report, fx: &Instance, git: &Git, revs: &Revisions) {
    let all = match blobs(git, &revs.tip) {
        Ok(all) => all,
        Err(e) => {
            let mut check = Check::new();
            check.mismatch(e);
            report.row("blobs", check, UNTIMED, &git.cmd(&["ls-tree", "-r", "-l", &revs.tip]));
            return;
        }
    };
    let small = small_text(&all);
    let largest = all.iter().max_by_key(|b| b.size);
    for (label, blob) in [("small text file", small), ("largest blob", largest)] {
        let Some(blob) = blob else { continue };
        let size = human_bytes(blob.size);
        let json_name = format!("blob JSON, {label} {} ({size})", blob.path);
        let raw_name = format!("raw blob, {label} {} ({size})", blob.path);
        if !report.wants(&json_name) && !report.wants(&raw_name) {
            continue;
        }
        let command = git.cmd(&["cat-file", "blob", &blob.id]);
        let bytes = match command.run() {
            Ok(bytes) => bytes,
            Err(e) => {
                let mut check = Check::new();
                check.mismatch(e);
                report.row(&raw_name, check, UNTIMED, &command);
                continue;
            }
        };
        if report.wants(&json_name) {
            let check = check_json(fx, blob, &bytes, &command.to_string());
            let target = fx.url(&format!("blobs/{}", blob.id));
            report.row(&json_name, check, Some(|| fx.drain(&target)), &command);
        }
        if report.wants(&raw_name) {
            let check = check_raw(fx, blob, &bytes, &command.to_string());
            let target = fx.url(&format!("blobs/{}/raw", blob.id));
            report.row(&raw_name, check, Some(|| fx.drain(&target)), &command);
        }
    }
}

/// A size in B, KiB or MiB.
pub fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1 << 20 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
    }
}
