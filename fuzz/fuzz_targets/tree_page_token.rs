//! Arbitrary keyset `page_token`s (and page sizes) on a real repository's tree.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (per_page, token) = match data.split_first() {
        Some((first, rest)) => (i64::from(*first) - 8, rest),
        None => (1, data),
    };
    let encoded: String = token.iter().map(|b| format!("%{b:02X}")).collect();
    for recursive in ["true", "false"] {
        let target = format!(
            "/api/v4/projects/p/repository/tree?pagination=keyset&recursive={recursive}&per_page={per_page}&page_token={encoded}"
        );
        common::serve("GET", &target, Vec::new(), &[]);
    }
});
