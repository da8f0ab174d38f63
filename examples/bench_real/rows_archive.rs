//! Archive rows, one per format, for the tip (`archive.<format>?sha=<tip>`, so the top
//! directory is `real-<tip>-<tip>`, GitLab's `<project>-<ref>-<sha>`), against `git archive` of
//! the same commit with the same `--prefix`:
//! - tar: byte-identical to `git archive --format=tar`;
//! - tar.gz and tar.bz2: decompressed, byte-identical to that tar; timed against
//!   `git archive --format=tar.gz` and `git archive --format=tar | bzip2` (git has no bzip2);
//! - zip: member for member (name, external attributes, CRC, size, time, data, the archive's
//!   comment) against `git archive --format=zip`, both read with the `zip` crate.
//!
//! `include_lfs_blobs=false`: `git archive` knows nothing of LFS, and the rows compare what
//! both know. The archive cache must give the same bytes (instance.rs). A differing tar is explained by its first differing members (read with the
//! `tar` crate) or, when every member agrees, by the first differing byte.

use crate::git::{quote, Cmd, Git};
use crate::instance::{Instance, PROJECT};
use crate::report::{clip, Check, Report};
use crate::revisions::Revisions;
use crate::rows_blobs::human_bytes;
use std::io::{Cursor, Read};

/// One tar member as a reader sees it (pax extensions applied).
#[derive(PartialEq, Eq)]
struct TarMember {
    name: String,
    kind: u8,
    mode: u32,
    mtime: u64,
    link: Option<String>,
    data: Vec<u8>,
}

impl TarMember {
    fn describe(&self) -> String {
        let data = String::from_utf8_lossy(&self.data[..self.data.len().min(80)]).into_owned();
        format!(
            "type {} mode {:o} mtime {} link {:?} {} bytes {:?}",
            self.kind as char,
            self.mode,
            self.mtime,
            self.link,
            self.data.len(),
            clip(&data, 80)
        )
    }
}

fn tar_members(tar: &[u8]) -> Result<Vec<TarMember>, String> {
    let mut archive = tar::Archive::new(tar);
    let mut members = Vec::new();
    for entry in archive.entries().map_err(|e| format!("not a tar: {e}"))? {
        let mut entry = entry.map_err(|e| format!("a bad tar entry: {e}"))?;
        let header = entry.header();
        if header.entry_type().is_pax_global_extensions() {
            continue;
        }
        let kind = header.entry_type().as_byte();
        let mode = header.mode().map_err(|e| e.to_string())?;
        let mtime = header.mtime().map_err(|e| e.to_string())?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let link = entry.link_name_bytes().map(|l| String::from_utf8_lossy(&l).into_owned());
        let mut data = Vec::new();
        entry.read_to_end(&mut data).map_err(|e| format!("{name}: {e}"))?;
        members.push(TarMember { name, kind, mode, mtime, link, data });
    }
    Ok(members)
}

/// Why two tars differ: their first differing members, or the first differing byte.
fn tar_differences(ours: &[u8], theirs: &[u8]) -> Vec<String> {
    let (a, b) = match (tar_members(ours), tar_members(theirs)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) => return vec![format!("forgecore's tar cannot be read: {e}")],
        (_, Err(e)) => return vec![format!("git's tar cannot be read: {e}")],
    };
    let mut out = Vec::new();
    if a.len() != b.len() {
        out.push(format!("{} members, git has {}", a.len(), b.len()));
    }
    let theirs_by_name: std::collections::HashMap<&str, &TarMember> = b.iter().map(|m| (m.name.as_str(), m)).collect();
    let ours_names: std::collections::HashSet<&str> = a.iter().map(|m| m.name.as_str()).collect();
    for member in &a {
        match theirs_by_name.get(member.name.as_str()) {
            None => out.push(format!("{}: only in forgecore's archive", member.name)),
            Some(theirs) if *theirs != member => out.push(format!(
                "{}: member differs\nforgecore: {}\ngit:       {}",
                member.name,
                member.describe(),
                theirs.describe()
            )),
            Some(_) => {}
        }
    }
    out.extend(
        b.iter().filter(|m| !ours_names.contains(m.name.as_str())).map(|m| format!("{}: only in git's", m.name)),
    );
    let order = |members: &[TarMember]| members.iter().map(|m| m.name.clone()).collect::<Vec<_>>();
    if out.is_empty() && order(&a) != order(&b) {
        out.push("the same members in another order".into());
    }
    if out.is_empty() {
        let at = ours.iter().zip(theirs).position(|(x, y)| x != y).unwrap_or(ours.len().min(theirs.len()));
        out.push(format!(
            "every member agrees, yet the bytes differ from offset {at} (block {}; {} vs {} bytes)",
            at / 512,
            ours.len(),
            theirs.len()
        ));
    }
    out
}

/// One zip member as compared: everything git sets that a reader sees.
#[derive(PartialEq, Eq, Debug)]
struct ZipMember {
    name: String,
    external: u32,
    crc: u32,
    size: u64,
    time: String,
    data: Vec<u8>,
}

fn zip_members(zip: &[u8]) -> Result<(Vec<ZipMember>, Vec<u8>), String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(zip)).map_err(|e| format!("not a zip: {e}"))?;
    let comment = archive.comment().to_vec();
    let mut members = Vec::with_capacity(archive.len());
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).map_err(|e| format!("member {i}: {e}"))?;
        let name = String::from_utf8_lossy(file.name_raw()).into_owned();
        let (external, crc, size) = (file.external_attributes(), file.crc32(), file.size());
        let time = format!("{:?}", file.last_modified());
        let mut data = Vec::new();
        file.read_to_end(&mut data).map_err(|e| format!("{name}: {e}"))?;
        members.push(ZipMember { name, external, crc, size, time, data });
    }
    Ok((members, comment))
}

fn zip_differences(ours: &[u8], theirs: &[u8]) -> Vec<String> {
    let ((a, our_comment), (b, their_comment)) = match (zip_members(ours), zip_members(theirs)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) => return vec![format!("forgecore's zip cannot be read: {e}")],
        (_, Err(e)) => return vec![format!("git's zip cannot be read: {e}")],
    };
    let mut out = Vec::new();
    if our_comment != their_comment {
        out.push(format!(
            "comment {:?}, git's {:?}",
            String::from_utf8_lossy(&our_comment),
            String::from_utf8_lossy(&their_comment)
        ));
    }
    if a.len() != b.len() {
        out.push(format!("{} members, git has {}", a.len(), b.len()));
    }
    for (x, y) in a.iter().zip(&b).filter(|(x, y)| x != y) {
        let show = |m: &ZipMember| {
            format!("{} external {:o} crc {:08x} size {} time {}", m.name, m.external, m.crc, m.size, m.time)
        };
        let data = if x.data == y.data { "same data" } else { "data differs" };
        out.push(format!("member differs ({data})\nforgecore: {}\ngit:       {}", show(x), show(y)));
    }
    out
}

fn gunzip(data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(data).read_to_end(&mut out).map_err(|e| format!("gzip: {e}"))?;
    Ok(out)
}

fn bunzip(data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    bzip2::read::MultiBzDecoder::new(data).read_to_end(&mut out).map_err(|e| format!("bzip2: {e}"))?;
    Ok(out)
}

pub fn rows(report: &mut Report, fx: &Instance, git: &Git, revs: &Revisions) {
    let tip = &revs.tip;
    let prefix = format!("--prefix={PROJECT}-{tip}-{tip}/");
    let archive = |format: &str| git.cmd(&["archive", &format!("--format={format}"), &prefix, tip]);
    let wanted: Vec<&str> =
        ["tar", "tar.gz", "tar.bz2", "zip"].into_iter().filter(|f| report.wants(&format!("archive {f}"))).collect();
    if wanted.is_empty() {
        return;
    }
    let tar = archive("tar").run();
    for format in wanted {
        let target = fx.url(&format!("archive.{format}?sha={tip}&include_lfs_blobs=false"));
        let timed: Cmd = match format {
            "tar.bz2" => git.shell(&format!("git archive --format=tar {} {tip} | bzip2", quote(&prefix))),
            other => archive(other),
        };
        let mut check = Check::new();
        let answer = fx.get(&target);
        if let Some(difference) = fx.cached_differs(&target, &answer) {
            check.mismatch(difference);
        }
        let ours = check.or_mismatch(answer.ok(&target));
        let oracle = if format == "zip" { archive("zip") } else { archive("tar") };
        let reproduce = format!("forgecore: GET {target}\ngit: {oracle}");
        let differences = match (format, &ours, &tar) {
            (_, None, _) => Vec::new(),
            (_, _, Err(e)) => vec![e.clone()],
            ("zip", Some(ours), _) => match archive("zip").run() {
                Ok(theirs) => zip_differences(ours, &theirs),
                Err(e) => vec![e],
            },
            (_, Some(ours), Ok(theirs)) => {
                let unpacked = match format {
                    "tar.gz" => gunzip(ours),
                    "tar.bz2" => bunzip(ours),
                    _ => Ok(ours.clone()),
                };
                match unpacked {
                    Ok(unpacked) if unpacked == *theirs => Vec::new(),
                    Ok(unpacked) => tar_differences(&unpacked, theirs),
                    Err(e) => vec![format!("forgecore's {format} does not decompress: {e}")],
                }
            }
        };
        for difference in differences {
            check.mismatch(format!("archive.{format} at {tip}: {difference}\n{reproduce}"));
        }
        if let Some(ours) = &ours {
            check.note(human_bytes(ours.len() as u64));
        }
        let op = ours.is_some().then_some(|| fx.drain(&target));
        report.row(&format!("archive {format}"), check, op, &timed);
    }
}
