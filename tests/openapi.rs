//! `openapi.yaml` documents exactly the routes the core serves.
//!
//! The document is written in a fixed style (paths at two spaces, methods at four), so a line
//! scan reads it without a YAML parser.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

use std::collections::BTreeSet;

fn documented() -> BTreeSet<(String, String)> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.yaml")).unwrap();
    let mut found = BTreeSet::new();
    let mut in_paths = false;
    let mut path = String::new();
    for line in text.lines() {
        if !line.starts_with(' ') {
            in_paths = line == "paths:";
            continue;
        }
        if !in_paths {
            continue;
        }
        if let Some(p) = line.strip_prefix("  /").and_then(|rest| rest.strip_suffix(':')) {
            path = format!("/{p}");
        } else if let Some(method) = line.strip_prefix("    ").and_then(|rest| rest.strip_suffix(':')) {
            if ["get", "post", "put", "delete", "patch"].contains(&method) {
                found.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    found
}

fn served() -> BTreeSet<(String, String)> {
    forgecore::http::router::ROUTES
        .iter()
        .map(|route| {
            // `:name` in the table, `{name}` in OpenAPI.
            let path = route
                .pattern
                .split('/')
                .map(|part| match part.split_once(':') {
                    Some((prefix, name)) => format!("{prefix}{{{name}}}"),
                    None => part.to_string(),
                })
                .collect::<Vec<_>>()
                .join("/");
            (route.method.to_string(), path)
        })
        .collect()
}

#[test]
fn the_document_and_the_router_list_the_same_endpoints() {
    let (documented, served) = (documented(), served());
    assert!(documented.len() >= 20, "the scan found too little: {documented:?}");
    assert_eq!(
        documented.difference(&served).collect::<Vec<_>>(),
        Vec::<&(String, String)>::new(),
        "documented but not served"
    );
    assert_eq!(
        served.difference(&documented).collect::<Vec<_>>(),
        Vec::<&(String, String)>::new(),
        "served but not documented"
    );
}
