//! Arbitrary requests through the HTTP door: the raw target (path, percent-encoding, query),
//! headers and body. Lines of the input: method, target, then `name: value` headers until an
//! empty line, then the body, kept byte for byte (CRLF too), so JSON, form and
//! `multipart/form-data` bodies are all reached (`corpus/request/multipart` starts one).
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.splitn(3, '\n');
    let method = lines.next().unwrap_or("GET");
    let target = lines.next().unwrap_or("/api/v4/version");
    let rest = lines.next().unwrap_or("");
    let (header_text, body) = rest.split_once("\n\n").unwrap_or((rest, ""));
    let mut headers: Vec<(String, String)> = header_text
        .lines()
        .filter_map(|line| line.split_once(": ").map(|(n, v)| (n.to_string(), v.to_string())))
        .collect();
    if headers.iter().any(|(n, v)| n == "auth" && v == "admin") {
        headers.push(("PRIVATE-TOKEN".into(), common::shared().token.clone()));
    }
    common::serve(method, target, headers, body.as_bytes());
});
