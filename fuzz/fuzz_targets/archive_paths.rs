//! Arbitrary `path`, `exclude_paths` and `sha` for a tar archive of a real repository: every
//! answer is below 500, and every member of a produced archive stays under the archive's single
//! top directory: never absolute, never a `..` component, never a `.git` component.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use std::io::Read;

fn encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("%{b:02X}")).collect()
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |b| *b == b'\n');
    let path = parts.next().unwrap_or_default();
    let excludes = parts.next().unwrap_or_default();
    let sha = parts.next().unwrap_or(b"main");
    let target = format!(
        "/api/v4/projects/p/repository/archive.tar?path={}&exclude_paths={}&sha={}",
        encode(path),
        encode(excludes),
        encode(sha)
    );
    let shared = common::shared();
    let response = forgecore::http::handle(&shared.ctx, "GET", &target, Vec::new(), &[]);
    let status = response.status;
    assert!(status < 500, "{target} answered {status}");
    let body = response.into_bytes().expect("the archive stream ends cleanly");
    if status != 200 {
        return;
    }
    let mut archive = tar::Archive::new(&body[..]);
    let mut top: Option<Vec<u8>> = None;
    for entry in archive.entries().expect("a tar") {
        let mut entry = entry.expect("a tar entry");
        let name = entry.path_bytes().into_owned();
        let mut sink = Vec::new();
        entry.read_to_end(&mut sink).expect("entry content");
        if entry.header().entry_type() == tar::EntryType::XGlobalHeader {
            continue;
        }
        assert!(!name.starts_with(b"/"), "absolute member {name:?}");
        let components: Vec<&[u8]> = name.split(|b| *b == b'/').filter(|c| !c.is_empty()).collect();
        assert!(components.iter().all(|c| *c != b".." && *c != b"." && !c.eq_ignore_ascii_case(b".git")), "{name:?}");
        let first = components.first().expect("a named member").to_vec();
        match &top {
            None => top = Some(first),
            Some(top) => assert_eq!(top, &first, "more than one top directory"),
        }
    }
});
